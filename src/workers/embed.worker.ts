/// <reference lib="webworker" />
/**
 * @file The embedding worker: loads one transformers.js model at a time and embeds texts.
 *
 * Handlers: `probe` (capabilities as seen from inside the worker), `load` (replaces any loaded
 * model), `embed` (rows transferred back, progress per batch, cancellable between batches),
 * `unload`. Start it with
 * `new Worker(new URL('./embed.worker.ts', import.meta.url), { type: 'module' })` and wrap it in
 * `WorkerClient<EmbedApi>`.
 */
import type { VectorSet } from '../core/types';
import {
  probeCapabilities,
  type Capabilities,
  type DeviceRequest,
  type EmbedDevice,
} from '../models/capabilities';
import type { CustomModelOptions, EmbedDtype, EmbedKind } from '../models/catalogue';
import {
  loadTransformersEmbedder,
  type TransformersEmbedder,
} from '../models/transformers-embedder';
import {
  configureTransformers,
  ortNumThreads,
  ortWebgpuDeviceCreated,
  type TransformersSetup,
} from '../models/transformers-env';
import { serveWorker } from './host';
import { buffersOf } from './protocol';

export interface EmbedLoadRequest {
  /** Catalogue key or hub id. */
  modelId: string;
  device?: DeviceRequest;
  /** Hub host; default https://huggingface.co/. */
  host?: string;
  dtype?: EmbedDtype;
  batchSize?: number;
  /** Padded tokens per model call at most (src/models/batches.ts); default the app's. */
  batchTokens?: number;
  custom?: CustomModelOptions;
  /** wasm threads for this worker's life (benchmarks); default half the cores. */
  threads?: number;
}

export interface EmbedLoadResult {
  id: string;
  dim: number;
  /** The device the session actually runs on. */
  device: EmbedDevice;
  dtype: EmbedDtype;
  host: string;
  fallbackReason: string | null;
  /** ONNX Runtime created a WebGPU device (its WebGPU provider started in this worker). */
  webgpuDeviceCreated: boolean;
  /** wasm threads ONNX Runtime actually runs with (1 when threads are unavailable). */
  wasmThreads: number;
  /** Wall time of the load, download and warm-up included. */
  ms: number;
  setup: TransformersSetup;
}

export interface EmbedResult extends VectorSet {
  /** Wall time of the embedding. */
  ms: number;
}

export interface EmbedApi {
  probe: { payload: null; result: Capabilities };
  load: { payload: EmbedLoadRequest; result: EmbedLoadResult };
  embed: { payload: { texts: string[]; kind: EmbedKind; batchSize?: number }; result: EmbedResult };
  unload: { payload: null; result: { unloaded: boolean } };
}

let current: TransformersEmbedder | null = null;

serveWorker<EmbedApi>(self as unknown as Parameters<typeof serveWorker>[0], {
  probe: () => probeCapabilities(),

  load: async (request: EmbedLoadRequest, { signal, progress }) => {
    const started = performance.now();
    const setup = await configureTransformers(request.threads);
    const previous = current;
    current = null;
    await previous?.dispose();
    const embedder = await loadTransformersEmbedder({
      modelId: request.modelId,
      device: request.device,
      host: request.host,
      dtype: request.dtype,
      batchSize: request.batchSize,
      batchTokens: request.batchTokens,
      custom: request.custom,
      onProgress: progress,
      signal,
    });
    current = embedder;
    return {
      id: embedder.id,
      dim: embedder.dim,
      device: embedder.device,
      dtype: embedder.dtype,
      host: embedder.host,
      fallbackReason: embedder.fallbackReason,
      webgpuDeviceCreated: ortWebgpuDeviceCreated(),
      wasmThreads: ortNumThreads(),
      ms: performance.now() - started,
      setup,
    } satisfies EmbedLoadResult;
  },

  embed: async (
    request: { texts: string[]; kind: EmbedKind; batchSize?: number },
    { signal, progress, transfer },
  ) => {
    const embedder = current;
    if (!embedder) throw new Error('No embedding model is loaded: call "load" first.');
    const started = performance.now();
    const data = await embedder.embed(request.texts, {
      kind: request.kind,
      batchSize: request.batchSize,
      signal,
      onProgress: progress,
    });
    transfer(buffersOf(data));
    return {
      dim: embedder.dim,
      count: request.texts.length,
      data,
      ms: performance.now() - started,
    } satisfies EmbedResult;
  },

  unload: async () => {
    const had = current !== null;
    await current?.dispose();
    current = null;
    return { unloaded: had };
  },
});
