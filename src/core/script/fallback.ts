/**
 * @file When the embedder has no vectors for a text's language, say so and score by BM25.
 *
 * The static GloVe embedder knows English words only: a Japanese book's fragments all embed to
 * the zero vector (no known token), every cosine is 0, and dense scoring ranks nothing. An
 * embedder gives an all-zero row exactly when it knew nothing of the text, so the share of
 * all-zero rows is the plain measure of "this language has no word vectors here", whatever the
 * embedder. BM25 needs no vocabulary, and with the ICU tokenizer it works in every script, so it
 * is the scorer that still works (Eq. 4 with BM25 is the paper's sparse independent score).
 */

export type IndependentScoring = 'dense' | 'bm25' | 'hybrid';

/** Above this share of all-zero fragment vectors, dense and hybrid scoring fall back to BM25. */
export const ZERO_ROW_FALLBACK_SHARE = 0.5;

/** Share of rows of a row-major matrix with `dim` columns that are entirely zero. */
export function zeroRowShare(data: Float32Array, dim: number): number {
  const rows = dim > 0 ? Math.floor(data.length / dim) : 0;
  if (rows === 0) return 0;
  let zero = 0;
  for (let r = 0; r < rows; r++) {
    let any = false;
    for (let d = r * dim, end = d + dim; d < end; d++) {
      if (data[d] !== 0) {
        any = true;
        break;
      }
    }
    if (!any) zero++;
  }
  return zero / rows;
}

export interface ScoringChoice {
  /** The scorer actually used. */
  scoring: IndependentScoring;
  /** Why it differs from the one asked for, in words for the reader; absent when it does not. */
  notice?: string;
}

/**
 * The independent scorer to use: the requested one, unless it needs vectors and the embedder
 * knew none of the question's words or nothing of most fragments, in which case BM25.
 */
export function chooseScoring(
  requested: IndependentScoring,
  embedderName: string,
  fragmentZeroShare: number,
  queryVector: Float32Array | undefined,
): ScoringChoice {
  if (requested === 'bm25') return { scoring: requested };
  if (fragmentZeroShare > ZERO_ROW_FALLBACK_SHARE) {
    const percent = Math.round(fragmentZeroShare * 100);
    return {
      scoring: 'bm25',
      notice: `The embedder “${embedderName}” has no word vectors for ${percent}% of these fragments (their language is not one it knows), so this question was scored by BM25 over words instead of ${requested} scoring.`,
    };
  }
  if (queryVector && zeroRowShare(queryVector, queryVector.length) === 1) {
    return {
      scoring: 'bm25',
      notice: `The embedder “${embedderName}” knows none of the question's words, so it was scored by BM25 over words instead of ${requested} scoring.`,
    };
  }
  return { scoring: requested };
}
