import { describe, expect, it } from 'vitest';
import { defaultFragRelPipelineSettings, fragrelPipeline } from '../pipelines/fragrel';
import { defaultLongRagSettings, longragPipeline, type LongRagMode } from '../pipelines/longrag';
import { defaultSegmentSettings, segmentPipeline } from '../pipelines/segment';
import { fakeLlm, libraryOf, testSignal, type FakeCall } from '../pipelines/testing';
import type { PipelineLibrary, PipelineOutput, Trace, TraceCall } from '../pipelines/types';
import {
  agreementOf,
  costOf,
  DEFAULT_PRICES,
  estimatePrice,
  findPrice,
  formatUsd,
  fragmentsUsed,
  normalizePriceTable,
  plainRetrievalLibrary,
  runScheduled,
  type PriceEntry,
} from './index';

const QUESTION = 'Where did the rabbit hide the golden watch?';
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

const words = (t: string) => t.split(/\s+/).filter(Boolean).length;
const costsOf = (library: PipelineLibrary) =>
  library.fragments.map((f) => words(library.documents[0].text.slice(f.start, f.end)));

describe('plainRetrievalLibrary (alpha = 0: Eq. 11 on s_ind)', () => {
  it('selects by the independent score within the budget, whatever FragRel selected', () => {
    const library = book();
    // FragRel's selection, as if the environment score had lifted fragments 6 and 7.
    library.selection = { indices: [0, 6, 7], ranked: [6, 7, 0] };
    library.final = Float64Array.from(library.independent, (s, i) => s + (i >= 6 ? 10 : 0));
    const costs = costsOf(library);
    // Budget for the three best by s_ind: fragments 0 (10 words), 2 (8) and 1 (8).
    const plain = plainRetrievalLibrary(library, { costs, budget: 26 });
    expect(plain.selection).toEqual({ indices: [0, 1, 2], ranked: [0, 2, 1] });
    expect([...plain.final!]).toEqual([...library.independent]);
    expect(plain.scorer).toContain('alpha = 0');
    // The library it came from is left as it was.
    expect(library.selection.indices).toEqual([0, 6, 7]);
    expect(
      plainRetrievalLibrary(library, { costs, budget: 1000, maxSelected: 2 }).selection,
    ).toEqual({ indices: [0, 2], ranked: [0, 2] });
  });
});

async function runFragRel(library: PipelineLibrary, contextLimit = 4096) {
  const llm = fakeLlm({ fallback: 'Under the old oak [1].', contextLimit });
  return fragrelPipeline({
    question: QUESTION,
    library,
    llm,
    settings: defaultFragRelPipelineSettings,
    signal: testSignal().signal,
    clock: llm.clock,
  });
}

async function runLongRag(mode: LongRagMode) {
  const llm = fakeLlm({
    concurrency: 4,
    script: {
      'longrag.extractor': 'The watch is under the old oak.',
      'longrag.cot': 'The first passages say where.',
      // Chunks 1 and 3 of the seven kept.
      'longrag.filter': (c: FakeCall) =>
        c.tagIndex === 0 || c.tagIndex === 2 ? '{"status":"True"}' : '{"status":"False"}',
      'longrag.generator': 'Under the old oak [1].',
    },
  });
  return longragPipeline({
    question: QUESTION,
    library: book(),
    llm,
    settings: { ...defaultLongRagSettings, mode, topK2: 3, paragraphFragments: 3 },
    signal: testSignal().signal,
    clock: llm.clock,
  });
}

describe('fragmentsUsed', () => {
  it('FragRel and plain retrieval: the selected fragments the prompt kept', async () => {
    const library = book();
    library.selection = { indices: [0, 1, 4], ranked: [0, 1, 4] };
    const out = await runFragRel(library);
    expect(out.status).toBe('done');
    expect(fragmentsUsed('fragrel', out)).toEqual([0, 1, 4]);
    expect(fragmentsUsed('plain', out)).toEqual([0, 1, 4]);
  });

  it('a fragment the prompt left out to fit the window was not used', async () => {
    const library = book();
    const all = library.fragments.map((f) => f.index);
    library.selection = { indices: all, ranked: all };
    // A window so small the lowest-ranked excerpts are dropped.
    const out = await runFragRel(library, 300);
    const dropped = out.trace.items.filter((i) => i.verdict === 'dropped').map((i) => i.id);
    expect(dropped.length).toBeGreaterThan(0);
    expect(out.status).toBe('done');
    // Ranked 0..11 in index order: the tail is dropped, the head kept.
    expect(fragmentsUsed('fragrel', out)).toEqual([0, 1, 2, 3, 4]);
    expect(dropped).toEqual([5, 6, 7, 8, 9, 10, 11].map((i) => `fragment:${i}`));
  });

  it('LongRAG E&F: the filtered chunks and the paragraphs the extractor read', async () => {
    const out = await runLongRag('E&F');
    expect(out.status).toBe('done');
    const kept = out.trace.items
      .filter((i) => i.stepId === 'longrag.filter' && i.verdict === 'kept')
      .map((i) => i.fragments![0]);
    expect(kept).toHaveLength(2);
    const paragraphs = out.trace.items
      .filter((i) => i.kind === 'paragraph' && i.verdict === 'kept')
      .flatMap((i) => i.fragments!);
    const used = fragmentsUsed('longrag', out);
    expect(used).toEqual([...new Set([...kept, ...paragraphs])].sort((a, b) => a - b));
    // Paragraphs of 3 fragments: the extractor read more than the hits.
    expect(used.length).toBeGreaterThan(kept.length);
  });

  it('LongRAG R&B: the hits only (no extractor, no filter)', async () => {
    const out = await runLongRag('R&B');
    const hits = out.trace.items
      .filter((i) => i.stepId === 'longrag.rerank' && i.verdict === 'kept')
      .map((i) => i.fragments![0]);
    expect(fragmentsUsed('longrag', out)).toEqual([...hits].sort((a, b) => a - b));
  });

  it('SEGMENT+: the segments behind the notes the judge kept', async () => {
    const llm = fakeLlm({
      concurrency: 3,
      script: {
        'segment.note': (c: FakeCall) =>
          JSON.stringify({
            Evidence: /Document part:\n([^\n]*)/.exec(c.prompt)![1],
            Reasoning: 'It says where.',
          }),
        // Only the first segment's note is kept.
        'segment.judge': (c: FakeCall) => (c.tagIndex === 0 ? 'Keep' : 'Remove'),
        'segment.answer': 'Under the old oak [1].',
      },
    });
    const out = await segmentPipeline({
      question: QUESTION,
      library: book(),
      llm,
      settings: { ...defaultSegmentSettings, segmentTokens: 30 },
      signal: testSignal().signal,
      clock: llm.clock,
    });
    expect(out.status).toBe('done');
    const segments = out.trace.items.filter((i) => i.kind === 'segment');
    expect(segments.length).toBeGreaterThan(2);
    // The judges run concurrently: which note was kept is read from the trace.
    const kept = out.trace.items.filter((i) => i.kind === 'note' && i.verdict === 'kept');
    expect(kept).toHaveLength(1);
    expect(fragmentsUsed('segment', out)).toEqual(kept[0].fragments);
  });

  it('QRMeM: the segments of the answer', () => {
    const out = {
      status: 'done' as const,
      citations: [{ label: 1, index: 4, location: '' }],
      trace: trace({
        items: [
          item('segment:0', 'segment', [0, 1]),
          item('answer-segment:2', 'segment', [4, 5]),
          item('answer-segment:0', 'segment', [0, 1]),
        ],
      }),
    };
    expect(fragmentsUsed('qrmem', out)).toEqual([0, 1, 4, 5]);
  });

  it('a stopped or failed run used nothing', async () => {
    const library = book();
    library.selection = { indices: [0], ranked: [0] };
    const llm = fakeLlm({ fallback: { error: { code: 'server', message: 'down' } } });
    const out = await fragrelPipeline({
      question: QUESTION,
      library,
      llm,
      settings: defaultFragRelPipelineSettings,
      signal: testSignal().signal,
      clock: llm.clock,
    });
    expect(out.status).toBe('error');
    expect(fragmentsUsed('fragrel', out)).toEqual([]);
  });
});

function item(id: string, kind: string, fragments: number[]) {
  return {
    id,
    kind,
    stepId: 's',
    label: id,
    text: '',
    fragments,
    verdict: 'kept' as const,
    reason: '',
  };
}

function trace(patch: Partial<Trace>): Trace {
  return {
    pipeline: 'x',
    question: QUESTION,
    engine: 'fake',
    settings: {},
    startMs: 0,
    steps: [],
    calls: [],
    items: [],
    sizes: [],
    criticalPath: { calls: [], ms: 0 },
    concurrency: 1,
    ...patch,
  };
}

describe('agreementOf', () => {
  it('finds what all used, what only one used, and the pairwise overlap', () => {
    const a = agreementOf([
      { column: 'fragrel', fragments: [1, 2, 3, 9] },
      { column: 'plain', fragments: [1, 2, 4] },
      { column: 'longrag', fragments: [1, 2, 3, 5, 6] },
    ]);
    expect(a.byAll).toEqual([1, 2]);
    expect(a.byOnly).toEqual({ fragrel: [9], plain: [4], longrag: [5, 6] });
    expect(a.count.get(3)).toBe(2);
    expect(a.pairs).toEqual([
      { a: 'fragrel', b: 'plain', shared: 2, jaccard: 2 / 5 },
      { a: 'fragrel', b: 'longrag', shared: 3, jaccard: 3 / 6 },
      { a: 'plain', b: 'longrag', shared: 2, jaccard: 2 / 6 },
    ]);
  });
  it('with one column nothing is "used by all"; an empty column empties it', () => {
    expect(agreementOf([{ column: 'a', fragments: [1] }]).byAll).toEqual([]);
    const a = agreementOf([
      { column: 'a', fragments: [1, 2] },
      { column: 'b', fragments: [] },
    ]);
    expect(a.byAll).toEqual([]);
    expect(a.byOnly).toEqual({ a: [1, 2], b: [] });
  });
});

function call(patch: Partial<TraceCall>): TraceCall {
  return {
    id: 0,
    stepId: 's',
    tag: 't',
    tagIndex: 0,
    messages: [],
    maxTokens: 10,
    response: '',
    status: 'ok',
    tokensIn: 0,
    tokensOut: 0,
    queuedMs: 0,
    after: [],
    ...patch,
  };
}

describe('costOf', () => {
  it('sums calls and tokens from a real run, with its wall time and critical path', async () => {
    const out: PipelineOutput = await runLongRag('E&F');
    const cost = costOf(out.trace);
    // E&F with k = 3: extractor, CoT, 3 filters, generator.
    expect(cost.calls).toBe(6);
    expect(cost.tokensIn).toBe(out.trace.calls.reduce((s, c) => s + c.tokensIn, 0));
    expect(cost.tokensOut).toBe(out.trace.calls.reduce((s, c) => s + c.tokensOut, 0));
    expect(cost.tokensIn).toBeGreaterThan(100);
    expect(cost.wallMs).toBe(out.trace.endMs);
    // CoT -> filter -> generator, 3 ticks each on the fake's logical clock.
    expect(cost.criticalPathCalls).toBe(3);
    expect(cost.criticalPathMs).toBe(out.trace.criticalPath.ms);
    expect(cost.criticalPathMs).toBeGreaterThan(0);
    expect(cost.failedCalls).toBe(0);
  });
  it('counts failures and retries, skips calls that never started, runs to now while running', () => {
    const t = trace({
      startMs: 0,
      calls: [
        call({
          id: 0,
          tokensIn: 100,
          tokensOut: 20,
          retries: [{ code: 'server', message: '', waitMs: 1000 }],
        }),
        call({ id: 1, status: 'error', tokensIn: 50 }),
        call({ id: 2, status: 'queued', tokensIn: 0 }),
      ],
    });
    expect(costOf(t, 1234)).toMatchObject({
      calls: 2,
      failedCalls: 1,
      retries: 1,
      tokensIn: 150,
      tokensOut: 20,
      wallMs: 1234,
    });
  });
});

describe('prices', () => {
  it('finds a model exactly, after a vendor prefix, and by its dated snapshot', () => {
    expect(findPrice(DEFAULT_PRICES, 'openai', 'gpt-4o-mini')?.model).toBe('gpt-4o-mini');
    expect(findPrice(DEFAULT_PRICES, 'openai', 'openai/gpt-4o-mini')?.model).toBe('gpt-4o-mini');
    expect(findPrice(DEFAULT_PRICES, 'openai', 'GPT-4o-mini-2024-07-18')?.model).toBe(
      'gpt-4o-mini',
    );
    expect(findPrice(DEFAULT_PRICES, 'openai', 'gpt-4o-2024-08-06')?.model).toBe('gpt-4o');
    expect(findPrice(DEFAULT_PRICES, 'anthropic', 'claude-sonnet-4-5-20250929')?.model).toBe(
      'claude-sonnet-4-5',
    );
    expect(findPrice(DEFAULT_PRICES, 'openai', 'llama3.2')).toBeNull();
    // Another engine's row does not price this one.
    expect(findPrice(DEFAULT_PRICES, 'anthropic', 'gpt-4o')).toBeNull();
  });
  it('estimates dollars per million tokens; in-browser engines cost 0; unknown models say so', () => {
    const table: PriceEntry[] = [
      { engine: 'openai', model: 'test-model', inputPerMillion: 1, outputPerMillion: 2 },
    ];
    const e = estimatePrice(
      table,
      { kind: 'openai', model: 'test-model' },
      {
        tokensIn: 1_500_000,
        tokensOut: 250_000,
      },
    );
    expect(e).toMatchObject({ kind: 'priced', usd: 2 });
    expect(
      estimatePrice(
        DEFAULT_PRICES,
        { kind: 'anthropic', model: 'claude-sonnet-4-5' },
        {
          tokensIn: 10_000,
          tokensOut: 1_000,
        },
      ),
    ).toMatchObject({ kind: 'priced', usd: 0.03 + 0.015 });
    expect(
      estimatePrice(table, { kind: 'wllama', model: 'x' }, { tokensIn: 9, tokensOut: 9 }),
    ).toEqual({ kind: 'local', usd: 0 });
    expect(
      estimatePrice(table, { kind: 'openai', model: 'other' }, { tokensIn: 9, tokensOut: 9 }),
    ).toEqual({ kind: 'unknown', model: 'other' });
    expect(formatUsd(0)).toBe('$0');
    expect(formatUsd(0.00234)).toBe('$0.0023');
    expect(formatUsd(2)).toBe('$2.00');
  });
  it('a stored table keeps its valid rows; anything else gives the defaults', () => {
    expect(normalizePriceTable(undefined)).toEqual(DEFAULT_PRICES);
    expect(
      normalizePriceTable([
        { engine: 'openai', model: ' m ', inputPerMillion: 1, outputPerMillion: 0 },
        { engine: 'wllama', model: 'm', inputPerMillion: 1, outputPerMillion: 1 },
        { engine: 'openai', model: '', inputPerMillion: 1, outputPerMillion: 1 },
        { engine: 'openai', model: 'n', inputPerMillion: -1, outputPerMillion: 1 },
        { engine: 'openai', model: 'n', inputPerMillion: Number.NaN, outputPerMillion: 1 },
        'junk',
      ]),
    ).toEqual([{ engine: 'openai', model: 'm', inputPerMillion: 1, outputPerMillion: 0 }]);
  });
});

describe('runScheduled', () => {
  const tick = () => new Promise((r) => setTimeout(r, 5));
  it('runs one lane one job at a time, in order, and the rest at once', async () => {
    const log: string[] = [];
    let inLocal = 0;
    let maxLocal = 0;
    const job = (name: string, lane: string | null, fail = false) => ({
      lane,
      run: async () => {
        log.push(`start ${name}`);
        if (lane) maxLocal = Math.max(maxLocal, ++inLocal);
        await tick();
        if (lane) inLocal--;
        log.push(`end ${name}`);
        if (fail) throw new Error(`${name} failed`);
        return name;
      },
    });
    const outcomes = await runScheduled([
      job('a', 'wllama', true),
      job('api1', null),
      job('b', 'wllama'),
      job('api2', null),
    ]);
    expect(maxLocal).toBe(1);
    // Both API jobs start before the first local job ends; b waits for a, even though a failed.
    expect(log.slice(0, 3).sort()).toEqual(['start a', 'start api1', 'start api2']);
    expect(log.indexOf('start b')).toBeGreaterThan(log.indexOf('end a'));
    expect(outcomes.map((o) => o.status)).toEqual([
      'rejected',
      'fulfilled',
      'fulfilled',
      'fulfilled',
    ]);
    expect(outcomes[2]).toEqual({ status: 'fulfilled', value: 'b' });
  });
});
