/**
 * @file Which sentences of a cited fragment support the answer's claim, for marking them in the
 * reader (like NotebookLM's source highlighting).
 *
 * The claim is the answer's sentence before the citation. The fragment is cut into sentences
 * (Intl.Segmenter, the platform's Unicode sentence rules); each sentence is scored by BM25 of
 * the claim's content words (stop words dropped), with document frequencies taken over the
 * fragment's own sentences, so a word the whole passage repeats (the character's name) counts
 * less than the words only the supporting sentence shares with the claim. The best sentence is
 * marked, and up to `maxSentences - 1` more that score at least `relative` of it. A claim that
 * shares no content word with the fragment marks nothing: no mark is better than a wrong one.
 *
 * With sentence vectors (the offline GloVe embedder, when the page has it loaded), the choice is
 * by similarity as well as by shared words: each sentence's score is
 *   (1 - semanticWeight) * bm25 / max bm25  +  semanticWeight * max(0, cos(claim, sentence)),
 * so of two sentences sharing the claim's words the one that means more nearly the same comes
 * first, and a sentence that shares no word but says the same thing in other words ("smiled" for
 * "grinned") is marked when its cosine reaches `minCosine`. The threshold is high because
 * averaged word vectors of short sentences are close for many unrelated pairs (0.3-0.5 measured
 * on Alice); below it a sentence needs a shared word. See docs/ux.md.
 */
import { calcBm25Score } from '../bm25';
import type { VectorSet } from '../types';
import { STOP_WORDS } from '../stopwords';
import { tokenize } from '../tokenize';

export interface SentenceSpan {
  /** Character span in the fragment text, half-open, without surrounding whitespace. */
  start: number;
  end: number;
}

export interface SupportOptions {
  maxSentences: number;
  /** A further sentence is marked when its score is at least this share of the best. */
  relative: number;
  /** Locale of the sentence rules. */
  locale: string;
  /** Share of the cosine in a sentence's score when vectors are given (the rest: BM25). */
  semanticWeight: number;
  /** Cosine a sentence sharing no content word with the claim needs to be marked. */
  minCosine: number;
  /**
   * Distinct content words of the claim a sentence must share to be a match and not a weak one
   * (all of them when the claim has fewer), unless its cosine reaches `minCosine`.
   */
  minShared: number;
  /**
   * Cosine that makes a sentence sharing some but fewer than `minShared` words a match: higher
   * than `minCosine`, since the shared word's own vector lifts both averages ("The Queen shouted
   * that Alice should lose her head" and "The Cat only grinned when it saw Alice." reach 0.63 by
   * "Alice" alone).
   */
  minCosineShared: number;
}

export const defaultSupportOptions: Readonly<SupportOptions> = Object.freeze({
  maxSentences: 2,
  relative: 0.6,
  locale: 'en',
  semanticWeight: 0.5,
  minCosine: 0.6,
  minShared: 2,
  minCosineShared: 0.7,
});

/**
 * Unit vectors of the claim and of each sentence of `sentencesOf(fragment)`, in that order, from
 * one embedder (rows L2-normalised, zero rows for texts without known words).
 */
export interface SentenceVectors {
  claim: Float32Array;
  sentences: VectorSet;
}

/** The sentences of `text`, trimmed, empty ones dropped. */
export function sentencesOf(text: string, locale = 'en'): SentenceSpan[] {
  const out: SentenceSpan[] = [];
  const segmenter = new Intl.Segmenter(locale, { granularity: 'sentence' });
  for (const { segment, index } of segmenter.segment(text)) {
    const lead = segment.length - segment.trimStart().length;
    const body = segment.trim();
    if (body) out.push({ start: index + lead, end: index + lead + body.length });
  }
  return out;
}

/** The words of `text` that carry meaning: its BM25 terms without the stop words. */
export const contentTerms = (text: string) => tokenize(text).filter((t) => !STOP_WORDS.has(t));

/**
 * A marked sentence: its span, its score, and whether it is only a weak match (it shares fewer
 * than `minShared` of the claim's content words and does not mean nearly the same). One shared
 * word ("Alice") is no evidence: such a sentence is marked, if at all, alone and as a weak match.
 */
export interface SupportingSentence extends SentenceSpan {
  score: number;
  weak: boolean;
}

/**
 * The supporting sentences of `fragment` for `claim`, best first. The best sentence is marked;
 * others scoring at least `relative` of it are added when they are strong matches. When the best
 * is only a weak match, it is the one sentence returned, flagged `weak`.
 */
export function supportingSentences(
  claim: string,
  fragment: string,
  options: Partial<SupportOptions> = {},
  vectors?: SentenceVectors,
): SupportingSentence[] {
  const o = { ...defaultSupportOptions, ...options };
  const query = [...new Set(contentTerms(claim))];
  if (query.length === 0 && !vectors) return [];
  const sentences = sentencesOf(fragment, o.locale);
  const bags = sentences.map((s) => {
    const tf = new Map<string, number>();
    const terms = contentTerms(fragment.slice(s.start, s.end));
    for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
    return { tf, length: terms.length };
  });
  const n = bags.length;
  const avg = bags.reduce((a, b) => a + b.length, 0) / Math.max(1, n);
  const df = new Map<string, number>();
  for (const t of query) df.set(t, bags.filter((b) => b.tf.has(t)).length);
  const lexical = sentences.map((_, k) => {
    let score = 0;
    for (const t of query) {
      const f = bags[k].tf.get(t);
      if (f) score += calcBm25Score(f, df.get(t)!, n, bags[k].length, avg);
    }
    return score;
  });
  const cosines = vectors ? sentenceCosines(vectors, n) : null;
  const maxLexical = Math.max(0, ...lexical);
  const w = o.semanticWeight;
  const needed = Math.min(o.minShared, query.length);
  const scored = sentences.map((s, k): SupportingSentence => {
    const shared = query.filter((t) => bags[k].tf.has(t)).length;
    if (!cosines) return { ...s, score: lexical[k], weak: shared < needed };
    const cos = Math.max(0, cosines[k]);
    // A sentence without a shared word must mean nearly the same to count at all.
    if (lexical[k] === 0 && cos < o.minCosine) return { ...s, score: 0, weak: true };
    const lex = maxLexical > 0 ? lexical[k] / maxLexical : 0;
    const rescue = shared === 0 ? o.minCosine : o.minCosineShared;
    return { ...s, score: (1 - w) * lex + w * cos, weak: shared < needed && cos < rescue };
  });
  const ranked = scored.filter((s) => s.score > 0).sort((a, b) => b.score - a.score);
  if (ranked.length === 0) return [];
  if (ranked[0].weak) return [ranked[0]];
  const best = ranked[0].score;
  return ranked
    .filter((s, k) => k === 0 || (!s.weak && s.score >= o.relative * best))
    .slice(0, o.maxSentences);
}

/** cos(claim, sentence k) for unit rows: a dot product (0 for a zero row). */
function sentenceCosines(vectors: SentenceVectors, count: number): Float64Array {
  const { claim, sentences } = vectors;
  if (sentences.count !== count || claim.length !== sentences.dim) {
    throw new Error(
      `Sentence vectors do not fit: ${sentences.count} rows of ${sentences.dim} for ${count} sentences and a claim of ${claim.length}.`,
    );
  }
  const out = new Float64Array(count);
  const d = sentences.dim;
  for (let k = 0; k < count; k++) {
    let dot = 0;
    for (let i = 0; i < d; i++) dot += claim[i] * sentences.data[k * d + i];
    out[k] = dot;
  }
  return out;
}
