/**
 * @file Citations for an answer that gives none: each sentence of the answer is matched to the
 * excerpt whose sentence best supports it, by the same shared-word evidence that marks supporting
 * sentences in the reader (support.ts).
 *
 * Small local models often answer from the excerpts without writing a single "[n]"; the person is
 * then left with an answer and twenty possible sources. Attribution gives each answer sentence the
 * excerpt that shares most of its content words, scored by BM25 over every sentence of every
 * excerpt at once (so a word all excerpts repeat, the book's main character, counts for little),
 * and keeps it only when it is a strong match: at least `minShared` distinct content words of the
 * claim in one sentence of the excerpt. A sentence with fewer content words ("Yes.") gets none.
 * These are inferences, not the model's citations; the panel says so wherever it shows them.
 */
import { calcBm25Score } from '../bm25';
import { contentTerms, sentencesOf, type SentenceSpan } from './support';

export interface AttributionSource {
  /** The label the prompt gave the excerpt ("[3]"). */
  label: number;
  text: string;
}

export interface InferredCitation {
  /** The answer's sentence (a span of the answer). */
  claim: SentenceSpan;
  /** The excerpt that supports it. */
  label: number;
  /** The supporting sentence, a span of that excerpt's text. */
  support: SentenceSpan;
  /** BM25 of the claim's content words in the supporting sentence. */
  score: number;
}

export interface AttributionOptions {
  /** Distinct content words of the claim one sentence of the excerpt must share. */
  minShared: number;
  locale: string;
}

export const defaultAttributionOptions: Readonly<AttributionOptions> = Object.freeze({
  minShared: 2,
  locale: 'en',
});

interface PooledSentence {
  label: number;
  span: SentenceSpan;
  tf: Map<string, number>;
  length: number;
}

/** For each sentence of `answer` that a source supports: the best-supporting excerpt. */
export function inferCitations(
  answer: string,
  sources: readonly AttributionSource[],
  options: Partial<AttributionOptions> = {},
): InferredCitation[] {
  const o = { ...defaultAttributionOptions, ...options };
  const pool: PooledSentence[] = [];
  for (const source of sources)
    for (const span of sentencesOf(source.text, o.locale)) {
      const terms = contentTerms(source.text.slice(span.start, span.end));
      const tf = new Map<string, number>();
      for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
      pool.push({ label: source.label, span, tf, length: terms.length });
    }
  if (pool.length === 0) return [];
  const avg = pool.reduce((a, s) => a + s.length, 0) / pool.length;
  const df = new Map<string, number>();
  const dfOf = (t: string) => {
    let n = df.get(t);
    if (n === undefined) {
      n = pool.filter((s) => s.tf.has(t)).length;
      df.set(t, n);
    }
    return n;
  };
  const out: InferredCitation[] = [];
  for (const claim of sentencesOf(answer, o.locale)) {
    const query = [...new Set(contentTerms(answer.slice(claim.start, claim.end)))];
    if (query.length < o.minShared) continue;
    let best: { sentence: PooledSentence; score: number } | null = null;
    for (const sentence of pool) {
      let shared = 0;
      let score = 0;
      for (const t of query) {
        const f = sentence.tf.get(t);
        if (!f) continue;
        shared++;
        score += calcBm25Score(f, dfOf(t), pool.length, sentence.length, avg);
      }
      // Ties go to the earlier excerpt (lower label), so the result does not depend on order.
      if (
        shared >= o.minShared &&
        (!best ||
          score > best.score ||
          (score === best.score && sentence.label < best.sentence.label))
      )
        best = { sentence, score };
    }
    if (best)
      out.push({
        claim,
        label: best.sentence.label,
        support: best.sentence.span,
        score: best.score,
      });
  }
  return out;
}

/** The labels of `citations` in the order the answer first uses them, each once. */
export function inferredLabels(citations: readonly InferredCitation[]): number[] {
  return [...new Set(citations.map((c) => c.label))];
}
