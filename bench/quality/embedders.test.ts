/**
 * @file The three-embedder held-out table (bench/quality/embedders.ts): rows taken from the
 * versus results of each embedder's run, the reference once per set, a missing embedder left out,
 * and MTBench+ paired per dialog against BM25.
 */
import { describe, expect, it } from 'vitest';
import { bookRows, figureText, mtbenchRows, tableMarkdown } from './embedders';
import type { VersusResults } from './versus';

const delta = (mean: number) => ({
  mean,
  ci95: [mean - 0.1, mean + 0.1] as [number, number],
  better: 0,
  worse: 0,
});
const cell = (mean: number, reference: number) => ({
  n: 10,
  mean,
  reference,
  delta: delta(mean - reference),
});

function versus(dense: number): VersusResults {
  const row = (scorer: string, x: number, size = '200') => ({
    scorer,
    variant: 'plain',
    size,
    tune: 0,
    tuneReference: 0,
    heldout: { qasper: { 'gold@1Kw': cell(x, 0.5), 'gold@2Kw': cell(x + 0.1, 0.6) } },
  });
  return {
    reference: { scorer: 'bm25', variant: 'plain' },
    rows: [
      row('bm25', 0.5),
      row('bm25-q', 0.55),
      row('dense-q', dense),
      row('hybrid-q', 0.7),
      row('dense-q', 0.01, '100'),
    ],
  };
}

describe('bookRows', () => {
  it('gives the reference once, BM25-q once, then each embedder present at the size asked', () => {
    const rows = bookRows({ glove: versus(0.3), minilm: versus(0.8) }, '200');
    expect(rows.map((r) => `${r.embedder} ${r.scorer}`)).toEqual([
      'none bm25',
      'none bm25-q',
      'glove dense-q',
      'glove hybrid-q',
      'minilm dense-q',
      'minilm hybrid-q',
    ]);
    expect(rows[0].figures[0]).toEqual({ n: 10, mean: 0.5 });
    const miniDense = rows[4].figures;
    expect(miniDense[0]?.mean).toBe(0.8);
    expect(miniDense[0]?.delta?.mean).toBeCloseTo(0.3);
    expect(miniDense[1]?.mean).toBeCloseTo(0.9);
    expect(figureText(miniDense[0])).toBe('80.0 (**+30.0 [+20.0, +40.0]**)');
    expect(figureText(rows[0].figures[0])).toBe('50.0 (reference)');
    expect(tableMarkdown(rows)).toContain(
      '| Qasper (10) | gold@1Kw / gold@2Kw | MiniLM | dense-q |',
    );
  });
});

describe('mtbenchRows', () => {
  it('pairs each embedder plain against plain BM25 per dialog', () => {
    const dialogs = (all: number[]) => all.map((a) => ({ hits: { all: a } }));
    const row = (set: string, scoring: string, embedder: string, all: number[]) => ({
      set,
      scoring,
      embedder,
      method: 'plain',
      perDialog: dialogs(all),
    });
    const file = {
      results: {
        rows: [
          row('prompt', 'bm25', 'none', [0, 0, 1, 1]),
          row('retrieved8', 'bm25', 'none', [0, 0, 0, 1]),
          row('prompt', 'dense', 'MiniLM', [1, 1, 1, 1]),
          row('retrieved8', 'dense', 'MiniLM', [0, 0, 0, 1]),
        ],
      },
    };
    const rows = mtbenchRows(file, { resamples: 200, seed: 1 });
    expect(rows.map((r) => `${r.embedder} ${r.scorer}`)).toEqual(['none bm25', 'minilm dense']);
    expect(rows[1].figures[0]?.mean).toBe(1);
    expect(rows[1].figures[0]?.delta?.mean).toBeCloseTo(0.5);
    expect(rows[1].figures[1]?.delta?.mean).toBe(0);
  });
});
