/**
 * @file The context-structure relation (Eq. 7): w[i][j] = wRel ^ |loc_i - loc_j| for two
 * fragments of the same document, j != i. The weights are never stored. Its environment score
 * (Eq. 9) is a ratio of two sums over this geometric kernel, and both sums split at i into a
 * left part and a right part that each follow a one-step recursion:
 *
 *   L[i] = sum_{j<i} r^(i-j) s[j]  = r (L[i-1] + s[i-1]),   L[first] = 0
 *   R[i] = sum_{j>i} r^(j-i) s[j]  = r (R[i+1] + s[i+1]),   R[last]  = 0
 *   s_env[i] = (L[i] + R[i]) / (DL[i] + DR[i])              (Eq. 9)
 *
 * where DL, DR are the same recursions with s = 1. So one forward and one backward pass give
 * Eq. 9 exactly in O(N), against O(N^2) for the dense sum. The denominators do not depend on
 * the query, so they are computed once when the relation is built. The recursions restart at
 * every document boundary. With r <= 1 each step multiplies earlier rounding errors by r, so
 * the recursion is as accurate as the direct sum (tested to 1e-9 relative).
 */
import type { Contribution, Relation } from '../types';
import { checkIndex, segmentOf, toSegments } from './segments';

export interface ContextRelation extends Relation {
  readonly kind: 'context';
  readonly wRel: number;
  readonly segments: Uint32Array;
  /** Eq. 7 weight w[i][j]: 0 on the diagonal and across documents. */
  weight(i: number, j: number): number;
}

// The recursions are unrolled by four with r^2..r^4 so that each running sum advances once
// per four fragments: the one-step form waits on a multiply and an add per fragment, which
// made it 2-3x slower than a plain pass over the scores. Same sums, reassociated; all terms
// are >= 0, so no cancellation. Module-level functions with everything passed in: V8
// optimises these loops better than closures over the relation's state.

/** r, r^2, r^3, r^4: the decay and the powers the unrolled recursions use. */
interface Powers {
  r: number;
  r2: number;
  r3: number;
  r4: number;
}

/** out[i] = L[i] for i in [first, end). */
function forwardPass(
  s: Float64Array,
  out: Float64Array,
  first: number,
  end: number,
  p: Powers,
): void {
  const { r, r2, r3, r4 } = p;
  let left = 0;
  let i = first;
  for (; i + 3 < end; i += 4) {
    const s0 = s[i];
    const s1 = s[i + 1];
    const s2 = s[i + 2];
    const s3 = s[i + 3];
    out[i] = left;
    out[i + 1] = r * left + r * s0;
    out[i + 2] = r2 * left + (r2 * s0 + r * s1);
    out[i + 3] = r3 * left + (r3 * s0 + r2 * s1 + r * s2);
    left = r4 * left + (r4 * s0 + r3 * s1 + r2 * s2 + r * s3);
  }
  for (; i < end; i++) {
    out[i] = left;
    left = r * (left + s[i]);
  }
}

/**
 * out[i] = (L[i] + R[i]) / rowSum[i], from the last fragment down. The counter k runs up and
 * the index i = last - k down: V8 compiles a loop with a falling counter 2-4x slower.
 */
function backwardPass(
  s: Float64Array,
  out: Float64Array,
  invRowSum: Float64Array,
  first: number,
  end: number,
  p: Powers,
): void {
  const { r, r2, r3, r4 } = p;
  const last = end - 1;
  const count = end - first;
  let right = 0;
  let k = 0;
  for (; k + 3 < count; k += 4) {
    const i = last - k;
    const s0 = s[i];
    const s1 = s[i - 1];
    const s2 = s[i - 2];
    const s3 = s[i - 3];
    out[i] = (out[i] + right) * invRowSum[i];
    out[i - 1] = (out[i - 1] + (r * right + r * s0)) * invRowSum[i - 1];
    out[i - 2] = (out[i - 2] + (r2 * right + (r2 * s0 + r * s1))) * invRowSum[i - 2];
    out[i - 3] = (out[i - 3] + (r3 * right + (r3 * s0 + r2 * s1 + r * s2))) * invRowSum[i - 3];
    right = r4 * right + (r4 * s0 + r3 * s1 + r2 * s2 + r * s3);
  }
  for (; k < count; k++) {
    const i = last - k;
    out[i] = (out[i] + right) * invRowSum[i];
    right = r * (right + s[i]);
  }
}

/**
 * Insert a contribution into `kept` (largest amount first, ties to the lower index, at most
 * `limit` entries) if it ranks high enough; return the new entry floor.
 */
function keepTop(
  kept: Contribution[],
  limit: number,
  index: number,
  weight: number,
  amount: number,
): number {
  if (kept.length === limit) {
    const last = kept[limit - 1];
    if (amount < last.amount || (amount === last.amount && index > last.index)) return last.amount;
    kept.pop();
  }
  let at = kept.length;
  while (
    at > 0 &&
    (kept[at - 1].amount < amount || (kept[at - 1].amount === amount && kept[at - 1].index > index))
  ) {
    at--;
  }
  kept.splice(at, 0, { index, weight, amount, share: 0 });
  return kept.length === limit ? kept[limit - 1].amount : 0;
}

/**
 * Build the context relation over documents laid out by `segments` ([0, n1, ..., N]).
 * `wRel` must lie in [0, 1]: larger means "stronger" only if the weight falls with distance.
 * wRel = 0 leaves every row empty, so every s_env is 0 and Eq. 10 reduces to plain retrieval.
 */
export function contextRelation(segments: ArrayLike<number>, wRel: number): ContextRelation {
  if (!(wRel >= 0 && wRel <= 1)) {
    throw new Error(`FragRel: wRel must lie in [0, 1] (0 turns the relation off), got ${wRel}.`);
  }
  const segs = toSegments(segments);
  const size = segs[segs.length - 1];
  const r = wRel;

  // 1 / (DL[i] + DR[i]), or 0 for an empty row (a one-fragment document, or r = 0).
  const invRowSum = new Float64Array(size);
  for (let s = 0; s + 1 < segs.length; s++) {
    const first = segs[s];
    const end = segs[s + 1];
    let left = 0;
    for (let i = first; i < end; i++) {
      invRowSum[i] = left;
      left = r * (left + 1);
    }
    let right = 0;
    for (let i = end - 1; i >= first; i--) {
      const rowSum = invRowSum[i] + right;
      // A row sum so small that its inverse overflows (wRel near 1e-308) counts as empty.
      const inv = 1 / rowSum;
      invRowSum[i] = rowSum > 0 && inv < Infinity ? inv : 0;
      right = r * (right + 1);
    }
  }

  const checkLength = (independent: Float64Array) => {
    if (independent.length !== size) {
      throw new Error(
        `FragRel: ${independent.length} independent scores for a context relation over ${size} fragments.`,
      );
    }
  };
  const r2 = r * r;
  const r3 = r2 * r;
  const powers: Powers = { r, r2, r3, r4: r3 * r };

  return {
    kind: 'context',
    size,
    wRel,
    segments: segs,

    weight(i: number, j: number): number {
      if (i === j || i < 0 || j < 0 || i >= size || j >= size) return 0;
      if (segmentOf(segs, i) !== segmentOf(segs, j)) return 0;
      return r ** Math.abs(i - j);
    },

    // Eq. 9 by the two recursions above. `out` must not be `independent`.
    environmentScores(independent: Float64Array, out = new Float64Array(size)): Float64Array {
      checkLength(independent);
      for (let s = 0; s + 1 < segs.length; s++) {
        forwardPass(independent, out, segs[s], segs[s + 1], powers);
        backwardPass(independent, out, invRowSum, segs[s], segs[s + 1], powers);
      }
      return out;
    },

    // Direct sum outward from i; it stops where r^d underflows to 0, after a few hundred steps
    // for the default wRel.
    contributions(i: number, independent: Float64Array, limit: number): Contribution[] {
      checkLength(independent);
      checkIndex(i, size);
      limit = Math.floor(limit);
      if (!(limit > 0) || invRowSum[i] === 0) return [];
      const s = segmentOf(segs, i);
      const first = segs[s];
      const end = segs[s + 1];
      const inv = invRowSum[i];
      const kept: Contribution[] = [];
      // The amount a candidate must reach to be looked at: the smallest kept once `kept` is full.
      let floor = 0;
      let env = 0;
      const before = i - first;
      const after = end - 1 - i;
      // The weight r^d as a running product: Math.pow per step made explanations cost
      // milliseconds. It may differ from `weight(i, j)` in the last bit.
      for (let d = 1, weight = r; weight > 0 && (d <= before || d <= after); d++, weight *= r) {
        if (d <= before) {
          const amount = weight * independent[i - d] * inv;
          env += amount;
          if (amount > 0 && amount >= floor) floor = keepTop(kept, limit, i - d, weight, amount);
        }
        if (d <= after) {
          const amount = weight * independent[i + d] * inv;
          env += amount;
          if (amount > 0 && amount >= floor) floor = keepTop(kept, limit, i + d, weight, amount);
        }
      }
      for (const c of kept) c.share = env > 0 ? c.amount / env : 0;
      return kept;
    },
  };
}
