/**
 * Tuning on a real book (Alice's Adventures in Wonderland, ../shared/datasets/gutenberg) with the
 * static GloVe vectors: the pseudo-questions must be answerable (plain retrieval finds far more
 * sources than chance) and the tuner must run the whole grid and report a consistent choice.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadGloveFromDisk, sharedDatasetPath } from '../../../test/glove';
import { embedTexts } from '../embed/static';
import { countWords, splitProse } from '../fragment';
import { semanticNeighbours } from '../relations/semantic';
import { buildRun } from '../run';
import { tune } from './grid';
import { pseudoQuestions } from './pseudo';
import { pseudoTexts, pseudoTuneQuestions } from './questions';

const BOOK = sharedDatasetPath('gutenberg', 'pg11.txt');

describe('tuning on a Gutenberg book with GloVe', () => {
  const source = readFileSync(BOOK, 'utf8').replace(/\r\n?/g, '\n');
  const model = loadGloveFromDisk();
  const frags = splitProse('alice', source, { wordsPerFragment: 100 });
  const texts = frags.map((f) => source.slice(f.start, f.end));
  const vectors = embedTexts(model, texts);
  const run = buildRun([
    {
      docId: 'alice',
      name: 'pg11.txt',
      source,
      starts: Uint32Array.from(frags, (f) => f.start),
      ends: Uint32Array.from(frags, (f) => f.end),
      words: Uint32Array.from(texts, (t) => countWords(t)),
      labels: texts.map((_, i) => `#${i}`),
      vectors,
      semantic: semanticNeighbours(vectors, [0, frags.length], 16),
    },
  ]);
  const pseudo = pseudoQuestions(source, run.starts, run.ends, { count: 40, seed: 11 });
  const current = { relations: ['ppr' as const], alpha: 0.5, wRel: 0.3 };
  const chance = 1000 / countWords(source);

  it('finds the sources of its pseudo-questions with BM25 far above chance, and reports a consistent choice', async () => {
    expect(pseudo).toHaveLength(40);
    const questions = pseudoTuneQuestions(run, 0, pseudo, 'bm25');
    const report = await tune(run, questions, { budgets: [1000], current, resamples: 300 });
    expect(report.plain.score).toBeGreaterThan(5 * chance);
    expect(report.chosen.score).toBe(Math.max(...report.configs.map((c) => c.score)));
    expect(report.chosen.score).toBeGreaterThanOrEqual(report.current.score);
    expect(report.curves.map((c) => c.label)).toEqual([
      'context',
      'semantic',
      'ppr',
      'context+semantic',
    ]);
    expect(report.probabilityBest).toBeGreaterThan(0);
    expect(report.probabilityBest).toBeLessThanOrEqual(1);
    expect(report.vsPlain.ci95[0]).toBeLessThanOrEqual(report.vsPlain.mean);
    // The same seed gives the same report.
    const again = await tune(run, pseudoTuneQuestions(run, 0, pseudo, 'bm25'), {
      budgets: [1000],
      current,
      resamples: 300,
    });
    expect(again).toEqual(report);
  });

  it('masks the source for dense scores too: its cosine drops once the sentence is cut out', () => {
    const { queries, masked } = pseudoTexts(run, 0, pseudo);
    const q = embedTexts(model, queries);
    const m = embedTexts(model, masked);
    const rows = (v: typeof q) =>
      Array.from({ length: v.count }, (_, i) => v.data.subarray(i * v.dim, (i + 1) * v.dim));
    const questions = pseudoTuneQuestions(run, 0, pseudo, 'dense', {
      queries: rows(q),
      masked: rows(m),
    });
    let dropped = 0;
    let beatsChance = 0;
    questions.forEach((tq, k) => {
      const g = pseudo[k].fragment;
      const whole = embedTexts(model, [queries[k]]);
      let cos = 0;
      for (let d = 0; d < vectors.dim; d++)
        cos += vectors.data[g * vectors.dim + d] * whole.data[d];
      if (tq.independent[g] < cos) dropped++;
      const rank = Array.from(tq.independent).filter((s) => s > tq.independent[g]).length;
      if (rank < 10) beatsChance++;
    });
    expect(dropped).toBeGreaterThan(30);
    // 10 fragments of ~270 is ~4% by chance.
    expect(beatsChance).toBeGreaterThan(0.1 * questions.length);
  });
});
