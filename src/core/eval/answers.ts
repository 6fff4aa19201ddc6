/**
 * @file Scoring one LLM answer against a benchmark item (answer evaluation, docs/evaluation.md): the
 * LongBench metrics of metrics.ts, each the best over the item's gold answers (LongBench's
 * per-question max), and multiple-choice letter accuracy when the item has a gold letter.
 */
import type { BenchmarkItem } from './datasets/types';
import { containEM, exactMatch, letterAccuracy, qaF1, type AnswerMetric } from './metrics';

export interface AnswerScores {
  f1: number;
  em: number;
  contain: number;
  /** QuALITY-style multiple choice only: 1 when the answer picks the gold letter. */
  letter: number | null;
}

function best(metric: AnswerMetric, prediction: string, answers: readonly string[]): number {
  let out = 0;
  for (const a of answers) out = Math.max(out, metric(prediction, a));
  return out;
}

/** Null when the item has no gold answer to score against (MTBench+). */
export function scoreAnswer(
  item: Pick<BenchmarkItem, 'answers' | 'answerLetter'>,
  prediction: string,
): AnswerScores | null {
  if (item.answers.length === 0 && !item.answerLetter) return null;
  return {
    f1: best(qaF1, prediction, item.answers),
    em: best(exactMatch, prediction, item.answers),
    contain: best(containEM, prediction, item.answers),
    letter: item.answerLetter ? letterAccuracy(prediction, item.answerLetter) : null,
  };
}
