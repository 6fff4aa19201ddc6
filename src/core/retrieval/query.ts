/**
 * @file Query-side term handling: a question's function words ("the", "of") and question words
 * ("who", "what", "according") say what kind of answer is wanted, not where it is. Dropping them
 * before BM25 and before embedding the question keeps the scores on the words that locate the
 * evidence. Only the query is filtered: fragments keep every term (src/core/tokenize.ts).
 */
import { STOP_WORDS } from '../stopwords';
import { tokenize } from '../tokenize';

/** Words that frame a question or an instruction rather than name what it is about. */
export const QUESTION_WORDS: ReadonlySet<string> = new Set(
  (
    'what which who whom whose why how when where whether does did do according text story ' +
    'passage document author narrator paper article describe described mention mentioned ' +
    'true false answer question based world'
  ).split(' '),
);

/** The question's terms without function and question words (all terms if none would remain). */
export function queryTerms(question: string): string[] {
  const all = tokenize(question);
  const kept = all.filter((t) => !STOP_WORDS.has(t) && !QUESTION_WORDS.has(t));
  return kept.length > 0 ? kept : all;
}
