import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sharedDatasetPath } from '../../../test/glove';
import { parseLevalJsonl } from '../eval/datasets/leval';
import { parseBenchmarkFile } from '../eval/datasets/detect';
import type { CompanionFile, ParsedBenchmark } from '../eval/datasets/types';
import { labelledQuestions, labelledQuestionsFrom, matchRecord, recordOverlap } from './labels';

const FILE = sharedDatasetPath('leval', 'quality.jsonl');

describe('tuning on labels from an L-Eval file', () => {
  const parsed = parseLevalJsonl(readFileSync(FILE, 'utf8'), 'quality');
  if (!parsed.ok) throw new Error(parsed.error);
  const records = parsed.value;

  it('finds the record of a document even re-wrapped, and none for another text', () => {
    const rewrapped = records[3].text.replace(/ /g, '\n').replace(/\n\n/g, '\r\n\r\n');
    expect(matchRecord(rewrapped, records)).toBe(records[3]);
    expect(recordOverlap(records[3].text, records[4].text)).toBeLessThan(0.1);
    expect(
      matchRecord('A different story about a lighthouse keeper. '.repeat(50), records),
    ).toBeNull();
  });

  it('locates the gold of the record’s questions in the document’s own text', () => {
    const text = records[0].text;
    const { questions, unlocated } = labelledQuestions(text, records[0]);
    expect(questions.length + unlocated).toBe(records[0].questions.length);
    expect(questions.length).toBeGreaterThan(0);
    for (const q of questions) {
      expect(q.query.length).toBeGreaterThan(0);
      expect(q.query).not.toMatch(/\(A\)/); // the stem, without its options
      expect(q.gold[0].end).toBeGreaterThan(q.gold[0].start);
      expect(q.gold[0].end).toBeLessThanOrEqual(text.length);
    }
  });
});

describe('tuning on labels from every format with gold (real files)', () => {
  const read = (dir: string, name: string) => {
    const path = sharedDatasetPath(dir, name);
    return readFileSync(path, 'utf8');
  };
  const parse = (name: string, text: string, companions: CompanionFile[] = []) => {
    const parsed = parseBenchmarkFile(name, text, companions);
    if (!parsed.ok) throw new Error(parsed.error);
    return parsed.value;
  };
  /** Every labelled question's gold spans hold the text of the file's gold passages. */
  const expectCarried = (text: string, benchmark: ParsedBenchmark, documentId: string) => {
    const result = labelledQuestionsFrom(text, benchmark, 'f', 'd');
    if (!result.ok) throw new Error(result.error);
    const items = benchmark.items.filter((i) => i.documentId === documentId && i.gold.length);
    expect(result.questions.length + result.unlocated).toBe(items.length);
    expect(result.questions.length).toBeGreaterThan(0);
    const squash = (s: string) => s.replace(/\s+/g, ' ').trim();
    for (const q of result.questions) {
      const item = items.find((i) => i.question === q.query)!;
      expect(q.gold.map((g) => squash(text.slice(g.start, g.end)))).toEqual(
        item.gold.map((g) => squash(item.document.slice(g.start, g.end))),
      );
    }
    return result;
  };

  const hotpot = read('hotpotqa_dev_gold_sample100', 'camera_ready_nd8_dev_sample100.json');
  it('HotpotQA: the supporting sentences of a re-wrapped document', () => {
    const b = parse('camera_ready_nd8_dev_sample100.json', hotpot);
    const item = b.items[5];
    const rewrapped = item.document.replace(/ /g, '\n');
    const r = expectCarried(rewrapped, b, item.documentId);
    expect(r.questions[0].gold.length).toBeGreaterThanOrEqual(2);
  });

  const musique = read('hipporag_multihop_train100', 'musique_train.json');
  it('MuSiQue / HippoRAG: the supporting paragraphs', () => {
    const b = parse('musique_train.json', musique);
    expectCarried(b.items[2].document, b, b.items[2].documentId);
  });

  const mtbench = read('mtbenchplus', 'mtbenchplus.json');
  it('MTBench+: the turns of the topic a question refers to', () => {
    const b = parse('mtbenchplus.json', mtbench);
    const item = b.items.find((i) => i.gold.length > 0)!;
    expectCarried(item.document, b, item.documentId);
  });

  const quality = read('leval', 'quality.jsonl');
  it('L-Eval through the same path, and no match for another document', () => {
    const b = parse('quality.jsonl', quality);
    expectCarried(b.items[0].document.replace(/ /g, '\n'), b, b.items[0].documentId);
    const other = labelledQuestionsFrom(
      'A lighthouse keeper and his dog. '.repeat(80),
      b,
      'quality.jsonl',
      'Lighthouse',
    );
    expect(other).toEqual({
      ok: false,
      error: expect.stringMatching(
        /None of the \d+ documents with gold passages in “quality.jsonl” is “Lighthouse”/,
      ),
    });
  });

  it('the simple JSONL: its verbatim gold passages; LongBench: gold located from the answers', () => {
    const document =
      'Marta walked to the old mill. She hid the silver key under the blue stone. Then she went home to her brother. The mill burned down in the winter.';
    const simple = parse(
      'mine.jsonl',
      JSON.stringify({
        id: 'q1',
        document,
        question: 'Where did Marta hide the key?',
        answers: ['under the blue stone'],
        gold_passages: ['She hid the silver key under the blue stone.'],
      }),
    );
    const r = expectCarried(
      `  ${document.replace(/\. /g, '.\n\n')}`,
      simple,
      simple.items[0].documentId,
    );
    expect(r.questions[0].query).toBe('Where did Marta hide the key?');
    const longbench = parse(
      'lb.jsonl',
      JSON.stringify({
        _id: 'a',
        input: 'What burned down?',
        context: document,
        answers: ['the mill burned down'],
        dataset: 'narrativeqa',
        length: 30,
      }),
    );
    expectCarried(document, longbench, longbench.items[0].documentId);
  });

  const repoTasks = read(
    'repoeval_function_level',
    'function_level_completion_2k_context_codex.test.jsonl',
  );
  const repoFiles = read('repoeval_function_level', 'repo_files.jsonl');
  it('RepoEval (no gold passage): a message that says so', () => {
    const b = parse('function_level_completion_2k_context_codex.test.jsonl', repoTasks, [
      { name: 'repo_files.jsonl', text: repoFiles },
    ]);
    const r = labelledQuestionsFrom(b.items[0].document, b, 'tasks.jsonl', 'repo');
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toMatch(/“tasks.jsonl” \(RepoEval.*\) holds no gold passages/);
  });
});
