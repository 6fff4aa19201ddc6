/**
 * @file The fixed question set of the answer-knee bench (questions.json): factual questions over
 * the Gutenberg books in ../shared/datasets/gutenberg with short gold answers, and how an answer
 * is scored against them.
 *
 * Scoring is contain-EM (src/core/eval/metrics.ts, the LongBench normalisation the evaluation
 * page uses): lowercase, ASCII punctuation removed, the articles a/an/the dropped, whitespace
 * collapsed; an answer is correct when the normalised gold, or one of its accepted spellings,
 * occurs in the normalised answer as whole words.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { containEM } from '../../src/core/eval/metrics';
import { sharedDatasetPath } from '../../test/glove';

export interface KneeQuestion {
  id: string;
  /** The book's file name in ../shared/datasets/gutenberg. */
  book: string;
  question: string;
  /** The short gold answer, as it is written in the book. */
  answer: string;
  /** Other spellings of the same answer (a digit, a plural, a possessive). */
  accept?: string[];
}

const here = path.dirname(fileURLToPath(import.meta.url));

export function kneeQuestions(): KneeQuestion[] {
  const file = JSON.parse(readFileSync(path.join(here, 'questions.json'), 'utf8')) as {
    questions: KneeQuestion[];
  };
  return file.questions;
}

/** The book's text, as the app stores a dropped plain-text file (line ends as they are). */
export function bookText(book: string): string {
  return readFileSync(sharedDatasetPath(`gutenberg/${book}`), 'utf8');
}

/** 1 when the answer holds the gold answer or an accepted spelling (contain-EM), else 0. */
export function answerHoldsGold(q: Pick<KneeQuestion, 'answer' | 'accept'>, text: string): 0 | 1 {
  for (const gold of [q.answer, ...(q.accept ?? [])]) if (containEM(text, gold) === 1) return 1;
  return 0;
}
