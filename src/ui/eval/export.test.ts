import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { summarizeGrid, type GridSpec, type QuestionResult } from '../../core/eval/grid';
import type { EvalRunRecord } from '../../store/schema';
import { CSV_HEADER, runJson, summaryCsv } from './export';
import { defaultGridChoice, gridFromChoice } from './grid-choice';

const spec: GridSpec = {
  configs: [
    { scorer: 'bm25', relations: [], alpha: 0, wRel: 0, fragmentWords: 200 },
    { scorer: 'bm25', relations: ['context'], alpha: 0.5, wRel: 0.3, fragmentWords: 200 },
  ],
  budgets: [
    { budget: 1000, unit: 'words' },
    { budget: 1000, unit: 'tokens' },
  ],
};
const base = 'bm25|plain|f200';
const ctx = 'bm25|context|a0.5|w0.3|f200';
const results: QuestionResult[] = [
  { config: base, question: 'a', gold: [0, 0], answer: [0.5, null] },
  { config: base, question: 'b', gold: [1, 1], answer: [1, null] },
  { config: ctx, question: 'a', gold: [1, 0], answer: [1, null] },
  { config: ctx, question: 'b', gold: [1, 1], answer: [1, null] },
];

describe('exports', () => {
  it('writes one CSV row per configuration and budget with the settings that produced it', () => {
    const rows = summarizeGrid(spec, results, base, { resamples: 100, seed: 1 });
    const csv = summaryCsv(spec, rows, base);
    const parsed = Papa.parse<string[]>(csv.trim());
    expect(parsed.data[0]).toEqual([...CSV_HEADER]);
    expect(parsed.data).toHaveLength(5);
    const row = Object.fromEntries(CSV_HEADER.map((h, k) => [h, parsed.data[3][k]]));
    expect(row).toMatchObject({
      config: ctx,
      scorer: 'bm25',
      relations: 'context',
      alpha: '0.5',
      w_rel: '0.3',
      fragment_words: '200',
      baseline: base,
      budget: '1000',
      unit: 'words',
      gold_n: '2',
      gold_recall: '1',
      gold_delta: '0.5',
      answer_n: '2',
      answer_in_context: '1',
      answer_delta: '0.25',
    });
    // Baseline rows have no change; tokens have no answer-in-context here.
    expect(parsed.data[1][CSV_HEADER.indexOf('gold_delta')]).toBe('');
    expect(parsed.data[4][CSV_HEADER.indexOf('answer_n')]).toBe('0');
  });

  it('writes JSON with the file, settings, grid and every result', () => {
    const run: EvalRunRecord = {
      id: 'r',
      createdAt: 0,
      updatedAt: 0,
      status: 'done',
      fileName: '=cmd|x.jsonl',
      files: [],
      spec,
      settings: { baseline: base },
    };
    const json = JSON.parse(
      runJson(
        run,
        'L-Eval JSONL',
        [],
        results.map((r) => ({ ...r, runId: 'r', computedAt: 3 })),
      ),
    );
    expect(json).toMatchObject({
      file: '=cmd|x.jsonl',
      format: 'L-Eval JSONL',
      spec,
      settings: { baseline: base },
    });
    expect(json.results).toHaveLength(4);
    expect(json.results[0]).toEqual({ ...results[0], computedAt: 3 });
  });

  it('reads the grid form, and names what it cannot read', () => {
    const ok = gridFromChoice({
      ...defaultGridChoice,
      alphas: '0.5, 1',
      units: ['words', 'tokens'],
    });
    expect(ok.spec?.configs).toHaveLength(3);
    expect(ok.spec?.budgets.map((b) => `${b.budget}${b.unit[0]}`)).toEqual([
      '1000w',
      '2000w',
      '4000w',
      '1000t',
      '2000t',
      '4000t',
    ]);
    expect(gridFromChoice({ ...defaultGridChoice, alphas: 'x', scorers: [] }).problems).toEqual([
      'alpha: "x" is not a number.',
      'Tick at least one scorer.',
    ]);
    expect(gridFromChoice({ ...defaultGridChoice, wRels: '1.5' }).problems).toEqual([
      'w_rel 1.5 must be in [0, 1).',
    ]);
  });
});
