/**
 * @file One pipeline run on the page, as the pipelines panel and each Compare column start it:
 * the engine wrapped for the pipelines (token counts remembered for the run, each answer's speed
 * kept for the next estimate), the helper models, the retry back-off, and FragRel at the
 * engine's temperature.
 */
import type { AbortSignalLike } from '../../core/abort';
import { withCountCache } from '../../core/pipelines/count-cache';
import { runPipeline, type PipelineId, type PipelineSettings } from '../../core/pipelines/registry';
import type {
  PipelineLibrary,
  PipelineMemory,
  PipelineOutput,
  PipelineProgress,
} from '../../core/pipelines/types';
import { pipelineLlm } from '../../llm/pipeline-llm';
import type { LlmEngine } from '../../llm/types';
import { recordingSpeed, speedKey } from './engine-speed';
import type { PipelineHelpers } from './helpers';

/** Waits `ms`, or less when the run is stopped (the pipelines' retry back-off). */
export function wait(ms: number, signal: AbortSignalLike): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

export interface PageRun {
  pipeline: PipelineId;
  question: string;
  library: PipelineLibrary;
  engine: LlmEngine;
  /** The engine's kind and model, the key its measured speed is kept under. */
  speedOf: { kind: string; model: string };
  helpers: PipelineHelpers;
  memory?: PipelineMemory;
  settings: PipelineSettings;
  /** The engine settings' temperature: FragRel answers as the answer panel does. */
  temperature: number | undefined;
  signal: AbortSignal;
  onProgress: (progress: PipelineProgress) => void;
  onAnswerToken: (piece: string) => void;
}

/**
 * A run that ended without error but with an empty answer ends as an error with a message:
 * otherwise the panel and Compare would show "Done" and nothing, and a reader (or a test waiting
 * for the answer) would wait for text that never comes. The trace is kept, and it is shown.
 */
export function emptyAnswerEnds(output: PipelineOutput): PipelineOutput {
  if (output.status !== 'done' || output.answer.trim()) return output;
  const last = output.trace.calls.at(-1);
  return {
    ...output,
    status: 'error',
    answer: '',
    error: {
      code: 'engine',
      message: 'The pipeline gave no answer.',
      detail: last
        ? `Its last call (${last.tag}) returned ${last.response.trim() ? 'a reply with no answer in it' : 'an empty reply'}; every call is in the trace below.`
        : 'It made no model call; its steps are in the trace below.',
    },
  };
}

export async function runOnPage(run: PageRun): Promise<PipelineOutput> {
  const { settings } = run;
  const output = await runPipeline(
    run.pipeline,
    {
      question: run.question,
      library: run.library,
      // Counts remembered per text for the run: in-browser engines count by reading the text.
      llm: withCountCache(
        pipelineLlm(recordingSpeed(run.engine, speedKey(run.speedOf.kind, run.speedOf.model))),
      ),
      ...run.helpers,
      ...(run.memory ? { memory: run.memory } : {}),
      signal: run.signal,
      onProgress: run.onProgress,
      sleep: wait,
      onAnswerToken: run.onAnswerToken,
    },
    // LongRAG, SEGMENT+ and QRMeM run at 0 (PIPELINES.md).
    { ...settings, fragrel: { ...settings.fragrel, temperature: run.temperature } },
  );
  return emptyAnswerEnds(output);
}
