/**
 * @file Messages between the ONNX engine (engine.ts, on the page) and its worker
 * (src/workers/llm-onnx.worker.ts). One model per worker; requests carry an id so a stop or a
 * late reply is matched to its call.
 */
import type { PromptMessage } from '../../core/prompt';

export type ToOnnxWorker =
  | {
      type: 'load';
      modelId: string;
      host: string;
      threads: number;
      /** ONNX Runtime session options to try (the speed check page only; none in the app). */
      session?: OnnxSessionTuning;
      /**
       * Shared memory (where the page is cross-origin isolated): the page writes the id of the
       * call to stop, which the worker reads between steps. A 'stop' message alone waits until
       * the worker's call is over.
       */
      stop?: Int32Array;
    }
  | { type: 'count'; id: number; text: string }
  | {
      type: 'generate';
      id: number;
      /** Chat messages when the model has a chat template, else null and `text` is read as is. */
      messages: readonly PromptMessage[] | null;
      text: string;
      maxTokens: number;
      /** Most prompt tokens; a longer prompt is refused before anything is read. */
      maxPromptTokens: number;
      temperature: number;
      /**
       * Tokens to write before an end-of-text token may end the answer (the speed check page
       * only: every engine then writes the same number of tokens). Absent in the app.
       */
      minTokens?: number;
    }
  | { type: 'stop'; id: number };

/**
 * ONNX Runtime session options the speed check page may set to measure their effect; they change
 * how the graph is run, never what it computes.
 */
export interface OnnxSessionTuning {
  graphOptimizationLevel?: 'disabled' | 'basic' | 'extended' | 'all';
  enableCpuMemArena?: boolean;
  enableMemPattern?: boolean;
  /**
   * Tokens per piece a prompt is read in (src/llm/onnx/prefill.ts; 0: in one call). Not a session
   * option: the worker's own, measured with them.
   */
  prefillChunk?: number;
  /** The graph file to load (catalogue.ts ONNX_MODEL_FILES), instead of the first the host has. */
  modelFile?: string;
}

/** What the worker says a loaded model is. */
export interface OnnxModelFacts {
  /** The model's own context window (config.json `max_position_embeddings`). */
  contextLimit: number;
  /** Whether the tokenizer carries a chat template. */
  chat: boolean;
  /** wasm threads ONNX Runtime runs with. */
  threads: number;
  /** The graph file loaded (`onnx/{file}.onnx`) and what its weights are, e.g. "8-bit". */
  file: string;
  weights: string;
}

/** Timings of one call, measured in the worker around the model's steps. */
export interface OnnxCallStats {
  promptTokens: number;
  /** Of `promptTokens`, those taken from the KV cache of the call before (not read again). */
  cachedPromptTokens: number;
  completionTokens: number;
  /** From the start of the call to the first token written (the prompt read, one step). */
  firstTokenMs: number;
  /** From the start of the call to the end. */
  elapsedMs: number;
}

export type FromOnnxWorker =
  | { type: 'progress'; text: string; loaded: number; total: number }
  | ({ type: 'loaded' } & OnnxModelFacts)
  | { type: 'load-error'; detail: string; notFound: boolean }
  | { type: 'count'; id: number; tokens: number }
  | { type: 'token'; id: number; text: string }
  | {
      type: 'done';
      id: number;
      text: string;
      finish: 'stop' | 'length';
      stopped: boolean;
      stats: OnnxCallStats;
    }
  | { type: 'too-long'; id: number; promptTokens: number }
  | { type: 'error'; id: number; detail: string; text: string; stats: OnnxCallStats };
