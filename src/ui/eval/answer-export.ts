/**
 * @file Exports of an answer-evaluation run: CSV with one row per answer, each row
 * with the settings that produced it (engine, model, fragment size, budget, alpha, w_rel), and
 * JSON with the run's file, engine, pipelines and their settings, the summary and every answer.
 * CSV is written by csv.ts (answers are model output and must not run as spreadsheet formulas). The API key is never part of a run, so never exported.
 */
import type { AnswerRunEngine, AnswerRunSpec } from '../../core/eval/answer-resume';
import type { AnswerSummary } from '../../core/eval/answer-run';
import type { StoredAnswer } from '../../store/eval-runs';
import type { EvalRunRecord } from '../../store/schema';
import { toCsv } from './csv';
import { runExportHead, type RunExportHead } from './export';

/** What an answer run keeps in its record's `settings`. */
export interface AnswerRunSettings {
  engine: AnswerRunEngine;
  /** The settings of each pipeline of the run, as it ran. */
  pipelineSettings: Record<string, unknown>;
}

export const ANSWER_CSV_HEADER = [
  'pipeline',
  'question',
  'status',
  'f1',
  'em',
  'contain',
  'letter',
  'calls',
  'tokens_in',
  'tokens_out',
  'answer',
  'error',
  'engine',
  'model',
  'fragment_words',
  'budget_words',
  'alpha',
  'w_rel',
  'computed_at',
] as const;

const num = (x: number | null | undefined) => (x === null || x === undefined ? '' : x);

export function answerCsv(
  spec: AnswerRunSpec,
  settings: AnswerRunSettings,
  answers: readonly StoredAnswer[],
): string {
  const data = answers.map((a) => [
    a.pipeline,
    a.question,
    a.status,
    num(a.scores?.f1),
    num(a.scores?.em),
    num(a.scores?.contain),
    num(a.scores?.letter),
    a.calls,
    a.tokensIn,
    a.tokensOut,
    a.answer,
    a.error ?? '',
    settings.engine.kind,
    settings.engine.model,
    spec.options.fragmentWords,
    spec.options.budgetWords,
    spec.options.alpha,
    spec.options.wRel,
    new Date(a.computedAt).toISOString(),
  ]);
  return toCsv(ANSWER_CSV_HEADER, data);
}

export interface AnswerRunExport extends RunExportHead<'fragrel-lens answer evaluation run'> {
  spec: AnswerRunSpec;
  settings: AnswerRunSettings;
  summary: AnswerSummary[];
  answers: StoredAnswer[];
}

export function answerRunJson(
  run: EvalRunRecord,
  format: string,
  summary: AnswerSummary[],
  answers: readonly StoredAnswer[],
): string {
  const out: AnswerRunExport = {
    ...runExportHead('fragrel-lens answer evaluation run', run, format),
    spec: run.spec as AnswerRunSpec,
    settings: run.settings as AnswerRunSettings,
    summary,
    answers: [...answers],
  };
  return JSON.stringify(out, null, 1);
}
