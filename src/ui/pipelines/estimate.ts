/**
 * @file The cost estimate before anything is sent, for the pipelines panel (one run) and Compare
 * (each ticked column): the calls and tokens of each run by the evaluation page's dry run
 * (core/eval/answer-run.ts `dryRunCost`), on its own engine's context window, with the engine it
 * will run on (for its time or price, RunEstimate.tsx). Only the helper models a dry run needs
 * are loaded (the embedder); the engine is not touched.
 */
import {
  COMPARE_PIPELINE_NAMES,
  plainRetrievalLibrary,
  runsAs,
  type ComparePipelineId,
} from '../../core/compare';
import { dryRunCost, type AnswerPipeline } from '../../core/eval/answer-run';
import {
  defaultPipelineSettings,
  PIPELINES,
  runPipeline,
  type PipelineSettings,
} from '../../core/pipelines/registry';
import type { PipelineLibrary } from '../../core/pipelines/types';
import { isApiEngine } from '../../llm/settings';
import type { EmbedderSpec } from '../../models/embedder';
import type { RetrievalResult } from '../../workers/retrieval-types';
import type { EngineState } from '../answer/useEngine';
import type { EngineChoice, EngineOption } from '../compare/engines';
import type { HelperModels } from './helpers';
import type { CostGate, EstimateRow } from './RunEstimate';

export interface EstimateInput {
  chosen: readonly ComparePipelineId[];
  options: readonly EngineOption[];
  engineOf: Partial<Record<ComparePipelineId, EngineChoice>>;
  settingsOf: Partial<Record<ComparePipelineId, PipelineSettings>>;
  engine: EngineState;
  result: RetrievalResult;
  library: PipelineLibrary;
  /** The library's embedder (a dry run of a pipeline that needs one loads it). */
  embedder: EmbedderSpec | undefined;
  models: HelperModels;
}

/**
 * Before anything is sent: the runs' calls and tokens by a dry run, then `start`, or the
 * question when the calls added up are above the threshold (RunEstimate.tsx).
 */
export function requestRuns(gate: CostGate, input: EstimateInput, start: () => Promise<void>) {
  const { signal } = new AbortController();
  void gate.request(
    () => estimateRuns(input, signal),
    () => void start(),
  );
}

/** The plain-retrieval baseline's library: FragRel's selection by the independent score alone. */
export function plainLibraryOf(library: PipelineLibrary, result: RetrievalResult) {
  return plainRetrievalLibrary(library, {
    costs: result.costs,
    budget: result.budget,
    ...(result.maxSelected !== undefined ? { maxSelected: result.maxSelected } : {}),
  });
}

export async function estimateRuns(
  input: EstimateInput,
  signal: AbortSignal,
): Promise<EstimateRow[]> {
  const { chosen, options, engineOf, settingsOf, engine, result, library } = input;
  const plain = plainLibraryOf(library, result);
  const loaded = await input.models.load(
    chosen.map(runsAs),
    { rerankerId: '', ...(input.embedder ? { embedder: input.embedder } : {}) },
    signal,
  );
  if (!loaded.ok) throw new Error(loaded.error.detail ?? loaded.error.message);
  const rows: EstimateRow[] = [];
  for (const p of chosen) {
    const option = options.find((o) => o.id === (engineOf[p] ?? 'current')) ?? options[0];
    const settings = settingsOf[p] ?? defaultPipelineSettings;
    const runner: AnswerPipeline = (run) =>
      runPipeline(runsAs(p), { ...run, ...loaded.helpers }, settings);
    const contextLimit =
      option.id !== 'current' && isApiEngine(option.kind)
        ? engine.settings[option.kind].contextLimit
        : engine.contextLimit;
    const cost = await dryRunCost(
      runner,
      { question: result.question, library: p === 'plain' ? plain : library },
      contextLimit,
      signal,
    );
    rows.push({
      label: COMPARE_PIPELINE_NAMES[p],
      cost,
      floor: PIPELINES[runsAs(p)].estimateIsFloor,
      engine: option,
    });
  }
  return rows;
}
