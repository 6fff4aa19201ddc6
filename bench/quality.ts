/**
 * @file Retrieval-quality benchmark (`npm run bench:quality`): how much of the gold evidence
 * FragRel's selection (Eq. 11, budget in words) keeps, for three independent scorers (Eq. 4:
 * BM25, the static GloVe embedder "dense", and the hybrid fusion), each plain (alpha = 0) and with
 * relations at the paper's defaults (Eq. 10: alpha 0.5; Eq. 7: w_rel 0.3; Eq. 6: k = 16):
 * context, semantic, and both together. Nothing is tuned on this data: every parameter is the
 * core's default (src/core/options.ts). Writes bench/results/quality.json and prints markdown
 * tables. `qualitySection` has the shape bench/run.ts expects of a section.
 *
 * Per question, one run over one document (as the app runs a question over its document): IDF
 * for BM25 spans that document's fragments; the semantic relation is the kNN graph of the GloVe
 * fragment vectors, whatever the scorer (a relation is built from the embedder's vectors; with
 * BM25 only the independent scores differ).
 *
 * ## 1. MuSiQue (hipporag_multihop_train100/musique_train.json, 100 train questions)
 * A question's 20 paragraphs, in their given order, are its fragments (text = title, newline,
 * paragraph text; cost = its words); gold = the paragraphs with is_supporting (2.37 on average).
 * Recall = fraction of the gold paragraphs selected, averaged over questions. A question has
 * about 1,527 words in all, so the 2K and 4K budgets usually select every paragraph (the JSON
 * counts how often); recall@k (the k best paragraphs by final score, k = 2, 5) is reported as a
 * secondary, more telling table (about 1,587 words with the titles counted). The given paragraph
 * order is the dataset's, not a reading order: gold paragraphs sit next to each other no more
 * often than by chance (20 of 179 gold pairs adjacent, 17.9 expected), so the context relation
 * has nothing to work with here.
 *
 * ## 2. bAbI in a book (BABILong-style; a constructed set, not BABILong itself)
 * For each of bAbI tasks qa1..qa5 (en-10k test files), `SAMPLES_PER_TASK` questions are drawn
 * at random (seeded). Each gets its own haystack (bench/quality/haystack.ts): a passage of about
 * `PASSAGE_WORDS` words of Moby Dick (pg2701, few bAbI names or objects in it), starting at a
 * random sentence, with the question's story facts (all statements before the question,
 * distractors included) inserted in order, one per randomly drawn sentence end. The haystack is
 * split into ~500-word fragments with the core's splitProse (boundaries fall wherever the
 * sentences put them); the query is the bAbI question; gold = its supporting facts. Recall =
 * fraction of the supporting facts lying wholly inside selected fragments, averaged over
 * questions.
 *
 * For each relation variant the tables also give the mean change against the same scorer's plain
 * ranking with a paired bootstrap 95% interval over questions, and how many questions it helped
 * and hurt. The JSON holds the means, those changes and the per-task means; per-question recalls
 * are not stored (the run is deterministic: rerun to get them). About 20 s on 2 cores.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  countWords,
  defaultFragRelOptions,
  defaultHybridOptions,
  selectByBudget,
  semanticNeighbours,
  splitProse,
  tokenize,
} from '../src/core';
import { embedTexts, type StaticModel } from '../src/core/embed/static';
import {
  buildRun,
  rankRun,
  runIndependentScores,
  type RunRelationKind,
  type ScoringMode,
} from '../src/core/run';
import { loadGloveFromDisk, sharedDatasetPath } from '../test/glove';
import {
  buildHaystack,
  indexWords,
  parseBabi,
  pickPassage,
  prng,
  sampleDistinct,
  spanSelected,
  type BabiSample,
} from './quality/haystack';
import type { BenchSection, SectionOutput } from './run';
import { writeResults } from './results-file';

const SEED = 20240601;
const BUDGETS = [1000, 2000, 4000];
const TOP_K = [2, 5];
const SCORERS: ScoringMode[] = ['bm25', 'dense', 'hybrid'];
const ALPHA = defaultFragRelOptions.alpha;
const W_REL = defaultFragRelOptions.wRel;
const SEMANTIC_K = defaultFragRelOptions.semanticK;
const VARIANTS: { name: string; alpha: number; relations: RunRelationKind[] }[] = [
  { name: 'plain', alpha: 0, relations: [] },
  { name: '+context', alpha: ALPHA, relations: ['context'] },
  { name: '+semantic', alpha: ALPHA, relations: ['semantic'] },
  { name: '+context+semantic', alpha: ALPHA, relations: ['context', 'semantic'] },
];
const BABI_TASKS = [
  'qa1_single-supporting-fact_test.txt',
  'qa2_two-supporting-facts_test.txt',
  'qa3_three-supporting-facts_test.txt',
  'qa4_two-arg-relations_test.txt',
  'qa5_three-arg-relations_test.txt',
];
const SAMPLES_PER_TASK = 100;
const BOOK = 'pg2701.txt';
const PASSAGE_WORDS = 20_000;
const FRAGMENT_WORDS = 500;
const BOOTSTRAP = 2000;

/** One question made ready for retrieval: its fragments and how to score a selection. */
interface Item {
  id: string;
  group: string;
  question: string;
  source: string;
  starts: Uint32Array;
  ends: Uint32Array;
  words: Uint32Array;
  /** Recall of a selection (`selected[i]`: fragment i is in). */
  recall(selected: boolean[]): number;
}

/** recalls[scorer][variant][metric] = one recall per question, in item order. */
type Recalls = Record<string, Record<string, Record<string, number[]>>>;

interface Delta {
  mean: number;
  ci95: [number, number];
  better: number;
  worse: number;
}

interface DatasetResult {
  name: string;
  questions: number;
  fragmentsPerQuestion: { mean: number; min: number; max: number };
  wordsPerQuestion: { mean: number; min: number; max: number };
  goldPerQuestion: number;
  /** Per budget: share of questions whose fragments all fit (recall 1 for any ranking). */
  everythingFits: Record<string, number>;
  /** Per budget: mean of min(1, budget / words), about the recall of a random ranking. */
  chance: Record<string, number>;
  metrics: string[];
  /** mean[scorer][variant][metric]. */
  mean: Record<string, Record<string, Record<string, number>>>;
  /** delta[scorer][variant][metric] against the same scorer's plain ranking. */
  delta: Record<string, Record<string, Record<string, Delta>>>;
  /** Per group (bAbI task): mean[group][scorer][variant][metric]. */
  byGroup?: Record<string, Record<string, Record<string, Record<string, number>>>>;
  ms: number;
}

const budgetKey = (b: number) => `budget${b / 1000}K`;
const topKey = (k: number) => `top${k}`;
const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
const stats = (xs: readonly number[]) => ({
  mean: mean(xs),
  min: Math.min(...xs),
  max: Math.max(...xs),
});

function pairedDelta(variant: readonly number[], plain: readonly number[], seed: number): Delta {
  const d = variant.map((v, i) => v - plain[i]);
  const rng = prng(seed);
  const means: number[] = [];
  for (let b = 0; b < BOOTSTRAP; b++) {
    let s = 0;
    for (let i = 0; i < d.length; i++) s += d[Math.floor(rng() * d.length)];
    means.push(s / d.length);
  }
  means.sort((a, b) => a - b);
  return {
    mean: mean(d),
    ci95: [means[Math.floor(0.025 * BOOTSTRAP)], means[Math.ceil(0.975 * BOOTSTRAP) - 1]],
    better: d.filter((x) => x > 1e-12).length,
    worse: d.filter((x) => x < -1e-12).length,
  };
}

/** Score every item with every scorer and variant; recall per budget and per top-k. */
function evaluate(
  name: string,
  items: readonly Item[],
  model: StaticModel,
  log: (line: string) => void,
): DatasetResult {
  const t0 = performance.now();
  const metrics = [...BUDGETS.map(budgetKey), ...TOP_K.map(topKey)];
  const recalls: Recalls = {};
  for (const s of SCORERS) {
    recalls[s] = {};
    for (const v of VARIANTS) {
      recalls[s][v.name] = Object.fromEntries(metrics.map((m) => [m, [] as number[]]));
    }
  }
  items.forEach((item, q) => {
    const n = item.starts.length;
    const texts = Array.from(item.starts, (s, i) => item.source.slice(s, item.ends[i]));
    const vectors = embedTexts(model, texts);
    const run = buildRun([
      {
        docId: item.id,
        name: item.id,
        source: item.source,
        starts: item.starts,
        ends: item.ends,
        words: item.words,
        labels: texts.map((_, i) => `#${i}`),
        vectors,
        semantic: semanticNeighbours(vectors, [0, n], SEMANTIC_K),
      },
    ]);
    const query = {
      tokens: tokenize(item.question),
      vector: embedTexts(model, [item.question]).data,
    };
    for (const scorer of SCORERS) {
      const independent = runIndependentScores(run, query, scorer);
      for (const v of VARIANTS) {
        const ranked = rankRun(run, independent, {
          alpha: v.alpha,
          wRel: W_REL,
          relations: v.relations,
          budget: BUDGETS[0],
          listed: Math.max(...TOP_K),
        });
        const out = recalls[scorer][v.name];
        for (const budget of BUDGETS) {
          const sel = selectByBudget(ranked.scores.final, run.costs, budget);
          const selected = new Array<boolean>(n).fill(false);
          for (const i of sel.indices) selected[i] = true;
          out[budgetKey(budget)].push(item.recall(selected));
        }
        for (const k of TOP_K) {
          const selected = new Array<boolean>(n).fill(false);
          for (const i of ranked.top.subarray(0, k)) selected[i] = true;
          out[topKey(k)].push(item.recall(selected));
        }
      }
    }
    if ((q + 1) % 25 === 0) log(`${name}: ${q + 1}/${items.length} questions`);
  });

  const meanOf: DatasetResult['mean'] = {};
  const delta: DatasetResult['delta'] = {};
  for (const s of SCORERS) {
    meanOf[s] = {};
    delta[s] = {};
    for (const v of VARIANTS) {
      meanOf[s][v.name] = Object.fromEntries(metrics.map((m) => [m, mean(recalls[s][v.name][m])]));
      if (v.name === 'plain') continue;
      delta[s][v.name] = Object.fromEntries(
        metrics.map((m, j) => [
          m,
          pairedDelta(recalls[s][v.name][m], recalls[s].plain[m], SEED + j),
        ]),
      );
    }
  }
  const groups = [...new Set(items.map((it) => it.group))];
  let byGroup: DatasetResult['byGroup'];
  if (groups.length > 1) {
    byGroup = {};
    for (const g of groups) {
      const rows = items.flatMap((it, i) => (it.group === g ? [i] : []));
      byGroup[g] = {};
      for (const s of SCORERS) {
        byGroup[g][s] = {};
        for (const v of VARIANTS) {
          byGroup[g][s][v.name] = Object.fromEntries(
            metrics.map((m) => [m, mean(rows.map((i) => recalls[s][v.name][m][i]))]),
          );
        }
      }
    }
  }
  const totalWords = items.map((it) => it.words.reduce((a, b) => a + b, 0));
  return {
    name,
    questions: items.length,
    fragmentsPerQuestion: stats(items.map((it) => it.starts.length)),
    wordsPerQuestion: stats(totalWords),
    goldPerQuestion: 0,
    everythingFits: Object.fromEntries(
      BUDGETS.map((b) => [budgetKey(b), mean(totalWords.map((w) => (w <= b ? 1 : 0)))]),
    ),
    chance: Object.fromEntries(
      BUDGETS.map((b) => [budgetKey(b), mean(totalWords.map((w) => Math.min(1, b / w)))]),
    ),
    metrics,
    mean: meanOf,
    delta,
    byGroup,
    ms: performance.now() - t0,
  };
}

interface MusiqueQuestion {
  id: string;
  question: string;
  paragraphs: { idx: number; title: string; paragraph_text: string; is_supporting: boolean }[];
}

function musiqueItems(file: string): { items: Item[]; gold: number } {
  const data = JSON.parse(readFileSync(file, 'utf8')) as MusiqueQuestion[];
  let gold = 0;
  const items = data.map((q): Item => {
    const texts = q.paragraphs.map((p) => `${p.title}\n${p.paragraph_text}`);
    const starts = new Uint32Array(texts.length);
    const ends = new Uint32Array(texts.length);
    let at = 0;
    texts.forEach((t, i) => {
      starts[i] = at;
      ends[i] = at + t.length;
      at += t.length + 2;
    });
    const isGold = q.paragraphs.map((p) => p.is_supporting);
    const goldCount = isGold.filter(Boolean).length;
    if (goldCount === 0) throw new Error(`MuSiQue ${q.id}: no supporting paragraph.`);
    gold += goldCount;
    return {
      id: q.id,
      group: 'musique',
      question: q.question,
      source: texts.join('\n\n'),
      starts,
      ends,
      words: Uint32Array.from(texts, (t) => countWords(t)),
      recall: (selected) => isGold.filter((g, i) => g && selected[i]).length / goldCount,
    };
  });
  return { items, gold: gold / data.length };
}

function babiItems(dir: string, bookFile: string): { items: Item[]; gold: number } {
  const bookText = readFileSync(bookFile, 'utf8').replace(/\r\n?/g, '\n');
  const book = indexWords(bookText);
  const rng = prng(SEED);
  const items: Item[] = [];
  let gold = 0;
  for (const task of BABI_TASKS) {
    const samples = parseBabi(task, readFileSync(path.join(dir, task), 'utf8'));
    const picked = sampleDistinct(rng, samples.length, SAMPLES_PER_TASK).sort((a, b) => a - b);
    for (const index of picked) {
      const sample: BabiSample = samples[index];
      const passage = pickPassage(book, PASSAGE_WORDS, rng);
      if (!passage) throw new Error(`The book is shorter than ${PASSAGE_WORDS} words.`);
      const hay = buildHaystack(bookText, book, passage, sample.facts, rng);
      const id = `${task.slice(0, 3)}-${index}`;
      const frags = splitProse(id, hay.text, { wordsPerFragment: FRAGMENT_WORDS });
      const starts = Uint32Array.from(frags, (f) => f.start);
      const ends = Uint32Array.from(frags, (f) => f.end);
      const goldSpans = sample.supporting.map((k) => hay.factSpans[k]);
      gold += goldSpans.length;
      items.push({
        id,
        group: task.slice(0, 3),
        question: sample.question,
        source: hay.text,
        starts,
        ends,
        words: Uint32Array.from(frags, (f) => f.words ?? countWords(hay.text, f.start, f.end)),
        recall: (selected) =>
          goldSpans.filter((s) => spanSelected(starts, ends, selected, s.start, s.end)).length /
          goldSpans.length,
      });
    }
  }
  return { items, gold: gold / items.length };
}

const pct = (x: number) => (100 * x).toFixed(1);
const signed = (x: number) => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)}`;

function table(r: DatasetResult, metrics: string[], header: string[]): string {
  const lines = [
    `| scorer | variant | ${header.join(' | ')} |`,
    `|---|---|${header.map(() => '---').join('|')}|`,
  ];
  for (const s of SCORERS) {
    for (const v of VARIANTS) {
      const cells = metrics.map((m) => {
        const value = pct(r.mean[s][v.name][m]);
        if (v.name === 'plain') return value;
        const d = r.delta[s][v.name][m];
        return `${value} (${signed(d.mean)} [${signed(d.ci95[0])}, ${signed(d.ci95[1])}]; ${d.better}↑ ${d.worse}↓)`;
      });
      lines.push(`| ${s} | ${v.name} | ${cells.join(' | ')} |`);
    }
  }
  return lines.join('\n');
}

function groupTable(r: DatasetResult, metric: string): string {
  const groups = Object.keys(r.byGroup ?? {});
  const lines = [
    `| scorer | variant | ${groups.join(' | ')} |`,
    `|---|---|${groups.map(() => '---').join('|')}|`,
  ];
  for (const s of SCORERS) {
    for (const v of VARIANTS) {
      lines.push(
        `| ${s} | ${v.name} | ${groups.map((g) => pct(r.byGroup![g][s][v.name][metric])).join(' | ')} |`,
      );
    }
  }
  return lines.join('\n');
}

export interface QualityResults {
  config: Record<string, unknown>;
  datasets: DatasetResult[];
  totalMs: number;
}

const legend =
  'Recall in %, mean over questions. Variant cells: value (change vs the same scorer plain, ' +
  'paired bootstrap 95% interval; questions helped up, hurt down).';

export function qualityMarkdown(r: QualityResults): string {
  const [mq, babi] = r.datasets;
  const budgetHeader = BUDGETS.map((b) => `${b / 1000}K words`);
  const fits = (d: DatasetResult) =>
    BUDGETS.map((b) => `${b / 1000}K: ${pct(d.everythingFits[budgetKey(b)])}%`).join(', ');
  return [
    `### MuSiQue (${mq.questions} questions, ${mq.fragmentsPerQuestion.mean} paragraphs and ` +
      `${mq.wordsPerQuestion.mean.toFixed(0)} words each on average, ${mq.goldPerQuestion.toFixed(2)} gold)`,
    '',
    `${legend} Questions whose paragraphs all fit the budget: ${fits(mq)}.`,
    '',
    `**Recall within the word budget (Eq. 11)**`,
    '',
    table(mq, BUDGETS.map(budgetKey), budgetHeader),
    '',
    `**Secondary: recall@k paragraphs (top k by final score)**`,
    '',
    table(
      mq,
      TOP_K.map(topKey),
      TOP_K.map((k) => `@${k}`),
    ),
    '',
    `### bAbI qa1-qa5 in Moby Dick, BABILong-style (${babi.questions} questions, ` +
      `${babi.wordsPerQuestion.mean.toFixed(0)} words and ${babi.fragmentsPerQuestion.mean.toFixed(1)} ` +
      `fragments per haystack, ${babi.goldPerQuestion.toFixed(2)} supporting facts)`,
    '',
    `${legend} Haystacks that fit the budget whole: ${fits(babi)}. About chance (budget / ` +
      `haystack words): ${BUDGETS.map((b) => `${b / 1000}K: ${pct(babi.chance[budgetKey(b)])}%`).join(', ')}.`,
    '',
    `**Recall of the supporting facts within the word budget (Eq. 11)**`,
    '',
    table(babi, BUDGETS.map(budgetKey), budgetHeader),
    '',
    `**By task, recall within 2K words**`,
    '',
    groupTable(babi, budgetKey(2000)),
    '',
    `Run time ${(r.totalMs / 1000).toFixed(1)} s.`,
  ].join('\n');
}

/** Measure without printing or writing (bench/run.ts does both for a section). */
export function measureQuality(log: (line: string) => void): QualityResults {
  const t0 = performance.now();
  const model = loadGloveFromDisk();
  const mqFile = sharedDatasetPath('hipporag_multihop_train100', 'musique_train.json');
  const babiDir = sharedDatasetPath('babi_en10k_test_qa1-5');
  const bookFile = sharedDatasetPath('gutenberg', BOOK);
  log(`datasets from ${path.dirname(path.dirname(mqFile))}`);

  const mq = musiqueItems(mqFile);
  const mqResult = evaluate('musique', mq.items, model, log);
  mqResult.goldPerQuestion = mq.gold;

  const tb = performance.now();
  const babi = babiItems(babiDir, bookFile);
  log(`bAbI: ${babi.items.length} haystacks built in ${(performance.now() - tb).toFixed(0)} ms`);
  const babiResult = evaluate('babi-in-book', babi.items, model, log);
  babiResult.goldPerQuestion = babi.gold;

  return {
    config: {
      seed: SEED,
      budgetsWords: BUDGETS,
      topK: TOP_K,
      scorers: SCORERS,
      variants: VARIANTS,
      alpha: ALPHA,
      wRel: W_REL,
      semanticK: SEMANTIC_K,
      hybridLambda: defaultHybridOptions.lambda,
      bm25: 'k1 1.2, b 0.75, IDF over the question document, rescaled by max',
      embedder: 'static-glove-100d (SIF)',
      selection: "Eq. 11 by words, overflow 'skip'",
      bootstrapResamples: BOOTSTRAP,
      musique: {
        file: 'hipporag_multihop_train100/musique_train.json',
        fragment: 'one per paragraph, given order, text = title + "\\n" + paragraph_text',
        gold: 'is_supporting',
      },
      babi: {
        tasks: BABI_TASKS,
        samplesPerTask: SAMPLES_PER_TASK,
        book: `gutenberg/${BOOK}`,
        passageWords: PASSAGE_WORDS,
        fragmentWords: FRAGMENT_WORDS,
        construction:
          'per question: random ~20K-word passage starting at a sentence; all story facts before ' +
          'the question inserted in order at distinct random sentence ends; splitProse 500 words; ' +
          'gold = supporting facts; a fact counts when wholly inside selected fragments',
      },
    },
    datasets: [mqResult, babiResult],
    totalMs: performance.now() - t0,
  };
}

/** bench/run.ts section shape: `{ name, description, run(log) -> { results, markdown } }`. */
export const qualitySection: BenchSection = {
  name: 'quality',
  description:
    'Retrieval quality: recall of the gold in 1K/2K/4K-word budgets, MuSiQue and bAbI-in-a-book.',
  run(log): SectionOutput {
    const results = measureQuality(log);
    return { results, markdown: qualityMarkdown(results) };
  },
};

/** Measure, print the markdown, write bench/results/quality.json. */
export function runQualityBench(): QualityResults {
  const results = measureQuality((line) => process.stderr.write(`[quality] ${line}\n`));
  console.log(qualityMarkdown(results));
  writeResults('quality', results);
  return results;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    runQualityBench();
  } catch (error: unknown) {
    console.error(error);
    process.exitCode = 1;
  }
}
