/**
 * @file Inverted-file lists (IVF) for the approximate semantic relation (Eq. 6) of one large
 * document: spherical k-means cuts the fragment vectors into `lists` clusters; every fragment
 * probes its `probes` nearest clusters (its own first), and the kNN kernel (semantic.ts)
 * compares, cluster by cluster, all fragments that probe a cluster with all its members, as one
 * dense block of dot products, offering each product to both rows. Cost: O(n lists dim) to
 * cluster and assign plus O(n probes (n / lists) dim) for the blocks, against O(n^2 dim / 2)
 * for the exact search; the share of the document each fragment meets is about probes / lists.
 *
 * Why not a library: measured here, hnswlib-wasm builds a 40k-row kNN graph in 39-52 s
 * and usearch's HNSW is about 3x faster than our exact kernel; edgevec was slower than it. A
 * graph index answers one query at a time, while building a whole kNN graph lets all fragments
 * that probe a cluster share each load of its members (blocks of dot products, as in the exact
 * kernel), which plain JS runs at its best, and the wasm SIMD kernel (wasm/dot-block.ts) better.
 *
 * Deterministic for a given input and seed (the seeded PRNG of core/prng.ts).
 */
import { prng } from '../prng';
import { rowDots } from './dot-tiles';
import { createDotBlock, LANES, paddedDim, type DotBlock } from './wasm/dot-block';

export interface InvertedFileOptions {
  /** Number of clusters; default round(sqrt(n) * 1.5). */
  lists?: number;
  /**
   * Nearest clusters each fragment is compared with, its own included; default the larger of
   * 12 and 8% of `lists`. Recall follows the share of the document probed (probes / lists), not
   * the count: on GloVe vectors of short fragments 10 of 82 lists gave recall@16 0.94, 8 of 212
   * 0.87 (docs/scale.md), so the default keeps a share and the cost stays O(n^2), only smaller.
   */
  probes?: number;
  /** Rounds of k-means on the training sample; default 6. */
  iterations?: number;
  /** Training points per cluster (a sample of the document); default 40. */
  samplePerList?: number;
  /** Seed of the sample and of the first centroids; default 1. */
  seed?: number;
  /**
   * `simd` (default): centroid scores by the wasm SIMD kernel where the engine has it
   * (wasm/dot-block.ts); `js`: the JS loops. Their f32 and f64 sums round differently, so a
   * fragment on a border between two clusters may land in either: same quality, not the same
   * lists.
   */
  kernel?: 'simd' | 'js';
  /**
   * Largest list, as a multiple of the mean n / lists; default 0 (no cap). A fragment whose
   * nearest list is full joins the nearest of its other probed lists with room (fragments in
   * index order), and still probes the full one: pairs are found from either side, so it is
   * still compared with that list's members. Large lists are also probed by many (docs/scale.md),
   * so they dominate the blocks' cost.
   */
  maxListShare?: number;
}

export const defaultInvertedFileOptions = Object.freeze({
  listsPerSqrtN: 1.5,
  minProbes: 12,
  probeShare: 0.08,
  iterations: 6,
  samplePerList: 40,
  seed: 1,
});

/** `onStep` runs every CHECK_ROWS + 1 rows (a cancel is seen within about 0.1 s). */
const CHECK_ROWS = 1023;

export interface InvertedLists {
  /** Local fragment indices (0..n-1) in cluster order. */
  order: Uint32Array;
  /** Cluster c holds order[listStart[c] .. listStart[c + 1]). */
  listStart: Uint32Array;
  /** The fragments (local indices) that probe cluster c: prober[proberStart[c] .. proberStart[c + 1]). */
  proberStart: Uint32Array;
  prober: Uint32Array;
}

/**
 * Index of the centroid most like each row (largest dot product; ties to the lower centroid),
 * for rows `rows` of `data` (local indices from `first`).
 */
function nearestCentroids(
  data: Float32Array,
  dim: number,
  first: number,
  rows: Uint32Array,
  centroids: Float32Array,
  lists: number,
  out: Uint32Array,
  onStep?: () => void,
): void {
  const scores = new Float64Array(lists);
  for (let r = 0; r < rows.length; r++) {
    if ((r & CHECK_ROWS) === CHECK_ROWS) onStep?.();
    rowDots(data, (first + rows[r]) * dim, centroids, 0, lists, dim, scores);
    let best = -Infinity;
    let bestC = 0;
    for (let c = 0; c < lists; c++) {
      if (scores[c] > best) {
        best = scores[c];
        bestC = c;
      }
    }
    out[r] = bestC;
  }
}

/**
 * Cluster the n vectors data[first .. first + n) (unit length or zero) and list who probes what.
 * `onStep` is called every 1,024 rows of the clustering and between its stages (it may throw
 * to cancel).
 */
export function invertedFileLists(...args: Parameters<typeof trainCentroids>): InvertedLists {
  const [data, dim, first, n, options = {}, onStep] = args;
  const trained = trainCentroids(data, dim, first, n, options, onStep);
  const probeOf = assignProbes(data, dim, first, 0, n, trained, options.kernel, onStep);
  onStep?.();
  return listsFromProbes(probeOf, n, trained, options.maxListShare);
}

/** The clusters' centroids after k-means, with the list and probe counts chosen. */
export interface TrainedCentroids {
  /** lists x dim, unit length (or zero). */
  centroids: Float32Array;
  lists: number;
  probes: number;
}

/** One round of k-means asks for each sample row's nearest centroid (local row indices). */
export interface TrainingRound {
  centroids: Float32Array;
  lists: number;
  sample: Uint32Array;
}

/**
 * Spherical k-means on a seeded sample of rows data[first .. first + n), as steps: each round
 * yields the centroids and the sample, and takes back each sample row's nearest centroid (from
 * `nearestInSample` here, or from workers: semantic-parallel.ts); the result is the same either
 * way, since each row's answer depends on that row alone.
 */
export function* centroidTraining(
  data: Float32Array,
  dim: number,
  first: number,
  n: number,
  options: InvertedFileOptions = {},
): Generator<TrainingRound, TrainedCentroids, Uint32Array> {
  const d = defaultInvertedFileOptions;
  const lists = Math.max(
    1,
    Math.min(n, Math.round(options.lists ?? Math.sqrt(n) * d.listsPerSqrtN)),
  );
  const probes = Math.max(
    1,
    Math.min(lists, Math.round(options.probes ?? Math.max(d.minProbes, lists * d.probeShare))),
  );
  const iterations = Math.max(0, Math.round(options.iterations ?? d.iterations));
  const samplePerList = Math.max(1, Math.round(options.samplePerList ?? d.samplePerList));
  const random = prng(options.seed ?? d.seed);

  // Training sample: a seeded partial shuffle of 0..n-1 (its first `lists` seed the centroids).
  const sampleSize = Math.min(n, lists * samplePerList);
  const shuffled = new Uint32Array(n);
  for (let i = 0; i < n; i++) shuffled[i] = i;
  for (let i = 0; i < sampleSize; i++) {
    const j = i + Math.floor(random() * (n - i));
    const t = shuffled[i];
    shuffled[i] = shuffled[j];
    shuffled[j] = t;
  }
  const sample = shuffled.subarray(0, sampleSize);

  const centroids = new Float32Array(lists * dim);
  for (let c = 0; c < lists; c++) {
    centroids.set(data.subarray((first + sample[c]) * dim, (first + sample[c] + 1) * dim), c * dim);
  }
  const sums = new Float64Array(lists * dim);
  const counts = new Uint32Array(lists);
  for (let it = 0; it < iterations; it++) {
    const assigned = yield { centroids, lists, sample };
    sums.fill(0);
    counts.fill(0);
    for (let r = 0; r < sampleSize; r++) {
      const c = assigned[r];
      const io = (first + sample[r]) * dim;
      const co = c * dim;
      for (let x = 0; x < dim; x++) sums[co + x] += data[io + x];
      counts[c]++;
    }
    // Spherical k-means: the centroid is the normalised mean. An empty cluster restarts at a
    // random sample point.
    for (let c = 0; c < lists; c++) {
      const co = c * dim;
      if (counts[c] === 0) {
        const r = sample[Math.floor(random() * sampleSize)];
        centroids.set(data.subarray((first + r) * dim, (first + r + 1) * dim), co);
        continue;
      }
      let norm = 0;
      for (let x = 0; x < dim; x++) norm += sums[co + x] * sums[co + x];
      const inv = norm > 0 ? 1 / Math.sqrt(norm) : 0;
      for (let x = 0; x < dim; x++) centroids[co + x] = sums[co + x] * inv;
    }
  }
  return { centroids, lists, probes };
}

/** Each of `rows` (local indices from `first`) with its nearest centroid, into a new array. */
export function nearestInSample(
  data: Float32Array,
  dim: number,
  first: number,
  round: TrainingRound,
  rows: Uint32Array,
  kernelChoice: 'simd' | 'js' | undefined,
  onStep?: () => void,
): Uint32Array {
  const { centroids, lists } = round;
  const assigned = new Uint32Array(rows.length);
  const kernel = kernelChoice === 'js' ? null : createDotBlock();
  if (kernel) {
    const scorer = simdCentroidScorer(kernel, dim, lists);
    scorer.setCentroids(centroids);
    scorer.top(data, first, rows, rows.length, 1, assigned, onStep);
  } else {
    nearestCentroids(data, dim, first, rows, centroids, lists, assigned, onStep);
  }
  return assigned;
}

/** `centroidTraining` run on this thread. */
export function trainCentroids(
  data: Float32Array,
  dim: number,
  first: number,
  n: number,
  options: InvertedFileOptions = {},
  onStep?: () => void,
): TrainedCentroids {
  const training = centroidTraining(data, dim, first, n, options);
  let step = training.next();
  while (!step.done) {
    const round = step.value;
    const assigned = nearestInSample(data, dim, first, round, round.sample, options.kernel, onStep);
    onStep?.();
    step = training.next(assigned);
  }
  return step.value;
}

/**
 * Each of the rows data[first + from .. first + to) with its `probes` nearest centroids, best
 * first (ties to the lower centroid): out[(r - from) probes ..]. A row's answer does not depend
 * on the others', so ranges of rows can be assigned apart (semantic-parallel.ts) with the same
 * result.
 */
export function assignProbes(
  data: Float32Array,
  dim: number,
  first: number,
  from: number,
  to: number,
  trained: TrainedCentroids,
  kernelChoice: 'simd' | 'js' | undefined,
  onStep?: () => void,
): Uint32Array {
  const { centroids, lists, probes } = trained;
  const probeOf = new Uint32Array((to - from) * probes);
  const kernel = kernelChoice === 'js' ? null : createDotBlock();
  if (kernel) {
    const scorer = simdCentroidScorer(kernel, dim, lists);
    scorer.setCentroids(centroids);
    scorer.top(data, first + from, null, to - from, probes, probeOf, onStep);
  } else {
    nearestCentroidsTop(
      data,
      dim,
      first + from,
      to - from,
      centroids,
      lists,
      probes,
      probeOf,
      onStep,
    );
  }
  return probeOf;
}

/**
 * The lists from each fragment's probes (`probeOf`, n x probes, nearest first): each fragment
 * in its nearest list (or, under `maxListShare`, the nearest with room), and who probes what.
 */
export function listsFromProbes(
  probeOf: Uint32Array,
  n: number,
  trained: Pick<TrainedCentroids, 'lists' | 'probes'>,
  maxListShare?: number,
): InvertedLists {
  const { lists, probes } = trained;
  const cap = maxListShare ? Math.ceil((maxListShare * n) / lists) : n;
  if (cap < n && probes > 1) {
    const size = new Uint32Array(lists);
    for (let i = 0; i < n; i++) {
      const base = i * probes;
      let p = 0;
      while (p < probes && size[probeOf[base + p]] >= cap) p++;
      // Every probed list full: stay in the nearest (the cap is a target, not a bound).
      if (p === probes) p = 0;
      if (p > 0) {
        const chosen = probeOf[base + p];
        probeOf[base + p] = probeOf[base];
        probeOf[base] = chosen;
      }
      size[probeOf[base]]++;
    }
  }
  const listStart = new Uint32Array(lists + 1);
  for (let i = 0; i < n; i++) listStart[probeOf[i * probes] + 1]++;
  for (let c = 0; c < lists; c++) listStart[c + 1] += listStart[c];
  const fill = listStart.slice(0, lists);
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[fill[probeOf[i * probes]]++] = i;

  // Who probes each cluster: the queries whose rows meet that cluster's members.
  const proberStart = new Uint32Array(lists + 1);
  for (let e = 0; e < n * probes; e++) proberStart[probeOf[e] + 1]++;
  for (let c = 0; c < lists; c++) proberStart[c + 1] += proberStart[c];
  const at = proberStart.slice(0, lists);
  const prober = new Uint32Array(n * probes);
  for (let i = 0; i < n; i++) {
    for (let p = 0; p < probes; p++) prober[at[probeOf[i * probes + p]]++] = i;
  }
  return { order, listStart, proberStart, prober };
}

/**
 * For each of the n rows from `first`, the `top` centroids with the largest dot products (ties
 * to the lower centroid), best first, into out[r * top ..].
 */
function nearestCentroidsTop(
  data: Float32Array,
  dim: number,
  first: number,
  n: number,
  centroids: Float32Array,
  lists: number,
  top: number,
  out: Uint32Array,
  onStep?: () => void,
): void {
  const bestScore = new Float64Array(top);
  const scores = new Float64Array(lists);
  for (let r = 0; r < n; r++) {
    if ((r & CHECK_ROWS) === CHECK_ROWS) onStep?.();
    rowDots(data, (first + r) * dim, centroids, 0, lists, dim, scores);
    keepTopCentroids(scores, 0, lists, top, bestScore, out, r * top);
  }
}

/**
 * One row's `top` centroids by its scores (centroid c's at scores[at + c]; ties to the lower
 * centroid), best first, into out[base ..]. `bestScore` holds at least `top` numbers.
 */
function keepTopCentroids(
  scores: Float64Array | Float32Array,
  at: number,
  lists: number,
  top: number,
  bestScore: Float64Array,
  out: Uint32Array,
  base: number,
): void {
  // Insertion into a sorted list of `top`: lists >> top, so most centroids fail the first test.
  let filled = 0;
  for (let c = 0; c < lists; c++) {
    const s = scores[at + c];
    if (filled === top && !(s > bestScore[top - 1])) continue;
    let p = filled < top ? filled++ : top - 1;
    while (p > 0 && s > bestScore[p - 1]) {
      bestScore[p] = bestScore[p - 1];
      out[base + p] = out[base + p - 1];
      p--;
    }
    bestScore[p] = s;
    out[base + p] = c;
  }
}

/** Rows scored against the centroids per block (and read back) by the wasm kernel. */
const SCORE_ROWS = 64;

/**
 * The wasm kernel loaded with the centroids: `top` writes, for each row, its `top` centroids
 * with the largest dot products (f32 sums; ties to the lower centroid), best first.
 */
function simdCentroidScorer(kernel: DotBlock, dim: number, lists: number) {
  const dimPad = paddedDim(dim);
  const rowBytes = dimPad * 4;
  const listsPad = Math.ceil(lists / LANES) * LANES;
  const centroidsAt = kernel.alloc(listsPad * rowBytes);
  const rowsAt = kernel.alloc((SCORE_ROWS + 1) * rowBytes);
  const offsetsAt = kernel.alloc((SCORE_ROWS + 1) * 4);
  const outAt = kernel.alloc((SCORE_ROWS + 1) * listsPad * 4);
  const f32 = kernel.f32();
  const i32 = kernel.i32();
  for (let q = 0; q <= SCORE_ROWS; q++) i32[(offsetsAt >> 2) + q] = rowsAt + q * rowBytes;
  const bestScore = new Float64Array(Math.max(1, lists));
  return {
    setCentroids(centroids: Float32Array) {
      for (let c = 0; c < lists; c++) {
        f32.set(centroids.subarray(c * dim, (c + 1) * dim), (centroidsAt + c * rowBytes) >> 2);
      }
    },
    /** Rows first + rows[r] (or first + r where rows is null), r < count. */
    top(
      data: Float32Array,
      first: number,
      rows: Uint32Array | null,
      count: number,
      top: number,
      out: Uint32Array,
      onStep?: () => void,
    ) {
      for (let r0 = 0; r0 < count; r0 += SCORE_ROWS) {
        const qn = Math.min(SCORE_ROWS, count - r0);
        for (let q = 0; q < qn; q++) {
          const i = first + (rows ? rows[r0 + q] : r0 + q);
          f32.set(data.subarray(i * dim, (i + 1) * dim), (rowsAt + q * rowBytes) >> 2);
        }
        // An odd block scores one stale row more; its scores are not read.
        kernel.block(offsetsAt, qn + (qn & 1), centroidsAt, listsPad, rowBytes, outAt);
        for (let q = 0; q < qn; q++) {
          keepTopCentroids(
            f32,
            (outAt >> 2) + q * listsPad,
            lists,
            top,
            bestScore,
            out,
            (r0 + q) * top,
          );
        }
        if (((r0 / SCORE_ROWS) & 15) === 15) onStep?.();
      }
    },
  };
}
