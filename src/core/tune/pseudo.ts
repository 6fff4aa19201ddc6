/**
 * @file Pseudo-questions from the document itself, with no labels: an inverse-cloze procedure
 * (Lee, Chang and Toutanova 2019, "Latent Retrieval for Weakly Supervised Open Domain QA"). A
 * sentence is cut out of its fragment and asked for; the fragment it came from is the gold.
 * docs/evaluation.md (## Tuning) explains each choice; in short:
 *
 * 1. Fragments are drawn without replacement in a seeded shuffle (mulberry32, core/prng.ts), so
 *    the same document, fragments and seed give the same questions.
 * 2. In a drawn fragment, the candidate sentences are those of `minWords`-`maxWords` words with at
 *    least `minContentWords` content words (not function words, not question words, not
 *    numbers). The fragment must keep at least `minRestWords` words once the sentence is cut out,
 *    so the gold still has text to be found by. The most informative candidate is taken: the
 *    highest mean IDF of its distinct content words over the document's fragments (rare words
 *    such as names and objects point at one place; ties to the earlier sentence).
 * 3. The query is that sentence's `termsPerQuery` rarest content words in their order in the
 *    sentence, never the sentence itself: a bag of key words, as people type them.
 * 4. When scored, the gold fragment is read without the sentence (`maskedFragment`), so a query
 *    never finds its own words verbatim in the gold; the other fragments are read whole. What is
 *    left to find the gold by is the rest of the fragment and, through the relations, its
 *    neighbours: exactly what the relations are meant to add.
 * 5. Near hits do not count: only the source fragment is gold. A neighbour was not the source,
 *    and the product hands the LLM the selected fragments, not their neighbours.
 */
import { prng } from '../prng';
import { QUESTION_WORDS } from '../retrieval/query';
import { STOP_WORDS } from '../stopwords';
import { tokenize } from '../tokenize';
import { sentenceSpans, type Span } from '../eval/retrieval';

export interface PseudoQuestion {
  /** Document-local index of the source fragment (the gold). */
  fragment: number;
  /** The cut-out sentence, as a span of the document's source. */
  sentence: Span;
  /** The query: the sentence's rarest content words, space-separated. */
  query: string;
  terms: string[];
}

export interface PseudoQuestionOptions {
  /** How many pseudo-questions (fewer when the document has fewer eligible fragments). */
  count: number;
  seed: number;
  minWords: number;
  maxWords: number;
  minContentWords: number;
  /** Words the source fragment must keep once the sentence is cut out. */
  minRestWords: number;
  termsPerQuery: number;
}

export const defaultPseudoQuestionOptions: Readonly<PseudoQuestionOptions> = Object.freeze({
  count: 60,
  seed: 20240601,
  minWords: 8,
  maxWords: 40,
  minContentWords: 4,
  minRestWords: 30,
  termsPerQuery: 6,
});

/** Content words of a text: tokens that are not function words, question words or numbers. */
export function pseudoContentWords(text: string): string[] {
  return tokenize(text).filter(
    (t) => !STOP_WORDS.has(t) && !QUESTION_WORDS.has(t) && !/^\d+$/.test(t) && t.length > 1,
  );
}

const wordCount = (text: string) => text.split(/\s+/).filter(Boolean).length;

/**
 * The fragment's text without the sentence (a space keeps the words on either side apart).
 * `start`/`end`: the fragment's span in `source`; the sentence must lie inside it.
 */
export function maskedFragment(source: string, start: number, end: number, sentence: Span): string {
  return `${source.slice(start, sentence.start)} ${source.slice(sentence.end, end)}`;
}

/**
 * Pseudo-questions for one document whose fragments are [starts[i], ends[i]) of `source`.
 * Deterministic for a given input and seed.
 */
export function pseudoQuestions(
  source: string,
  starts: ArrayLike<number>,
  ends: ArrayLike<number>,
  options: Partial<PseudoQuestionOptions> = {},
): PseudoQuestion[] {
  const o = { ...defaultPseudoQuestionOptions, ...options };
  const n = starts.length;
  if (ends.length !== n) throw new Error(`Tuning: ${n} fragment starts but ${ends.length} ends.`);
  if (!(Number.isInteger(o.count) && o.count >= 1)) {
    throw new Error(`Tuning: the number of pseudo-questions must be a whole number >= 1.`);
  }
  // Document frequency of each content word over the fragments, for IDF.
  const df = new Map<string, number>();
  const fragmentWords: Set<string>[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const words = new Set(pseudoContentWords(source.slice(starts[i], ends[i])));
    fragmentWords[i] = words;
    for (const w of words) df.set(w, (df.get(w) ?? 0) + 1);
  }
  const idf = (w: string) => Math.log((n + 1) / ((df.get(w) ?? 0) + 0.5));

  // Seeded Fisher-Yates over the fragment indices.
  const order = Array.from({ length: n }, (_, i) => i);
  const rng = prng(o.seed);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.min(i, Math.floor(rng() * (i + 1)));
    [order[i], order[j]] = [order[j], order[i]];
  }

  const out: PseudoQuestion[] = [];
  for (const f of order) {
    if (out.length >= o.count) break;
    const text = source.slice(starts[f], ends[f]);
    const total = wordCount(text);
    let best: { sentence: Span; terms: string[]; score: number } | null = null;
    for (const s of sentenceSpans(text)) {
      const sentence = source.slice(starts[f] + s.start, starts[f] + s.end);
      const words = wordCount(sentence);
      if (words < o.minWords || words > o.maxWords || total - words < o.minRestWords) continue;
      const distinct = [...new Set(pseudoContentWords(sentence))];
      if (distinct.length < o.minContentWords) continue;
      const score = distinct.reduce((sum, w) => sum + idf(w), 0) / distinct.length;
      if (!best || score > best.score) {
        best = {
          sentence: { start: starts[f] + s.start, end: starts[f] + s.end },
          terms: distinct,
          score,
        };
      }
    }
    if (!best) continue;
    // The rarest terms, kept in sentence order (ties: the earlier word).
    const ranked = best.terms
      .map((w, at) => ({ w, at, idf: idf(w) }))
      .sort((a, b) => b.idf - a.idf || a.at - b.at)
      .slice(0, o.termsPerQuery)
      .sort((a, b) => a.at - b.at)
      .map((x) => x.w);
    out.push({ fragment: f, sentence: best.sentence, query: ranked.join(' '), terms: ranked });
  }
  return out;
}
