/**
 * @file A stored, resumable answer-evaluation run: which (pipeline, question)
 * pairs a run asks, in which order, which of them are still to do given the answers already
 * stored, and the loop that asks them, handing each scored answer to `store` before asking the
 * next. The page stores each answer in its own transaction (src/store/eval-runs.ts), so a reload
 * loses at most the answers in flight, and a resumed run never asks a stored pair again.
 *
 * No storage or engine here: the caller gives the store step and the pipelines.
 */
import type { AbortSignalLike } from '../abort';
import type { PipelineLlm } from '../pipelines/types';
import {
  answerOne,
  type AnswerPipeline,
  type AnswerResult,
  type AnswerRunOptions,
} from './answer-run';
import type { BenchmarkItem } from './datasets/types';

/** What an answer run asks, kept with the run so that a resume asks exactly the same. */
export interface AnswerRunSpec {
  kind: 'answers';
  /** Pipeline ids (src/core/pipelines/registry.ts), in the order each question goes through them. */
  pipelines: string[];
  /** The benchmark item ids asked, in order (the first N with gold answers when it started). */
  questions: string[];
  options: AnswerRunOptions;
}

/** The engine an answer run used, for the record and the exports (never the API key). */
export interface AnswerRunEngine {
  kind: string;
  model: string;
  baseUrl?: string;
  contextLimit: number;
}

/** One pair's identity: a stored answer's key within its run. */
export const answerPairKey = (pipeline: string, question: string): string =>
  JSON.stringify([pipeline, question]);

export interface AnswerPair {
  pipeline: string;
  item: BenchmarkItem;
}

/**
 * The pairs of `spec` still to ask, question by question and within a question pipeline by
 * pipeline (the order the page shows progress in), skipping those with a stored answer. A
 * question id no longer in `items` is an error value: the run's file was parsed differently.
 */
export function pendingAnswerPairs(
  spec: AnswerRunSpec,
  items: readonly BenchmarkItem[],
  stored: readonly Pick<AnswerResult, 'pipeline' | 'question'>[],
): { ok: true; pairs: AnswerPair[]; total: number } | { ok: false; error: string } {
  const byId = new Map(items.map((i) => [i.id, i]));
  const done = new Set(stored.map((r) => answerPairKey(r.pipeline, r.question)));
  const pairs: AnswerPair[] = [];
  for (const id of spec.questions) {
    const item = byId.get(id);
    if (!item) {
      return {
        ok: false,
        error: `Question ${JSON.stringify(id)} of this run is not in its file any more; the run cannot be resumed.`,
      };
    }
    for (const pipeline of spec.pipelines) {
      if (!done.has(answerPairKey(pipeline, id))) pairs.push({ pipeline, item });
    }
  }
  return { ok: true, pairs, total: spec.questions.length * spec.pipelines.length };
}

/**
 * Ask `pairs` one after another. Each answer goes to `store` (awaited) before the next pair is
 * asked; `store` returning false (the run was deleted meanwhile) ends the loop. Stops between
 * pairs when `signal` is aborted; an answer that comes back after the abort is not stored.
 * Returns how many answers were stored.
 */
export async function askAnswerPairs(input: {
  pairs: readonly AnswerPair[];
  runnerOf: (pipeline: string) => AnswerPipeline;
  llm: PipelineLlm;
  options: AnswerRunOptions;
  signal: AbortSignalLike;
  store: (result: AnswerResult) => Promise<boolean>;
}): Promise<number> {
  let stored = 0;
  for (const { pipeline, item } of input.pairs) {
    if (input.signal.aborted) break;
    const result = await answerOne(
      pipeline,
      input.runnerOf(pipeline),
      item,
      input.llm,
      input.options,
      input.signal,
    );
    // A pipeline stopped by the abort reports 'stopped': that is no answer to keep.
    if (input.signal.aborted) break;
    if (!(await input.store(result))) break;
    stored += 1;
  }
  return stored;
}

/** Stored answers in the run's own order (questions as asked, pipelines as ticked). */
export function orderAnswers<T extends Pick<AnswerResult, 'pipeline' | 'question'>>(
  spec: AnswerRunSpec,
  results: readonly T[],
): T[] {
  const q = new Map(spec.questions.map((id, k) => [id, k]));
  const p = new Map(spec.pipelines.map((id, k) => [id, k]));
  const rank = (r: T) =>
    (q.get(r.question) ?? spec.questions.length) * (spec.pipelines.length + 1) +
    (p.get(r.pipeline) ?? spec.pipelines.length);
  return [...results].sort((a, b) => rank(a) - rank(b));
}
