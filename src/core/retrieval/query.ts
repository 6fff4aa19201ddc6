/**
 * @file Query-side term handling: a question's function words ("the", "of") and question words
 * ("who", "what") say what kind of answer is wanted, not where it is. Dropping them
 * before BM25 and before embedding the question keeps the scores on the words that locate the
 * evidence. Only the query is filtered: fragments keep every term (src/core/tokenize.ts).
 */
import { STOP_WORDS } from '../stopwords';
import { tokenize } from '../tokenize';

/**
 * The interrogatives (the wh-words and "whether"): they say what kind of answer is wanted, and
 * the stop-word list (../stopwords.ts, NLTK's English list) already holds most of them. Nothing
 * else is dropped: a list fitted to the phrasing of our tuning sets ("text", "paper", "world",
 * "true", "false", ...) removes words that carry the meaning of other questions.
 */
export const QUESTION_WORDS: ReadonlySet<string> = new Set(
  'what which who whom whose why how when where whether whatever whichever whoever wherever whenever'.split(
    ' ',
  ),
);

/** The question's terms without function and question words (all terms if none would remain). */
export function queryTerms(question: string): string[] {
  const all = tokenize(question);
  const kept = all.filter((t) => !STOP_WORDS.has(t) && !QUESTION_WORDS.has(t));
  return kept.length > 0 ? kept : all;
}
