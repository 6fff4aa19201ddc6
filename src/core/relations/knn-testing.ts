/**
 * @file For tests of the semantic relation: the kNN rows by sorting every candidate (the
 * reference the builds are held equal to) and a CSR's rows as maps.
 */
import type { CsrMatrix, VectorSet } from '../types';
import { dot } from '../vectors';

/** Each fragment's k best positive cosines in its document, by sorting every candidate. */
export function bruteForceKnn(
  vectors: VectorSet,
  segments: number[],
  k: number,
): Map<number, number>[] {
  const rows: Map<number, number>[] = [];
  for (let s = 0; s + 1 < segments.length; s++) {
    for (let i = segments[s]; i < segments[s + 1]; i++) {
      const candidates: { j: number; w: number }[] = [];
      for (let j = segments[s]; j < segments[s + 1]; j++) {
        if (j === i) continue;
        const w = dot(vectors.data, i * vectors.dim, vectors.data, j * vectors.dim, vectors.dim);
        if (w > 0) candidates.push({ j, w });
      }
      candidates.sort((a, b) => b.w - a.w || a.j - b.j);
      rows.push(new Map(candidates.slice(0, k).map((c) => [c.j, Math.fround(c.w)])));
    }
  }
  return rows;
}

/** Each row of a CSR matrix as column -> weight. */
export const csrRows = (m: CsrMatrix): Map<number, number>[] =>
  Array.from({ length: m.size }, (_, i) => {
    const row = new Map<number, number>();
    for (let p = m.rowPtr[i]; p < m.rowPtr[i + 1]; p++) row.set(m.col[p], m.weight[p]);
    return row;
  });
