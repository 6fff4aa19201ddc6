/**
 * @file Reciprocal rank fusion (Cormack et al. 2009) of several independent scores of the same
 * fragments: s[i] = sum_m 1 / (k + rank_m(i)), rank 1 = best, k = 60 as in the original paper,
 * then divided by its maximum so it lies in (0, 1] like the other modes of Eq. 4. Unlike the
 * convex hybrid (hybrid.ts) it ignores score magnitudes, which makes it immune to one scorer's
 * flat or skewed range.
 */

export function rrfScores(
  lists: readonly ArrayLike<number>[],
  k = 60,
  out?: Float64Array,
): Float64Array {
  if (lists.length === 0) throw new Error('FragRel: rank fusion needs at least one score list.');
  const n = lists[0].length;
  if (lists.some((l) => l.length !== n)) {
    throw new Error('FragRel: rank fusion needs score lists over the same fragments.');
  }
  const fused = out && out.length === n ? out.fill(0) : new Float64Array(n);
  const order = Array.from({ length: n }, (_, i) => i);
  for (const list of lists) {
    // Ties share the better rank's order by index, as the heap's tie rule does elsewhere.
    order.sort((a, b) => list[b] - list[a] || a - b);
    for (let r = 0; r < n; r++) fused[order[r]] += 1 / (k + r + 1);
  }
  let max = 0;
  for (let i = 0; i < n; i++) if (fused[i] > max) max = fused[i];
  if (max > 0) for (let i = 0; i < n; i++) fused[i] /= max;
  return fused;
}
