/**
 * @file HotpotQA gold-first rate and recall@2 (hotpotqa_dev_gold_sample100, all 100 questions)
 * for the three embedders side by side: GloVe, the static vectors distilled from MiniLM
 * (docs/method.md) and MiniLM itself (int8, native ONNX Runtime in Node: the same weights the app
 * runs), each ranking a question's paragraphs. Scorers as in bench/quality.ts: BM25 over the
 * whole question (the reference), BM25 on the question's content words ("-q", queryTerms), dense
 * (cosine) and hybrid (core/hybrid.ts, lambda 0.5) over the whole question and its content words.
 * Every row is paired per question against BM25 with the repository's bootstrap (1,000 resamples,
 * seed 20240601, as quality.ts). Nothing is tuned here, so all 100 questions are reported.
 * `npx tsx bench/hotpot-static.ts`; writes bench/results/hotpot-static.json and prints markdown.
 */
import { bm25Scores, buildBm25Index, cosineScores, tokenize } from '../src/core';
import { embedTexts, type StaticModel } from '../src/core/embed/static';
import { pairedBootstrap, type PairedDelta } from '../src/core/eval';
import { hybridScores } from '../src/core/hybrid';
import { queryTerms } from '../src/core/retrieval/query';
import type { VectorSet } from '../src/core/types';
import { loadDistilledFromDisk } from '../test/distilled';
import { loadGloveFromDisk } from '../test/glove';
import { goldRanking, goldRankingPerQuestion, loadHotpot } from '../test/meaning-fixtures';
import { loadMiniLM } from '../test/real-models';
import { writeResults } from './results-file';

const BOOTSTRAP = { resamples: 1000, seed: 20240601 };
const items = loadHotpot();

/** Per item: the paragraphs' vectors, the whole question's and its content words' vectors. */
interface Embedded {
  paragraphs: VectorSet;
  question: Float32Array;
  contentWords: Float32Array;
}

type Embed = (texts: string[]) => Promise<VectorSet>;

async function embedAll(embed: Embed): Promise<Embedded[]> {
  const out: Embedded[] = [];
  for (const item of items) {
    const q = await embed([item.question, queryTerms(item.question).join(' ')]);
    out.push({
      paragraphs: await embed(item.paragraphs),
      question: q.data.slice(0, q.dim),
      contentWords: q.data.slice(q.dim, 2 * q.dim),
    });
  }
  return out;
}

const bm25 = items.map((item) => buildBm25Index(item.paragraphs.map((p) => tokenize(p))));
const terms = (q: number, filtered: boolean) =>
  filtered ? queryTerms(items[q].question) : tokenize(items[q].question);

/** Scores of item q for one scorer name ('bm25', 'bm25-q', 'dense', 'dense-q', 'hybrid', ...). */
function scoresOf(scorer: string, q: number, e: Embedded | null): Float64Array {
  const filtered = scorer.endsWith('-q');
  const base = filtered ? scorer.slice(0, -2) : scorer;
  const lexical = bm25Scores(bm25[q], terms(q, filtered));
  if (base === 'bm25') return lexical;
  const cosine = cosineScores(e!.paragraphs, filtered ? e!.contentWords : e!.question);
  return base === 'dense' ? cosine : hybridScores(lexical, cosine);
}

interface Row {
  embedder: string;
  scorer: string;
  first: number;
  recall2: number;
  firstVsBm25?: PairedDelta;
  recall2VsBm25?: PairedDelta;
}

const staticEmbed =
  (model: StaticModel): Embed =>
  async (texts) =>
    embedTexts(model, texts);
const model = await loadMiniLM();
const embedders: [string, Embed][] = [
  ['GloVe', staticEmbed(loadGloveFromDisk())],
  ['distilled', staticEmbed(loadDistilledFromDisk())],
  [
    'MiniLM',
    async (texts) => ({ dim: model.dim, count: texts.length, data: await model.embed(texts) }),
  ],
];
const reference = goldRankingPerQuestion(items, (q) => scoresOf('bm25', q, null));
const rowOf = (embedder: string, scorer: string, embedded: Embedded[] | null): Row => {
  const r = goldRankingPerQuestion(items, (q) => scoresOf(scorer, q, embedded?.[q] ?? null));
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  return {
    embedder,
    scorer,
    first: mean(r.first),
    recall2: mean(r.recall2),
    ...(scorer !== 'bm25' && {
      firstVsBm25: pairedBootstrap(r.first, reference.first, BOOTSTRAP),
      recall2VsBm25: pairedBootstrap(r.recall2, reference.recall2, BOOTSTRAP),
    }),
  };
};
const rows: Row[] = [rowOf('none', 'bm25', null), rowOf('none', 'bm25-q', null)];
for (const [name, embed] of embedders) {
  const embedded = await embedAll(embed);
  for (const scorer of ['dense', 'dense-q', 'hybrid', 'hybrid-q']) {
    rows.push(rowOf(name, scorer, embedded));
  }
}
await model.close();

const pct = (x: number) => (100 * x).toFixed(1);
const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}`;
const cell = (mean: number, d?: PairedDelta) => {
  if (!d) return pct(mean);
  const sig = d.ci95[0] > 0 || d.ci95[1] < 0 ? '**' : '';
  return `${pct(mean)} (${sig}${signed(d.mean)} [${signed(d.ci95[0])}, ${signed(d.ci95[1])}]${sig})`;
};
const chance = goldRanking(items, (q) => scoresOf('bm25', q, null)).chance;
console.log(
  [
    `HotpotQA, all ${items.length} questions (2 gold paragraphs among ${items[0].paragraphs.length}-odd; change against BM25 over the whole question, paired bootstrap 95%):`,
    '',
    '| embedder | scorer | gold first | recall@2 |',
    '|---|---|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.embedder} | ${r.scorer} | ${cell(r.first, r.firstVsBm25)} | ${cell(r.recall2, r.recall2VsBm25)} |`,
    ),
    '',
    `chance (gold first) ${pct(chance)}`,
  ].join('\n'),
);
writeResults('hotpot-static', { questions: items.length, bootstrap: BOOTSTRAP, chance, rows });
