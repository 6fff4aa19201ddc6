/**
 * @file Adaptive alpha (Eq. 10 with a per-question alpha): when the independent scores have one
 * clear peak, the question is answered by that fragment and its environment should matter less;
 * when they are flat, neighbours are the better evidence. The rule, in words the panel can show:
 *
 *   decisiveness d = (s_(1) - s_(2)) / (s_(1) - s_med)   in [0, 1]
 *   alpha_q       = alpha * (1 - d)
 *
 * with s_(1), s_(2) the best and second-best independent scores and s_med their median. d is 1
 * when the best fragment stands alone above the rest (the gap to the second is the whole spread
 * down to the median) and 0 when the best two tie. Affine changes of s_ind leave d unchanged, so
 * the rule means the same for BM25, cosine and hybrid scores.
 */

export interface AdaptiveAlpha {
  /** The alpha used for this question. */
  alpha: number;
  /** d above. */
  decisiveness: number;
  /** One sentence for the panel. */
  reason: string;
}

export function adaptiveAlpha(independent: ArrayLike<number>, alphaMax: number): AdaptiveAlpha {
  const n = independent.length;
  if (n < 3) {
    return { alpha: alphaMax, decisiveness: 0, reason: 'Too few fragments to judge; alpha kept.' };
  }
  const sorted = Float64Array.from(independent).sort();
  const best = sorted[n - 1];
  const second = sorted[n - 2];
  const median = sorted[Math.floor((n - 1) / 2)];
  const spread = best - median;
  const d = spread > 0 ? Math.min(1, Math.max(0, (best - second) / spread)) : 0;
  const alpha = alphaMax * (1 - d);
  const pct = Math.round(100 * d);
  return {
    alpha,
    decisiveness: d,
    reason:
      d >= 0.5
        ? `The best fragment stands out (its lead over the second is ${pct}% of its lead over the median), so its neighbours count less: alpha ${alpha.toFixed(2)}.`
        : `The best fragments score alike (lead ${pct}% of the spread), so neighbours count more: alpha ${alpha.toFixed(2)}.`,
  };
}
