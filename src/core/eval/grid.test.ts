import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { levalSet } from '../../../bench/quality/items';
import { loadGloveFromDisk, sharedDatasetPath } from '../../../test/glove';
import { embedTexts } from '../embed/static';
import { parseBenchmarkFile } from './datasets/detect';
import type { BenchmarkItem } from './datasets/types';
import {
  configKey,
  expandGrid,
  gridProblems,
  runGrid,
  summarizeGrid,
  type GridConfig,
  type GridEmbedder,
  type GridSpec,
  type QuestionResult,
} from './grid';
import { splitOf } from './split';

const qualityFile = sharedDatasetPath('leval', 'quality.jsonl');
const resultsFile = new URL('../../../bench/results/quality.json', import.meta.url);

const glove = (): GridEmbedder => {
  const model = loadGloveFromDisk();
  return { id: 'static-glove-100d', embed: (texts) => embedTexts(model, texts) };
};

const plain = (scorer: GridConfig['scorer'], fragmentWords: number): GridConfig => ({
  scorer,
  relations: [],
  alpha: 0,
  wRel: 0,
  fragmentWords,
});

/** bench/quality.ts's variants, in this grid's terms. */
const VARIANTS: Record<string, Omit<GridConfig, 'scorer' | 'fragmentWords'>> = {
  plain: { relations: [], alpha: 0, wRel: 0 },
  'context (paper)': { relations: ['context'], alpha: 0.5, wRel: 0.3 },
  'context a1': { relations: ['context'], alpha: 1, wRel: 0.3 },
  'context w0.6': { relations: ['context'], alpha: 0.5, wRel: 0.6 },
  semantic: { relations: ['semantic'], alpha: 0.5, wRel: 0.3 },
  'context+semantic': { relations: ['context', 'semantic'], alpha: 0.5, wRel: 0.3 },
  'ppr context-only': { relations: ['ppr'], alpha: 0.5, wRel: 0.3 },
};

describe('the grid runner and the benchmark harness agree', () => {
  it('parses QuALITY into exactly the questions, gold spans and answer texts bench/quality uses', () => {
    const mine = parseBenchmarkFile('quality.jsonl', readFileSync(qualityFile, 'utf8'));
    if (!mine.ok) throw new Error(mine.error);
    const bench = levalSet(qualityFile, 'quality');
    expect(mine.value.items.map((i) => i.id)).toEqual(bench.questions.map((q) => q.id));
    mine.value.items.forEach((item, k) => {
      const q = bench.questions[k];
      expect(item.question).toBe(q.query);
      expect(item.gold).toEqual(q.gold);
      expect(item.document).toBe(q.document.source);
      expect(
        item.answerText && [...new Set(item.answerText.toLowerCase().match(/\w+/g))].length,
      ).toBeTruthy();
    });
  });

  it('gives the numbers of bench/results/quality.json (QuALITY, 500-word fragments, bm25/dense/hybrid, seven variants, both halves, with the held-out intervals)', async () => {
    const parsed = parseBenchmarkFile('quality.jsonl', readFileSync(qualityFile, 'utf8'));
    if (!parsed.ok) throw new Error(parsed.error);
    const items = parsed.value.items;
    const configs: GridConfig[] = [];
    const names = new Map<string, [string, string, string]>();
    for (const fragmentWords of [500]) {
      for (const scorer of ['bm25', 'dense', 'hybrid'] as const) {
        for (const [name, v] of Object.entries(VARIANTS)) {
          const c = { ...v, relations: [...v.relations], scorer, fragmentWords };
          configs.push(c);
          names.set(configKey(c), [String(fragmentWords), scorer, name]);
        }
      }
    }
    const budgets = [1000, 2000, 4000].flatMap((budget) => [
      { budget, unit: 'words' as const },
      { budget, unit: 'tokens' as const },
    ]);
    const spec: GridSpec = { configs, budgets };
    const results = await runGrid(items, spec, glove());
    expect(results).toHaveLength(configs.length * items.length);

    const file = JSON.parse(readFileSync(resultsFile, 'utf8')) as {
      results: {
        config: { embedder: string };
        summary: Record<
          string,
          Record<
            string,
            Record<
              string,
              Record<
                string,
                Record<
                  string,
                  Record<
                    string,
                    { n: number; mean: number; delta?: { mean: number; ci95: [number, number] } }
                  >
                >
              >
            >
          >
        >;
      };
    };
    expect(file.results.config.embedder).toBe('static-glove-100d');
    const metric = (kind: string, k: number) =>
      `${kind}@${budgets[k].budget / 1000}K${budgets[k].unit === 'words' ? 'w' : 't'}`;
    let compared = 0;
    for (const split of ['tune', 'heldout'] as const) {
      const inSplit = new Set(items.filter((i) => splitOf(i.id) === split).map((i) => i.id));
      const mine = results.filter((r) => inSplit.has(r.question));
      for (const size of ['500']) {
        for (const scorer of ['bm25', 'dense', 'hybrid']) {
          const baseline = configKey(plain(scorer as GridConfig['scorer'], Number(size)));
          const rows = summarizeGrid(spec, mine, baseline, { resamples: 1000, seed: 20240601 });
          for (const row of rows) {
            const [s, sc, variant] = names.get(row.config)!;
            if (s !== size || sc !== scorer) continue;
            const theirs = file.results.summary[split].quality[size][scorer][variant];
            budgets.forEach((b, k) => {
              for (const kind of ['gold', 'answer'] as const) {
                const cell = row[kind][k];
                const ref = theirs[metric(kind, k)];
                expect(cell.n, `${split} ${row.config} ${metric(kind, k)}`).toBe(ref.n);
                // The results file keeps 4 decimals.
                expect(
                  Math.abs(cell.mean - ref.mean),
                  `${split} ${row.config} ${metric(kind, k)}`,
                ).toBeLessThan(6e-5);
                if (ref.delta && b.unit === 'words' && variant !== 'plain') {
                  expect(Math.abs(cell.delta!.mean - ref.delta.mean)).toBeLessThan(6e-5);
                  expect(Math.abs(cell.delta!.ci95[0] - ref.delta.ci95[0])).toBeLessThan(6e-5);
                  expect(Math.abs(cell.delta!.ci95[1] - ref.delta.ci95[1])).toBeLessThan(6e-5);
                }
                compared++;
              }
            });
          }
        }
      }
    }
    expect(compared).toBe(2 * 3 * Object.keys(VARIANTS).length * budgets.length * 2);
  }, 120_000);
});

/** A small book: the answer sentence sits next to a sentence with the query's words. */
function smallItems(): BenchmarkItem[] {
  const filler = (k: number) =>
    Array.from(
      { length: 30 },
      (_, i) => `Filler sentence ${k}-${i} about weather and fields.`,
    ).join(' ');
  const document = [
    filler(0),
    'The lighthouse keeper kept a brass telescope.',
    filler(1),
    'Marta hid the silver key under the blue stone.',
    filler(2),
  ].join(' ');
  const at = (s: string) => ({ start: document.indexOf(s), end: document.indexOf(s) + s.length });
  const base = { documentId: 'book', document, answers: [], group: 'g' };
  return [
    {
      ...base,
      id: 'q1',
      question: 'Where did Marta hide the silver key?',
      prompt: 'Where did Marta hide the silver key?',
      gold: [at('Marta hid the silver key under the blue stone.')],
      answerText: 'under the blue stone',
    },
    {
      ...base,
      id: 'q2',
      question: 'What did the lighthouse keeper keep?',
      prompt: 'What did the lighthouse keeper keep?',
      gold: [at('The lighthouse keeper kept a brass telescope.')],
      answerText: null,
    },
  ];
}

describe('runGrid', () => {
  const spec: GridSpec = {
    configs: [
      plain('bm25', 20),
      { scorer: 'bm25', relations: ['context'], alpha: 0.5, wRel: 0.3, fragmentWords: 20 },
    ],
    budgets: [
      { budget: 60, unit: 'words' },
      { budget: 2000, unit: 'words' },
    ],
  };

  it('finds the gold with BM25 on a small book, and everything with a budget above the book', async () => {
    const results = await runGrid(smallItems(), spec, null);
    const q1 = results.find((r) => r.question === 'q1' && r.config === configKey(spec.configs[0]))!;
    expect(q1.gold).toEqual([1, 1]);
    expect(q1.answer).toEqual([1, 1]);
    const q2 = results.find((r) => r.question === 'q2')!;
    expect(q2.answer).toEqual([null, null]);
    expect(q2.gold[1]).toBe(1);
  });

  it('skips what is done, reports progress over every pair, and stores each question before the next', async () => {
    const first = await runGrid(smallItems(), spec, null);
    const stored: QuestionResult[][] = [];
    const progress: number[] = [];
    const key0 = configKey(spec.configs[0]);
    const resumed = await runGrid(smallItems(), spec, null, {
      isDone: (config, question) => config === key0 && question === 'q1',
      onResults: (batch) => {
        stored.push(batch);
      },
      onProgress: (done, total) => progress.push(done * 10 + total),
    });
    expect(resumed).toHaveLength(3);
    expect(stored.map((b) => b.length)).toEqual([1, 2]);
    expect(progress).toEqual([2 * 10 + 4, 4 * 10 + 4]);
    // The same numbers as the run that computed everything.
    for (const r of resumed) {
      expect(r).toEqual(first.find((f) => f.config === r.config && f.question === r.question));
    }
  });

  it('stops with an AbortError when cancelled', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(runGrid(smallItems(), spec, null, { signal: controller.signal })).rejects.toThrow(
      /Stopped/,
    );
  });

  it('refuses dense scoring without an embedder and a bad spec, with messages', async () => {
    await expect(
      runGrid(smallItems(), { ...spec, configs: [plain('dense', 20)] }, null),
    ).rejects.toThrow(/need an embedder/);
    expect(gridProblems({ configs: [], budgets: [{ budget: 0, unit: 'words' }] })).toEqual([
      'Choose at least one configuration.',
      'Budget 0 is not a whole number above 0.',
    ]);
  });
});

describe('expandGrid and summarizeGrid', () => {
  it('expands every combination, plain once per scorer and size', () => {
    const configs = expandGrid({
      scorers: ['bm25', 'dense'],
      relationSets: [[], ['context']],
      alphas: [0.5, 1],
      wRels: [0.3],
      fragmentWords: [200],
    });
    expect(configs.map(configKey)).toEqual([
      'bm25|plain|f200',
      'bm25|context|a0.5|w0.3|f200',
      'bm25|context|a1|w0.3|f200',
      'dense|plain|f200',
      'dense|context|a0.5|w0.3|f200',
      'dense|context|a1|w0.3|f200',
    ]);
  });

  it('averages per budget and pairs the interval with the baseline (hand-computed)', () => {
    const spec: GridSpec = {
      configs: [
        plain('bm25', 100),
        { ...plain('bm25', 100), relations: ['context'], alpha: 0.5, wRel: 0.3 },
      ],
      budgets: [{ budget: 10, unit: 'words' }],
    };
    const [a, b] = spec.configs.map(configKey);
    const r = (
      config: string,
      question: string,
      gold: number | null,
      answer: number | null,
    ): QuestionResult => ({
      config,
      question,
      gold: [gold],
      answer: [answer],
    });
    const rows = summarizeGrid(
      spec,
      [r(a, 'x', 0, 0.5), r(a, 'y', 1, null), r(b, 'x', 1, 1), r(b, 'y', 1, null), r(b, 'z', 0, 0)],
      a,
      { resamples: 200 },
    );
    expect(rows[0].gold[0]).toEqual({ n: 2, mean: 0.5 });
    expect(rows[1].gold[0].n).toBe(3);
    expect(rows[1].gold[0].mean).toBeCloseTo(2 / 3, 12);
    // Paired over x and y only (z has no baseline): +1 and 0.
    expect(rows[1].gold[0].delta).toMatchObject({ mean: 0.5, better: 1, worse: 0 });
    expect(rows[1].answer[0].delta).toMatchObject({ mean: 0.5, ci95: [0.5, 0.5] });
    expect(rows[1].questions).toBe(3);
  });
});
