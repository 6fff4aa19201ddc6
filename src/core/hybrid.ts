/**
 * @file Hybrid independent score (Eq. 4): a convex combination of the two single scores,
 *
 *   s_ind[i] = lambda * bm25[i] / max_j bm25[j] + (1 - lambda) * max(0, cos(x, c_i)).
 *
 * Why this fusion:
 * - Both parts lie in [0, 1] and the combination does too, so the environment scores of Eq. 9
 *   (weighted means of s_ind) and alpha in Eq. 10 mean the same in every scoring mode.
 * - It keeps score magnitudes. Rank fusion (RRF) would throw away how much better the best
 *   fragment is than the rest, which is exactly what Eq. 9 averages over neighbours.
 * - Negative cosine is clamped: pointing away from the question is not evidence against a
 *   fragment, and negative scores would let a fragment lower its neighbours' environment.
 * - lambda = 0.5 weighs the two equally; we have no tuning data that favours either.
 *   lambda = 1 is plain (rescaled) BM25 and lambda = 0 plain clamped cosine.
 */
import { rescaleByMax } from './bm25';
import { defaultHybridOptions, withDefaults, type HybridOptions } from './options';

/** Fuse raw BM25 scores and cosines of the same fragments into one s_ind. */
export function hybridScores(
  bm25Raw: ArrayLike<number>,
  cosine: ArrayLike<number>,
  options?: Partial<HybridOptions>,
  out: Float64Array = new Float64Array(bm25Raw.length),
): Float64Array {
  const { lambda } = withDefaults(defaultHybridOptions, options, 'hybrid');
  if (!(lambda >= 0 && lambda <= 1)) {
    throw new Error(`FragRel: hybrid lambda must lie in [0, 1], got ${lambda}.`);
  }
  if (cosine.length !== bm25Raw.length) {
    throw new Error(
      `FragRel: ${bm25Raw.length} BM25 scores but ${cosine.length} cosines; both must score the same fragments.`,
    );
  }
  rescaleByMax(bm25Raw, out);
  const dense = 1 - lambda;
  for (let i = 0; i < out.length; i++) {
    const c = cosine[i];
    out[i] = lambda * out[i] + dense * (c > 0 ? c : 0);
  }
  return out;
}
