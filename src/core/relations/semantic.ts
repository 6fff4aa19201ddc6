/**
 * @file The semantic relation (Eq. 6, as corrected in DESIGN.md): w[i][j] = max(0, cos(e_i, e_j)),
 * kept sparse as each fragment's k nearest neighbours within its document.
 *
 * - The paper prints 1 - cos, a distance; "larger is stronger" needs the similarity. Negative
 *   cosines are clamped to 0 and then dropped, since a zero weight adds nothing to either sum
 *   of Eq. 9. A row may therefore hold fewer than k entries, or none (s_env = 0 there).
 * - Not symmetrised: row i holds i's own k nearest neighbours, so s_env[i] is the weighted mean
 *   over the k fragments most like i, every row has at most k entries and Eq. 9 costs O(N k).
 *   The union (adding i to j's row when j is in i's) would give "hub" fragments rows of
 *   unbounded length and change their s_env by fragments that are not among their own nearest.
 * - Exact: brute force over all pairs of a document, each pair's dot product computed once and
 *   offered to both rows, in cache-sized blocks of 2 x 4 dot products, with a bounded heap
 *   per row. O(n^2 dim) per document: about 0.05 s for 1k fragments of 100 dimensions and 3.5 s
 *   for 10k on one core here (bench/speed.ts); kept for documents of up to EXACT_MAX_FRAGMENTS
 *   fragments, where it costs a few seconds and misses nothing. Ties go to the lower index.
 * - Approximate, above that: the inverted file (inverted-lists.ts) compares each fragment only
 *   with the members of its nearest clusters, in blocks through the same 2 x 4 tiles; weights
 *   are still exact cosines, only some true neighbours may be missing (recall@16 measured in
 *   bench/scale.ts and docs/scale.md). An optional NN-descent pass (`refine`) can then
 *   introduce neighbours of neighbours to each other. Where the engine has wasm SIMD its blocks
 *   run through the kernel of wasm/dot-block.ts (about 3x less CPU, docs/scale.md), which only
 *   filters: the weights kept are the exact search's own sums.
 * - On a pool of workers: semantic-parallel.ts builds the same relation, bit for bit, from shares
 *   of the inverted file's work (the app's index worker does so for large documents).
 */
import { defaultFragRelOptions } from '../options';
import type { CsrMatrix, VectorSet } from '../types';
import { csrRelation, type CsrRelation } from './csr';
import { distinctRows, expandDistinct, progressOverGroups } from './duplicates';
import { createRowHeaps, heapsToCsr, sharedFloor, type RowHeaps } from './row-heaps';
import { invertedFileLists, type InvertedFileOptions, type InvertedLists } from './inverted-lists';
import {
  createDotBlock,
  DOT_BLOCK_TOLERANCE,
  LANES,
  paddedDim,
  paddedDim16,
  quantisation,
  type DotBlock,
} from './wasm/dot-block';
import { toSegments } from './segments';
import { rowDots, twoRowDots } from './dot-tiles';

export interface SemanticBuildOptions {
  /**
   * Called after each block of rows with the rows done so far and N. Throwing from it (for
   * example an AbortError when the user cancels) stops the build.
   */
  onProgress?: (rowsDone: number, rowsTotal: number) => void;
  /**
   * `exact` compares every pair of a document; `inverted-file` only fragments of similar
   * clusters (approximate, inverted-lists.ts); `auto` (default) the exact search for documents
   * of up to EXACT_MAX_FRAGMENTS fragments, where it is as fast, and the inverted file above.
   */
  method?: 'auto' | 'exact' | 'inverted-file';
  /** Parameters of the inverted file (defaults in inverted-lists.ts). */
  invertedFile?: InvertedFileOptions;
  /**
   * Kernel of the inverted file's blocks: `simd` (default) the wasm SIMD kernel where the engine
   * has it (wasm/dot-block.ts), filtering on rows quantised to i16; `simd-f32` the same kernel
   * filtering on the f32 rows; `js` always the JS tiles (also where wasm SIMD is missing). The
   * filters only choose which products are rescored exactly, with tolerances that cover their
   * error, so all three give the same result on the same lists.
   */
  kernel?: 'simd' | 'simd-f32' | 'js';
  /** Rounds of neighbour-of-neighbour refinement after the inverted file (`refine` below). */
  refine?: RefineOptions;
  /**
   * Counts the build's work where given: `products`, dot products computed by the blocks (the
   * exact search's pairs, the inverted file's blocks, padding included); `offers`, candidates
   * offered to rows when identical vectors are expanded (duplicates.ts). A test of cost, not of
   * time.
   */
  work?: SemanticWork;
}

export interface SemanticWork {
  products: number;
  offers: number;
}

export interface RefineOptions {
  /** Most rounds; 0 keeps the inverted file's rows as they are. */
  rounds: number;
  /** New neighbours of a row joined per round (NN-descent's rho k). */
  sample: number;
  /** Stop once a round changes fewer than this share of the k n entries. */
  stopShare: number;
}

export const defaultRefineOptions: Readonly<RefineOptions> = Object.freeze({
  rounds: 0,
  sample: 8,
  stopShare: 0.01,
});

/** Largest document searched exactly under `method: 'auto'` (measured, docs/scale.md). */
export const EXACT_MAX_FRAGMENTS = 12_000;

// Rows and columns per block: a column block of 128 rows x 100 dims of Float32 is 50 KB, so it
// stays in L2 while a block of rows streams past it.
const BLOCK_ROWS = 64;
const BLOCK_COLS = 128;

/** Eq. 6 kNN graph as CSR (columns ascending within a row, weights = cosine as Float32). */
export function semanticNeighbours(
  vectors: VectorSet,
  segments: ArrayLike<number>,
  k: number = defaultFragRelOptions.semanticK,
  options: SemanticBuildOptions = {},
): CsrMatrix {
  const segs = toSegments(segments);
  const size = segs[segs.length - 1];
  const { dim, data } = vectors;
  if (vectors.count !== size) {
    throw new Error(
      `FragRel: ${vectors.count} fragment vectors for ${size} fragments; embed every fragment first.`,
    );
  }
  if (data.length < size * dim) {
    throw new Error(
      `FragRel: vector data holds ${data.length} numbers, fewer than ${size} rows of ${dim}.`,
    );
  }
  if (!Number.isInteger(k) || k < 0) {
    throw new Error(`FragRel: semanticK must be a whole number >= 0, got ${k}.`);
  }
  // Identical rows related once (duplicates.ts): many copies would otherwise meet all pairs.
  const groups = k > 0 ? distinctRows(vectors, segs) : null;
  if (groups) {
    const reps = semanticNeighbours(groups.vectors, groups.segments, k, {
      ...options,
      onProgress: options.onProgress && progressOverGroups(options.onProgress, groups, size),
    });
    const csr = expandDistinct(reps, groups, size, k, options.work);
    options.onProgress?.(size, size);
    return csr;
  }
  const work = options.work;

  const heaps = createRowHeaps(size, k);
  const { heapCol, heapSize, heapNew, floor, offer, offerUnique } = heaps;

  // Fragments are visited by position in `buf`; `ids` maps a position to its fragment index.
  // The exact search reads `data` itself (identity ids); the inverted file reads a copy laid out
  // cluster by cluster, so that each pair of clusters is one dense block.
  let buf = data;
  let ids: Uint32Array = new Uint32Array(0);

  // `>=` lets an equal score through to `offer`, which settles the tie by index.
  const consider = (p: number, q: number, score: number) => {
    if (score > 0) {
      const i = ids[p];
      const j = ids[q];
      if (score >= floor[i]) offer(i, score, j);
      if (score >= floor[j]) offer(j, score, i);
    }
  };

  // Every sum below runs over d in order, the order of `dot`, so each cosine equals the
  // one-at-a-time product exactly and ties are ties everywhere.
  const dotAt = (a: number, b: number) => {
    let sum = 0;
    for (let d = 0; d < dim; d++) sum += buf[a + d] * buf[b + d];
    return sum;
  };

  // A block's scores (dot-tiles.ts), then its offers in the order of the tiles: four columns of
  // the first row, the same four of the second, and so on; the columns left over one by one.
  const tileS = new Float64Array(BLOCK_COLS);
  const tileT = new Float64Array(BLOCK_COLS);

  // Row i against columns [from, to).
  const oneRow = (i: number, from: number, to: number) => {
    rowDots(buf, i * dim, buf, from, to, dim, tileS);
    for (let j = from; j < to; j++) consider(i, j, tileS[j - from]);
  };

  // Rows i and i + 1 against columns [from, to).
  const twoRows = (i: number, from: number, to: number) => {
    if (to <= from) return;
    twoRowDots(buf, i * dim, (i + 1) * dim, buf, from, to, dim, tileS, tileT);
    const tiled = to - ((to - from) & 3);
    for (let j = from; j < tiled; j += 4) {
      for (let x = j; x < j + 4; x++) consider(i, x, tileS[x - from]);
      for (let x = j; x < j + 4; x++) consider(i + 1, x, tileT[x - from]);
    }
    for (let j = tiled; j < to; j++) {
      consider(i, j, tileS[j - from]);
      consider(i + 1, j, tileT[j - from]);
    }
  };

  /**
   * Every pair of positions (p, q) with p in [r0, r1), q in [c0, c1) and q > p, each once, in
   * cache-sized blocks. `onBlock` is called after each block of rows.
   */
  const relateRange = (
    r0: number,
    r1: number,
    c0: number,
    c1: number,
    onBlock?: (rowEnd: number) => void,
  ) => {
    for (let i0 = r0; i0 < r1; i0 += BLOCK_ROWS) {
      const i1 = Math.min(i0 + BLOCK_ROWS, r1);
      for (let j0 = Math.max(c0, i0); j0 < c1; j0 += BLOCK_COLS) {
        const j1 = Math.min(j0 + BLOCK_COLS, c1);
        if (work)
          for (let i = i0; i < i1; i++) work.products += Math.max(0, j1 - Math.max(j0, i + 1));
        for (let i = i0; i < i1; i += 2) {
          if (i + 1 < i1) {
            if (i + 1 >= j0 && i + 1 < j1) consider(i, i + 1, dotAt(i * dim, (i + 1) * dim));
            twoRows(i, Math.max(j0, i + 2), j1);
          } else {
            oneRow(i, Math.max(j0, i + 1), j1);
          }
        }
      }
      onBlock?.(i1);
    }
  };

  const { considerOnce } = heaps;

  /**
   * Queries [q0, q1) of `qbuf` (fragment indices `qids`) against positions [m0, m1) of `buf`,
   * two queries at a time as `twoRows`.
   */
  const crossBlock = (
    qbuf: Float32Array,
    qids: Uint32Array,
    q0: number,
    q1: number,
    m0: number,
    m1: number,
  ) => {
    if (m1 <= m0) return;
    const tiled = m1 - ((m1 - m0) & 3);
    for (let q = q0; q < q1; q += 2) {
      const two = q + 1 < q1;
      const io = q * dim;
      const qi = qids[q];
      const qi2 = qids[two ? q + 1 : q];
      twoRowDots(qbuf, io, two ? io + dim : io, buf, m0, m1, dim, tileS, tileT);
      for (let j = m0; j < tiled; j += 4) {
        for (let x = j; x < j + 4; x++) considerOnce(qi, ids[x], tileS[x - m0]);
        if (two) for (let x = j; x < j + 4; x++) considerOnce(qi2, ids[x], tileT[x - m0]);
      }
      for (let j = tiled; j < m1; j++) {
        considerOnce(qi, ids[j], tileS[j - m0]);
        if (two) considerOnce(qi2, ids[j], tileT[j - m0]);
      }
    }
  };

  const dotOf = (i: number, j: number) => {
    const io = i * dim;
    const jo = j * dim;
    let sum = 0;
    for (let d = 0; d < dim; d++) sum += data[io + d] * data[jo + d];
    return sum;
  };

  /**
   * NN-descent's local join (Dong, Moses and Li, WWW 2011): a neighbour of a neighbour is likely
   * a neighbour. Each round, every fragment introduces its new neighbours (and the fragments
   * that newly hold it) to each other and to its old ones; rounds stop when fewer than
   * `stopShare` of all k n entries changed. Starting from the inverted file's rows it lifts the
   * recall of boundary fragments, whose true neighbours lie in clusters that were not probed.
   */
  const refine = (first: number, n: number, rounds: number, sample: number, stopShare: number) => {
    const cap = 2 * sample;
    const newIds = new Uint32Array(n * cap);
    const oldIds = new Uint32Array(n * cap);
    const newCount = new Uint32Array(n);
    const oldCount = new Uint32Array(n);
    for (let round = 0; round < rounds; round++) {
      newCount.fill(0);
      oldCount.fill(0);
      for (let l = 0; l < n; l++) {
        const i = first + l;
        const base = i * k;
        const m = heapSize[i];
        let taken = 0;
        for (let e = 0; e < m; e++) {
          const r = heapCol[base + e] - first;
          if (heapNew[base + e] === 1) {
            if (taken === sample) continue;
            heapNew[base + e] = 0;
            taken++;
            if (newCount[l] < cap) newIds[l * cap + newCount[l]++] = r;
            if (newCount[r] < cap) newIds[r * cap + newCount[r]++] = l;
          } else {
            if (oldCount[l] < cap) oldIds[l * cap + oldCount[l]++] = r;
            if (oldCount[r] < cap) oldIds[r * cap + oldCount[r]++] = l;
          }
        }
      }
      let changed = 0;
      for (let l = 0; l < n; l++) {
        const nb = l * cap;
        const nn = newCount[l];
        const no = oldCount[l];
        for (let x = 0; x < nn; x++) {
          const a = first + newIds[nb + x];
          for (let y = x + 1; y < nn; y++) {
            const b = first + newIds[nb + y];
            if (a === b) continue;
            const score = dotOf(a, b);
            if (score > 0) changed += offerUnique(a, score, b) + offerUnique(b, score, a);
          }
          for (let y = 0; y < no; y++) {
            const b = first + oldIds[nb + y];
            if (a === b) continue;
            const score = dotOf(a, b);
            if (score > 0) changed += offerUnique(a, score, b) + offerUnique(b, score, a);
          }
        }
        if ((l & 4095) === 4095) options.onProgress?.(first + l, size);
      }
      if (changed < stopShare * n * k) break;
    }
  };

  if (k > 0) {
    const method = options.method ?? 'auto';
    for (let s = 0; s + 1 < segs.length; s++) {
      const first = segs[s];
      const end = segs[s + 1];
      const n = end - first;
      if (method === 'exact' || (method === 'auto' && n <= EXACT_MAX_FRAGMENTS)) {
        if (ids.length < size) {
          ids = new Uint32Array(size);
          for (let i = 0; i < size; i++) ids[i] = i;
        }
        buf = data;
        relateRange(first, end, first, end, (rowEnd) => options.onProgress?.(rowEnd, size));
        continue;
      }
      // Inverted file: rows of the document copied in cluster order, then each probed pair of
      // clusters compared as one block.
      const lists = invertedFileLists(
        data,
        dim,
        first,
        n,
        { kernel: options.kernel === 'js' ? 'js' : 'simd', ...options.invertedFile },
        () => options.onProgress?.(first, size),
      );
      const { order, listStart, proberStart, prober } = lists;
      const kernel = options.kernel === 'js' ? null : createDotBlock();
      if (kernel) {
        prepareListsSimd(
          kernel,
          data,
          dim,
          first,
          n,
          lists,
          options.kernel !== 'simd-f32',
        )(heaps, null, (done) => options.onProgress?.(done, size), undefined, work);
        const r = options.refine ?? defaultRefineOptions;
        refine(first, n, r.rounds, r.sample, r.stopShare);
        options.onProgress?.(end, size);
        continue;
      }
      buf = new Float32Array(n * dim);
      ids = new Uint32Array(n);
      for (let p = 0; p < n; p++) {
        const i = first + order[p];
        ids[p] = i;
        buf.set(data.subarray(i * dim, (i + 1) * dim), p * dim);
      }
      // Per cluster: the fragments that probe it (copied together) against its members.
      let queryBuf = new Float32Array(0);
      let queryIds = new Uint32Array(0);
      for (let c = 0; c + 1 < listStart.length; c++) {
        const q0 = proberStart[c];
        const nq = proberStart[c + 1] - q0;
        if (nq === 0 || listStart[c + 1] === listStart[c]) continue;
        if (queryIds.length < nq) {
          queryIds = new Uint32Array(nq * 2);
          queryBuf = new Float32Array(nq * 2 * dim);
        }
        for (let q = 0; q < nq; q++) {
          const i = first + prober[q0 + q];
          queryIds[q] = i;
          queryBuf.set(data.subarray(i * dim, (i + 1) * dim), q * dim);
        }
        for (let qa = 0; qa < nq; qa += BLOCK_ROWS) {
          for (let m0 = listStart[c]; m0 < listStart[c + 1]; m0 += BLOCK_COLS) {
            if (work) {
              work.products +=
                (Math.min(qa + BLOCK_ROWS, nq) - qa) *
                (Math.min(m0 + BLOCK_COLS, listStart[c + 1]) - m0);
            }
            crossBlock(
              queryBuf,
              queryIds,
              qa,
              Math.min(qa + BLOCK_ROWS, nq),
              m0,
              Math.min(m0 + BLOCK_COLS, listStart[c + 1]),
            );
          }
        }
        // Every cluster: one block is at most a few hundred million products.
        options.onProgress?.(first + Math.floor((n * c) / (listStart.length - 1)), size);
      }
      buf = data;
      const r = options.refine ?? defaultRefineOptions;
      refine(first, n, r.rounds, r.sample, r.stopShare);
      options.onProgress?.(end, size);
      ids = new Uint32Array(0);
    }
  }

  return heapsToCsr(heaps, size);
}

// The rows' heaps live in row-heaps.ts; their users that build shares import them from here too.
export { createRowHeaps, heapsToCsr, rowHeapsFrom, sharedFloor, type RowHeaps } from './row-heaps';

/** The semantic relation (Eq. 6) over documents laid out by `segments`. */
export function semanticRelation(
  vectors: VectorSet,
  segments: ArrayLike<number>,
  k: number = defaultFragRelOptions.semanticK,
  options: SemanticBuildOptions = {},
): CsrRelation {
  return csrRelation('semantic', semanticNeighbours(vectors, segments, k, options));
}

/** The inverted file's blocks once its rows are in the kernel's memory (`prepareListsSimd`). */
export type ListsSimdRun = (
  heaps: RowHeaps,
  share: { self: Uint32Array; cross: Uint32Array } | null,
  progress?: (rowsDone: number) => void,
  sharedFloors?: Int32Array,
  work?: SemanticWork,
) => void;

/**
 * The inverted file's blocks through the wasm SIMD kernel, in two steps. This setup copies the
 * document's rows into the kernel's memory (and quantises them) cluster by cluster, each cluster
 * padded to a multiple of 4 zero rows, each row to a multiple of 4 floats; the run it returns
 * compares, per cluster, every block of its probers with every block of its members, and may be
 * called more than once (a worker runs both passes of a parallel build on one copy of the rows). The kernel's f32 scores only filter: a product that could enter either
 * row's heap (within DOT_BLOCK_TOLERANCE of its floor) is recomputed by `dotOf`, in the
 * order of the exact search, so the weights and ties equal the JS path's.
 *
 * The run's `share`, when given, limits each pass to its clusters (ascending): a parallel build
 * (semantic-parallel.ts) runs the first pass in shares, merges the rows, then the second pass in
 * shares that all start from those rows (so from the same raised floors as one thread).
 * `sharedFloors` (local rows, see `sharedFloor`) lets the shares of a pass filter with each
 * other's floors.
 */
export function prepareListsSimd(
  kernel: DotBlock,
  data: Float32Array,
  dim: number,
  first: number,
  n: number,
  lists: InvertedLists,
  quantised: boolean,
): ListsSimdRun {
  const { order, listStart, proberStart, prober } = lists;
  const nLists = listStart.length - 1;
  const dimPad = paddedDim(dim);
  const rowBytes = dimPad * 4;
  const padded = (count: number) => Math.ceil(count / LANES) * LANES;
  // Padded start row of each cluster, and each fragment's row (byte offset) in the kernel.
  const rowStart = new Uint32Array(nLists + 1);
  for (let c = 0; c < nLists; c++) {
    rowStart[c + 1] = rowStart[c] + padded(listStart[c + 1] - listStart[c]);
  }
  const rowsAt = kernel.alloc(rowStart[nLists] * rowBytes);
  const queriesAt = kernel.alloc((BLOCK_ROWS + 1) * 4);
  const queryFloorsAt = kernel.alloc((BLOCK_ROWS + 1) * 4);
  // Each padded row's floor less the tolerance, as f32 (renewed per block; floors only
  // rise, so a stale one lets more through, never fewer). Padding rows score 0 and never pass.
  const memberFloorsAt = kernel.alloc(rowStart[nLists] * 4);
  const outAt = kernel.alloc((BLOCK_ROWS + 1) * BLOCK_COLS * 4);
  const exactAt = kernel.alloc((BLOCK_ROWS + 1) * BLOCK_COLS * 8);
  // The i16 copy of the rows (same row numbers, rows padded to 8 values): the filter reads it,
  // at half the bytes and twice the products per instruction; `rescore` reads the f32 rows.
  // Allocated before any view of the memory is taken (a grow detaches the views).
  let maxNorm = 0;
  for (let i = first; i < first + n; i++) {
    let norm = 0;
    for (let d = 0; d < dim; d++) norm += data[i * dim + d] * data[i * dim + d];
    if (norm > maxNorm) maxNorm = norm;
  }
  const quant = quantisation(dim, Math.sqrt(maxNorm));
  const rowBytes16 = paddedDim16(dim) * 2;
  const rows16At = quantised ? kernel.alloc(rowStart[nLists] * rowBytes16) : 0;
  const queries16At = kernel.alloc((BLOCK_ROWS + 1) * 4);
  const rowOffset16 = new Uint32Array(quantised ? n : 0);
  const rowOffset = new Uint32Array(n);
  const memberId = new Uint32Array(rowStart[nLists]);
  {
    const f32 = kernel.f32();
    for (let c = 0; c < nLists; c++) {
      for (let p = listStart[c]; p < listStart[c + 1]; p++) {
        const local = order[p];
        const row = rowStart[c] + (p - listStart[c]);
        const at = rowsAt + row * rowBytes;
        rowOffset[local] = at;
        memberId[row] = first + local;
        f32.set(data.subarray((first + local) * dim, (first + local + 1) * dim), at >> 2);
      }
    }
  }
  const f32 = kernel.f32();
  const i32 = kernel.i32();
  const f64 = kernel.f64();
  const exact = exactAt >> 3;
  const qIndex = queriesAt >> 2;
  const qFloor = queryFloorsAt >> 2;
  const mFloor = memberFloorsAt >> 2;
  const out = outAt >> 2;
  if (quantised) {
    const i16 = kernel.i16();
    for (let c = 0; c < nLists; c++) {
      for (let p = listStart[c]; p < listStart[c + 1]; p++) {
        const local = order[p];
        const at = rows16At + (rowStart[c] + (p - listStart[c])) * rowBytes16;
        rowOffset16[local] = at;
        const from = (first + local) * dim;
        for (let d = 0; d < dim; d++) i16[(at >> 1) + d] = Math.round(data[from + d] * quant.scale);
      }
    }
  }
  const q16Index = queries16At >> 2;
  const tolerance = quantised ? quant.tolerance : DOT_BLOCK_TOLERANCE;
  // Each fragment's own cluster (where `order` placed it).
  const own = new Uint32Array(n);
  for (let c = 0; c < nLists; c++) {
    for (let p = listStart[c]; p < listStart[c + 1]; p++) own[order[p]] = c;
  }
  const queries = new Uint32Array(n);
  return (heaps, share, progress, sharedFloors, work) => {
    const { floor, considerOnce } = heaps;
    const shared = sharedFloors ? sharedFloor(sharedFloors) : null;
    // Progress in rows, spread over the passes that run here (a parallel share runs one): each
    // pass's clusters, and within a large cluster its blocks of queries. Thousands of identical
    // vectors make one cluster whose self pass is most of the work: counted by clusters alone,
    // the rows done stood still for the whole of it.
    const clusters = [0, 1].map((pass) =>
      share ? (pass === 0 ? share.self.length : share.cross.length) : nLists,
    );
    const both = clusters[0] > 0 && clusters[1] > 0;
    const tell = (pass: number, done: number) => {
      if (!progress) return;
      const start = both && pass === 1 ? 0.5 : 0;
      const span = both ? 0.5 : 1;
      progress(first + Math.floor(n * (start + (span * done) / Math.max(1, clusters[pass]))));
    };
    // Two passes: first every cluster against itself, which fills each row's heap with good
    // candidates and so raises its floor; then each cluster against its other probers, where
    // the raised floors let the kernel drop nearly every product (measured: docs/scale.md).
    for (let pass = 0; pass < 2; pass++) {
      const subset = share ? (pass === 0 ? share.self : share.cross) : null;
      const count = subset ? subset.length : nLists;
      for (let s = 0; s < count; s++) {
        const c = subset ? subset[s] : s;
        const members = listStart[c + 1] - listStart[c];
        if (members === 0) continue;
        let nq = 0;
        if (pass === 0) {
          for (let p = listStart[c]; p < listStart[c + 1]; p++) queries[nq++] = order[p];
        } else {
          for (let p = proberStart[c]; p < proberStart[c + 1]; p++) {
            if (own[prober[p]] !== c) queries[nq++] = prober[p];
          }
        }
        if (nq === 0) continue;
        for (let qa = 0; qa < nq; qa += BLOCK_ROWS) {
          const qn = Math.min(BLOCK_ROWS, nq - qa);
          // Inside a large cluster: every 16 blocks of queries (1,024 rows).
          if (qa > 0 && (qa / BLOCK_ROWS) % 16 === 0) tell(pass, s + qa / nq);
          // The members' floors, renewed per block of queries: a large cluster meets thousands
          // of probers, and its members' floors rise meanwhile (a higher floor, fewer passes).
          for (let r = rowStart[c]; r < rowStart[c] + members; r++) {
            const id = memberId[r];
            if (shared) floor[id] = shared(id - first, floor[id]);
            f32[mFloor + r] = floor[id] - tolerance;
          }
          for (let q = 0; q < qn; q++) {
            const local = queries[qa + q];
            i32[qIndex + q] = rowOffset[local];
            if (quantised) i32[q16Index + q] = rowOffset16[local];
            if (shared) floor[first + local] = shared(local, floor[first + local]);
            f32[qFloor + q] = floor[first + local] - tolerance;
          }
          // An odd block repeats its last query; its candidates are met twice, and
          // `considerOnce` keeps the second out.
          if (qn & 1) {
            i32[qIndex + qn] = i32[qIndex + qn - 1];
            i32[q16Index + qn] = i32[q16Index + qn - 1];
            f32[qFloor + qn] = f32[qFloor + qn - 1];
          }
          const qEven = qn + (qn & 1);
          for (let m0 = 0; m0 < members; m0 += BLOCK_COLS) {
            const mPad = padded(Math.min(BLOCK_COLS, members - m0));
            const firstRow = rowStart[c] + m0;
            if (work) work.products += qEven * mPad;
            const found = quantised
              ? kernel.blockFiltered16(
                  queries16At,
                  qEven,
                  rows16At + firstRow * rowBytes16,
                  mPad,
                  rowBytes16,
                  queryFloorsAt,
                  memberFloorsAt + firstRow * 4,
                  quant.unit,
                  outAt,
                )
              : kernel.blockFiltered(
                  queriesAt,
                  qEven,
                  rowsAt + firstRow * rowBytes,
                  mPad,
                  rowBytes,
                  queryFloorsAt,
                  memberFloorsAt + firstRow * 4,
                  outAt,
                );
            // The exact weights of all candidates at once, in wasm (the same bits as `dotOf`).
            kernel.rescore(
              queriesAt,
              rowsAt + firstRow * rowBytes,
              rowBytes,
              outAt,
              found,
              exactAt,
            );
            for (let e = 0; e < found; e++) {
              const code = i32[out + e];
              const q = qa + Math.min(code >>> 16, qn - 1);
              const m = m0 + (code & 0xffff);
              // A cluster against itself meets each pair twice; one meeting is enough (its
              // filter used floors no higher than the other's, and both rows are offered).
              if (pass === 0 && m <= q) continue;
              const i = first + queries[q];
              const j = memberId[firstRow + (code & 0xffff)];
              considerOnce(i, j, f64[exact + e]);
            }
          }
        }
        if (pass === 1 || (s & 31) === 31 || nq > 16 * BLOCK_ROWS) tell(pass, s + 1);
      }
    }
  };
}
