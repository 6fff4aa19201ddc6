/**
 * @file Speed of FragRel's query path and of building the semantic relation.
 *
 * Query time: independent scores are given (random numbers in [0, 1] standing for Eq. 4
 * scores); we time Eq. 9 (environment), Eq. 10 (final), Eq. 11 (selection) and the
 * explanations of the selected fragments, for N = 1k, 10k, 100k, with the context relation
 * (wRel 0.3) and the semantic relation (k = 16). Side by side in the same run:
 * - a naive dense O(N^2) Eq. 9 over the same weights (up to N = 10k), checked equal;
 * - one plain Float32Array pass over N (out[i] = a[i] + alpha * b[i]), the floor of any
 *   per-fragment computation in JS.
 * Semantic relation at N = 1k and 10k: the exact kNN graph of synthetic unit vectors (dim 100,
 * random directions: they time the arithmetic and mean nothing). At N = 100k the exact build
 * would be O(N^2 dim) = 5e11 multiply-adds, so the query is timed on a random 16-neighbour
 * graph of the same shape: Eq. 9 does the same arithmetic on any graph with 16 entries per
 * row, and random columns scatter its reads over all N, the worst case for the cache.
 *
 * Medians after warm-up; one document holds all N fragments; costs are 400-600 words per
 * fragment against a 28,000-word budget (the paper's largest).
 */
import {
  contextRelation,
  csrRelation,
  environmentScores,
  explainSelection,
  fragRelScores,
  relationAwareScores,
  retrieve,
  selectByBudget,
  semanticNeighbours,
  singleDocument,
  type CsrMatrix,
  type Relation,
  type VectorSet,
} from '../src/core';
import { prng } from '../src/core/prng';

const SIZES = [1_000, 10_000, 100_000];
const NAIVE_MAX = 10_000;
const BUILD_SIZES = [1_000, 10_000];
const DIM = 100;
const K = 16;
const W_REL = 0.3;
const ALPHA = 0.5;
const BUDGET = 28_000;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/**
 * Median wall time in ms of each function, measured round-robin (one call of each per round,
 * after `warmup` rounds) so that load from other processes falls on all of them alike and
 * their ratios stay meaningful on a busy machine.
 */
function timeTogether<K extends string>(
  fns: Record<K, () => unknown>,
  rounds: number,
  warmup = Math.min(rounds, 20),
): Record<K, number> {
  const names = Object.keys(fns) as K[];
  const samples = Object.fromEntries(names.map((k) => [k, [] as number[]])) as Record<K, number[]>;
  for (let r = 0; r < warmup + rounds; r++) {
    for (const k of names) {
      const t0 = performance.now();
      fns[k]();
      const ms = performance.now() - t0;
      if (r >= warmup) samples[k].push(ms);
    }
  }
  return Object.fromEntries(names.map((k) => [k, median(samples[k])])) as Record<K, number>;
}

const time = (fn: () => unknown, runs: number, warmup?: number) =>
  timeTogether({ fn }, runs, warmup).fn;

function syntheticUnitVectors(count: number, dim: number, random: () => number): VectorSet {
  const data = new Float32Array(count * dim);
  for (let i = 0; i < count; i++) {
    let norm = 0;
    for (let d = 0; d < dim; d++) {
      const x = random() * 2 - 1;
      data[i * dim + d] = x;
      norm += x * x;
    }
    const inv = 1 / Math.sqrt(norm);
    for (let d = 0; d < dim; d++) data[i * dim + d] *= inv;
  }
  return { dim, count, data };
}

/** k distinct random neighbours per row with random weights: the shape of a kNN graph. */
function randomKnnGraph(n: number, k: number, random: () => number): CsrMatrix {
  const rowPtr = new Uint32Array(n + 1);
  const col = new Uint32Array(n * k);
  const weight = new Float32Array(n * k);
  for (let i = 0; i < n; i++) {
    const picked = new Set<number>();
    while (picked.size < k) {
      const j = Math.floor(random() * n);
      if (j !== i) picked.add(j);
    }
    const cols = [...picked].sort((a, b) => a - b);
    for (let e = 0; e < k; e++) {
      col[i * k + e] = cols[e];
      weight[i * k + e] = 0.2 + 0.8 * random();
    }
    rowPtr[i + 1] = (i + 1) * k;
  }
  return { size: n, rowPtr, col, weight };
}

/**
 * The yardstick: one multiply-add per fragment over Float32Arrays. A module-level function
 * taking its arrays as arguments, the form V8 compiles best (as a closure it ran 1.5-2x slower).
 */
function plainPass(a: Float32Array, b: Float32Array, out: Float32Array): void {
  for (let i = 0; i < out.length; i++) out[i] = a[i] + ALPHA * b[i];
}

/** Eq. 9 over the Eq. 7 kernel as the dense double sum (powers tabled, no matrix stored). */
function naiveContext(s: Float64Array, r: number): Float64Array {
  const n = s.length;
  const power = new Float64Array(n);
  for (let d = 0; d < n; d++) power[d] = r ** d;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let num = 0;
    let den = 0;
    for (let j = 0; j < n; j++) {
      if (j === i) continue;
      const w = power[i > j ? i - j : j - i];
      num += w * s[j];
      den += w;
    }
    out[i] = den > 0 ? num / den : 0;
  }
  return out;
}

/** Eq. 9 over a sparse relation, evaluated densely: each row laid out as N weights. */
function naiveDense(s: Float64Array, m: CsrMatrix): Float64Array {
  const n = m.size;
  const row = new Float64Array(n);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    for (let p = m.rowPtr[i]; p < m.rowPtr[i + 1]; p++) row[m.col[p]] = m.weight[p];
    let num = 0;
    let den = 0;
    for (let j = 0; j < n; j++) {
      num += row[j] * s[j];
      den += row[j];
    }
    out[i] = den > 0 ? num / den : 0;
    for (let p = m.rowPtr[i]; p < m.rowPtr[i + 1]; p++) row[m.col[p]] = 0;
  }
  return out;
}

function maxRelativeDifference(a: Float64Array, b: Float64Array): number {
  let worst = 0;
  for (let i = 0; i < a.length; i++) {
    const scale = Math.max(Math.abs(a[i]), Math.abs(b[i]));
    if (scale > 0) worst = Math.max(worst, Math.abs(a[i] - b[i]) / scale);
  }
  return worst;
}

export interface QueryRow {
  n: number;
  relation: 'context' | 'semantic';
  /** Where the relation's weights came from. */
  graph: string;
  /** Steady state (arrays of the previous query reused), per step. */
  envMs: number;
  finalMs: number;
  selectMs: number;
  explainMs: number;
  /** `retrieve` writing into the previous query's arrays. */
  endToEndMs: number;
  /** `retrieve` allocating fresh arrays (a first query). */
  endToEndFreshMs: number;
  plainPassMs: number;
  envFinalOverPlain: number;
  /** The same two measured back to back, each on its own with warm caches. */
  hotPlainPassMs: number;
  hotEnvFinalMs: number;
  hotEnvFinalOverPlain: number;
  selected: number;
  naiveDenseMs: number | null;
  naiveOverOurs: number | null;
  naiveMaxRelDiff: number | null;
}

export interface BuildRow {
  n: number;
  dim: number;
  k: number;
  buildMs: number;
  runs: number;
  nnz: number;
}

function queryRow(
  n: number,
  relation: Relation,
  graph: string,
  independent: Float64Array,
  costs: Uint32Array,
  naive: (() => Float64Array) | null,
): QueryRow {
  const relations = [relation];
  const input = { independent, relations, costs };
  const options = { alpha: ALPHA, budget: BUDGET };
  const scores = fragRelScores(independent, relations, { alpha: ALPHA });
  const selection = selectByBudget(scores.final, costs, BUDGET);
  const env = { byKind: scores.environmentByKind, combined: scores.environment };
  const reuse = retrieve(input, options).scores;

  const a = Float32Array.from(independent);
  const b = Float32Array.from(scores.environment);
  const out = new Float32Array(n);
  const t = timeTogether(
    {
      plain: () => plainPass(a, b, out),
      env: () => environmentScores(relations, independent, {}, env),
      final: () => relationAwareScores(independent, env.combined, ALPHA, scores.final),
      select: () => selectByBudget(scores.final, costs, BUDGET),
      explain: () => explainSelection(selection, scores, relations),
      endToEnd: () => retrieve({ ...input, reuse }, options),
      endToEndFresh: () => retrieve(input, options),
    },
    n <= 1_000 ? 400 : n <= 10_000 ? 150 : 60,
  );

  const rounds = n <= 1_000 ? 2_000 : n <= 10_000 ? 400 : 100;
  const hotPlainPassMs = time(() => plainPass(a, b, out), rounds);
  const hotEnvFinalMs = time(() => {
    environmentScores(relations, independent, {}, env);
    relationAwareScores(independent, env.combined, ALPHA, scores.final);
  }, rounds);

  let naiveDenseMs: number | null = null;
  let naiveMaxRelDiff: number | null = null;
  if (naive) {
    naiveMaxRelDiff = maxRelativeDifference(naive(), scores.environmentByKind[relation.kind]);
    naiveDenseMs = time(naive, n <= 1_000 ? 20 : 3, n <= 1_000 ? 3 : 1);
  }
  return {
    n,
    relation: relation.kind as QueryRow['relation'],
    graph,
    envMs: t.env,
    finalMs: t.final,
    selectMs: t.select,
    explainMs: t.explain,
    endToEndMs: t.endToEnd,
    endToEndFreshMs: t.endToEndFresh,
    plainPassMs: t.plain,
    envFinalOverPlain: (t.env + t.final) / t.plain,
    hotPlainPassMs,
    hotEnvFinalMs,
    hotEnvFinalOverPlain: hotEnvFinalMs / hotPlainPassMs,
    selected: selection.ranked.length,
    naiveDenseMs,
    naiveOverOurs: naiveDenseMs === null ? null : naiveDenseMs / t.env,
    naiveMaxRelDiff,
  };
}

export interface SpeedResults {
  settings: Record<string, unknown>;
  query: QueryRow[];
  build: BuildRow[];
  targets: { name: string; value: number; limit: number; met: boolean }[];
}

export function runSpeedBenchmark(log: (line: string) => void = () => {}): SpeedResults {
  const random = prng(20241122);
  const query: QueryRow[] = [];
  const build: BuildRow[] = [];
  const graphs = new Map<number, CsrMatrix>();

  for (const n of BUILD_SIZES) {
    const vectors = syntheticUnitVectors(n, DIM, random);
    const segments = singleDocument(n);
    const runs = n <= 1_000 ? 9 : 3;
    let graph: CsrMatrix | undefined;
    log(`semantic build N=${n} ...`);
    const buildMs = time(() => (graph = semanticNeighbours(vectors, segments, K)), runs, 1);
    graphs.set(n, graph!);
    build.push({ n, dim: DIM, k: K, buildMs, runs, nnz: graph!.rowPtr[n] });
  }

  for (const n of SIZES) {
    const independent = Float64Array.from({ length: n }, () => random());
    const costs = Uint32Array.from({ length: n }, () => 400 + Math.floor(random() * 201));
    log(`query N=${n} ...`);
    const context = contextRelation(singleDocument(n), W_REL);
    query.push(
      queryRow(
        n,
        context,
        'implicit (Eq. 7 recursion)',
        independent,
        costs,
        n <= NAIVE_MAX ? () => naiveContext(independent, W_REL) : null,
      ),
    );
    const exact = graphs.get(n);
    const m = exact ?? randomKnnGraph(n, K, random);
    query.push(
      queryRow(
        n,
        csrRelation('semantic', m),
        exact ? `exact kNN, synthetic dim ${DIM}` : `random ${K}-NN graph`,
        independent,
        costs,
        n <= NAIVE_MAX ? () => naiveDense(independent, m) : null,
      ),
    );
  }

  const ctx100k = query.find((q) => q.relation === 'context' && q.n === 100_000)!;
  const targets = [
    {
      name: 'context, N=100k, end-to-end ms (fresh arrays)',
      value: ctx100k.endToEndFreshMs,
      limit: 50,
    },
    {
      name: 'context, N=100k, (env + final) / plain pass, interleaved',
      value: ctx100k.envFinalOverPlain,
      limit: 5,
    },
    {
      name: 'context, N=100k, (env + final) / plain pass, each hot',
      value: ctx100k.hotEnvFinalOverPlain,
      limit: 5,
    },
  ].map((t) => ({ ...t, met: t.value <= t.limit }));

  return {
    settings: {
      wRel: W_REL,
      alpha: ALPHA,
      k: K,
      dim: DIM,
      budgetWords: BUDGET,
      costWords: '400-600',
    },
    query,
    build,
    targets,
  };
}

const fmt = (x: number | null, digits = 3) =>
  x === null ? '-' : x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(digits);

export function speedMarkdown(r: SpeedResults): string {
  const lines = [
    '### Query time (ms, median; independent scores given)',
    '',
    'env = Eq. 9, final = Eq. 10, select = Eq. 11, explain = contributions of the selected',
    'fragments; steps and "end-to-end" write into the previous query\'s arrays, "fresh" allocates.',
    '',
    '| N | relation | env | final | select | explain | end-to-end | fresh | plain pass | (env+final)/plain | naive dense Eq. 9 | naive/env | naive max rel. diff |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...r.query.map(
      (q) =>
        `| ${q.n.toLocaleString('en')} | ${q.relation} (${q.graph}) | ${fmt(q.envMs)} | ${fmt(q.finalMs)} | ${fmt(q.selectMs)} | ${fmt(q.explainMs)} | ${fmt(q.endToEndMs)} | ${fmt(q.endToEndFreshMs)} | ${fmt(q.plainPassMs)} | ${fmt(q.envFinalOverPlain, 1)}x | ${fmt(q.naiveDenseMs)} | ${q.naiveOverOurs === null ? '-' : `${Math.round(q.naiveOverOurs).toLocaleString('en')}x`} | ${q.naiveMaxRelDiff === null ? '-' : q.naiveMaxRelDiff.toExponential(1)} |`,
    ),
    '',
    '(env+final)/plain above: all steps measured round-robin, one call each per round, so each',
    "starts with caches holding the other steps' data. Below: each measured back to back on its own.",
    '',
    '| N | relation | env + final, hot | plain pass, hot | ratio |',
    '|---:|---|---:|---:|---:|',
    ...r.query.map(
      (q) =>
        `| ${q.n.toLocaleString('en')} | ${q.relation} | ${fmt(q.hotEnvFinalMs)} | ${fmt(q.hotPlainPassMs)} | ${fmt(q.hotEnvFinalOverPlain, 1)}x |`,
    ),
    '',
    `### Semantic relation build (exact kNN, k = ${K}, synthetic unit vectors of dim ${DIM})`,
    '',
    '| N | build ms (median) | runs | neighbours stored |',
    '|---:|---:|---:|---:|',
    ...r.build.map(
      (b) =>
        `| ${b.n.toLocaleString('en')} | ${fmt(b.buildMs)} | ${b.runs} | ${b.nnz.toLocaleString('en')} |`,
    ),
    '',
    '### Targets',
    '',
    ...r.targets.map(
      (t) => `- ${t.name}: ${fmt(t.value, 2)} (limit ${t.limit}) ${t.met ? 'met' : 'NOT met'}`,
    ),
  ];
  return lines.join('\n');
}

/** The section `bench/run.ts` runs. */
export const speedSection = {
  name: 'speed',
  description: 'FragRel query path (Eq. 9-11) and semantic relation build',
  run(log: (line: string) => void) {
    const results = runSpeedBenchmark(log);
    return { results, markdown: speedMarkdown(results) };
  },
};
