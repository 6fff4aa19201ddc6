/**
 * @file One interface over our embedders, for the workers: the offline static GloVe embedder
 * (default, no download) and transformers.js models (loaded on demand, only when chosen, so the
 * static path never pulls ONNX Runtime into a worker).
 */
import {
  DISTILLED_EMBEDDER_ID,
  STATIC_EMBEDDER_ID,
  decodeStaticModel,
  embedTexts,
  type SifOptions,
  type StaticModel,
} from '../core/embed/static';
import { AbortError } from '../core/abort';
import type { Progress } from '../core/types';
import type { EmbedDtype } from './catalogue';
import type { DeviceRequest } from './capabilities';

/** What the UI sends a worker to name an embedder. `id` is what the store keys vectors by. */
export type EmbedderSpec =
  | { id: typeof STATIC_EMBEDDER_ID | typeof DISTILLED_EMBEDDER_ID; url: string }
  | { id: string; modelId: string; host?: string; device?: DeviceRequest; dtype?: EmbedDtype };

export interface TextEmbedder {
  id: string;
  dim: number;
  /** Row-major, L2-normalised rows, one per text. */
  embed(
    texts: readonly string[],
    options: {
      kind: 'query' | 'passage';
      signal?: AbortSignal;
      onProgress?: (p: Progress) => void;
    },
  ): Promise<Float32Array>;
}

/** Texts per static batch between progress reports and cancellation checks. */
const STATIC_BATCH = 256;

let staticModel: { url: string; model: Promise<StaticModel> } | null = null;

function loadStaticModel(url: string, signal?: AbortSignal): Promise<StaticModel> {
  if (staticModel?.url !== url) {
    const model = fetch(url, { signal })
      .then((r) => {
        if (!r.ok) {
          throw new Error(
            `The offline embedder's word vectors could not be loaded (${r.status} at ${url}). Rebuild the app with "npm run build".`,
          );
        }
        return r.arrayBuffer();
      })
      .then((bytes) => decodeStaticModel(bytes));
    model.catch(() => {
      if (staticModel?.model === model) staticModel = null;
    });
    staticModel = { url, model };
  }
  return staticModel.model;
}

/** Let queued messages (a cancel) run, then stop if cancelled. */
async function checkpoint(signal?: AbortSignal): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 0));
  if (signal?.aborted) throw new AbortError();
}

/** The static embedder over a decoded model; `id` and SIF options name variants (tests). */
export function staticEmbedder(
  model: StaticModel,
  id: string = STATIC_EMBEDDER_ID,
  sif?: Partial<SifOptions>,
): TextEmbedder {
  return {
    id,
    dim: model.dim,
    async embed(texts, { signal, onProgress }) {
      const out = new Float32Array(texts.length * model.dim);
      for (let at = 0; at < texts.length; at += STATIC_BATCH) {
        const batch = texts.slice(at, at + STATIC_BATCH);
        out.set(embedTexts(model, batch, sif).data, at * model.dim);
        onProgress?.({ stage: 'embed', done: at + batch.length, total: texts.length });
        if (at + STATIC_BATCH < texts.length) await checkpoint(signal);
      }
      return out;
    },
  };
}

export async function loadEmbedder(
  spec: EmbedderSpec,
  options: { signal?: AbortSignal; onProgress?: (p: Progress) => void } = {},
): Promise<TextEmbedder> {
  if ('url' in spec) {
    return staticEmbedder(await loadStaticModel(spec.url, options.signal), spec.id);
  }
  const key = JSON.stringify(spec);
  let loading = transformerCache.get(key);
  if (!loading) {
    loading = loadTransformer(spec, options);
    transformerCache.set(key, loading);
    loading.catch(() => transformerCache.delete(key));
  }
  return loading;
}

/** Transformer embedders loaded in this worker, by spec: loading is expensive, embedding is not. */
const transformerCache = new Map<string, Promise<TextEmbedder>>();

async function loadTransformer(
  spec: Exclude<EmbedderSpec, { url: string }>,
  options: { signal?: AbortSignal; onProgress?: (p: Progress) => void },
): Promise<TextEmbedder> {
  const { loadTransformersEmbedder } = await import('./transformers-embedder');
  const e = await loadTransformersEmbedder({
    modelId: spec.modelId,
    device: spec.device,
    dtype: spec.dtype,
    host: spec.host,
    signal: options.signal,
    onProgress: options.onProgress,
  });
  return {
    id: spec.id,
    dim: e.dim,
    embed: (texts, { kind, signal, onProgress }) => e.embed(texts, { kind, signal, onProgress }),
  };
}
