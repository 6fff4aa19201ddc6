/**
 * @file Answer evaluation with an LLM: answer pipelines on a sample of benchmark
 * questions, each answer scored with answers.ts, with its calls and tokens from the trace; and a
 * cost estimate before starting, from a dry run.
 *
 * Each question is asked of its own document, as the app asks a question of a book: prose
 * fragments of `fragmentWords`, BM25 independent scores (Eq. 4), the context-structure relation
 * (Eq. 7, w_rel) with alpha (Eq. 10), and FragRel's selection within `budgetWords` (Eq. 11), all
 * through the same core functions as the retrieval grid.
 */
import type { AbortSignalLike } from '../abort';
import { fragRelScores, selectByBudget } from '../fragrel';
import type { PipelineLibrary, PipelineLlm, PipelineOutput } from '../pipelines/types';
import { fakeLlm } from '../pipelines/testing';
import { buildRun, runIndependentScores, runRelations } from '../run';
import { tokenize } from '../tokenize';
import { countWords, splitProse } from '../fragment';
import { scoreAnswer, type AnswerScores } from './answers';
import type { BenchmarkItem } from './datasets/types';

export interface AnswerRunOptions {
  fragmentWords: number;
  budgetWords: number;
  alpha: number;
  wRel: number;
}

export const defaultAnswerRunOptions: Readonly<AnswerRunOptions> = Object.freeze({
  fragmentWords: 500,
  budgetWords: 2000,
  alpha: 0.5,
  wRel: 0.3,
});

/** The library a pipeline reads for one benchmark question (see the file comment). */
export function pipelineLibraryFor(
  item: BenchmarkItem,
  options: AnswerRunOptions,
): PipelineLibrary {
  const spans =
    item.fixedFragments ??
    splitProse(item.documentId, item.document, { wordsPerFragment: options.fragmentWords });
  const starts = Uint32Array.from(spans, (s) => s.start);
  const ends = Uint32Array.from(spans, (s) => s.end);
  const words = Uint32Array.from(spans, (s) => countWords(item.document, s.start, s.end));
  const run = buildRun([
    {
      docId: item.documentId,
      name: item.documentId,
      source: item.document,
      starts,
      ends,
      words,
      labels: spans.map(() => ''),
    },
  ]);
  const independent = runIndependentScores(run, { tokens: tokenize(item.question) }, 'bm25');
  const final =
    options.alpha > 0
      ? fragRelScores(independent, runRelations(run, ['context'], options.wRel), {
          alpha: options.alpha,
        }).final
      : independent;
  const selection = selectByBudget(final, words, options.budgetWords);
  return {
    documents: [
      { docId: item.documentId, name: item.documentId, kind: 'prose', text: item.document },
    ],
    fragments: spans.map((s, index) => ({
      index,
      docId: item.documentId,
      ordinal: index,
      start: s.start,
      end: s.end,
    })),
    independent,
    final,
    scorer: 'BM25',
    selection: {
      indices: [...selection.indices].sort((a, b) => a - b),
      ranked: [...selection.indices],
    },
  };
}

/** Runs one pipeline on one question (the page binds the registry's runner and settings). */
export type AnswerPipeline = (input: {
  question: string;
  library: PipelineLibrary;
  llm: PipelineLlm;
  signal: AbortSignalLike;
}) => Promise<PipelineOutput>;

export interface AnswerResult {
  pipeline: string;
  question: string;
  status: PipelineOutput['status'];
  answer: string;
  /** Null when the item has no gold answer, or the run failed. */
  scores: AnswerScores | null;
  calls: number;
  tokensIn: number;
  tokensOut: number;
  error?: string;
}

function costOf(output: PipelineOutput) {
  let tokensIn = 0;
  let tokensOut = 0;
  for (const c of output.trace.calls) {
    tokensIn += c.tokensIn ?? 0;
    tokensOut += c.tokensOut ?? 0;
  }
  return { calls: output.trace.calls.length, tokensIn, tokensOut };
}

/** One pipeline on one question, scored. */
export async function answerOne(
  pipelineId: string,
  pipeline: AnswerPipeline,
  item: BenchmarkItem,
  llm: PipelineLlm,
  options: AnswerRunOptions,
  signal: AbortSignalLike,
): Promise<AnswerResult> {
  const output = await pipeline({
    question: item.prompt,
    library: pipelineLibraryFor(item, options),
    llm,
    signal,
  });
  return {
    pipeline: pipelineId,
    question: item.id,
    status: output.status,
    answer: output.answer,
    scores: output.status === 'done' ? scoreAnswer(item, output.answer) : null,
    ...costOf(output),
    ...(output.error ? { error: output.error.message } : {}),
  };
}

export interface CostEstimate {
  calls: number;
  tokensIn: number;
  tokensOut: number;
}

/**
 * A dry run of `pipeline` on the first question with a stand-in model (every call answered
 * "A", tokens counted as words, the real engine's context window), times `sample`. A floor for
 * pipelines whose rounds depend on the answers (SEGMENT+ merging, QRMeM reflection): the page
 * says so.
 */
export async function estimateCost(
  pipeline: AnswerPipeline,
  item: BenchmarkItem,
  sample: number,
  contextLimit: number,
  options: AnswerRunOptions,
  signal: AbortSignalLike,
): Promise<CostEstimate> {
  const one = await dryRunCost(
    pipeline,
    { question: item.prompt, library: pipelineLibraryFor(item, options) },
    contextLimit,
    signal,
  );
  return {
    calls: one.calls * sample,
    tokensIn: one.tokensIn * sample,
    tokensOut: one.tokensOut * sample,
  };
}

/**
 * The calls and tokens of one run of `pipeline` on a question and library, from a dry run with
 * the stand-in model of `estimateCost` (nothing is sent to any engine). The pipelines panel and
 * Compare ask it before a run; the evaluation page, through `estimateCost`, before a sample.
 */
export async function dryRunCost(
  pipeline: AnswerPipeline,
  input: { question: string; library: PipelineLibrary },
  contextLimit: number,
  signal: AbortSignalLike,
): Promise<CostEstimate> {
  const standIn = fakeLlm({ fallback: 'A', contextLimit, ticks: 0, label: 'dry run' });
  const output = await pipeline({ ...input, llm: standIn, signal });
  const one = costOf(output);
  return { calls: one.calls, tokensIn: one.tokensIn, tokensOut: one.tokensOut };
}

/**
 * Time of a cost on an engine that reads `promptTokensPerSecond` and writes `tokensPerSecond`,
 * one call after another (an in-browser engine runs one call at a time), in ms.
 */
export function timeOnEngineMs(
  cost: CostEstimate,
  speed: { promptTokensPerSecond: number; tokensPerSecond: number },
): number {
  return (
    (cost.tokensIn / speed.promptTokensPerSecond + cost.tokensOut / speed.tokensPerSecond) * 1000
  );
}

export interface AnswerSummary {
  pipeline: string;
  questions: number;
  failed: number;
  f1: number;
  em: number;
  contain: number;
  /** Over multiple-choice questions only (null: none). */
  letter: number | null;
  calls: number;
  tokensIn: number;
  tokensOut: number;
}

export function summarizeAnswers(results: readonly AnswerResult[]): AnswerSummary[] {
  const byPipeline = new Map<string, AnswerResult[]>();
  for (const r of results) byPipeline.set(r.pipeline, [...(byPipeline.get(r.pipeline) ?? []), r]);
  const mean = (xs: number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : 0);
  return [...byPipeline].map(([pipeline, rs]) => {
    const scored = rs.filter((r) => r.scores).map((r) => r.scores!);
    const letters = scored.filter((s) => s.letter !== null).map((s) => s.letter!);
    return {
      pipeline,
      questions: rs.length,
      failed: rs.filter((r) => r.status !== 'done').length,
      f1: mean(scored.map((s) => s.f1)),
      em: mean(scored.map((s) => s.em)),
      contain: mean(scored.map((s) => s.contain)),
      letter: letters.length ? mean(letters) : null,
      calls: rs.reduce((s, r) => s + r.calls, 0),
      tokensIn: rs.reduce((s, r) => s + r.tokensIn, 0),
      tokensOut: rs.reduce((s, r) => s + r.tokensOut, 0),
    };
  });
}
