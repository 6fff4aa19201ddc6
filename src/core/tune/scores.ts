/**
 * @file Independent scores (Eq. 4) of a pseudo-question with its source fragment read without the
 * cut-out sentence (pseudo.ts, step 4). Every other fragment keeps its stored score input: BM25
 * postings and fragment vectors are reused, and only the gold fragment is scored again.
 *
 * BM25: the gold fragment's term frequencies and length come from its masked text; IDF and the
 * average length stay those of the whole document (removing one sentence from one of N fragments
 * moves them by at most one document count; not worth a second index per question).
 * Dense: the caller embeds the masked text (`maskedVector`) with the same embedder as the
 * fragments, and the query. Hybrid: both, fused as hybrid.ts fuses them.
 */
import { bm25Idf, bm25Scores, rescaleByMax, type Bm25Index } from '../bm25';
import { hybridScores } from '../hybrid';
import type { HybridOptions } from '../options';
import { runBm25, type Run, type ScoringMode } from '../run';
import { tokenize } from '../tokenize';
import { cosineScores, dot } from '../vectors';

/** Raw BM25 of the query against one token list, with the index's IDF and average length. */
export function bm25AgainstTokens(
  index: Bm25Index,
  queryTokens: readonly string[],
  fragmentTokens: readonly string[],
): number {
  const tf = new Map<string, number>();
  for (const t of fragmentTokens) tf.set(t, (tf.get(t) ?? 0) + 1);
  const { k1, b } = index.params;
  const rel = index.avgLength > 0 ? fragmentTokens.length / index.avgLength : 1;
  const norm = k1 * (1 - b + b * rel);
  let score = 0;
  for (const token of queryTokens) {
    const f = tf.get(token);
    const id = index.termIds.get(token);
    if (!f || id === undefined) continue;
    const df = index.termPtr[id + 1] - index.termPtr[id];
    score += (bm25Idf(df, index.count) * f * (k1 + 1)) / (f + norm);
  }
  return score;
}

export interface MaskedQuery {
  /** Run index of the gold fragment. */
  gold: number;
  /** Its text without the cut-out sentence. */
  maskedText: string;
  /** Query tokens (BM25). */
  terms: readonly string[];
  /** Dense and hybrid: the query's vector and the masked fragment's vector. */
  queryVector?: Float32Array;
  maskedVector?: Float32Array;
}

/** Eq. 4 over the run for one pseudo-question, its gold fragment masked. */
export function maskedIndependentScores(
  run: Run,
  q: MaskedQuery,
  mode: ScoringMode,
  hybrid?: Partial<HybridOptions>,
): Float64Array {
  let raw: Float64Array | null = null;
  if (mode !== 'dense') {
    const index = runBm25(run);
    raw = bm25Scores(index, q.terms);
    raw[q.gold] = bm25AgainstTokens(index, q.terms, tokenize(q.maskedText));
    if (mode === 'bm25') return rescaleByMax(raw, raw);
  }
  if (!run.vectors || !q.queryVector || !q.maskedVector) {
    throw new Error(
      'Tuning: dense scoring needs fragment vectors and the query and masked-fragment vectors; choose BM25 or index with an embedder.',
    );
  }
  const cosine = cosineScores(run.vectors, q.queryVector);
  const qn = Math.sqrt(dot(q.queryVector, 0, q.queryVector, 0, q.queryVector.length));
  const mn = Math.sqrt(dot(q.maskedVector, 0, q.maskedVector, 0, q.maskedVector.length));
  cosine[q.gold] =
    qn > 0 && mn > 0
      ? dot(q.maskedVector, 0, q.queryVector, 0, q.queryVector.length) / (qn * mn)
      : 0;
  if (mode === 'dense') return cosine;
  return hybridScores(raw!, cosine, hybrid);
}
