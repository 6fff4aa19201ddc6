/**
 * @file What a browser can store of a repository's index. Chromium refuses an IndexedDB value whose
 * serialised size passes 133,169,152 bytes (127 MiB): the code relation of a 30,000-file zip (91,284
 * windows, up to 256 weights a row) came to 155,630,193 bytes, and the whole save failed.
 *
 * Until the store splits large relations over several records, a relation that would pass the
 * budget keeps, in every row, only its strongest weights: the largest per-row count `k` for which
 * the matrix fits. This is the same approximation as the code relation's `maxPerRow` (the
 * strongest weights of a row are the ones Eq. 5's environment score is dominated by), applied
 * with a smaller cap only where the size demands it; the report says when it happened.
 */
import { mergeRowBlocks, rowBlocksWeights, type RowBlock } from '../core/code/summary';
import { kthLargestInPlace } from '../core/heap';
import type { CsrMatrix } from '../core/types';

/**
 * Bytes a repository's text may take as the browser stores it (the reader leaves files out past
 * it: src/ingest/repo.ts). A string holding a character above U+00FF is stored at two bytes a
 * character. Texts are now stored over several records when large (src/store/source-parts.ts), so
 * this cap is only a bound on a repository's size in memory; it was the fix for a failed save.
 */
export const MAX_STORED_TEXT_BYTES = 120 * 1024 * 1024;

/** Bytes a stored relation may take (well under Chromium's 127 MiB for one value). */
export const MAX_STORED_RELATION_BYTES = 96 * 1024 * 1024;

/** Stored bytes of a CSR matrix: rowPtr, col and weight, 4 bytes each. */
export function csrBytes(m: CsrMatrix): number {
  return 4 * (m.rowPtr.length + m.col.length + m.weight.length);
}

/**
 * `m` when it fits `budget` bytes, else each row cut to its `perRow` largest weights (ties: the
 * first in column order), columns kept in order, with the largest `perRow` that fits.
 */
export function fitRelation(
  m: CsrMatrix,
  budget: number = MAX_STORED_RELATION_BYTES,
): { matrix: CsrMatrix; perRow: number | null } {
  if (csrBytes(m) <= budget) return { matrix: m, perRow: null };
  return fitRowBlocks(m.size, [m], budget);
}

/**
 * The row blocks of a relation (in order, covering [0, n); a pool's code rows) as one matrix cut
 * as fitRelation cuts it: exactly fitRelation(mergeRowBlocks(n, blocks), budget), without the
 * merged copy (the 30k-file zip's was 155 MB, only to be cut to 96 MiB). Takes the blocks: the
 * array is emptied, so each block can be collected once copied.
 */
export function fitRowBlocks(
  n: number,
  blocks: RowBlock[],
  budget: number = MAX_STORED_RELATION_BYTES,
): { matrix: CsrMatrix; perRow: number | null } {
  const nnz = rowBlocksWeights(n, blocks);
  if (4 * (n + 1 + 2 * nnz) <= budget) {
    return { matrix: mergeRowBlocks(n, blocks.splice(0)), perRow: null };
  }
  const maxEntries = Math.max(0, Math.floor((budget - 4 * (n + 1)) / 8));
  // Row lengths, then the largest k with sum(min(len, k)) <= maxEntries (binary search).
  const lengths = new Uint32Array(n);
  let longest = 0;
  let row = 0;
  for (const b of blocks) {
    for (let r = 0; r + 1 < b.rowPtr.length; r++) {
      const len = b.rowPtr[r + 1] - b.rowPtr[r];
      lengths[row++] = len;
      longest = Math.max(longest, len);
    }
  }
  const entriesAt = (k: number) => {
    let count = 0;
    for (let i = 0; i < n; i++) count += Math.min(lengths[i], k);
    return count;
  };
  let lo = 0;
  let hi = longest;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (entriesAt(mid) <= maxEntries) lo = mid;
    else hi = mid - 1;
  }
  const k = lo;
  const rowPtr = new Uint32Array(n + 1);
  const col = new Uint32Array(entriesAt(k));
  const weight = new Float32Array(col.length);
  const scratch = new Float32Array(longest);
  let at = 0;
  row = 0;
  const queue = blocks.splice(0);
  for (let q = 0; q < queue.length; q++) {
    const b = queue[q];
    queue[q] = EMPTY_BLOCK;
    for (let r = 0; r + 1 < b.rowPtr.length; r++) {
      const from = b.rowPtr[r];
      const to = b.rowPtr[r + 1];
      if (to - from <= k) {
        col.set(b.col.subarray(from, to), at);
        weight.set(b.weight.subarray(from, to), at);
        at += to - from;
      } else if (k > 0) {
        // The k-th largest weight of the row; keep those above it, then ties in column order.
        const cut = kthLargest(b.weight, from, to, k, scratch);
        let above = 0;
        for (let j = from; j < to; j++) if (b.weight[j] > cut) above++;
        let ties = k - above;
        for (let j = from; j < to; j++) {
          const w = b.weight[j];
          if (w > cut || (w === cut && ties-- > 0)) {
            col[at] = b.col[j];
            weight[at] = w;
            at++;
          }
        }
      }
      rowPtr[++row] = at;
    }
  }
  return { matrix: { size: n, rowPtr, col, weight }, perRow: k };
}

const EMPTY_BLOCK: RowBlock = {
  rowPtr: new Uint32Array(1),
  col: new Uint32Array(0),
  weight: new Float32Array(0),
};

/** The k-th largest of w[from..to) (1 <= k <= to - from), by quickselect on a copy in `scratch`. */
function kthLargest(
  w: Float32Array,
  from: number,
  to: number,
  k: number,
  scratch: Float32Array,
): number {
  const a = scratch.subarray(0, to - from);
  a.set(w.subarray(from, to));
  return kthLargestInPlace(a, k);
}
