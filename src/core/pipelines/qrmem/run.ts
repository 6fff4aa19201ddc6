/**
 * @file What every QRMeM step shares: the input, the trace recorder, the full settings, the
 * retry schedule and the two measures (the engine's token count, the embedder's similarity).
 * Built once per question by index.ts and handed to the construction (build.ts) and the
 * navigation (navigate.ts).
 */
import type { TraceRecorder } from '../trace';
import type { PipelineInput } from '../types';
import type { RetrySchedule } from './parse';
import type { QrmemSettings } from './settings';

export interface QrmemRun {
  input: PipelineInput<QrmemSettings>;
  rec: TraceRecorder;
  settings: QrmemSettings;
  schedule: RetrySchedule;
  /** Tokens of a text on the engine's own counter. */
  count: (text: string) => Promise<number>;
  /** Dot products of the query's embedding with each text's (normalised: cosine). */
  similarity: (query: string, texts: readonly string[]) => Promise<number[]>;
}

export const round2 = (x: number) => Math.round(x * 100) / 100;
export const round4 = (x: number) => Math.round(x * 10000) / 10000;
