/**
 * @file Compare's cost estimate before it sends anything: each ticked column's calls and tokens
 * by the evaluation page's dry run (core/eval/answer-run.ts `dryRunCost`), on its own engine's
 * context window, with the engine it will run on (for its time or price, RunEstimate.tsx).
 */
import {
  COMPARE_PIPELINE_NAMES,
  plainRetrievalLibrary,
  type ComparePipelineId,
} from '../../core/compare';
import { dryRunCost, type AnswerPipeline } from '../../core/eval/answer-run';
import type { AbortSignalLike } from '../../core/abort';
import type { PipelineLibrary } from '../../core/pipelines/types';
import { isApiEngine } from '../../llm/settings';
import type { EmbedderSpec } from '../../models/embedder';
import type { RetrievalResult } from '../../workers/retrieval-types';
import type { EngineState } from '../answer/useEngine';
import { pipelineEmbedder } from '../qrmem/embedder';
import {
  defaultPipelineSettings,
  runPipeline,
  type PipelineId,
  type PipelineSettings,
} from '../pipelines/registry';
import type { EstimateRow } from '../pipelines/RunEstimate';
import type { EngineChoice, EngineOption } from './engines';

/** The registry's pipeline and settings form for a column (plain retrieval is FragRel's). */
export const registryId = (p: ComparePipelineId): PipelineId => (p === 'plain' ? 'fragrel' : p);

export interface CompareEstimateInput {
  chosen: readonly ComparePipelineId[];
  options: readonly EngineOption[];
  engineOf: Partial<Record<ComparePipelineId, EngineChoice>>;
  settingsOf: Partial<Record<ComparePipelineId, PipelineSettings>>;
  engine: EngineState;
  result: RetrievalResult;
  library: PipelineLibrary;
  embedder?: EmbedderSpec;
}

export async function compareEstimate(
  {
    chosen,
    options,
    engineOf,
    settingsOf,
    engine,
    result,
    library,
    embedder,
  }: CompareEstimateInput,
  signal: AbortSignalLike & AbortSignal,
): Promise<EstimateRow[]> {
  const plain = plainRetrievalLibrary(library, {
    costs: result.costs,
    budget: result.budget,
    ...(result.maxSelected !== undefined ? { maxSelected: result.maxSelected } : {}),
  });
  // QRMeM's dry run needs the library's embedder (the engine is not touched).
  const dryEmbedder = chosen.includes('qrmem')
    ? await pipelineEmbedder(embedder, signal)
    : undefined;
  const rows: EstimateRow[] = [];
  for (const p of chosen) {
    const option = options.find((o) => o.id === (engineOf[p] ?? 'current')) ?? options[0];
    const settings = settingsOf[p] ?? defaultPipelineSettings;
    const runner: AnswerPipeline = (input) =>
      runPipeline(
        registryId(p),
        { ...input, ...(p === 'qrmem' && dryEmbedder ? { embedder: dryEmbedder } : {}) },
        settings,
      );
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
      floor: p === 'segment' || p === 'qrmem',
      engine: option,
    });
  }
  return rows;
}
