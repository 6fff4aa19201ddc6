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
 *   for 10k on one core here (bench/speed.ts), so a single 100k-fragment document (~6 min)
 *   would need an approximate index instead. Ties go to the lower index.
 */
import { ranksBefore } from '../heap';
import { defaultFragRelOptions } from '../options';
import type { CsrMatrix, VectorSet } from '../types';
import { csrRelation, type CsrRelation } from './csr';
import { toSegments } from './segments';

export interface SemanticBuildOptions {
  /**
   * Called after each block of rows with the rows done so far and N. Throwing from it (for
   * example an AbortError when the user cancels) stops the build.
   */
  onProgress?: (rowsDone: number, rowsTotal: number) => void;
}

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

  // Per row, a min-heap of its best candidates so far (root = the one that ranks last), and
  // `floor`: the score a new candidate must reach (the root's once full; before that, any
  // positive cosine is in).
  const heapScore = new Float64Array(size * k);
  const heapCol = new Uint32Array(size * k);
  const heapSize = new Uint32Array(size);
  const floor = new Float64Array(size);

  const offer = (row: number, score: number, c: number) => {
    const base = row * k;
    let n = heapSize[row];
    let pos: number;
    if (n < k) {
      // Sift up from the new leaf while the parent ranks before the new entry.
      pos = n++;
      heapSize[row] = n;
      while (pos > 0) {
        const parent = (pos - 1) >> 1;
        if (!ranksBefore(heapScore[base + parent], heapCol[base + parent], score, c)) break;
        heapScore[base + pos] = heapScore[base + parent];
        heapCol[base + pos] = heapCol[base + parent];
        pos = parent;
      }
    } else {
      if (!ranksBefore(score, c, heapScore[base], heapCol[base])) return;
      // Replace the root and sift down while a child ranks after the new entry.
      pos = 0;
      for (;;) {
        let child = 2 * pos + 1;
        if (child >= n) break;
        if (
          child + 1 < n &&
          ranksBefore(
            heapScore[base + child],
            heapCol[base + child],
            heapScore[base + child + 1],
            heapCol[base + child + 1],
          )
        ) {
          child++;
        }
        if (!ranksBefore(score, c, heapScore[base + child], heapCol[base + child])) break;
        heapScore[base + pos] = heapScore[base + child];
        heapCol[base + pos] = heapCol[base + child];
        pos = child;
      }
    }
    heapScore[base + pos] = score;
    heapCol[base + pos] = c;
    if (n === k) floor[row] = heapScore[base];
  };

  // `>=` lets an equal score through to `offer`, which settles the tie by index.
  const consider = (i: number, j: number, score: number) => {
    if (score > 0) {
      if (score >= floor[i]) offer(i, score, j);
      if (score >= floor[j]) offer(j, score, i);
    }
  };

  // Every sum below runs over d in order, the order of `dot`, so each cosine equals the
  // one-at-a-time product exactly and ties are ties everywhere.
  const dotAt = (a: number, b: number) => {
    let sum = 0;
    for (let d = 0; d < dim; d++) sum += data[a + d] * data[b + d];
    return sum;
  };

  // Row i against columns [from, to), four columns at a time sharing each load of row i.
  const oneRow = (i: number, from: number, to: number) => {
    const io = i * dim;
    let j = from;
    for (; j + 3 < to; j += 4) {
      const o0 = j * dim;
      const o1 = o0 + dim;
      const o2 = o1 + dim;
      const o3 = o2 + dim;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      for (let d = 0; d < dim; d++) {
        const x = data[io + d];
        s0 += x * data[o0 + d];
        s1 += x * data[o1 + d];
        s2 += x * data[o2 + d];
        s3 += x * data[o3 + d];
      }
      consider(i, j, s0);
      consider(i, j + 1, s1);
      consider(i, j + 2, s2);
      consider(i, j + 3, s3);
    }
    for (; j < to; j++) consider(i, j, dotAt(io, j * dim));
  };

  // Rows i and i + 1 against columns [from, to) in 2 x 4 tiles: six loads feed eight products,
  // about twice as fast as one row at a time.
  const twoRows = (i: number, from: number, to: number) => {
    const io = i * dim;
    const io2 = io + dim;
    let j = from;
    for (; j + 3 < to; j += 4) {
      const o0 = j * dim;
      const o1 = o0 + dim;
      const o2 = o1 + dim;
      const o3 = o2 + dim;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      let t0 = 0;
      let t1 = 0;
      let t2 = 0;
      let t3 = 0;
      for (let d = 0; d < dim; d++) {
        const x = data[io + d];
        const y = data[io2 + d];
        const a0 = data[o0 + d];
        const a1 = data[o1 + d];
        const a2 = data[o2 + d];
        const a3 = data[o3 + d];
        s0 += x * a0;
        s1 += x * a1;
        s2 += x * a2;
        s3 += x * a3;
        t0 += y * a0;
        t1 += y * a1;
        t2 += y * a2;
        t3 += y * a3;
      }
      consider(i, j, s0);
      consider(i, j + 1, s1);
      consider(i, j + 2, s2);
      consider(i, j + 3, s3);
      consider(i + 1, j, t0);
      consider(i + 1, j + 1, t1);
      consider(i + 1, j + 2, t2);
      consider(i + 1, j + 3, t3);
    }
    for (; j < to; j++) {
      const o = j * dim;
      consider(i, j, dotAt(io, o));
      consider(i + 1, j, dotAt(io2, o));
    }
  };

  if (k > 0) {
    for (let s = 0; s + 1 < segs.length; s++) {
      const first = segs[s];
      const end = segs[s + 1];
      for (let i0 = first; i0 < end; i0 += BLOCK_ROWS) {
        const i1 = Math.min(i0 + BLOCK_ROWS, end);
        for (let j0 = i0; j0 < end; j0 += BLOCK_COLS) {
          const j1 = Math.min(j0 + BLOCK_COLS, end);
          for (let i = i0; i < i1; i += 2) {
            if (i + 1 < i1) {
              if (i + 1 >= j0 && i + 1 < j1) consider(i, i + 1, dotAt(i * dim, (i + 1) * dim));
              twoRows(i, Math.max(j0, i + 2), j1);
            } else {
              oneRow(i, Math.max(j0, i + 1), j1);
            }
          }
        }
        options.onProgress?.(i1, size);
      }
    }
  }

  const rowPtr = new Uint32Array(size + 1);
  for (let i = 0; i < size; i++) rowPtr[i + 1] = rowPtr[i] + heapSize[i];
  const nnz = rowPtr[size];
  const col = new Uint32Array(nnz);
  const weight = new Float32Array(nnz);
  for (let i = 0; i < size; i++) {
    // Insertion sort by column: rows hold at most k entries.
    const base = i * k;
    const at = rowPtr[i];
    const n = heapSize[i];
    for (let e = 0; e < n; e++) {
      const c = heapCol[base + e];
      const w = heapScore[base + e];
      let p = e;
      while (p > 0 && col[at + p - 1] > c) {
        col[at + p] = col[at + p - 1];
        weight[at + p] = weight[at + p - 1];
        p--;
      }
      col[at + p] = c;
      weight[at + p] = w;
    }
  }
  return { size, rowPtr, col, weight };
}

/** The semantic relation (Eq. 6) over documents laid out by `segments`. */
export function semanticRelation(
  vectors: VectorSet,
  segments: ArrayLike<number>,
  k: number = defaultFragRelOptions.semanticK,
  options: SemanticBuildOptions = {},
): CsrRelation {
  return csrRelation('semantic', semanticNeighbours(vectors, segments, k, options));
}
