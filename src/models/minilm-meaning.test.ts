/**
 * Meaning, with real weights: all-MiniLM-L6-v2 (the int8 ONNX file `npm run models` fetches,
 * loaded by transformers.js through the local hub mirror) against the offline GloVe embedder on
 * the same fixtures. Node runs ONNX Runtime's native CPU build; the browser path is tested in
 * e2e/real-models.spec.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadGloveFromDisk } from '../../test/glove';
import { goldRanking, loadHotpot, PARAPHRASE_TRIPLES } from '../../test/meaning-fixtures';
import { loadMiniLM, type NodeSentenceEmbedder } from '../../test/real-models';
import { embedTexts } from '../core/embed/static';

const dot = (a: Float32Array, i: number, b: Float32Array, j: number, dim: number) => {
  let s = 0;
  for (let d = 0; d < dim; d++) s += a[i * dim + d] * b[j * dim + d];
  return s;
};

describe('all-MiniLM-L6-v2 (real int8 weights)', () => {
  let model: NodeSentenceEmbedder;
  beforeAll(async () => {
    model = await loadMiniLM();
  }, 120_000);
  afterAll(async () => {
    await model?.close();
  });

  it('gives the same unit vector to a text alone and inside a padded batch', async () => {
    const texts = [
      'A short one.',
      'A much longer sentence that forces the batch to pad the first.',
    ];
    const batch = await model.embed(texts);
    const alone = await model.embed([texts[0]]);
    let norm = 0;
    let diff = 0;
    for (let d = 0; d < model.dim; d++) {
      norm += batch[d] * batch[d];
      diff = Math.max(diff, Math.abs(batch[d] - alone[d]));
    }
    expect(Math.abs(Math.sqrt(norm) - 1)).toBeLessThan(1e-4);
    expect(diff).toBeLessThan(1e-4);
  });

  it('scores every paraphrase pair above every unrelated pair, by a clear margin', async () => {
    const flat = PARAPHRASE_TRIPLES.flat();
    const v = await model.embed(flat);
    const glove = embedTexts(loadGloveFromDisk(), flat);
    const margins = (data: Float32Array, dim: number) =>
      PARAPHRASE_TRIPLES.map(
        (_, t) => dot(data, 3 * t, data, 3 * t + 1, dim) - dot(data, 3 * t, data, 3 * t + 2, dim),
      );
    const real = margins(v, model.dim);
    const static_ = margins(glove.data, glove.dim);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const para = PARAPHRASE_TRIPLES.map((_, t) => dot(v, 3 * t, v, 3 * t + 1, model.dim));
    const unrelated = PARAPHRASE_TRIPLES.map((_, t) => dot(v, 3 * t, v, 3 * t + 2, model.dim));
    console.log(
      `[MiniLM] paraphrase cosine mean ${mean(para).toFixed(3)} (min ${Math.min(...para).toFixed(3)}), ` +
        `unrelated mean ${mean(unrelated).toFixed(3)} (max ${Math.max(...unrelated).toFixed(3)}); ` +
        `margin min ${Math.min(...real).toFixed(3)} (GloVe ${Math.min(...static_).toFixed(3)})`,
    );
    for (const m of real) expect(m).toBeGreaterThan(0.3);
    // Every unrelated pair sits well below every paraphrase pair.
    expect(Math.max(...unrelated)).toBeLessThan(Math.min(...para));
  });

  it('ranks a HotpotQA gold paragraph first far more often than the GloVe embedder', async () => {
    // The first 40 questions keep this under a minute on CI's two cores; the benchmark
    // (`npm run bench -- real-embedder`) ranks all 100.
    const items = loadHotpot().slice(0, 40);
    const glove = loadGloveFromDisk();
    const realScores: Float32Array[] = [];
    const gloveScores: Float32Array[] = [];
    for (const item of items) {
      const q = await model.embed([item.question]);
      const p = await model.embed(item.paragraphs);
      realScores.push(Float32Array.from(item.paragraphs, (_, i) => dot(q, 0, p, i, model.dim)));
      const gq = embedTexts(glove, [item.question]);
      const gp = embedTexts(glove, item.paragraphs);
      gloveScores.push(
        Float32Array.from(item.paragraphs, (_, i) => dot(gq.data, 0, gp.data, i, gq.dim)),
      );
    }
    const real = goldRanking(items, (q) => realScores[q]);
    const glv = goldRanking(items, (q) => gloveScores[q]);
    const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
    console.log(
      `[MiniLM] HotpotQA (${items.length} questions): gold first ${pct(real.first)}, ` +
        `recall@2 ${pct(real.recall2)}; GloVe first ${pct(glv.first)}, recall@2 ` +
        `${pct(glv.recall2)}; chance ${pct(real.chance)}`,
    );
    expect(real.first).toBeGreaterThan(glv.first + 0.2);
    expect(real.recall2).toBeGreaterThan(glv.recall2 + 0.1);
  }, 600_000);
});
