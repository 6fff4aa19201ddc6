/**
 * @file HotpotQA gold-first rate (hotpotqa_dev_gold_sample100, all 100 questions) for the three
 * embedders side by side: GloVe, the static vectors distilled from MiniLM (docs/method.md) and
 * MiniLM itself (int8, native ONNX Runtime in Node: the same weights the app runs), each scoring
 * a question's paragraphs by cosine. `npx tsx bench/hotpot-static.ts`; writes
 * bench/results/hotpot-static.json and prints a markdown table.
 */
import { embedTexts, type StaticModel } from '../src/core/embed/static';
import { loadDistilledFromDisk } from '../test/distilled';
import { loadGloveFromDisk } from '../test/glove';
import { goldRanking, loadHotpot } from '../test/meaning-fixtures';
import { loadMiniLM } from '../test/real-models';
import { writeResults } from './results-file';

const dot = (a: Float32Array, i: number, b: Float32Array, j: number, dim: number) => {
  let s = 0;
  for (let d = 0; d < dim; d++) s += a[i * dim + d] * b[j * dim + d];
  return s;
};

const items = loadHotpot();
const staticScores = (model: StaticModel) =>
  items.map((item) => {
    const q = embedTexts(model, [item.question]);
    const p = embedTexts(model, item.paragraphs);
    return Float32Array.from(item.paragraphs, (_, i) => dot(q.data, 0, p.data, i, q.dim));
  });
const gloveScores = staticScores(loadGloveFromDisk());
const distilledScores = staticScores(loadDistilledFromDisk());
const model = await loadMiniLM();
const miniScores: Float32Array[] = [];
for (const item of items) {
  const q = await model.embed([item.question]);
  const p = await model.embed(item.paragraphs);
  miniScores.push(Float32Array.from(item.paragraphs, (_, i) => dot(q, 0, p, i, model.dim)));
}
await model.close();
const rows = {
  glove: goldRanking(items, (q) => gloveScores[q]),
  distilled: goldRanking(items, (q) => distilledScores[q]),
  minilm: goldRanking(items, (q) => miniScores[q]),
};
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
console.log(
  [
    `HotpotQA, all ${items.length} questions (gold paragraph among ${items[0].paragraphs.length}-odd):`,
    '',
    '| embedder | gold first | recall@2 |',
    '|---|---:|---:|',
    ...Object.entries(rows).map(([k, r]) => `| ${k} | ${pct(r.first)} | ${pct(r.recall2)} |`),
    '',
    `chance ${pct(rows.glove.chance)}`,
  ].join('\n'),
);
writeResults('hotpot-static', { questions: items.length, ...rows });
