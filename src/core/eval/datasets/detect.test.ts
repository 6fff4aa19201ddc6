import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sharedDatasetPath } from '../../../../test/glove';
import { musiqueSet } from '../../../../bench/quality/items';
import { parseBenchmarkFile } from './detect';
import type { BenchmarkItem, BenchmarkParse } from './types';

const read = (...p: string[]) => readFileSync(sharedDatasetPath(...p), 'utf8');

function ok(r: BenchmarkParse) {
  if (!r.ok) throw new Error(r.error);
  return r.value;
}
const goldTexts = (item: BenchmarkItem) =>
  item.gold.map((g) => item.document.slice(g.start, g.end));

describe('parseBenchmarkFile on the shared data sets (read in place)', () => {
  it('L-Eval QuALITY: the format, counts and a located gold passage', () => {
    const b = ok(parseBenchmarkFile('quality.jsonl', read('leval', 'quality.jsonl')));
    expect(b.format).toBe('leval');
    expect(b.documents).toBe(15);
    // Every QuALITY question has a gold text; they all stay (answer-in-context), 152 unlocated.
    expect(b.items).toHaveLength(202);
    expect(b.unlocated).toBe(152);
    const first = b.items[0];
    expect(first.id).toBe('quality:0:0');
    expect(first.question).not.toMatch(/\(A\)/);
    expect(first.prompt).toMatch(/\(A\)/);
    expect(first.answerLetter).toMatch(/^[A-D]$/);
    for (const item of b.items.filter((i) => i.gold.length > 0).slice(0, 10)) {
      expect(goldTexts(item)[0].length).toBeGreaterThan(0);
    }
  });

  it('L-Eval SFiction measures no answer-in-context; bytes parse as text', () => {
    const bytes = new TextEncoder().encode(read('leval', 'sci_fi.jsonl'));
    const b = ok(parseBenchmarkFile('sci_fi.jsonl', bytes));
    expect(b.items.every((i) => i.answerText === null && i.gold.length === 1)).toBe(true);
    expect(b.items.every((i) => i.group === 'sfiction')).toBe(true);
  });

  it('HotpotQA gold sample: supporting sentences, paragraphs as fixed fragments, seeded order', () => {
    const text = read('hotpotqa_dev_gold_sample100', 'camera_ready_nd8_dev_sample100.json');
    const b = ok(parseBenchmarkFile('camera_ready_nd8_dev_sample100.json', text));
    expect(b.format).toBe('hotpotqa');
    expect(b.items).toHaveLength(100);
    const raw = JSON.parse(text) as {
      para_a: string[];
      para_b: string[];
      supporting_facts: number[][];
    }[];
    const item = b.items[0];
    expect(goldTexts(item)).toEqual(
      expect.arrayContaining([
        ...raw[0].supporting_facts[0].map((k) => raw[0].para_a[k]),
        ...raw[0].supporting_facts[1].map((k) => raw[0].para_b[k]),
      ]),
    );
    expect(item.fixedFragments).toHaveLength(10);
    // Gold paragraphs are not always the first two fragments.
    const firstGoldFragment = b.items.map((i) =>
      i.fixedFragments!.findIndex((f) => f.start <= i.gold[0].start && i.gold[0].end <= f.end),
    );
    expect(new Set(firstGoldFragment).size).toBeGreaterThan(3);
    expect(ok(parseBenchmarkFile('h.json', text)).items[5]).toEqual(b.items[5]);
  });

  it('MuSiQue: the same documents and gold as the benchmark harness lays out', () => {
    const file = sharedDatasetPath('hipporag_multihop_train100', 'musique_train.json');
    const b = ok(parseBenchmarkFile('musique_train.json', readFileSync(file, 'utf8')));
    expect(b.format).toBe('musique');
    const bench = musiqueSet(file);
    expect(b.items.map((i) => i.id)).toEqual(bench.questions.map((q) => q.id));
    b.items.forEach((item, k) => {
      expect(item.document).toBe(bench.questions[k].document.source);
      expect(item.fixedFragments).toEqual(bench.questions[k].document.fixed);
      expect(item.gold).toEqual(bench.questions[k].gold);
    });
  });

  it('MTBench+: past human turns as fragments, the referred topic’s turns as gold', () => {
    const b = ok(parseBenchmarkFile('mtbenchplus.json', read('mtbenchplus', 'mtbenchplus.json')));
    expect(b.format).toBe('mtbenchplus');
    expect(b.items).toHaveLength(27);
    const raw = JSON.parse(read('mtbenchplus', 'mtbenchplus.json')) as {
      conversations: { from: string; value: string; 'turn-info'?: string }[];
    }[];
    const humans = raw[0].conversations.filter((c) => c.from === 'human');
    const item = b.items[0];
    expect(item.question).toBe(humans.at(-1)!.value);
    expect(goldTexts(item)).toEqual(
      humans
        .filter((h) => h['turn-info']?.startsWith('roleplay-95-') && !h['turn-info'].endsWith('-Q'))
        .map((h) => h.value),
    );
    expect(item.fixedFragments!.map((f) => item.document.slice(f.start, f.end))).toEqual(
      humans.slice(0, -1).map((h) => h.value),
    );
  });

  it('RepoEval: needs its repository files, then one document per target file', () => {
    const tasks = read(
      'repoeval_function_level',
      'function_level_completion_2k_context_codex.test.jsonl',
    );
    const alone = parseBenchmarkFile('tasks.jsonl', tasks);
    expect(alone.ok).toBe(false);
    if (!alone.ok) expect(alone.error).toMatch(/repo_files\.jsonl/);
    const files = {
      name: 'repo_files.jsonl',
      text: read('repoeval_function_level', 'repo_files.jsonl'),
    };
    const b = ok(parseBenchmarkFile('tasks.jsonl', tasks, [files]));
    expect(b.format).toBe('repoeval');
    expect(b.items).toHaveLength(213);
    const item = b.items[0];
    expect(item.answers[0]).toContain('register_class');
    const prompt = (JSON.parse(tasks.split('\n')[0]) as { prompt: string }).prompt;
    expect(item.question.split('\n').length).toBeLessThanOrEqual(20);
    expect(prompt.endsWith(item.question)).toBe(true);
    // The target file is not in its own document; other files are.
    expect(item.document).not.toContain('# file: trlx/pipeline/__init__.py\n');
    expect(item.document).toContain('# file: trlx/trlx.py\n');
    const repoFilesAlone = parseBenchmarkFile('repo_files.jsonl', files.text);
    expect(!repoFilesAlone.ok && repoFilesAlone.error).toMatch(/together with the RepoEval tasks/);
  });
});

describe('parseBenchmarkFile on small written files', () => {
  const doc =
    'The ship left port at dawn. Nobody knew the captain. He had served on the Pequod for years. The whale was white.';

  it('LongBench JSONL: gold located from the answers', () => {
    const line = (id: string, input: string, answers: string[]) =>
      JSON.stringify({ _id: id, input, context: doc, answers, dataset: 'narrativeqa', length: 20 });
    const b = ok(
      parseBenchmarkFile(
        'lb.jsonl',
        [line('a', 'Where had he served?', ['on the Pequod']), line('b', 'Was it?', ['yes'])].join(
          '\n',
        ),
      ),
    );
    expect(b.format).toBe('longbench');
    expect(b.items).toHaveLength(1);
    expect(b.skipped).toBe(1);
    expect(b.documents).toBe(1);
    expect(goldTexts(b.items[0])[0]).toContain('Pequod');
    expect(b.items[0].group).toBe('narrativeqa');
  });

  it('simple JSONL: verbatim gold passages; a passage not in the document is named', () => {
    const b = ok(
      parseBenchmarkFile(
        'mine.jsonl',
        JSON.stringify({
          id: 7,
          document: doc,
          question: 'Who?',
          answers: ['Ahab'],
          gold_passages: ['Nobody knew the captain.'],
        }),
      ),
    );
    expect(b.format).toBe('simple');
    expect(b.items[0].id).toBe('simple:7');
    expect(goldTexts(b.items[0])).toEqual(['Nobody knew the captain.']);
    const bad = parseBenchmarkFile(
      'mine.jsonl',
      JSON.stringify({ document: doc, question: 'Who?', gold_passages: ['Not there.'] }),
    );
    expect(!bad.ok && bad.error).toMatch(/Line 1: gold passage "Not there\." does not occur/);
  });

  it('HotpotQA distractor layout: supporting facts by title, order kept', () => {
    const b = ok(
      parseBenchmarkFile(
        'hp.json',
        JSON.stringify([
          {
            _id: 'x',
            question: 'q?',
            answer: 'Paris',
            type: 'bridge',
            context: [
              ['A', ['One.', 'Two.']],
              ['B', ['Three.', 'Four is Paris.']],
            ],
            supporting_facts: [['B', 1]],
          },
        ]),
      ),
    );
    expect(goldTexts(b.items[0])).toEqual(['Four is Paris.']);
    expect(b.items[0].document).toBe('A\nOne. Two.\n\nB\nThree. Four is Paris.');
  });

  it('malformed files get a message naming what was expected, never a half parse', () => {
    const cases: [string, string, RegExp][] = [
      ['empty.jsonl', '  \n', /is empty\. Expected one of: L-Eval JSONL/],
      ['notes.txt', 'just some prose', /line 1: not JSON\. Expected one of/],
      [
        'other.jsonl',
        '{"a": 1}\n{"b": 2}',
        /no known benchmark format\. Expected one of: L-Eval JSONL .*simple JSONL/,
      ],
      ['arr.json', '[{"x": 1}]', /JSON array of records in no known format/],
      ['broken.json', '[{"x": 1}', /not valid JSON/],
      [
        'quality.jsonl',
        '{"input": "t", "instructions": ["q"], "outputs": ["a"]}\n{"input": 3}',
        /Line 2 is not an L-Eval record/,
      ],
      [
        'lb.jsonl',
        '{"input": "q", "context": "c", "answers": "a"}',
        /Record 1 is not a LongBench record/,
      ],
      [
        'hp.json',
        '[{"question": "q", "answer": "a", "para_a": [], "supporting_facts": [[0]]}]',
        /Item 1 is not a HotpotQA record/,
      ],
      ['mt.json', '[{"conversations": "none"}]', /Dialog 1 is not an MTBench\+ dialog/],
      ['s.jsonl', '{"document": "d", "question": "q"}', /nothing to score/],
    ];
    const binary = parseBenchmarkFile('x.bin', Uint8Array.from([0xff, 0xfe, 0x00, 0x41]));
    expect(!binary.ok && binary.error).toMatch(/not UTF-8 text/);
    for (const [name, text, message] of cases) {
      const r = parseBenchmarkFile(name, text);
      expect(r.ok, name).toBe(false);
      if (!r.ok) expect(r.error, name).toMatch(message);
    }
  });
});
