/**
 * @file What a browser can store of a repository's index. Chromium refuses an IndexedDB value whose
 * serialised size passes 133,169,152 bytes (127 MiB): the code relation of a 30,000-file zip (91,284
 * windows, up to 256 weights a row) came to 155,630,193 bytes, and the whole save failed (issue 16).
 *
 * Until the store splits large relations over several records, a relation that would pass the
 * budget keeps, in every row, only its strongest weights: the largest per-row count `k` for which
 * the matrix fits. This is the same approximation as the code relation's `maxPerRow` (the
 * strongest weights of a row are the ones Eq. 5's environment score is dominated by), applied
 * with a smaller cap only where the size demands it; the report says when it happened.
 */
import type { CsrMatrix } from '../core/types';

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
  const rows = m.size;
  const maxEntries = Math.max(0, Math.floor((budget - 4 * (rows + 1)) / 8));
  // Row lengths, then the largest k with sum(min(len, k)) <= maxEntries (binary search).
  const lengths = new Uint32Array(rows);
  let longest = 0;
  for (let i = 0; i < rows; i++) {
    lengths[i] = m.rowPtr[i + 1] - m.rowPtr[i];
    longest = Math.max(longest, lengths[i]);
  }
  const entriesAt = (k: number) => {
    let n = 0;
    for (let i = 0; i < rows; i++) n += Math.min(lengths[i], k);
    return n;
  };
  let lo = 0;
  let hi = longest;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (entriesAt(mid) <= maxEntries) lo = mid;
    else hi = mid - 1;
  }
  const k = lo;
  const rowPtr = new Uint32Array(rows + 1);
  const col = new Uint32Array(entriesAt(k));
  const weight = new Float32Array(col.length);
  let at = 0;
  for (let i = 0; i < rows; i++) {
    const from = m.rowPtr[i];
    const to = m.rowPtr[i + 1];
    if (to - from <= k) {
      col.set(m.col.subarray(from, to), at);
      weight.set(m.weight.subarray(from, to), at);
      at += to - from;
    } else if (k > 0) {
      // The k-th largest weight of the row; keep those above it, then ties in column order.
      const sorted = Float32Array.from(m.weight.subarray(from, to)).sort();
      const cut = sorted[sorted.length - k];
      let above = 0;
      for (let j = from; j < to; j++) if (m.weight[j] > cut) above++;
      let ties = k - above;
      for (let j = from; j < to; j++) {
        const w = m.weight[j];
        if (w > cut || (w === cut && ties-- > 0)) {
          col[at] = m.col[j];
          weight[at] = w;
          at++;
        }
      }
    }
    rowPtr[i + 1] = at;
  }
  return { matrix: { size: m.size, rowPtr, col, weight }, perRow: k };
}
