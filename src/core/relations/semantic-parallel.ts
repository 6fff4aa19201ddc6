/**
 * @file The semantic relation (Eq. 6) of large documents built by a pool of workers, with the
 * same result as `semanticNeighbours`, bit for bit.
 *
 * Why the result is the same: every row's heap ends with the k best (by `ranksBefore`: score,
 * then the lower index) of the candidates it was offered, whatever their order; the kernel's
 * filter drops a product only when its exact cosine is below a floor, and a floor is the k-th
 * best of a subset of that row's candidates, so never above the final k-th best. A row's result
 * is therefore the k best of all pairs its fragment meets in the inverted file's blocks, and
 * cutting those blocks into shares, then offering every share's rows to one heap per row
 * (`offerUnique`: a pair met in two shares counts once), gives the same k best with the same
 * exact weights. The tests hold this on random and on real GloVe vectors.
 *
 * The split: the clustering and the lists run where this is called (inverted-lists.ts; about a
 * fifth of the CPU at 100k, docs/scale.md); the second pass of the blocks (each cluster against
 * the fragments of other clusters that probe it, almost all the products) is cut into `pool.size`
 * shares of clusters of about equal cost (probers times members), each run by a worker
 * (`semanticShare`), which also runs the cheap first pass (every cluster against itself) in full
 * so that its floors start as high as the single-thread build's. Each worker's rows come back as
 * transferred buffers and are merged here.
 *
 * Core stays free of workers: the pool is an interface; src/workers/semantic-shares.ts runs it on
 * the index worker's one pool (src/workers/pool.ts), of Web Workers in the app or worker_threads
 * in the Node bench and tests (test/pool-node.ts), its members calling `semanticWork` below.
 */
import { defaultFragRelOptions } from '../options';
import { distinctRows, expandDistinct, progressOverGroups } from './duplicates';
import type { CsrMatrix, VectorSet } from '../types';
import {
  assignProbes,
  centroidTraining,
  listsFromProbes,
  nearestInSample,
  type InvertedLists,
  type TrainedCentroids,
} from './inverted-lists';
import {
  createRowHeaps,
  defaultRefineOptions,
  EXACT_MAX_FRAGMENTS,
  heapsToCsr,
  prepareListsSimd,
  type ListsSimdRun,
  rowHeapsFrom,
  sharedFloor,
  semanticNeighbours,
  type SemanticBuildOptions,
} from './semantic';
import { toSegments } from './segments';
import { createDotBlock } from './wasm/dot-block';

/** One worker's part of a document's inverted-file blocks. */
export interface SemanticShareTask {
  /** The document's rows only (n x dim), local indices 0..n-1; may lie on a SharedArrayBuffer. */
  data: Float32Array;
  dim: number;
  k: number;
  lists: InvertedLists;
  /**
   * `self`: the first pass (each of `clusters` against itself), from empty rows; `cross`: the
   * second pass (each of `clusters` against the fragments of other clusters that probe it),
   * from the rows in `start`.
   */
  pass: 'self' | 'cross';
  /** The clusters of this share, ascending. */
  clusters: Uint32Array;
  /** The build (document) this share belongs to: a worker keeps its rows between passes. */
  session: number;
  /** The rows after the first pass (all shares' merged), for `cross`. */
  start?: SemanticShareResult;
  /** `simd` filters on i16 rows, `simd-f32` on the f32 rows (semantic.ts). */
  kernel: 'simd' | 'simd-f32';
  /**
   * The rows' floors shared by the shares of the pass (semantic.ts, `sharedFloor`), on a
   * SharedArrayBuffer; absent where there is none (each share filters with its own floors).
   */
  floors?: Int32Array;
}

/** One worker's range of rows to assign to their nearest clusters (inverted-lists.ts). */
export interface SemanticAssignTask {
  pass: 'assign';
  /** The document's rows (n x dim), as for a share. */
  data: Float32Array;
  dim: number;
  trained: TrainedCentroids;
  /** Rows [from, to) of the document. */
  from: number;
  to: number;
}

/** Rows [from, to)'s probes, nearest first: (to - from) x probes. */
export interface SemanticAssignResult {
  probeOf: Uint32Array;
}

/** One worker's part of a k-means round: the nearest centroid of each of `rows`. */
export interface SemanticNearestTask {
  pass: 'nearest';
  data: Float32Array;
  dim: number;
  centroids: Float32Array;
  lists: number;
  /** Local row indices (part of the training sample). */
  rows: Uint32Array;
}

export interface SemanticNearestResult {
  nearest: Uint32Array;
}

export type SemanticWorkerTask = SemanticShareTask | SemanticAssignTask | SemanticNearestTask;
export type SemanticWorkerResult =
  SemanticShareResult | SemanticAssignResult | SemanticNearestResult;

/** A share's rows: row i holds heapSize[i] entries at heapScore/heapCol[i k ..] (local columns). */
export interface SemanticShareResult {
  heapScore: Float64Array;
  heapCol: Uint32Array;
  heapSize: Uint32Array;
}

/**
 * What core needs of an AbortSignal (core is built without the DOM's types); a real
 * AbortSignal fits.
 */
export interface CancelSignal {
  readonly aborted: boolean;
  readonly reason?: unknown;
  addEventListener(type: 'abort', listener: () => void): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** A CancelSignal with its trigger (AbortController's shape, without the DOM). */
function cancelSource(): { signal: CancelSignal; abort: (reason?: unknown) => void } {
  const listeners = new Set<() => void>();
  const state = { aborted: false, reason: undefined as unknown };
  const signal: CancelSignal = {
    get aborted() {
      return state.aborted;
    },
    get reason() {
      return state.reason;
    },
    addEventListener: (_type, listener) => listeners.add(listener),
    removeEventListener: (_type, listener) => listeners.delete(listener),
  };
  return {
    signal,
    abort(reason?: unknown) {
      if (state.aborted) return;
      state.aborted = true;
      state.reason = reason ?? cancelled();
      for (const listener of [...listeners]) listener();
    },
  };
}

/** The error a cancelled build rejects with (named AbortError, as the workers' protocol expects). */
export function cancelled(): Error {
  const error = new Error('The operation was cancelled.');
  error.name = 'AbortError';
  return error;
}

/** Runs tasks (shares of a pass, ranges of rows to assign) on workers, `size` at once. */
export interface SemanticPool {
  readonly size: number;
  /**
   * Run one share on a free worker. `onProgress` gets the share's done fraction (0..1). An abort
   * of `signal` must stop the worker (terminate it) and reject with an AbortError.
   */
  run(
    task: SemanticWorkerTask,
    options: { signal?: CancelSignal; onProgress?: (fraction: number) => void },
  ): Promise<SemanticWorkerResult>;
}

/** Run a task in a worker: a share of a pass, or a range of rows to assign. */
export function semanticWork(
  task: SemanticWorkerTask,
  onProgress?: (fraction: number) => void,
  prepared?: PreparedRows,
): SemanticWorkerResult {
  if (task.pass === 'nearest') {
    const { data, dim, centroids, lists, rows } = task;
    const round = { centroids, lists, sample: rows };
    return { nearest: nearestInSample(data, dim, 0, round, rows, 'simd') };
  }
  if (task.pass === 'assign') {
    const { data, dim, trained, from, to } = task;
    let rows = 0;
    const probeOf = assignProbes(data, dim, 0, from, to, trained, 'simd', () => {
      rows += 1024;
      onProgress?.(Math.min(1, rows / Math.max(1, to - from)));
    });
    return { probeOf };
  }
  return semanticShare(task, onProgress, prepared);
}

/**
 * Run a share (in a worker): one pass of the blocks over `task.clusters`. Throws where the
 * engine has no wasm SIMD (the caller builds on one thread there).
 */
export function semanticShare(
  task: SemanticShareTask,
  onProgress?: (fraction: number) => void,
  prepared?: PreparedRows,
): SemanticShareResult {
  const { data, dim, k, lists } = task;
  const n = lists.order.length;
  let run = prepared && prepared.session === task.session ? prepared.run : null;
  if (!run) {
    const kernel = createDotBlock();
    if (!kernel) {
      throw new Error('FragRel: this engine has no wasm SIMD for the semantic relation.');
    }
    run = prepareListsSimd(kernel, data, dim, 0, n, lists, task.kernel === 'simd');
    if (prepared) {
      prepared.session = task.session;
      prepared.run = run;
    }
  }
  const empty = new Uint32Array(0);
  const self = task.pass === 'self';
  const heaps = !self && task.start ? rowHeapsFrom(task.start, n, k) : createRowHeaps(n, k);
  run(
    heaps,
    { self: self ? task.clusters : empty, cross: self ? empty : task.clusters },
    (done) => onProgress?.(done / n),
    task.floors,
  );
  // The second pass is a build's last use of its rows: let the worker's copy go.
  if (prepared && !self) {
    prepared.session = -1;
    prepared.run = null;
  }
  return { heapScore: heaps.heapScore, heapCol: heaps.heapCol, heapSize: heaps.heapSize };
}

/**
 * A worker's copy of a build's rows in its kernel, kept from its first-pass share to its
 * second-pass one (`session` tells the builds apart); the caller owns it (one per worker).
 */
export interface PreparedRows {
  session: number;
  run: ListsSimdRun | null;
}

/**
 * Cut a pass's clusters into `shares` sets of about equal cost (the second pass: members times
 * the probers from other clusters; the first: members squared): the costliest first, each to the share with the least so far
 * (ties to the lower share). Deterministic; each set ascending.
 */
export function partitionClusters(
  lists: InvertedLists,
  shares: number,
  pass: 'self' | 'cross' = 'cross',
): Uint32Array[] {
  const { order, listStart, proberStart, prober } = lists;
  const nLists = listStart.length - 1;
  const own = new Uint32Array(order.length);
  for (let c = 0; c < nLists; c++) {
    for (let p = listStart[c]; p < listStart[c + 1]; p++) own[order[p]] = c;
  }
  const cost = new Float64Array(nLists);
  for (let c = 0; c < nLists; c++) {
    let probers = 0;
    for (let p = proberStart[c]; p < proberStart[c + 1]; p++) if (own[prober[p]] !== c) probers++;
    const members = listStart[c + 1] - listStart[c];
    cost[c] = pass === 'self' ? members * members : probers * members;
  }
  const byCost = Array.from({ length: nLists }, (_, c) => c).sort(
    (a, b) => cost[b] - cost[a] || a - b,
  );
  const load = new Float64Array(shares);
  const owner = new Uint32Array(nLists);
  for (const c of byCost) {
    let best = 0;
    for (let s = 1; s < shares; s++) if (load[s] < load[best]) best = s;
    owner[c] = best;
    load[best] += cost[c];
  }
  const out: Uint32Array[] = [];
  for (let s = 0; s < shares; s++) {
    const mine: number[] = [];
    for (let c = 0; c < nLists; c++) if (owner[c] === s) mine.push(c);
    out.push(Uint32Array.from(mine));
  }
  return out;
}

let nextSession = 0;

export interface ParallelSemanticOptions extends SemanticBuildOptions {
  /** Workers for the shares; absent or of size 0: the single-thread build. */
  pool?: SemanticPool | null;
  /** Cancels the build: the workers are stopped and the promise rejects with an AbortError. */
  signal?: CancelSignal;
}

/** Whether SharedArrayBuffers can be made and posted (in a page: cross-origin isolated). */
function canShare(): boolean {
  const isolated = (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated;
  return typeof SharedArrayBuffer !== 'undefined' && isolated !== false;
}

type Shareable = Float32Array | Float64Array | Uint32Array;

/**
 * A copy on a SharedArrayBuffer where the engine allows one (cross-origin isolated), so the
 * workers read it without a copy each; else the array itself (the pool copies it per worker).
 */
function shareable<T extends Shareable>(array: T): T {
  if (!canShare()) return array;
  const Type = array.constructor as new (buffer: SharedArrayBuffer) => T;
  const out = new Type(new SharedArrayBuffer(array.byteLength));
  out.set(array as never);
  return out;
}

/**
 * `semanticNeighbours` with the inverted file's blocks of large documents run on `pool`; the same
 * CSR, bit for bit. Falls back to the single-thread build (on this thread) where the pool is
 * missing, the document is searched exactly, the kernel is the JS one, the engine lacks wasm
 * SIMD, or NN-descent rounds are asked for (their joins depend on the heaps' layout).
 */
export async function semanticNeighboursParallel(
  vectors: VectorSet,
  segments: ArrayLike<number>,
  k: number = defaultFragRelOptions.semanticK,
  options: ParallelSemanticOptions = {},
): Promise<CsrMatrix> {
  const { pool, signal, ...serial } = options;
  const segs = toSegments(segments);
  const size = segs[segs.length - 1];
  // Identical rows related once, as the single-thread build does (duplicates.ts): the same
  // grouping and expansion around the same representatives' relation give the same rows.
  const groups =
    k > 0 && vectors.count === size && vectors.data.length >= size * vectors.dim
      ? distinctRows(vectors, segs)
      : null;
  if (groups) {
    const reps = await semanticNeighboursParallel(groups.vectors, groups.segments, k, {
      ...options,
      onProgress: options.onProgress && progressOverGroups(options.onProgress, groups, size),
    });
    const csr = expandDistinct(reps, groups, size, k, options.work);
    options.onProgress?.(size, size);
    return csr;
  }
  const method = options.method ?? 'auto';
  const rounds = (options.refine ?? defaultRefineOptions).rounds;
  const large = (n: number) =>
    method === 'inverted-file' || (method === 'auto' && n > EXACT_MAX_FRAGMENTS);
  let anyLarge = false;
  for (let s = 0; s + 1 < segs.length; s++) if (large(segs[s + 1] - segs[s])) anyLarge = true;
  if (
    !pool ||
    pool.size < 1 ||
    !anyLarge ||
    k <= 0 ||
    options.kernel === 'js' ||
    options.invertedFile?.kernel === 'js' ||
    rounds > 0 ||
    vectors.count !== size ||
    !createDotBlock()
  ) {
    return semanticNeighbours(vectors, segments, k, serial);
  }
  const { dim, data } = vectors;
  const aborted = () => {
    if (signal?.aborted) throw signal.reason ?? cancelled();
  };
  // Documents one after the other; each one's rows are local there and shifted back here.
  const parts: { first: number; csr: CsrMatrix }[] = [];
  for (let s = 0; s + 1 < segs.length; s++) {
    const first = segs[s];
    const n = segs[s + 1] - first;
    const docData = data.subarray(first * dim, (first + n) * dim);
    const doc: VectorSet = { dim, count: n, data: docData };
    const report = (done: number) => options.onProgress?.(first + done, size);
    if (n === 0) continue;
    if (!large(n)) {
      aborted();
      parts.push({
        first,
        csr: semanticNeighbours(doc, [0, n], k, { ...serial, onProgress: (d) => report(d) }),
      });
      continue;
    }
    const onStep = () => {
      aborted();
      report(0);
    };
    const shared = shareable(docData);
    const kernel = options.kernel === 'simd-f32' ? 'simd-f32' : 'simd';
    const session = nextSession++;
    // Tasks on the pool, all at once; progress from `from` to `from + span` of the document.
    const runAll = async <T extends SemanticWorkerResult>(
      tasks: SemanticWorkerTask[],
      from: number,
      span: number,
    ): Promise<T[]> => {
      const fractions = new Float64Array(tasks.length);
      // The first rejection (a cancel, a throwing onProgress, a failed worker) stops the others.
      const stop = cancelSource();
      const onOuterAbort = () => stop.abort(signal?.reason);
      signal?.addEventListener('abort', onOuterAbort);
      try {
        aborted();
        return (await Promise.all(
          tasks.map((task, w) =>
            pool
              .run(task, {
                signal: stop.signal,
                onProgress: (f) => {
                  fractions[w] = f;
                  let sum = 0;
                  for (const x of fractions) sum += x;
                  try {
                    report(Math.floor(n * (from + (span * sum) / fractions.length)));
                  } catch (error) {
                    stop.abort(error);
                  }
                },
              })
              .catch((error: unknown) => {
                stop.abort(error);
                throw error;
              }),
          ),
        )) as T[];
      } finally {
        signal?.removeEventListener('abort', onOuterAbort);
      }
    };

    // The clustering: each k-means round's nearest centroids, then every row's nearest clusters,
    // on the pool (each row's answer is the same wherever it is computed); the centroids' update
    // and the lists here.
    // `pool.size` ranges of `count` rows, of equal size.
    const rangesOf = (count: number) =>
      Array.from({ length: pool.size }, (_, w) => [
        Math.floor((count * w) / pool.size),
        Math.floor((count * (w + 1)) / pool.size),
      ]);
    const training = centroidTraining(docData, dim, 0, n, options.invertedFile);
    let step = training.next();
    while (!step.done) {
      const { centroids, lists: count, sample } = step.value;
      const parts = await runAll<SemanticNearestResult>(
        rangesOf(sample.length).map(([from, to]) => ({
          pass: 'nearest',
          data: shared,
          dim,
          centroids,
          lists: count,
          rows: sample.slice(from, to),
        })),
        0,
        0,
      );
      const nearest = new Uint32Array(sample.length);
      let at = 0;
      for (const p of parts) {
        nearest.set(p.nearest, at);
        at += p.nearest.length;
      }
      onStep();
      step = training.next(nearest);
    }
    const trained = step.value;
    const ranges = rangesOf(n);
    const assigned = await runAll<SemanticAssignResult>(
      ranges.map(([from, to]) => ({ pass: 'assign', data: shared, dim, trained, from, to })),
      0,
      0,
    );
    const probeOf = new Uint32Array(n * trained.probes);
    assigned.forEach((r, w) => probeOf.set(r.probeOf, ranges[w][0] * trained.probes));
    const lists = listsFromProbes(probeOf, n, trained, options.invertedFile?.maxListShare);
    const sharedLists: InvertedLists = {
      order: shareable(lists.order),
      listStart: shareable(lists.listStart),
      proberStart: shareable(lists.proberStart),
      prober: shareable(lists.prober),
    };
    const task = (
      which: 'self' | 'cross',
      clusters: Uint32Array,
      start?: SemanticShareResult,
      floors?: Int32Array,
    ): SemanticShareTask => ({
      session,
      data: shared,
      dim,
      k,
      lists: sharedLists,
      pass: which,
      clusters,
      start,
      kernel,
      floors,
    });
    // The first pass: each row meets only its own cluster, so its rows come whole from the share
    // that holds that cluster (copied, not merged).
    const selfShares = partitionClusters(lists, pool.size, 'self');
    const selfResults = await runAll<SemanticShareResult>(
      selfShares.map((clusters) => task('self', clusters)),
      0,
      0.1,
    );
    aborted();
    const start: SemanticShareResult = {
      heapScore: shareable(new Float64Array(n * k)),
      heapCol: shareable(new Uint32Array(n * k)),
      heapSize: shareable(new Uint32Array(n)),
    };
    selfShares.forEach((clusters, w) => {
      const r = selfResults[w];
      for (const c of clusters) {
        for (let p = lists.listStart[c]; p < lists.listStart[c + 1]; p++) {
          const i = lists.order[p];
          const from = i * k;
          start.heapScore.set(r.heapScore.subarray(from, from + r.heapSize[i]), from);
          start.heapCol.set(r.heapCol.subarray(from, from + r.heapSize[i]), from);
          start.heapSize[i] = r.heapSize[i];
        }
      }
    });
    // The floors the second pass's shares share: a share's rows then rise with the others' finds
    // too, as one thread's do.
    let floors: Int32Array | undefined;
    if (canShare()) {
      floors = new Int32Array(new SharedArrayBuffer(n * 4));
      const publish = sharedFloor(floors);
      for (let i = 0; i < n; i++) if (start.heapSize[i] === k) publish(i, start.heapScore[i * k]);
    }
    const crossResults = await runAll<SemanticShareResult>(
      partitionClusters(lists, pool.size, 'cross').map((clusters) =>
        task('cross', clusters, start, floors),
      ),
      0.1,
      0.9,
    );
    aborted();
    // The first share's rows, then every other share's offered to them: the k best of their
    // union (each share started from the first pass's rows; `offerUnique` counts them once).
    const heaps = rowHeapsFrom(crossResults[0], n, k);
    for (const r of crossResults.slice(1)) {
      for (let i = 0; i < n; i++) {
        const base = i * k;
        for (let e = 0; e < r.heapSize[i]; e++) {
          heaps.offerUnique(i, r.heapScore[base + e], r.heapCol[base + e]);
        }
      }
    }
    parts.push({ first, csr: heapsToCsr(heaps, n) });
    report(n);
  }
  // The documents' blocks side by side (relations stay inside a document).
  const rowPtr = new Uint32Array(size + 1);
  let nnz = 0;
  for (const p of parts) nnz += p.csr.col.length;
  const col = new Uint32Array(nnz);
  const weight = new Float32Array(nnz);
  let at = 0;
  for (const { first, csr } of parts) {
    for (let i = 0; i < csr.size; i++) {
      rowPtr[first + i + 1] = rowPtr[first + i] + (csr.rowPtr[i + 1] - csr.rowPtr[i]);
    }
    for (let e = 0; e < csr.col.length; e++) col[at + e] = csr.col[e] + first;
    weight.set(csr.weight, at);
    at += csr.col.length;
  }
  return { size, rowPtr, col, weight };
}
