import { describe, expect, it } from 'vitest';
import { fakeLlm, libraryOf, overlapped, testSignal, type FakeLlmOptions } from '../testing';
import type { PipelineLibrary } from '../types';
import { rankBy } from '../library';
import { filterVerdicts, parseFilterReply } from './filter';
import {
  defaultLongRagSettings,
  longragPipeline,
  type LongRagMode,
  type LongRagSettings,
} from './index';
import { mapToParagraphs, paragraphsOf } from './mapping';

const QUESTION = 'Where did the rabbit hide the golden watch?';
// Twelve paragraphs; the first eight mention question words, in decreasing number.
const PARAGRAPHS = [
  'The rabbit hid the golden watch under the old oak.',
  'The rabbit hid the watch in a hole.',
  'The golden watch was lost by the rabbit.',
  'A rabbit ran past with a watch.',
  'Where is the watch, she asked.',
  'The rabbit was late.',
  'Golden light fell on the field.',
  'Alice hid behind a tree.',
  'Nothing happened for a while.',
  'The queen shouted.',
  'Tea was served at six.',
  'The end of the day came.',
];

function book(): PipelineLibrary {
  return libraryOf([{ name: 'alice.txt', text: PARAGRAPHS.join('\n\n') }], QUESTION);
}

const FILTERS = [
  '{"status":"True"}', // kept (JSON)
  '{"status": true}', // kept: not a string, the text has "true"
  '{"status":"False"}', // dropped
  'I think this is true, it matters.', // kept by the text fallback
  '', // dropped
  'null', // dropped
  '{"status":"false"}', // dropped
];

const script = (filters: string[] = FILTERS): FakeLlmOptions['script'] => ({
  'longrag.extractor': 'The watch is under the old oak.',
  'longrag.cot': 'The rabbit hid it; the first passages say where.',
  'longrag.filter': filters,
  'longrag.generator': 'Under the old oak [1].',
});

async function run(
  mode: LongRagMode,
  options: FakeLlmOptions = {},
  settings: Partial<LongRagSettings> = {},
  library = book(),
) {
  const llm = fakeLlm({ script: script(), concurrency: 4, ...options });
  const out = await longragPipeline({
    question: QUESTION,
    library,
    llm,
    settings: { ...defaultLongRagSettings, mode, ...settings },
    signal: testSignal().signal,
    clock: llm.clock,
  });
  return { llm, out };
}

describe('parseFilterReply (PIPELINES.md 2.8)', () => {
  it('follows the official parsing and fallbacks', () => {
    expect(parseFilterReply('{"status":"True"}')).toEqual({ keep: true, how: 'json' });
    expect(parseFilterReply('{"status": "TRUE"}')).toEqual({ keep: true, how: 'json' });
    expect(parseFilterReply('{"status": true}')).toEqual({ keep: true, how: 'text' });
    expect(parseFilterReply('{"status":"False"}')).toEqual({ keep: false, how: 'json' });
    expect(parseFilterReply('The article is relevant, so true.')).toEqual({
      keep: true,
      how: 'text',
    });
    expect(parseFilterReply('not True')).toEqual({ keep: true, how: 'text' });
    expect(parseFilterReply('untrue')).toEqual({ keep: true, how: 'text' });
    expect(parseFilterReply('')).toEqual({ keep: false, how: 'text' });
    expect(parseFilterReply('null')).toEqual({ keep: false, how: 'text' });
    expect(parseFilterReply('{"verdict":"True"}')).toEqual({ keep: true, how: 'text' });
    expect(parseFilterReply('{"verdict":"yes"}')).toEqual({ keep: false, how: 'text' });
  });
  it('keeps all when none is kept', () => {
    expect(filterVerdicts(['{"status":"False"}', ''])).toEqual({
      parses: [
        { keep: false, how: 'json' },
        { keep: false, how: 'text' },
      ],
      kept: [true, true],
      allKeptAsFallback: true,
    });
  });
});

describe('mapToParagraphs', () => {
  const count = async (t: string) => t.split(/\s+/).filter(Boolean).length;
  it('de-duplicates in rerank order; a long paragraph is replaced by its chunk', async () => {
    const library = book();
    const paragraphs = paragraphsOf(library, 3);
    // Fragments 0-2 form one paragraph, 3-5 the next.
    expect(paragraphs.get(0)!.fragments).toEqual([0, 1, 2]);
    expect(paragraphs.get(4)!.fragments).toEqual([3, 4, 5]);
    const mapping = await mapToParagraphs(library, [4, 1, 5, 0, 9], paragraphs, 1000, count);
    expect(mapping.items.map((m) => [m.hit, m.paragraph?.fragments])).toEqual([
      [4, [3, 4, 5]],
      [1, [0, 1, 2]],
      [9, [9, 10, 11]],
    ]);
    expect(mapping.duplicates).toEqual([
      { hit: 5, sameAs: 4 },
      { hit: 0, sameAs: 1 },
    ]);
    // Threshold 10 tokens: the 3-fragment paragraph (17 words) is too long.
    const short = await mapToParagraphs(library, [4, 5], paragraphs, 10, count);
    expect(short.items.map((m) => [m.hit, m.paragraph, m.text])).toEqual([
      [4, null, PARAGRAPHS[4]],
      [5, null, PARAGRAPHS[5]],
    ]);
  });
  it('maps a code window to its whole file', () => {
    const text = 'a\nb\nc\nd\ne\nf';
    const library: PipelineLibrary = {
      documents: [{ docId: 'r', name: 'repo', kind: 'code', text }],
      fragments: [
        { index: 0, docId: 'r', ordinal: 0, start: 0, end: 3, label: 'x.py:1-2' },
        { index: 1, docId: 'r', ordinal: 1, start: 2, end: 5, label: 'x.py:2-3' },
        { index: 2, docId: 'r', ordinal: 2, start: 6, end: 11, label: 'y.py:1-3' },
      ],
      independent: new Float64Array(3),
      scorer: 'test',
    };
    const p = paragraphsOf(library, 3);
    expect(p.get(1)).toMatchObject({ fragments: [0, 1], start: 0, end: 5, label: 'x.py' });
    expect(p.get(2)!.fragments).toEqual([2]);
  });
});

describe('longragPipeline', () => {
  it('E&F makes k + 3 calls: the extractor runs beside the CoT, the filters after the CoT', async () => {
    const { llm, out } = await run('E&F');
    expect(out.status).toBe('done');
    expect(llm.calls).toHaveLength(7 + 3);
    const byTag = (t: string) => llm.calls.filter((c) => c.tag === t);
    const [cot] = byTag('longrag.cot');
    const [extractor] = byTag('longrag.extractor');
    const [generator] = byTag('longrag.generator');
    expect(overlapped(extractor, cot)).toBe(true);
    for (const f of byTag('longrag.filter')) {
      expect(f.start).toBeGreaterThanOrEqual(cot.end!);
      expect(f.prompt).toContain(script()!['longrag.cot'] as string);
      expect(generator.start).toBeGreaterThanOrEqual(f.end!);
    }
    expect(generator.start).toBeGreaterThanOrEqual(extractor.end!);
    expect(llm.maxConcurrent).toBeLessThanOrEqual(4);
    // I_d (kept chunks: filters 0, 1, 3 keep) then I_g.
    const kept = out.trace.items.filter(
      (i) => i.stepId === 'longrag.filter' && i.verdict === 'kept',
    );
    expect(kept.map((i) => i.rank)).toEqual([0, 1, 3]);
    expect(out.citations.map((c) => c.index)).toEqual(kept.map((i) => i.fragments![0]));
    const g = generator.prompt;
    expect(g.indexOf(PARAGRAPHS[0])).toBeGreaterThan(0);
    expect(g.indexOf('Background information')).toBeGreaterThan(g.lastIndexOf('[3] ('));
    expect(g).not.toContain('[4] (');
    expect(out.answer).toBe('Under the old oak [1].');
    // The critical path: CoT, one filter, the generator.
    expect(out.trace.criticalPath.calls.map((id) => out.trace.calls[id].tag)).toEqual([
      'longrag.cot',
      'longrag.filter',
      'longrag.generator',
    ]);
    // Parsing is written into the trace.
    expect(
      out.trace.calls.find((c) => c.tag === 'longrag.filter' && c.tagIndex === 1)!.parse,
    ).toMatch(/not valid JSON/);
  });

  it('call counts per mode (PIPELINES.md 2.5)', async () => {
    const expected: Record<LongRagMode, number> = { 'R&B': 1, 'R&L': 1, Ext: 2, Fil: 9, 'E&F': 10 };
    for (const mode of Object.keys(expected) as LongRagMode[]) {
      const { llm, out } = await run(mode);
      expect(out.status, mode).toBe('done');
      expect(llm.calls.length, mode).toBe(expected[mode]);
    }
  });

  it('R&B gives the reranked chunks; R&L the mapped paragraphs; Fil only the kept chunks', async () => {
    const rb = (await run('R&B')).llm.calls[0].prompt;
    expect(rb).toContain('[7] (');
    expect(rb).not.toContain('Background information');
    const rl = (await run('R&L')).llm.calls[0].prompt;
    // Paragraph blocks of three fragments, so fragment 2's block also brings fragments 0 and 1.
    expect(rl).toContain(`${PARAGRAPHS[0]}\n\n${PARAGRAPHS[1]}\n\n${PARAGRAPHS[2]}`);
    const fil = (await run('Fil')).llm.calls.at(-1)!.prompt;
    expect(fil).toContain('[3] (');
    expect(fil).not.toContain('[4] (');
  });

  it('with no chunk kept by the filter, all k go to the generator', async () => {
    const { llm, out } = await run('Fil', { script: script(Array(7).fill('{"status":"False"}')) });
    expect(out.status).toBe('done');
    expect(llm.calls.at(-1)!.prompt).toContain('[7] (');
    expect(out.trace.steps.find((s) => s.id === 'longrag.filter')!.notes.join(' ')).toMatch(
      /all are kept/,
    );
  });

  it('honours the concurrency limit', async () => {
    expect((await run('E&F', { concurrency: 2 })).llm.maxConcurrent).toBe(2);
    const one = await run('E&F', { concurrency: 1 });
    expect(one.llm.maxConcurrent).toBe(1);
    expect(one.out.status).toBe('done');
  });

  it('without a cross-encoder ranks by s_ind and says so; with one, follows its scores', async () => {
    const plain = await run('R&B');
    expect(plain.out.trace.steps.find((s) => s.id === 'longrag.rerank')!.notes[0]).toMatch(
      /No cross-encoder/,
    );
    const llm = fakeLlm({ script: script() });
    const out = await longragPipeline({
      question: QUESTION,
      library: book(),
      llm,
      // Prefers later paragraphs.
      reranker: {
        name: 'test cross-encoder',
        score: async (_q, texts) => Float64Array.from(texts.map((_, i) => i)),
      },
      settings: { ...defaultLongRagSettings, mode: 'R&B', topK1: 5, topK2: 2 },
      signal: testSignal().signal,
    });
    const ranked = out.trace.items.filter(
      (i) => i.stepId === 'longrag.rerank' && i.verdict === 'kept',
    );
    // The reranker puts the 5th and 4th candidates by s_ind first.
    const candidates = rankBy(book().independent).slice(0, 5);
    expect(ranked.map((i) => i.fragments![0])).toEqual([candidates[4], candidates[3]]);
    expect(out.citations.map((c) => c.index)).toEqual([candidates[4], candidates[3]]);
  });

  it('Stop mid-run stops every call in flight and makes no new one', async () => {
    const stop = testSignal();
    const llm = fakeLlm({
      script: script(),
      concurrency: 3,
      ticks: (c) => {
        if (c.tag === 'longrag.filter' && c.tagIndex === 1) stop.abort();
        return 4;
      },
    });
    const out = await longragPipeline({
      question: QUESTION,
      library: book(),
      llm,
      settings: defaultLongRagSettings,
      signal: stop.signal,
      clock: llm.clock,
    });
    expect(out.status).toBe('stopped');
    expect(llm.calls.some((c) => c.tag === 'longrag.generator')).toBe(false);
    const filters = llm.calls.filter((c) => c.tag === 'longrag.filter');
    expect(filters.length).toBeLessThan(7);
    for (const c of filters) expect(c.aborted).toBe(true);
    expect(
      out.trace.calls
        .filter((c) => c.tag === 'longrag.filter')
        .every((c) => c.status === 'stopped'),
    ).toBe(true);
  });

  it('an API error mid-run is a value; what was done stays in the trace', async () => {
    const { out } = await run('E&F', {
      script: {
        ...script(),
        'longrag.filter': [
          '{"status":"True"}',
          { error: { code: 'rate-limit', message: 'Too many requests.', retryAfterSeconds: 3 } },
        ],
      },
    });
    expect(out.status).toBe('error');
    expect(out.error).toMatchObject({ code: 'rate-limit', retryAfterSeconds: 3 });
    expect(out.trace.calls.find((c) => c.tag === 'longrag.cot')!.status).toBe('ok');
    expect(out.trace.items.some((i) => i.stepId === 'longrag.rerank')).toBe(true);
  });

  it('adapts its sizes to a small window and packs within it', async () => {
    const { llm, out } = await run('E&F', { contextLimit: 2048 });
    expect(out.trace.sizes.find((s) => s.name === 'CoT output')!.value).toBe(512);
    expect(out.trace.sizes.find((s) => s.name === 'extractor output')!.value).toBe(256);
    for (const c of llm.calls)
      expect(c.prompt.split(/\s+/).length + c.maxTokens + 50).toBeLessThanOrEqual(2048);
  });
});
