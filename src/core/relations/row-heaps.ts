/**
 * @file The k-best heaps of every row, shared by the semantic relation's builds (semantic.ts,
 * its parallel shares in semantic-parallel.ts, identical rows in duplicates.ts), and their CSR.
 */
import { ranksBefore } from '../heap';
import type { CsrMatrix } from '../types';

/**
 * Per row, a min-heap of its best candidates so far (root = the one that ranks last), and
 * `floor`: the score a new candidate must reach (the root's once full; before that, any
 * positive cosine is in). Each row ends with the k best of all candidates it was offered, in
 * the total order of `ranksBefore` (score, then the lower index), whatever the order of the
 * offers: this is what lets a parallel build merge the rows of its shares (semantic-parallel.ts)
 * into exactly the single-thread result.
 */
export interface RowHeaps {
  k: number;
  heapScore: Float64Array;
  heapCol: Uint32Array;
  heapSize: Uint32Array;
  floor: Float64Array;
  /** 1 while an entry has not yet taken part in a local join of the refinement (NN-descent). */
  heapNew: Uint8Array;
  offer: (row: number, score: number, c: number) => void;
  /** `offer`, unless the row already holds c; 1 when offered. */
  offerUnique: (row: number, score: number, c: number) => number;
  /** Both ways, unless already held: a pair may be met from either side or twice. */
  considerOnce: (i: number, j: number, score: number) => void;
}

export function createRowHeaps(size: number, k: number): RowHeaps {
  const heapScore = new Float64Array(size * k);
  const heapCol = new Uint32Array(size * k);
  const heapSize = new Uint32Array(size);
  const floor = new Float64Array(size);
  const heapNew = new Uint8Array(size * k);

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
        heapNew[base + pos] = heapNew[base + parent];
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
        heapNew[base + pos] = heapNew[base + child];
        pos = child;
      }
    }
    heapScore[base + pos] = score;
    heapCol[base + pos] = c;
    heapNew[base + pos] = 1;
    // Never lowered: a parallel build may have raised it above the root (`sharedFloor`).
    if (n === k && heapScore[base] > floor[row]) floor[row] = heapScore[base];
  };

  const offerUnique = (row: number, score: number, c: number): number => {
    if (!(score >= floor[row])) return 0;
    const base = row * k;
    const n = heapSize[row];
    for (let e = 0; e < n; e++) if (heapCol[base + e] === c) return 0;
    offer(row, score, c);
    return 1;
  };

  const considerOnce = (i: number, j: number, score: number) => {
    if (score > 0 && i !== j) {
      offerUnique(i, score, j);
      offerUnique(j, score, i);
    }
  };

  return { k, heapScore, heapCol, heapSize, floor, heapNew, offer, offerUnique, considerOnce };
}

/** Heaps that start from `rows` (the arrays of another build's heaps, copied). */
export function rowHeapsFrom(
  rows: { heapScore: Float64Array; heapCol: Uint32Array; heapSize: Uint32Array },
  size: number,
  k: number,
): RowHeaps {
  const heaps = createRowHeaps(size, k);
  heaps.heapScore.set(rows.heapScore);
  heaps.heapCol.set(rows.heapCol);
  heaps.heapSize.set(rows.heapSize);
  heaps.heapNew.fill(1);
  // As `offer` leaves it: the root's score once a row is full, else 0.
  for (let i = 0; i < size; i++) if (rows.heapSize[i] === k) heaps.floor[i] = rows.heapScore[i * k];
  return heaps;
}

/**
 * Floors shared by the workers of a parallel build, one per row (local index) as the bits of an
 * f32 in an Int32Array over a SharedArrayBuffer (Int32 reads and writes never tear; Float32 and
 * Float64 ones may). Each worker publishes its rows' floors, rounded down to f32, and raises its
 * own floors (so its filter and its offers) to the highest it sees. Sound: a published floor is
 * at most the k-th best score of some worker's row, so a product below it cannot be among that
 * row's k best once the workers' rows are merged; a stale or overwritten value is only lower,
 * never wrong.
 */
export function sharedFloor(bits: Int32Array): (row: number, own: number) => number {
  const f = new Float32Array(1);
  const b = new Int32Array(f.buffer);
  return (row, own) => {
    b[0] = bits[row];
    const seen = f[0];
    if (own <= seen) return seen;
    f[0] = own;
    // Round down: the published floor must not exceed the row's own.
    if (f[0] > own) b[0] -= 1;
    bits[row] = b[0];
    return own;
  };
}

/** The rows' heaps as CSR (columns ascending within a row, weights as Float32). */
export function heapsToCsr(heaps: RowHeaps, size: number): CsrMatrix {
  const { k, heapScore, heapCol, heapSize } = heaps;
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
