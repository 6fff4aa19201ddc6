/**
 * @file Retrieval-quality benchmark (`npm run bench:quality`): how much of the gold evidence a
 * selection (Eq. 11) keeps within 1K, 2K and 4K words and tokens, for several independent scorers
 * (Eq. 4), each plain (alpha = 0) and with every relation-aware idea of issue 13, on five sets:
 * MuSiQue, bAbI in a book, and the L-Eval subsets QuALITY, Qasper and SFiction (gold definitions:
 * bench/quality/items.ts), at fragment sizes of 100, 200 and 500 words.
 *
 * Every question belongs to the tune or the held-out half by the hash of its id
 * (src/core/eval/split.ts), fixed before tuning. The defaults of src/core/options.ts were chosen
 * from the tune half only (the "choice" printed last, from `tuneObjective`); the tables report the
 * held-out half, every idea tried, each against plain retrieval with the same scorer, fragment
 * size and budget, with a paired bootstrap 95% interval (src/core/eval/bootstrap.ts).
 *
 * One run per question over its own document (IDF over that document's fragments), as the app
 * runs a question over its document. The semantic relation is the kNN graph of the static GloVe
 * fragment vectors whatever the scorer. Writes bench/results/quality.json and prints markdown.
 * Environment: QUALITY_SETS=quality,qasper (a subset of sets), QUALITY_BABI_PER_TASK (default 60),
 * QUALITY_SIZES=100,200 (fragment sizes), QUALITY_EMBEDDER=minilm (real all-MiniLM-L6-v2 from
 * `npm run models` for dense scores and the semantic relation; =distilled: the static vectors
 * distilled from it, scripts/distill-static.mjs; vectors cached in
 * ~/.cache/fragrel-lens/bench-embeddings), QUALITY_OUT (results file name), QUALITY_TABLES
 * (scorers whose held-out tables are printed), QUALITY_SCORERS and QUALITY_VARIANTS (comma lists
 * restricting the scorers and the relation-aware variants; 'plain' is always run), QUALITY_SPLIT
 * (tune or heldout: that half's questions only, for runs that only read the held-out tables) and
 * QUALITY_BABI_EVERY=k (every k-th bAbI question kept: a stated sample for slow embedders).
 * Sections (the section relation, the "+path" scorers) come from bench/quality/sections.ts.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  bm25Scores,
  countWords,
  defaultFragRelOptions,
  fragRelScores,
  selectByBudget,
  semanticNeighbours,
  splitProse,
  tokenize,
} from '../src/core';
import { estimateTokens } from '../src/core/chat/tokens';
import {
  DISTILLED_EMBEDDER_ID,
  DISTILLED_MODEL_PATH,
  decodeStaticModel,
  embedTexts,
  type StaticModel,
} from '../src/core/embed/static';
import {
  contentWords,
  goldRecall,
  pairedBootstrap,
  type PairedDelta,
  type SplitPart,
} from '../src/core/eval';
import { pprGraph, pprRelation } from '../src/core/relations/ppr';
import { sectionIds, sectionRelation } from '../src/core/relations/section';
import { buildBm25Index } from '../src/core/bm25';
import { adaptiveAlpha } from '../src/core/retrieval/adaptive-alpha';
import { selectWithNeighbours } from '../src/core/retrieval/expand';
import { queryTerms } from '../src/core/retrieval/query';
import { rrfScores } from '../src/core/retrieval/rrf';
import { buildRun, runBm25, runIndependentScores, runRelations, type Run } from '../src/core/run';
import type { Relation, Selection, VectorSet } from '../src/core/types';
import { loadGloveFromDisk, sharedDatasetPath } from '../test/glove';
import {
  babiSet,
  levalSet,
  musiqueSet,
  restrictQuestions,
  type BenchQuestion,
  type BenchSet,
} from './quality/items';
import { benchSections, sectionPaths } from './quality/sections';
import { versusMarkdown, versusReference, type VersusResults } from './quality/versus';
import { machine, resultsDir } from './results-file';

const SEED = 20240601;
const SIZES = [100, 200, 500];
const BUDGETS = [1000, 2000, 4000];
const BOOTSTRAP = 1000;
const BABI_TASKS = [
  'qa1_single-supporting-fact_test.txt',
  'qa2_two-supporting-facts_test.txt',
  'qa3_three-supporting-facts_test.txt',
  'qa4_two-arg-relations_test.txt',
  'qa5_three-arg-relations_test.txt',
];

/**
 * Independent scorers (Eq. 4); "-q": the query without function and question words; "+path":
 * each fragment scored with its section path prefixed to its text (BM25 and the embedder).
 */
const ALL_SCORERS = [
  'bm25',
  'bm25-q',
  'dense',
  'dense-q',
  'hybrid',
  'hybrid-q',
  'rrf',
  'rrf-q',
  'bm25-q+path',
  'dense-q+path',
  'hybrid-q+path',
];
/** QUALITY_SCORERS restricts the run to some scorers (the first eight by default). */
const SCORERS = process.env.QUALITY_SCORERS?.split(',') ?? ALL_SCORERS.slice(0, 8);
for (const s of SCORERS) {
  if (!ALL_SCORERS.includes(s)) throw new Error(`Unknown scorer ${s}: ${ALL_SCORERS.join(', ')}`);
}

type RelationKey =
  | 'context'
  | 'semantic'
  | 'ctx+sem'
  | 'ppr'
  | 'ppr-ctx'
  | 'section'
  | 'section-d0.3'
  | 'section-d0.8'
  | 'ppr-ctx+section'
  | 'context+section';

/** What a variant sees of one question at one fragment size. */
interface Ctx {
  run: Run;
  independent: Float64Array;
  relation: (kind: RelationKey, wRel: number) => Relation[];
}

interface Variant {
  name: string;
  idea: string;
  /** Final scores and, optionally, a selector other than Eq. 11. */
  score(c: Ctx): Float64Array;
  expand?: number;
}

const alphaPaper = defaultFragRelOptions.alpha;
const final = (c: Ctx, relations: Relation[], alpha: number) =>
  fragRelScores(c.independent, relations, { alpha }).final;

const ALL_VARIANTS: Variant[] = [
  { name: 'plain', idea: 'baseline (alpha 0)', score: (c) => c.independent },
  {
    name: 'context (paper)',
    idea: 'paper defaults: Eq. 7, w_rel 0.3, alpha 0.5',
    score: (c) => final(c, c.relation('context', 0.3), alphaPaper),
  },
  {
    name: 'context a0.25',
    idea: 'alpha/w_rel grid',
    score: (c) => final(c, c.relation('context', 0.3), 0.25),
  },
  {
    name: 'context a1',
    idea: 'alpha/w_rel grid',
    score: (c) => final(c, c.relation('context', 0.3), 1),
  },
  {
    name: 'context w0.6',
    idea: 'alpha/w_rel grid',
    score: (c) => final(c, c.relation('context', 0.6), alphaPaper),
  },
  {
    name: 'semantic',
    idea: 'Eq. 6 kNN, k 16, alpha 0.5',
    score: (c) => final(c, c.relation('semantic', 0.3), alphaPaper),
  },
  {
    name: 'context+semantic',
    idea: 'mean of both, alpha 0.5',
    score: (c) => final(c, c.relation('ctx+sem', 0.3), alphaPaper),
  },
  {
    name: 'ppr',
    idea: 'personalised PageRank, context (r 2) + semantic graph, alpha 0.5',
    score: (c) => final(c, c.relation('ppr', 0.3), alphaPaper),
  },
  {
    name: 'ppr context-only',
    idea: 'personalised PageRank over the context edges only, alpha 0.5',
    score: (c) => final(c, c.relation('ppr-ctx', 0.3), alphaPaper),
  },
  {
    name: 'context adaptive',
    idea: 'adaptive alpha = 1 * (1 - decisiveness), context w_rel 0.3',
    score: (c) => final(c, c.relation('context', 0.3), adaptiveAlpha(c.independent, 1).alpha),
  },
  {
    name: 'small-to-big',
    idea: 'plain ranking, each selected fragment brings its neighbours (radius 1)',
    score: (c) => c.independent,
    expand: 1,
  },
  {
    name: 'context + small-to-big',
    idea: 'context (paper) ranking, neighbours at selection (radius 1)',
    score: (c) => final(c, c.relation('context', 0.3), alphaPaper),
    expand: 1,
  },
  {
    name: 'section',
    idea: 'section relation, uniform weights within a section, alpha 0.5',
    score: (c) => final(c, c.relation('section', 0.3), alphaPaper),
  },
  {
    name: 'section w0.3',
    idea: 'section relation, w = 0.3^|i-j| within a section, alpha 0.5',
    score: (c) => final(c, c.relation('section-d0.3', 0.3), alphaPaper),
  },
  {
    name: 'section w0.8',
    idea: 'section relation, w = 0.8^|i-j| within a section, alpha 0.5',
    score: (c) => final(c, c.relation('section-d0.8', 0.3), alphaPaper),
  },
  {
    name: 'context + section',
    idea: 'mean of the context (w_rel 0.3) and uniform section relations, alpha 0.5',
    score: (c) => final(c, c.relation('context+section', 0.3), alphaPaper),
  },
  {
    name: 'ppr context-only + section',
    idea: 'mean of ppr context-only and the uniform section relation, alpha 0.5',
    score: (c) => final(c, c.relation('ppr-ctx+section', 0.3), alphaPaper),
  },
];
/** QUALITY_VARIANTS restricts the run to some variants ('plain' is always kept). */
const VARIANTS = process.env.QUALITY_VARIANTS
  ? ALL_VARIANTS.filter(
      (v) => v.name === 'plain' || process.env.QUALITY_VARIANTS!.split(',').includes(v.name),
    )
  : ALL_VARIANTS;

const METRIC_BUDGETS = BUDGETS.flatMap((b) => [
  { key: `${b / 1000}Kw`, budget: b, unit: 'words' as const },
  { key: `${b / 1000}Kt`, budget: b, unit: 'tokens' as const },
]);

/** values[set][size][scorer][variant][metric] = per-question values in question order. */
type Values = Record<
  string,
  Record<string, Record<string, Record<string, Record<string, number[]>>>>
>;

/** The embedder behind dense scores and the semantic relation: static GloVe, or real MiniLM. */
interface BenchEmbedder {
  id: string;
  embed(texts: readonly string[]): Promise<VectorSet>;
}

function staticEmbedder(model: StaticModel, id = 'static-glove-100d'): BenchEmbedder {
  return { id, embed: async (texts) => embedTexts(model, texts) };
}

/** The static vectors distilled from MiniLM (scripts/distill-static.mjs), from public/models. */
function distilledEmbedder(): BenchEmbedder {
  const file = path.join(process.cwd(), 'public', DISTILLED_MODEL_PATH);
  if (!existsSync(file)) {
    throw new Error(`${file} is missing: run \`npm run assets\` with the MiniLM weights fetched.`);
  }
  return staticEmbedder(decodeStaticModel(readFileSync(file)), DISTILLED_EMBEDDER_ID);
}

/**
 * Real all-MiniLM-L6-v2 (int8, `npm run models`), with the fragment vectors cached on disk
 * outside the repository (~/.cache/fragrel-lens/bench-embeddings, keyed by a hash of the texts),
 * so a rerun does not embed again.
 */
async function miniLmEmbedder(): Promise<BenchEmbedder & { close(): Promise<void> }> {
  const { loadMiniLM } = await import('../test/real-models');
  const m = await loadMiniLM();
  const dir = path.join(os.homedir(), '.cache', 'fragrel-lens', 'bench-embeddings', 'minilm-q8');
  mkdirSync(dir, { recursive: true });
  return {
    id: 'all-MiniLM-L6-v2 (q8)',
    async embed(texts) {
      const key = createHash('sha256').update(JSON.stringify(texts)).digest('hex');
      const file = path.join(dir, `${key}.f32`);
      let data: Float32Array;
      if (existsSync(file)) {
        const buf = readFileSync(file);
        data = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4).slice();
      } else {
        data = await m.embed(texts);
        writeFileSync(file, Buffer.from(data.buffer, data.byteOffset, data.byteLength));
      }
      return { dim: m.dim, count: texts.length, data };
    },
    close: () => m.close(),
  };
}

interface Indexed {
  run: Run;
  /** The same fragments scored with their section path prefixed (BM25 and vectors). */
  pathRun: () => Promise<Run>;
  /** Section of each fragment (relations/section.ts), from the document's headings. */
  sections: Int32Array;
  words: Uint32Array;
  tokens: Uint32Array;
  graphs: Map<string, Relation>;
  /** Content words of each fragment, for answer-in-context. */
  contentWords: Set<string>[];
}

async function indexDocument(
  q: BenchQuestion,
  size: number | 'paragraph',
  embedder: BenchEmbedder,
  needPath: boolean,
): Promise<Indexed> {
  const { source, fixed } = q.document;
  const spans =
    size === 'paragraph' && fixed
      ? fixed
      : splitProse(q.document.id, source, { wordsPerFragment: size as number });
  const starts = Uint32Array.from(spans, (s) => s.start);
  const ends = Uint32Array.from(spans, (s) => s.end);
  const texts = spans.map((s) => source.slice(s.start, s.end));
  const words = Uint32Array.from(texts, (t) => countWords(t));
  const tokens = Uint32Array.from(texts, (t) => estimateTokens(t));
  const vectors = await embedder.embed(texts);
  const run = buildRun([
    {
      docId: q.document.id,
      name: q.document.id,
      source,
      starts,
      ends,
      words,
      labels: texts.map((_, i) => `#${i}`),
      vectors,
      semantic: semanticNeighbours(vectors, [0, spans.length], defaultFragRelOptions.semanticK),
    },
  ]);
  runBm25(run);
  const paths = sectionPaths(starts, benchSections(q.set, source));
  let pathRun: Promise<Run> | null = null;
  const prefixed = async (): Promise<Run> => {
    const withPath = texts.map((t, i) => (paths[i] ? `${paths[i]}\n${t}` : t));
    // Same spans and costs (the budget counts the fragment's own words); only scoring sees the path.
    return {
      ...run,
      bm25: buildBm25Index(withPath.map((t) => tokenize(t))),
      vectors:
        needPath && withPath.some((t, i) => t !== texts[i])
          ? await embedder.embed(withPath)
          : vectors,
    };
  };
  return {
    run,
    pathRun: () => (pathRun ??= prefixed()),
    sections: sectionIds(run.segments, paths),
    words,
    tokens,
    graphs: new Map(),
    contentWords: texts.map((t) => contentWords(t)),
  };
}

interface QueryForms {
  raw: { terms: string[]; vector: Float32Array };
  filtered: { terms: string[]; vector: Float32Array };
}

async function queryForms(query: string, embedder: BenchEmbedder): Promise<QueryForms> {
  const terms = queryTerms(query);
  const [raw, filtered] = await Promise.all([
    embedder.embed([query]),
    embedder.embed([terms.join(' ')]),
  ]);
  return {
    raw: { terms: tokenize(query), vector: raw.data },
    filtered: { terms, vector: filtered.data },
  };
}

function independentScores(run: Run, scorer: string, forms: QueryForms): Float64Array {
  const filtered = scorer.endsWith('-q');
  const base = filtered ? scorer.slice(0, -2) : scorer;
  const { terms, vector } = filtered ? forms.filtered : forms.raw;
  if (base === 'rrf') {
    const bm25 = bm25Scores(runBm25(run), terms);
    const dense = runIndependentScores(run, { tokens: terms, vector }, 'dense');
    return rrfScores([bm25, dense]);
  }
  return runIndependentScores(run, { tokens: terms, vector }, base as 'bm25' | 'dense' | 'hybrid');
}

function relationsFor(ix: Indexed, kind: RelationKey, wRel: number): Relation[] {
  const key = `${kind}|${wRel}`;
  const run = ix.run;
  if (kind === 'context') return runRelations(run, ['context'], wRel);
  if (kind === 'semantic') return runRelations(run, ['semantic'], wRel);
  if (kind === 'ctx+sem') return runRelations(run, ['context', 'semantic'], wRel);
  if (kind === 'section') return [sectionRelation(ix.sections)];
  if (kind === 'section-d0.3') return [sectionRelation(ix.sections, { decay: 0.3 })];
  if (kind === 'section-d0.8') return [sectionRelation(ix.sections, { decay: 0.8 })];
  if (kind === 'context+section') {
    return [...runRelations(run, ['context'], wRel), sectionRelation(ix.sections)];
  }
  if (kind === 'ppr-ctx+section') {
    return [...relationsFor(ix, 'ppr-ctx', wRel), sectionRelation(ix.sections)];
  }
  let rel = ix.graphs.get(key);
  if (!rel) {
    const sparse = kind === 'ppr' && run.semantic ? [run.semantic] : [];
    rel = pprRelation(pprGraph(run.segments, sparse, { radius: 2, wRel }), { wRel });
    ix.graphs.set(key, rel);
  }
  return [rel];
}

/** Share of the answer's content words in the selected fragments (answerInContext, unrolled). */
function answerIn(answer: Set<string>, ix: Indexed, indices: Uint32Array): number {
  if (answer.size === 0) return 0;
  let hit = 0;
  for (const w of answer) {
    for (const i of indices) {
      if (ix.contentWords[i].has(w)) {
        hit++;
        break;
      }
    }
  }
  return hit / answer.size;
}

function selectionOf(
  v: Variant,
  scores: Float64Array,
  costs: Uint32Array,
  budget: number,
): Selection {
  return v.expand
    ? selectWithNeighbours(scores, costs, budget, v.expand)
    : selectByBudget(scores, costs, budget);
}

async function evaluateSet(
  set: BenchSet,
  embedder: BenchEmbedder,
  sizesWanted: number[],
  values: Values,
  log: (line: string) => void,
): Promise<void> {
  const sizes: (number | 'paragraph')[] = set.name === 'musique' ? ['paragraph'] : sizesWanted;
  values[set.name] = {};
  for (const size of sizes) {
    const bySize: Values[string][string] = {};
    values[set.name][String(size)] = bySize;
    for (const s of SCORERS) {
      bySize[s] = {};
      for (const v of VARIANTS) bySize[s][v.name] = {};
    }
    const push = (s: string, v: string, m: string, x: number) => (bySize[s][v][m] ??= []).push(x);
    let cache = null as { docId: string; ix: Indexed } | null;
    for (const [qi, q] of set.questions.entries()) {
      if (cache?.docId !== q.document.id) {
        const needPath = SCORERS.some((x) => x.endsWith('+path') && !x.startsWith('bm25'));
        cache = { docId: q.document.id, ix: await indexDocument(q, size, embedder, needPath) };
      }
      const ix: Indexed = cache.ix;
      const forms = await queryForms(q.query, embedder);
      const { run } = ix;
      const n = run.size;
      for (const scorer of SCORERS) {
        const withPath = scorer.endsWith('+path');
        const independent = independentScores(
          withPath ? await ix.pathRun() : run,
          withPath ? scorer.slice(0, -'+path'.length) : scorer,
          forms,
        );
        const ctx: Ctx = {
          run,
          independent,
          relation: (kind, wRel) => relationsFor(ix, kind, wRel),
        };
        for (const v of VARIANTS) {
          const scores = v.score(ctx);
          for (const m of METRIC_BUDGETS) {
            const costs = m.unit === 'words' ? ix.words : ix.tokens;
            const sel = selectionOf(v, scores, costs, m.budget);
            const selected = new Array<boolean>(n).fill(false);
            for (const i of sel.indices) selected[i] = true;
            push(
              scorer,
              v.name,
              `gold@${m.key}`,
              q.gold.length ? goldRecall(run.starts, run.ends, selected, q.gold) : NaN,
            );
            if (q.answerWords) {
              push(scorer, v.name, `answer@${m.key}`, answerIn(q.answerWords, ix, sel.indices));
            }
          }
        }
      }
      if ((qi + 1) % 50 === 0) log(`${set.name} size ${size}: ${qi + 1}/${set.questions.length}`);
    }
  }
}

/** The book sets (every set but MuSiQue, whose fragments are fixed paragraphs) as one pooled set. */
const BOOK_SETS = ['quality', 'qasper', 'sfiction', 'babi'];

function poolBookSets(sets: BenchSet[], values: Values): BenchSet | null {
  const books = sets.filter((x) => BOOK_SETS.includes(x.name));
  if (books.length < 2) return null;
  const pooled: Values[string] = {};
  for (const set of books) {
    for (const [size, bySize] of Object.entries(values[set.name])) {
      pooled[size] ??= {};
      for (const [scorer, byScorer] of Object.entries(bySize)) {
        pooled[size][scorer] ??= {};
        for (const [variant, byVariant] of Object.entries(byScorer)) {
          pooled[size][scorer][variant] ??= {};
          const target = pooled[size][scorer][variant];
          // A metric a set does not measure (answer-in-context) contributes no question.
          for (const [metric, xs] of Object.entries(byVariant)) (target[metric] ??= []).push(...xs);
        }
      }
    }
  }
  values.books = pooled;
  return {
    name: 'books',
    questions: books.flatMap((x) => x.questions),
    unlocated: books.reduce((n, x) => n + x.unlocated, 0),
    note: `pooled: ${books.map((x) => x.name).join(', ')} (each question once)`,
  };
}

const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);

interface Cell {
  n: number;
  mean: number;
  delta?: PairedDelta;
}

/** summary[split][set][size][scorer][variant][metric] */
type Summary = Record<
  string,
  Record<string, Record<string, Record<string, Record<string, Record<string, Cell>>>>>
>;

function summarise(sets: BenchSet[], values: Values): Summary {
  const out: Summary = {};
  for (const split of ['tune', 'heldout'] as SplitPart[]) {
    out[split] = {};
    for (const set of sets) {
      out[split][set.name] = {};
      for (const [size, bySize] of Object.entries(values[set.name])) {
        out[split][set.name][size] = {};
        for (const scorer of SCORERS) {
          out[split][set.name][size][scorer] = {};
          for (const v of VARIANTS) {
            const cells: Record<string, Cell> = {};
            for (const [metric, all] of Object.entries(bySize[scorer][v.name])) {
              // Answer metrics exist for a subset of questions: align by the metric's own list.
              const plainAll = bySize[scorer].plain[metric];
              const ids = metric.startsWith('answer')
                ? set.questions.filter((q) => q.answerWords)
                : set.questions;
              const keep = ids.map((q) => q.split === split);
              const x: number[] = [];
              const p: number[] = [];
              all.forEach((val, i) => {
                if (keep[i] && !Number.isNaN(val)) {
                  x.push(val);
                  p.push(plainAll[i]);
                }
              });
              cells[metric] = {
                n: x.length,
                mean: mean(x),
                delta:
                  v.name === 'plain' || metric.endsWith('Kt')
                    ? undefined
                    : pairedBootstrap(x, p, { resamples: BOOTSTRAP, seed: SEED }),
              };
            }
            out[split][set.name][size][scorer][v.name] = cells;
          }
        }
      }
    }
  }
  return out;
}

/**
 * The tuning objective, on the tune half only: mean change in gold recall against plain at the
 * 1K and 2K word budgets over every set and fragment size, and the worst such cell.
 */
function tuneObjective(summary: Summary, scorer: string, variant: string) {
  const deltas: number[] = [];
  const absolute: number[] = [];
  for (const [setName, bySet] of Object.entries(summary.tune)) {
    if (setName === 'books') continue;
    for (const bySize of Object.values(bySet)) {
      for (const m of ['gold@1Kw', 'gold@2Kw']) {
        const c = bySize[scorer][variant][m];
        if (c && c.n > 0) {
          deltas.push(c.mean - bySize[scorer].plain[m].mean);
          absolute.push(c.mean);
        }
      }
    }
  }
  // `absolute` (mean recall itself) compares across scorers, e.g. with and without the path prefix.
  return { mean: mean(deltas), worst: Math.min(...deltas), absolute: mean(absolute) };
}

function plainObjective(summary: Summary, scorer: string) {
  const xs: number[] = [];
  for (const [setName, bySet] of Object.entries(summary.tune)) {
    if (setName === 'books') continue;
    for (const bySize of Object.values(bySet)) {
      for (const m of ['gold@1Kw', 'gold@2Kw']) {
        const c = bySize[scorer].plain[m];
        if (c && c.n > 0) xs.push(c.mean);
      }
    }
  }
  return mean(xs);
}

const pct = (x: number) => (100 * x).toFixed(1);
const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}`;
const cellText = (c: Cell | undefined) => {
  if (!c || c.n === 0) return '—';
  if (!c.delta) return pct(c.mean);
  const d = c.delta;
  const sig = d.ci95[0] > 0 || d.ci95[1] < 0 ? '**' : '';
  return `${pct(c.mean)} (${sig}${signed(d.mean)} [${signed(d.ci95[0])}, ${signed(d.ci95[1])}]${sig})`;
};

function heldoutTable(summary: Summary, set: string, size: string, scorer: string, kind: string) {
  const metrics = BUDGETS.map((b) => `${kind}@${b / 1000}Kw`);
  const by = summary.heldout[set][size][scorer];
  const n = by.plain[metrics[0]]?.n ?? 0;
  const lines = [
    `| variant (n = ${n}) | ${BUDGETS.map((b) => `${b / 1000}K words`).join(' | ')} |`,
    `|---|${BUDGETS.map(() => '---:').join('|')}|`,
  ];
  for (const v of VARIANTS) {
    lines.push(`| ${v.name} | ${metrics.map((m) => cellText(by[v.name][m])).join(' | ')} |`);
  }
  return lines.join('\n');
}

export interface QualityResults {
  config: Record<string, unknown>;
  sets: {
    name: string;
    questions: number;
    tune: number;
    heldout: number;
    unlocated: number;
    note: string;
  }[];
  tuning: { scorer: string; variant: string; mean: number; worst: number; absolute: number }[];
  plainByScorer: Record<string, number>;
  summary: Summary;
  /** Every configuration against one reference scorer's plain retrieval (quality/versus.ts). */
  versus?: VersusResults;
  totalMs: number;
}

export function qualityMarkdown(r: QualityResults, scorers: string[]): string {
  const out: string[] = [];
  out.push('### Sets and split', '');
  out.push('| set | questions | tune | held-out | gold not located (left out) | note |');
  out.push('|---|---:|---:|---:|---:|---|');
  for (const s of r.sets) {
    out.push(
      `| ${s.name} | ${s.questions} | ${s.tune} | ${s.heldout} | ${s.unlocated} | ${s.note} |`,
    );
  }
  out.push('', '### Tune half: plain scorers (mean gold recall at 1K and 2K words)', '');
  out.push('| scorer | mean |', '|---|---:|');
  for (const [s, m] of Object.entries(r.plainByScorer)) out.push(`| ${s} | ${pct(m)} |`);
  out.push(
    '',
    '### Tune half: every idea (mean change vs plain, gold recall at 1K and 2K words, all sets and sizes)',
    '',
  );
  out.push(
    '| scorer | variant | mean change | worst cell | mean recall |',
    '|---|---|---:|---:|---:|',
  );
  for (const t of r.tuning) {
    out.push(
      `| ${t.scorer} | ${t.variant} | ${signed(t.mean)} | ${signed(t.worst)} | ${pct(t.absolute)} |`,
    );
  }
  for (const scorer of scorers) {
    out.push('', `### Held-out half, scorer ${scorer}`, '');
    for (const s of r.sets) {
      for (const size of Object.keys(r.summary.heldout[s.name])) {
        out.push(`**${s.name}, fragments ${size}: gold recall**`, '');
        out.push(heldoutTable(r.summary, s.name, size, scorer, 'gold'), '');
        if (r.summary.heldout[s.name][size][scorer].plain['answer@1Kw']) {
          out.push(`**${s.name}, fragments ${size}: answer-in-context**`, '');
          out.push(heldoutTable(r.summary, s.name, size, scorer, 'answer'), '');
        }
      }
    }
  }
  if (r.versus) {
    out.push('', '### Every configuration against one baseline', '');
    out.push(versusMarkdown(r.versus, String(r.config.embedder)), '');
  }
  out.push(`Run time ${(r.totalMs / 1000).toFixed(0)} s.`);
  return out.join('\n');
}

export async function measureQuality(log: (line: string) => void): Promise<QualityResults> {
  const t0 = performance.now();
  const useMiniLm = process.env.QUALITY_EMBEDDER === 'minilm';
  const embedder = useMiniLm
    ? await miniLmEmbedder()
    : process.env.QUALITY_EMBEDDER === 'distilled'
      ? distilledEmbedder()
      : staticEmbedder(loadGloveFromDisk());
  const sizes = process.env.QUALITY_SIZES?.split(',').map(Number) ?? SIZES;
  const only = process.env.QUALITY_SETS?.split(',');
  const perTask = Number(process.env.QUALITY_BABI_PER_TASK ?? 60);
  const builders: Record<string, () => BenchSet> = {
    quality: () => levalSet(sharedDatasetPath('leval', 'quality.jsonl'), 'quality'),
    qasper: () => levalSet(sharedDatasetPath('leval', 'scientific_qa.jsonl'), 'qasper'),
    sfiction: () => levalSet(sharedDatasetPath('leval', 'sci_fi.jsonl'), 'sfiction'),
    babi: () =>
      babiSet(
        sharedDatasetPath('babi_en10k_test_qa1-5'),
        sharedDatasetPath('gutenberg', 'pg2701.txt'),
        {
          tasks: BABI_TASKS,
          samplesPerTask: perTask,
          passageWords: 20_000,
          seed: SEED,
        },
      ),
    musique: () =>
      musiqueSet(sharedDatasetPath('hipporag_multihop_train100', 'musique_train.json')),
  };
  const sets: BenchSet[] = [];
  const values: Values = {};
  for (const [name, build] of Object.entries(builders)) {
    if (only && !only.includes(name)) continue;
    const split = process.env.QUALITY_SPLIT as SplitPart | undefined;
    if (split && split !== 'tune' && split !== 'heldout') throw new Error(`QUALITY_SPLIT=${split}`);
    const every = name === 'babi' ? Number(process.env.QUALITY_BABI_EVERY ?? 1) : 1;
    const set = restrictQuestions(build(), { split, every });
    log(`${name}: ${set.questions.length} questions`);
    const t = performance.now();
    await evaluateSet(set, embedder, sizes, values, log);
    log(`${name}: ${((performance.now() - t) / 1000).toFixed(1)} s`);
    sets.push(set);
  }
  if ('close' in embedder) await (embedder as { close(): Promise<void> }).close();
  const pooled = poolBookSets(sets, values);
  if (pooled) sets.push(pooled);
  const summary = summarise(sets, values);
  // QUALITY_VS: the scorer whose plain retrieval every configuration is compared with (default
  // BM25 over the whole question, when it is among the scorers run).
  const versusScorer = process.env.QUALITY_VS ?? 'bm25';
  const versus = SCORERS.includes(versusScorer)
    ? versusReference(sets, values, versusScorer, { resamples: BOOTSTRAP, seed: SEED })
    : undefined;
  const tuning = SCORERS.flatMap((scorer) =>
    VARIANTS.filter((v) => v.name !== 'plain').map((v) => ({
      scorer,
      variant: v.name,
      ...tuneObjective(summary, scorer, v.name),
    })),
  ).sort((a, b) => b.mean - a.mean);
  return {
    config: {
      seed: SEED,
      sizes,
      budgets: BUDGETS,
      tokens: 'estimateTokens: ceil(words * 4 / 3)',
      scorers: SCORERS,
      variants: VARIANTS.map((v) => ({ name: v.name, idea: v.idea })),
      bootstrapResamples: BOOTSTRAP,
      split: 'FNV-1a(question id) even: tune, odd: held-out',
      babiPerTask: perTask,
      questionsRun: process.env.QUALITY_SPLIT ?? 'both halves',
      babiEvery: Number(process.env.QUALITY_BABI_EVERY ?? 1),
      embedder: embedder.id,
    },
    sets: sets.map((s) => ({
      name: s.name,
      questions: s.questions.length,
      tune: s.questions.filter((q) => q.split === 'tune').length,
      heldout: s.questions.filter((q) => q.split === 'heldout').length,
      unlocated: s.unlocated,
      note: s.note,
    })),
    tuning,
    plainByScorer: Object.fromEntries(SCORERS.map((s) => [s, plainObjective(summary, s)])),
    summary,
    ...(versus && { versus }),
    totalMs: performance.now() - t0,
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    const results = await measureQuality((line) => process.stderr.write(`[quality] ${line}\n`));
    console.log(qualityMarkdown(results, (process.env.QUALITY_TABLES ?? 'bm25').split(',')));
    // Compact, 4 decimals: every cell of both halves is kept, so the file is large (~2 MB).
    const file = path.join(resultsDir, `${process.env.QUALITY_OUT ?? 'quality'}.json`);
    const round = (_: string, v: unknown) =>
      typeof v === 'number' && !Number.isInteger(v) ? Math.round(v * 1e4) / 1e4 : v;
    writeFileSync(
      file,
      `${JSON.stringify({ section: 'quality', ...machine(), results }, round)}\n`,
    );
  } catch (error: unknown) {
    console.error(error);
    process.exitCode = 1;
  }
}
