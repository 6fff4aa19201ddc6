/**
 * @file Small-to-big selection (Eq. 11 with neighbours): fragments are taken in descending final
 * score as in Eq. 11, and each one taken brings the fragments up to `radius` positions before
 * and after it in the same document (nearest first) while the budget allows. Scoring stays at
 * the small fragment's grain, where a question's words are not diluted; the context handed on
 * is the passage around it. This is the context relation (Eq. 7) used at selection time.
 */
import type { Selection } from '../types';
import { RankHeap } from '../heap';

export function selectWithNeighbours(
  final: Float64Array,
  costs: ArrayLike<number>,
  budget: number,
  radius: number,
  segments: ArrayLike<number> = [0, final.length],
): Selection {
  const n = final.length;
  if (costs.length !== n) throw new Error(`FragRel: ${n} scores but ${costs.length} costs.`);
  if (!(budget >= 0)) throw new Error(`FragRel: the budget must be a number >= 0, got ${budget}.`);
  // Document of each fragment, so a neighbour never crosses a document boundary.
  const docOf = new Uint32Array(n);
  for (let d = 0; d + 1 < segments.length; d++) {
    for (let i = segments[d]; i < segments[d + 1]; i++) docOf[i] = d;
  }
  const taken = new Uint8Array(n);
  const ranked: number[] = [];
  let used = 0;
  const take = (i: number) => {
    if (taken[i] || used + costs[i] > budget) return;
    taken[i] = 1;
    ranked.push(i);
    used += costs[i];
  };
  const heap = new RankHeap(final);
  while (heap.size > 0) {
    const i = heap.pop();
    if (taken[i]) continue;
    if (used + costs[i] > budget) continue;
    take(i);
    for (let r = 1; r <= radius; r++) {
      for (const j of [i - r, i + r]) {
        if (j >= 0 && j < n && docOf[j] === docOf[i]) take(j);
      }
    }
  }
  const rankedArr = Uint32Array.from(ranked);
  return { indices: rankedArr.slice().sort(), ranked: rankedArr, used, budget };
}
