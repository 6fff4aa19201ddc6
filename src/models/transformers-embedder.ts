/**
 * @file A sentence embedder on transformers.js: a hub model, pooled and L2-normalised, batched.
 *
 * ### Usage (inside a worker: see src/workers/embed.worker.ts)
 * ```ts
 * const e = await loadTransformersEmbedder({ modelId: 'all-MiniLM-L6-v2', onProgress, signal });
 * const rows = await e.embed(['first fragment', 'second'], { kind: 'passage' }); // 2 * e.dim
 * ```
 *
 * Batching pads the shorter texts of a batch; pooling (mean with the attention mask, or CLS)
 * ignores the padding, so a text's vector does not depend on its batch (checked in
 * e2e/embedding.spec.ts to 1e-5). Texts are sorted by length before batching to waste less
 * work on padding, and the rows come back in the caller's order.
 */
import { pipeline, type FeatureExtractionPipeline, type Tensor } from '@huggingface/transformers';
import { AbortError } from '../core/abort';
import type { Progress } from '../core/types';
import {
  probeCapabilities,
  resolveDevice,
  type DeviceRequest,
  type EmbedDevice,
} from './capabilities';
import {
  defaultDtype,
  resolveModel,
  type CustomModelOptions,
  type EmbedDtype,
  type EmbedKind,
  type EmbeddingModelInfo,
} from './catalogue';
import { ModelLoadError, describeLoadError } from './load-errors';
import { createDownloadProgress } from './load-progress';
import { DEFAULT_BATCH_TOKENS, estimatePieces, planBatches } from './batches';
import { DEFAULT_BATCH_SIZE } from './settings';
import {
  abortFetchesWith,
  configureTransformers,
  ortWebgpuDeviceCreated,
  setHubHost,
} from './transformers-env';

export interface LoadEmbedderOptions {
  /** A catalogue key ('all-MiniLM-L6-v2') or any hub id ('org/name'). */
  modelId: string;
  /** Default 'auto': WebGPU when an adapter exists, else wasm. */
  device?: DeviceRequest;
  /** Default: the model's first listed dtype (q8 for the catalogue, fp32 for the test model). */
  dtype?: EmbedDtype;
  /** Hub host, default https://huggingface.co/ (a mirror in the same layout works). */
  host?: string;
  /** Texts per model call at most; default 16. */
  batchSize?: number;
  /** Padded tokens per model call at most (batches.ts); default 2,048, 0 for no cap. */
  batchTokens?: number;
  /** wasm threads, for benchmarks; default half the cores (see transformers-env). */
  threads?: number;
  /** Pooling, prefixes and expected dim for a hub id outside the catalogue. */
  custom?: CustomModelOptions;
  /** Download progress in bytes (stage 'download'), then stage 'warmup' 0/1 and 1/1. */
  onProgress?: (p: Progress) => void;
  /** Aborts downloads in flight; the load then rejects with an AbortError. */
  signal?: AbortSignal;
}

export interface EmbedOptions {
  kind: EmbedKind;
  signal?: AbortSignal;
  /** After each batch: stage 'embed', `done` texts of `total`. */
  onProgress?: (p: Progress) => void;
  batchSize?: number;
  batchTokens?: number;
}

export interface TransformersEmbedder {
  /** The hub id loaded. */
  readonly id: string;
  readonly model: EmbeddingModelInfo;
  readonly dim: number;
  /** The device the ONNX session runs on. */
  readonly device: EmbedDevice;
  readonly dtype: EmbedDtype;
  readonly host: string;
  /** Why 'auto' fell back from webgpu to wasm; null when it did not. */
  readonly fallbackReason: string | null;
  /** Row-major vectors, `texts.length * dim`, each row L2-normalised. */
  embed(texts: readonly string[], options: EmbedOptions): Promise<Float32Array>;
  dispose(): Promise<void>;
}

/** Loads run one at a time per thread: the hub host is a global of transformers.js. */
let loadChain: Promise<unknown> = Promise.resolve();

export function loadTransformersEmbedder(
  options: LoadEmbedderOptions,
): Promise<TransformersEmbedder> {
  const run = loadChain.then(
    () => load(options),
    () => load(options),
  );
  loadChain = run.catch(() => undefined);
  return run;
}

async function load(options: LoadEmbedderOptions): Promise<TransformersEmbedder> {
  const { signal, onProgress } = options;
  if (signal?.aborted) throw new AbortError();
  const model = resolveModel(options.modelId, options.custom);
  const dtype = options.dtype ?? defaultDtype(model);
  const batchSize = validBatchSize(options.batchSize ?? DEFAULT_BATCH_SIZE);
  const batchTokens = options.batchTokens ?? DEFAULT_BATCH_TOKENS;
  await configureTransformers(options.threads);
  const caps = await probeCapabilities();
  const host = setHubHost(options.host ?? '');
  const requested = options.device ?? 'auto';
  const device = resolveDevice(requested, caps);
  if (device === 'webgpu' && !caps.adapter) {
    throw new ModelLoadError(
      `WebGPU was asked for, but this browser offers no WebGPU adapter ` +
        `(${caps.webgpuUnavailableReason ?? 'unknown reason'}). Choose the device "wasm" or "auto".`,
      'runtime',
    );
  }

  const progress = onProgress ? createDownloadProgress(onProgress) : undefined;
  const release = abortFetchesWith(signal);
  let pipe: FeatureExtractionPipeline;
  let used: EmbedDevice = device;
  let fallbackReason: string | null = null;
  try {
    try {
      pipe = await makePipeline(model.hubId, device, dtype, progress);
    } catch (error) {
      // 'auto' promised a working device: a WebGPU session that fails to start (driver, limits)
      // falls back to wasm. A missing file or a cancel would fail the same way there: rethrow.
      if (signal?.aborted || requested !== 'auto' || device !== 'webgpu' || isFetchError(error)) {
        throw error;
      }
      fallbackReason = `WebGPU failed (${error instanceof Error ? error.message : String(error)}); using wasm.`;
      used = 'wasm';
      pipe = await makePipeline(model.hubId, 'wasm', dtype, progress);
    }
  } catch (error) {
    if (signal?.aborted) throw new AbortError();
    throw describeLoadError(error, { hubId: model.hubId, host, device: used, dtype });
  } finally {
    release();
  }

  if (signal?.aborted) {
    await pipe.dispose().catch(() => undefined);
    throw new AbortError();
  }
  // Warm-up doubles as dimension discovery: the first run also compiles WebGPU shaders.
  onProgress?.({ stage: 'warmup', done: 0, total: 1 });
  let dim: number;
  try {
    const probe = await runBatch(pipe, ['dimension probe'], model);
    dim = probe.dim;
  } catch (error) {
    await pipe.dispose().catch(() => undefined);
    throw describeLoadError(error, { hubId: model.hubId, host, device: used, dtype });
  }
  if (model.dim !== null && model.dim !== dim) {
    await pipe.dispose().catch(() => undefined);
    throw new ModelLoadError(
      `The model "${model.hubId}" gives ${dim}-d vectors, but ${model.dim} were expected. ` +
        `Check the model id and the expected dimension.`,
      'format',
    );
  }
  if (used === 'webgpu' && !ortWebgpuDeviceCreated()) {
    await pipe.dispose().catch(() => undefined);
    throw new ModelLoadError(
      `The model "${model.hubId}" was asked to run on WebGPU, but ONNX Runtime created no WebGPU ` +
        `device. Choose the device "wasm".`,
      'runtime',
    );
  }
  onProgress?.({ stage: 'warmup', done: 1, total: 1 });

  let disposed = false;
  // Model calls are serialised: ONNX Runtime web runs one inference at a time anyway.
  let embedChain: Promise<unknown> = Promise.resolve();

  const embed = (texts: readonly string[], opts: EmbedOptions): Promise<Float32Array> => {
    const run = embedChain.then(() => embedAll(texts, opts));
    embedChain = run.catch(() => undefined);
    return run;
  };

  const embedAll = async (texts: readonly string[], opts: EmbedOptions): Promise<Float32Array> => {
    if (disposed) throw new Error(`The model "${model.hubId}" was unloaded; load it again.`);
    const size = validBatchSize(opts.batchSize ?? batchSize);
    const prefix = model.prefix[opts.kind];
    const out = new Float32Array(texts.length * dim);
    // Longest first, so each batch holds texts of similar length (less padding), and no more
    // padded tokens a call than the cap (batches.ts says why).
    const maxPieces = model.maxTokens ?? 512;
    const batches = planBatches(
      texts.map((t) => estimatePieces(prefix + t, maxPieces)),
      size,
      opts.batchTokens ?? batchTokens,
    );
    let done = 0;
    opts.onProgress?.({ stage: 'embed', done, total: texts.length });
    for (const idx of batches) {
      if (opts.signal?.aborted) throw new AbortError();
      const batch = await runBatch(
        pipe,
        idx.map((i) => prefix + texts[i]),
        model,
      );
      if (batch.dim !== dim) throw new Error(`Model output changed width: ${batch.dim} != ${dim}.`);
      idx.forEach((row, k) => out.set(batch.data.subarray(k * dim, (k + 1) * dim), row * dim));
      done += idx.length;
      opts.onProgress?.({ stage: 'embed', done, total: texts.length });
    }
    return out;
  };

  return {
    id: model.hubId,
    model,
    dim,
    device: used,
    dtype,
    host,
    fallbackReason,
    embed,
    async dispose() {
      if (disposed) return;
      disposed = true;
      await embedChain;
      await pipe.dispose();
    },
  };
}

async function makePipeline(
  hubId: string,
  device: EmbedDevice,
  dtype: EmbedDtype,
  progress: ((info: unknown) => void) | undefined,
): Promise<FeatureExtractionPipeline> {
  return (await pipeline('feature-extraction', hubId, {
    device,
    dtype,
    progress_callback: progress,
  })) as FeatureExtractionPipeline;
}

/** One model call: pooled, normalised rows as Float32 (fp16 outputs are widened). */
async function runBatch(
  pipe: FeatureExtractionPipeline,
  texts: string[],
  model: EmbeddingModelInfo,
): Promise<{ dim: number; data: Float32Array }> {
  const output = (await pipe(texts, { pooling: model.pooling, normalize: true })) as Tensor;
  try {
    const [rows, dim] = output.dims;
    if (output.dims.length !== 2 || rows !== texts.length) {
      throw new Error(
        `Unexpected embedding shape [${output.dims.join(', ')}] for ${texts.length} texts.`,
      );
    }
    const f32 = output.type === 'float32' ? output : output.to('float32');
    const data = new Float32Array(f32.data as Float32Array); // a copy we own
    if (f32 !== output) f32.dispose();
    normaliseRows(data, dim);
    return { dim, data };
  } finally {
    output.dispose();
  }
}

/** L2-normalise each row in place (in float64); an all-zero row stays zero. */
export function normaliseRows(data: Float32Array, dim: number): void {
  for (let off = 0; off < data.length; off += dim) {
    let sum = 0;
    for (let j = 0; j < dim; j++) sum += data[off + j] * data[off + j];
    if (sum === 0) continue;
    const inv = 1 / Math.sqrt(sum);
    for (let j = 0; j < dim; j++) data[off + j] *= inv;
  }
}

function validBatchSize(n: number): number {
  if (!Number.isInteger(n) || n < 1 || n > 1024) {
    throw new RangeError(`Batch size must be an integer from 1 to 1024, not ${n}.`);
  }
  return n;
}

function isFetchError(error: unknown): boolean {
  const message = error instanceof Error ? `${error.name} ${error.message}` : String(error);
  return /ModelFileNotFoundError|Could not locate file|Failed to fetch|NetworkError|access to file/i.test(
    message,
  );
}
