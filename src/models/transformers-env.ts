/**
 * @file transformers.js configured explicitly, once per thread (docs/models.md).
 *
 * The library's defaults reach for the internet: ONNX Runtime's wasm from jsDelivr and models
 * from huggingface.co. Here the wasm comes from our own build (Vite `?url` assets), local model
 * paths are off, and the model host is a setting, so tests point the same code at a local mirror.
 */
import { env } from '@huggingface/transformers';
// transformers 4.3.1 imports `onnxruntime-web/webgpu`, whose one wasm build (WebGPU and CPU
// kernels) is the asyncify one; its default paths point at these two files on a CDN.
import ortWasmUrl from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.wasm?url';
import ortMjsUrl from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.mjs?url';
import { probeCapabilities } from './capabilities';
import {
  DEFAULT_HUB_HOST,
  DEFAULT_REMOTE_PATH_TEMPLATE,
  chooseThreads,
  normaliseHost,
} from './settings';

/** What `configureTransformers` settled on, for diagnostics. */
export interface TransformersSetup {
  version: string;
  wasmPaths: { wasm: string; mjs: string };
  numThreads: number;
}

let configured: Promise<TransformersSetup> | null = null;

/** Signals of the loads in flight; every fetch transformers.js makes is aborted with them. */
const activeSignals = new Set<AbortSignal>();

/**
 * Configure transformers.js and ONNX Runtime for this thread. Idempotent: the first call does
 * the work, later calls return the same promise. Must finish before the first pipeline is made.
 */
export function configureTransformers(threads?: number): Promise<TransformersSetup> {
  configured ??= (async () => {
    const caps = await probeCapabilities();
    const wasm = env.backends.onnx.wasm;
    if (!wasm) throw new Error('transformers.js exposes no ONNX Runtime wasm settings.');
    const wasmPaths = { wasm: absolute(ortWasmUrl), mjs: absolute(ortMjsUrl) };
    wasm.wasmPaths = { ...wasmPaths };
    wasm.proxy = false; // we already run inside our own worker
    // An explicit thread count (the model check page's `threads`, for benchmarks) holds for the
    // thread's life: ONNX Runtime reads it once, when its wasm starts.
    wasm.numThreads =
      threads && caps.crossOriginIsolated
        ? Math.max(1, Math.min(16, Math.round(threads)))
        : chooseThreads(caps.crossOriginIsolated, caps.hardwareConcurrency);

    env.allowLocalModels = false;
    env.allowRemoteModels = true;
    env.remoteHost = DEFAULT_HUB_HOST;
    env.remotePathTemplate = DEFAULT_REMOTE_PATH_TEMPLATE;
    // The Cache API (secure contexts only: https, localhost, 127.0.0.1) keeps models and the
    // ORT wasm across reloads; transformers.js skips it where it is missing.
    env.useBrowserCache = true;
    env.useWasmCache = true;
    const plainFetch = globalThis.fetch.bind(globalThis);
    env.fetch = (input: string | URL, init?: RequestInit) =>
      plainFetch(input, { ...init, signal: combinedSignal(init?.signal) });

    return Object.freeze({ version: env.version, wasmPaths, numThreads: wasm.numThreads });
  })();
  return configured;
}

/**
 * Point transformers.js at a hub host (`https://huggingface.co/` or a mirror in the same layout).
 * The setting is global to the thread: load one model at a time (the embedder serialises loads).
 */
export function setHubHost(host: string): string {
  const normalised = normaliseHost(host);
  env.remoteHost = normalised;
  env.remotePathTemplate = DEFAULT_REMOTE_PATH_TEMPLATE;
  return normalised;
}

/**
 * Make transformers.js fetches abort with `signal` until the returned function is called.
 * Used for cancelling downloads: the pipeline API itself takes no signal.
 */
export function abortFetchesWith(signal: AbortSignal | undefined): () => void {
  if (!signal) return () => {};
  activeSignals.add(signal);
  return () => activeSignals.delete(signal);
}

/**
 * Whether ONNX Runtime has created a WebGPU device: its WebGPU execution provider sets
 * `env.webgpu.device` when it starts, so after a 'webgpu' session this says it really did.
 */
export function ortWebgpuDeviceCreated(): boolean {
  const webgpu = (env.backends.onnx as { webgpu?: { device?: unknown } }).webgpu;
  return Boolean(webgpu?.device);
}

/** wasm threads ONNX Runtime runs with: it drops to 1 when threads cannot work here. */
export function ortNumThreads(): number {
  return env.backends.onnx.wasm?.numThreads ?? 1;
}

function combinedSignal(own: AbortSignal | null | undefined): AbortSignal | undefined {
  const signals = [...activeSignals];
  if (own) signals.push(own);
  if (signals.length === 0) return undefined;
  return signals.length === 1 ? signals[0] : AbortSignal.any(signals);
}

function absolute(url: string): string {
  return new URL(url, self.location.href).href;
}
