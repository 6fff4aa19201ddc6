/**
 * @file wllama: llama.cpp compiled to WebAssembly, running GGUF models on the CPU, for browsers
 * without WebGPU. The library runs the model in its own worker; this module only loads it and
 * adapts it to `LlmEngine`.
 *
 * The wasm file comes from our own build (a Vite `?url` import), never a CDN. The model comes
 * from a URL the person gave (downloaded once, then kept in the browser's cache by wllama) or
 * from a .gguf file they chose, read in place. Nothing else is fetched.
 *
 * A model with a chat template in its GGUF is sent chat messages; a base model without one (a
 * story model, a code model) is sent the prompt's plain text to continue.
 *
 * The same GGUF file can run on the GPU: wllama's WebGPU backend takes the model's layers
 * (`n_gpu_layers`) when asked and the browser has an adapter. Any WebGPU failure, at load or
 * while answering, loads the model again on the CPU and says so.
 */
import wasmUrl from '@wllama/wllama/esm/wasm/wllama.wasm?url';
import type { Wllama } from '@wllama/wllama/esm/index.js';
import { DEFAULT_HUB_HOST } from '../models/settings';
import { errorText, hostOf, isAbort, STOPPED } from './errors';
import { formatBytes, ggufCatalogueEntry } from './gguf-catalogue';
import { BLOB_URI, blobFetch, ggufTokenCounter, type GgufTokenCounter } from './gguf-tokenizer';
import { defaultStallPolicy, guardCall, SpeedMemory, StallError, type StallPolicy } from './stall';
import { estimateTokens } from './tokens';
import type {
  FinishReason,
  GenerateOutcome,
  GenerateRequest,
  GenerateStats,
  LlmEngine,
  LlmError,
  LoadProgress,
} from './types';

/** Where a GGUF model comes from. */
export type GgufSource = { kind: 'url'; url: string } | { kind: 'file'; file: File };

export interface WllamaOptions {
  /** Context window to allocate, in tokens; capped at what the model was trained with. */
  contextSize: number;
  /** CPU threads; default: half the cores when the page is cross-origin isolated, else 1. */
  threads?: number;
  /** Tokens read in one step (llama.cpp's n_batch and n_ubatch); llama.cpp's defaults when absent. */
  batch?: number;
  /**
   * The GPU through WebGPU: 'auto' uses a hardware adapter with 16-bit shaders (`shader-f16`,
   * which llama.cpp's WebGPU backend asks for) when the browser has one; 'on' tries any adapter
   * (a software one too: SwiftShader, for testing the path); 'off' (default) runs on the CPU only.
   */
  gpu?: GpuChoice;
}

export type GpuChoice = 'off' | 'auto' | 'on';

/** What the browser offers wllama's WebGPU backend. */
export interface WebGpuProbe {
  /** An adapter was granted. */
  adapter: boolean;
  /** A software adapter (SwiftShader): slower than the CPU path, used only when asked. */
  fallback: boolean;
  /** The adapter has 16-bit floats in shaders (`shader-f16`). */
  f16: boolean;
  /** The adapter in words, or why there is none. */
  description: string;
}

interface GpuAdapterLike {
  isFallbackAdapter?: boolean;
  features?: { has(name: string): boolean };
  info?: {
    vendor?: string;
    architecture?: string;
    description?: string;
    isFallbackAdapter?: boolean;
  };
}

/** Ask the browser for a WebGPU adapter, as wllama's worker will. Never rejects. */
export async function probeWebGpu(): Promise<WebGpuProbe> {
  const gpu = (globalThis.navigator as { gpu?: { requestAdapter(): Promise<unknown> } } | undefined)
    ?.gpu;
  if (!gpu)
    return {
      adapter: false,
      fallback: false,
      f16: false,
      description: 'this browser has no WebGPU',
    };
  try {
    const adapter = (await gpu.requestAdapter()) as GpuAdapterLike | null;
    if (!adapter) {
      return {
        adapter: false,
        fallback: false,
        f16: false,
        description: 'the browser offers no WebGPU adapter (no GPU, or it is blocked)',
      };
    }
    const info = adapter.info ?? {};
    const fallback = Boolean(info.isFallbackAdapter ?? adapter.isFallbackAdapter);
    const words = [info.vendor, info.architecture, info.description].filter(Boolean).join(' ');
    return {
      adapter: true,
      fallback,
      f16: adapter.features?.has('shader-f16') === true,
      description: words || (fallback ? 'a software WebGPU adapter' : 'a WebGPU adapter'),
    };
  } catch (error) {
    return {
      adapter: false,
      fallback: false,
      f16: false,
      description: `WebGPU failed: ${errorText(error)}`,
    };
  }
}

/** Whether to load on the GPU, and if not, why (null: not asked for). */
export function chooseGpu(
  choice: GpuChoice,
  probe: WebGpuProbe,
): { gpu: true; note: null } | { gpu: false; note: string | null } {
  if (choice === 'off') return { gpu: false, note: null };
  if (!probe.adapter) return { gpu: false, note: `No GPU: ${probe.description}; runs on the CPU.` };
  if (choice === 'on') return { gpu: true, note: null };
  if (probe.fallback) {
    return {
      gpu: false,
      note: `No GPU: only ${probe.description}, slower than the CPU; runs on the CPU.`,
    };
  }
  if (!probe.f16) {
    return {
      gpu: false,
      note: `The GPU (${probe.description}) has no 16-bit shaders (shader-f16), which llama.cpp's WebGPU backend needs; runs on the CPU.`,
    };
  }
  return { gpu: true, note: null };
}

/** All layers: llama.cpp caps the number at the model's own. */
const ALL_LAYERS = 999;
/** llama.cpp's load log: "load_tensors: offloaded 31/31 layers to GPU". */
const OFFLOADED = /offloaded (\d+)\/(\d+) layers to GPU/;

export const defaultWllamaOptions: Readonly<WllamaOptions> = Object.freeze({ contextSize: 4096 });

/** The hub a "owner/repo/file.gguf" shorthand resolves against (the deployment's, docs/deploy.md). */
export const HUB_HOST = DEFAULT_HUB_HOST.replace(/\/+$/, '');

/**
 * A model URL from what the person typed: a full http(s) URL as is, or the hub shorthand
 * `owner/repo/path/file.gguf` (→ `{hub}/owner/repo/resolve/main/path/file.gguf`). Null when it is
 * neither.
 */
export function ggufUrl(input: string, hub: string = HUB_HOST): string | null {
  const text = input.trim();
  if (/^https?:\/\//i.test(text)) {
    try {
      return new URL(text).href;
    } catch {
      return null;
    }
  }
  const parts = text.split('/').filter(Boolean);
  if (parts.length < 3 || !/\.gguf$/i.test(text)) return null;
  const [owner, repo, ...file] = parts;
  return `${hub.replace(/\/+$/, '')}/${owner}/${repo}/resolve/main/${file.join('/')}`;
}

/** The display name of a source: the file name. */
export function sourceName(source: GgufSource): string {
  if (source.kind === 'file') return source.file.name;
  try {
    return decodeURIComponent(new URL(source.url).pathname.split('/').pop() || source.url);
  } catch {
    return source.url;
  }
}

const GGUF_MAGIC = [0x47, 0x47, 0x55, 0x46]; // "GGUF"

async function isGguf(blob: Blob): Promise<boolean> {
  const head = new Uint8Array(await blob.slice(0, 4).arrayBuffer());
  return GGUF_MAGIC.every((b, i) => head[i] === b);
}

export interface LoadedModelInfo {
  name: string;
  /** Bytes of the model file. */
  size: number;
  contextLimit: number;
  trainedContext: number;
  threads: number;
  chatTemplate: boolean;
  /** Where the model's layers run: 'gpu' when WebGPU took them. */
  device?: 'cpu' | 'gpu';
  /** Layers on the GPU, of all (llama.cpp's count), when on the GPU. */
  gpuLayers?: { offloaded: number; total: number };
  /** Why a GPU asked for is not used (none found, or it failed and the CPU took over). */
  gpuNote?: string;
}

function loadError(message: string, detail?: unknown): LlmError {
  return {
    code: 'model-load',
    message,
    ...(detail !== undefined ? { detail: errorText(detail) } : {}),
  };
}

/**
 * Load a GGUF model. Resolves with the engine, or with an error value (never rejects). The
 * signal cancels a download in progress.
 */
export async function loadWllama(
  source: GgufSource,
  options: WllamaOptions = defaultWllamaOptions,
  events: { onProgress?: (p: LoadProgress) => void; signal?: AbortSignal } = {},
): Promise<{ ok: true; engine: WllamaEngine } | { ok: false; error: LlmError }> {
  const { onProgress, signal } = events;
  const name = sourceName(source);
  if (typeof WebAssembly !== 'object') {
    return {
      ok: false,
      error: {
        code: 'unsupported',
        message:
          'This browser cannot run WebAssembly, which wllama needs. Use an API engine instead.',
      },
    };
  }
  if (source.kind === 'file') {
    if (source.file.size === 0) return { ok: false, error: loadError(`${name} is empty.`) };
    if (!(await isGguf(source.file))) {
      return {
        ok: false,
        error: loadError(
          `${name} is not a GGUF model file (it does not start with “GGUF”). wllama reads llama.cpp's GGUF format; convert the model or pick a .gguf file.`,
        ),
      };
    }
  }
  const { Wllama } = await import('@wllama/wllama/esm/index.js');
  // On the GPU, llama.cpp's own log says how many layers WebGPU took (nothing else reports it).
  let offload: { offloaded: number; total: number } | undefined;
  const nativeLine = (args: unknown[]) => {
    const m = OFFLOADED.exec(args.map(String).join(' '));
    if (m) offload = { offloaded: Number(m[1]), total: Number(m[2]) };
  };
  const create = (gpu: boolean) =>
    new Wllama(
      { default: wasmUrl },
      {
        suppressNativeLog: !gpu,
        // A model downloaded once loads from the cache when offline.
        allowOffline: true,
        logger: {
          debug: (...args: unknown[]) => nativeLine(args),
          log: (...args: unknown[]) => nativeLine(args),
          warn: (...args: unknown[]) => console.warn('[wllama]', ...args),
          // A prompt too long for the context is expected while fitting; it is handled.
          error: (...args: unknown[]) => {
            if (!OVERFLOW.test(args.map((a) => JSON.stringify(a) ?? '').join(' ')))
              console.error('[wllama]', ...args);
          },
        },
      },
    );
  const cpuParams = {
    n_ctx: options.contextSize,
    // 0 also keeps wllama from opening a WebGPU device at all.
    n_gpu_layers: 0,
    ...(options.threads ? { n_threads: options.threads } : {}),
    ...(options.batch ? { n_batch: options.batch, n_ubatch: options.batch } : {}),
  };
  const gpuParams = { ...cpuParams, n_gpu_layers: ALL_LAYERS };
  const probe =
    options.gpu && options.gpu !== 'off'
      ? await probeWebGpu()
      : { adapter: false, fallback: false, f16: false, description: '' };
  const choice = chooseGpu(options.gpu ?? 'off', probe);
  let onGpu = choice.gpu;
  let gpuNote = choice.note;
  let size = source.kind === 'file' ? source.file.size : 0;
  let loaded = 0;
  const load = async (w: Wllama, params: typeof cpuParams) => {
    if (source.kind === 'file') {
      onProgress?.({ text: `Reading ${name}`, loaded: 0, total: size });
      await w.loadModel([source.file], params);
    } else {
      onProgress?.({ text: `Downloading ${name}`, loaded: 0, total: 0 });
      await w.loadModelFromUrl(source.url, {
        ...params,
        signal,
        progressCallback: ({ loaded: l, total }) => {
          loaded = Math.max(loaded, l);
          size = total || size;
          onProgress?.({ text: `Downloading ${name}`, loaded, total: total || 0 });
        },
      });
    }
  };
  let wllama = create(onGpu);
  try {
    try {
      await load(wllama, onGpu ? gpuParams : cpuParams);
      if (onGpu && !(offload && offload.offloaded > 0)) {
        // llama.cpp's WebGPU backend made no device of the adapter (SwiftShader, without
        // shader-f16, does this): the model loaded, on the CPU.
        onGpu = false;
        gpuNote = `The GPU (${probe.description}${probe.f16 ? '' : ', no shader-f16'}) took none of the model's layers; runs on the CPU.`;
      }
    } catch (error) {
      if (!onGpu || isAbort(error) || signal?.aborted) throw error;
      // Any WebGPU failure: the same file on the CPU, and the person is told why.
      await wllama.exit().catch(() => {});
      console.warn('[wllama] WebGPU failed, loading on the CPU:', error);
      onGpu = false;
      gpuNote = `The GPU (WebGPU) could not run ${name} (${errorText(error).slice(0, 200)}); runs on the CPU.`;
      wllama = create(false);
      await load(wllama, cpuParams);
    }
  } catch (error) {
    await wllama.exit().catch(() => {});
    if (isAbort(error) || signal?.aborted) return { ok: false, error: STOPPED };
    const text = errorText(error);
    if (source.kind === 'url' && /download|fetch|network|HTTP|status/i.test(text)) {
      return {
        ok: false,
        error: loadError(
          `Could not download ${name} from ${hostOf(source.url)}. Check the URL and your connection.`,
          error,
        ),
      };
    }
    return {
      ok: false,
      error: loadError(
        `llama.cpp could not load ${name}. Is it a complete GGUF file of a model architecture llama.cpp supports?`,
        error,
      ),
    };
  }
  // A restart (after a call stopped answering) loads the same model again, on the device it
  // runs on: from the file in hand, or from the browser's copy of the download. `toCpu` is the
  // way off a GPU that failed while answering.
  const reopen = async (gpu: boolean): Promise<Wllama> => {
    const fresh = create(gpu);
    const params = gpu ? gpuParams : cpuParams;
    if (source.kind === 'file') await fresh.loadModel([source.file], params);
    else await fresh.loadModelFromUrl(source.url, params);
    return fresh;
  };
  const reload = () => reopen(onGpu);
  const toCpu = async (): Promise<Wllama> => {
    onGpu = false;
    return reopen(false);
  };
  // A catalogue model has a known size: anything else is an incomplete or substituted file.
  const expected = source.kind === 'url' ? ggufCatalogueEntry(source.url) : null;
  if (expected?.exactBytes && size !== expected.bytes) {
    await wllama.exit().catch(() => {});
    if (source.kind === 'url') await removeCachedGguf(source.url).catch(() => {});
    return {
      ok: false,
      error: loadError(
        `${name} arrived with ${size.toLocaleString('en')} bytes, but the model is ` +
          `${expected.bytes.toLocaleString('en')} bytes (${formatBytes(expected.bytes)}). The ` +
          `download was incomplete or is not this model; it was removed. Load it again.`,
      ),
    };
  }
  const info = wllama.getLoadedContextInfo();
  // wllama resolves even when llama.cpp refused the file (a GGUF header, then noise): its load
  // result says `success: false` and the context has no tokens.
  if (
    (info as { success?: boolean }).success === false ||
    !(info.n_ctx > 0) ||
    !(info.n_vocab > 0)
  ) {
    await wllama.exit().catch(() => {});
    return {
      ok: false,
      error: loadError(
        `llama.cpp could not load ${name}. Is it a complete GGUF file of a model architecture llama.cpp supports?`,
        `llama.cpp's load result: context ${info.n_ctx}, vocabulary ${info.n_vocab}`,
      ),
    };
  }
  const trainedContext = info.n_ctx_train || info.n_ctx;
  const model: LoadedModelInfo = {
    name,
    size,
    contextLimit: Math.min(info.n_ctx, trainedContext),
    trainedContext,
    threads: wllama.getNumThreads(),
    chatTemplate: Boolean(wllama.getChatTemplate()),
    device: onGpu ? 'gpu' : 'cpu',
    ...(onGpu && offload ? { gpuLayers: offload } : {}),
    ...(gpuNote ? { gpuNote } : {}),
  };
  onProgress?.({ text: `Loaded ${name}`, loaded: size, total: size });
  // The tokenizer is read from the file's header while the first question is prepared.
  const counter = tokenCounterFor(source);
  return {
    ok: true,
    engine: new WllamaEngine(wllama, model, { reload, counter, ...(onGpu ? { toCpu } : {}) }),
  };
}

/** The JS tokenizer of a loaded model's file, or null (its recipe unknown, the file unreadable). */
async function tokenCounterFor(source: GgufSource): Promise<GgufTokenCounter | null> {
  try {
    const blob = source.kind === 'file' ? source.file : await cachedModelBlob(source.url);
    if (!blob) return null;
    const counter = await ggufTokenCounter(BLOB_URI, { fetch: blobFetch(blob) });
    console.info(
      counter
        ? `[wllama] token counts from the file's own tokenizer (${counter.pre}), not the model`
        : `[wllama] token counts by the model: this file's tokenizer is not one the page rebuilds`,
    );
    return counter;
  } catch (error) {
    console.warn(
      '[wllama] the tokenizer could not be read from the file; counting with the model.',
      error,
    );
    return null;
  }
}

/** A GGUF download kept in the browser by wllama (Origin Private File System). */
export interface CachedGguf {
  url: string;
  bytes: number;
  /** False when the copy is incomplete (an interrupted download); it will be fetched again. */
  complete: boolean;
}

async function modelManager() {
  const { ModelManager } = await import('@wllama/wllama/esm/index.js');
  return new ModelManager({ allowOffline: true });
}

/** The GGUF models downloaded earlier in this browser. */
export async function listCachedGguf(): Promise<CachedGguf[]> {
  const manager = await modelManager();
  const models = await manager.getModels({ includeInvalid: true });
  return models.map((m) => ({ url: m.url, bytes: m.size, complete: m.validate() === 'valid' }));
}

/**
 * True when this browser keeps the whole file of `url` (a download cut short does not count): then
 * loading it reads the disk and downloads nothing, so after a reload it can be loaded when the
 * person asks, without a click on Load.
 */
export async function keptInBrowser(url: string): Promise<boolean> {
  try {
    return (await listCachedGguf()).some((m) => m.url === url && m.complete);
  } catch {
    // No private file system (some private windows), or no cache yet: not kept.
    return false;
  }
}

/** The kept file of `url` as a Blob (read from the browser's disk on demand), or null. */
async function cachedModelBlob(url: string): Promise<Blob | null> {
  try {
    const { CacheManager } = await import('@wllama/wllama/esm/index.js');
    return await new CacheManager().open(url);
  } catch {
    return null;
  }
}

/** Forget a downloaded model (frees its storage). */
export async function removeCachedGguf(url: string): Promise<void> {
  const manager = await modelManager();
  const models = await manager.getModels({ includeInvalid: true });
  await Promise.all(models.filter((m) => m.url === url).map((m) => m.remove()));
}

const OVERFLOW =
  /exceeds the available context|exceed_context_size|context size|kv.cache|kv_cache_full/i;

/** Cut a text at whitespace into pieces of at most `maxChars` (one character is at least one token's worth). */
function splitForCounting(text: string, maxChars: number): string[] {
  const pieces: string[] = [];
  let at = 0;
  while (at < text.length) {
    let end = Math.min(text.length, at + maxChars);
    if (end < text.length) {
      const space = text.lastIndexOf(' ', end);
      if (space > at) end = space;
    }
    pieces.push(text.slice(at, end));
    at = end;
  }
  return pieces;
}

interface Timings {
  /** Prompt tokens taken from the cache (a prefix read by an earlier call). */
  cache_n?: number;
  predicted_n?: number;
  predicted_per_second?: number;
  prompt_n?: number;
  prompt_per_second?: number;
}

/** One speed measurement of a loaded model (see `WllamaEngine.measure`). */
export interface SpeedMeasure {
  /** Threads llama.cpp runs on (1 when the page is not cross-origin isolated). */
  threads: number;
  crossOriginIsolated: boolean;
  /** Prompt tokens evaluated (llama.cpp's count). */
  promptTokens: number;
  /** Prompt tokens taken from the cache instead of evaluated. */
  cachedTokens: number;
  generatedTokens: number;
  /** llama.cpp's timings. */
  promptTokensPerS: number;
  generationTokensPerS: number;
  /** From the request to the first token, wall clock. */
  firstTokenMs: number;
  totalMs: number;
  /** What it wrote. */
  text: string;
}

/** A call that stopped answering and could not be completed by a restart. */
export class StalledCall extends Error {
  constructor(
    readonly seconds: number,
    readonly attempts: number,
    readonly streamed: boolean,
    readonly why?: string,
  ) {
    super(`wllama stopped answering (${why ?? `${attempts} attempt(s), ${seconds} s`})`);
    this.name = 'StalledCall';
  }

  toLlmError(model: string): LlmError {
    const what = this.why
      ? `${model} stopped answering, and ${this.why}.`
      : this.streamed
        ? `${model} stopped in the middle of its answer (no token for ${this.seconds} s); it was stopped, and the engine restarted if it had to be.`
        : `${model} gave no answer twice (the last time after ${this.seconds} s), even after a restart.`;
    return {
      code: 'engine',
      message: `${what} Run it again; if it keeps happening, load the model again or lower the context size.`,
      detail: this.message,
    };
  }
}

/** The parts of wllama the engine uses (a narrow type, so tests can stand in for it). */
export type WllamaLike = Pick<
  Wllama,
  'createCompletion' | 'createChatCompletion' | 'exit' | 'getLoadedContextInfo'
>;

export interface WllamaEngineOptions {
  /** A fresh instance with the same model loaded; without it a wedged engine is not restarted. */
  reload?: () => Promise<WllamaLike>;
  /**
   * The model's tokenizer rebuilt in JavaScript (gguf-tokenizer.ts), or null where it cannot be:
   * counts then cost microseconds instead of a read of the text by the model.
   */
  counter?: Promise<GgufTokenCounter | null>;
  /** On the GPU: a fresh instance with the same model on the CPU, taken when WebGPU fails. */
  toCpu?: () => Promise<WllamaLike>;
  stallPolicy?: StallPolicy;
}

/**
 * End a wllama instance that may not answer: ask it to exit, and if it has not within a few
 * seconds, terminate its worker (wllama keeps it on a private `proxy`; reached by name, since a
 * wedged worker never answers the exit request).
 */
async function forceExit(wllama: WllamaLike, waitMs = 3000): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    wllama.exit().catch(() => {}),
    new Promise<void>((r) => (timer = setTimeout(r, waitMs))),
  ]);
  clearTimeout(timer);
  const proxy = (wllama as unknown as { proxy?: { worker?: { terminate(): void } } | null }).proxy;
  proxy?.worker?.terminate();
}

export class WllamaEngine implements LlmEngine {
  readonly kind = 'wllama' as const;
  readonly exactTokenCounts = true;
  readonly contextLimit: number;
  readonly promptStyle: 'chat' | 'text';
  /** Times the engine was restarted after a call stopped answering. */
  restarts = 0;
  /** One request at a time: llama.cpp's slots are few and the CPU is shared. */
  private queue: Promise<unknown> = Promise.resolve();
  private readonly speeds: SpeedMemory;
  private readonly stallPolicy: StallPolicy;

  constructor(
    private wllama: WllamaLike,
    readonly model: LoadedModelInfo,
    private readonly options: WllamaEngineOptions = {},
  ) {
    this.contextLimit = model.contextLimit;
    this.promptStyle = model.chatTemplate ? 'chat' : 'text';
    this.stallPolicy = options.stallPolicy ?? defaultStallPolicy;
    this.speeds = new SpeedMemory(this.stallPolicy);
  }

  get label(): string {
    return this.model.device === 'gpu'
      ? `${this.model.name} on the GPU (wllama, WebGPU)`
      : `${this.model.name} on the CPU (wllama)`;
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => {});
    return run;
  }

  /**
   * One wllama call under the stall watchdog (stall.ts): a call past its deadline is stopped; if
   * the stop is not answered either, the instance is replaced by a fresh one with the same model.
   * Either way the call is tried once more, unless it had already streamed tokens (they were shown
   * and cannot be taken back). A second stall is an error the person can act on.
   */
  private async guarded<T>(
    promptTokens: number,
    maxTokens: number,
    signal: AbortSignal | undefined,
    call: (wllama: WllamaLike, signal: AbortSignal, progress: () => void) => Promise<T>,
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      let streamed = false;
      try {
        return await guardCall(
          (s, progress) =>
            call(this.wllama, s, () => {
              streamed = true;
              progress();
            }),
          {
            deadlineMs: this.speeds.deadlineMs(promptTokens, maxTokens),
            policy: this.stallPolicy,
            ...(signal ? { signal } : {}),
          },
        );
      } catch (error) {
        if (!(error instanceof StallError) || signal?.aborted) throw error;
        const seconds = Math.round(error.afterMs / 1000);
        console.warn(
          `[wllama] ${this.model.name} gave no answer in ${seconds} s; ` +
            (error.settled ? 'the call was stopped.' : 'it is restarted.'),
        );
        if (!error.settled) await this.restart();
        if (attempt >= 1 || streamed) throw new StalledCall(seconds, attempt + 1, streamed);
      }
    }
  }

  private async restart(): Promise<void> {
    if (!this.options.reload) throw new StalledCall(0, 1, false, 'it cannot be restarted here');
    await forceExit(this.wllama);
    try {
      this.wllama = await this.options.reload();
    } catch (error) {
      throw new StalledCall(0, 1, false, `reloading it failed: ${errorText(error)}`);
    }
    this.restarts++;
  }

  /**
   * The text's size in the model's tokens: from the tokenizer rebuilt from the GGUF file where
   * there is one (gguf-tokenizer.ts, checked against llama.cpp's own), else the model's own
   * count: a completion of one new token reports the prompt's size. llama.cpp
   * keeps the evaluated prompt in its cache, so counting the prompt about to be sent costs
   * little of the generation that follows. A text longer than the context is refused before it
   * is evaluated, with its size in the message; failing that, it is counted in pieces.
   */
  async countTokens(text: string, signal?: AbortSignal): Promise<number> {
    const counter = await this.options.counter?.catch(() => null);
    if (counter) return counter.count(text);
    return this.countByReading(text, signal);
  }

  /** The count without a tokenizer in the page: the model reads the text (see countTokens). */
  private countByReading(text: string, signal?: AbortSignal): Promise<number> {
    return this.serial(async () => {
      try {
        return await this.promptTokens(text, signal);
      } catch (error) {
        if (isAbort(error) || error instanceof StalledCall) throw error;
        const size = /request \((\d+) tokens\)/.exec(errorText(error));
        if (size) return Number(size[1]);
        if (!OVERFLOW.test(errorText(error))) throw error;
      }
      let total = 0;
      const pieces = splitForCounting(text, Math.floor(this.contextLimit / 2));
      for (const piece of pieces) total += await this.promptTokens(piece, signal);
      // Each piece was counted with its own start-of-text token.
      return total - (pieces.length - 1);
    });
  }

  /**
   * The whole prompt's size, chat template included, counted by reading it as the answer will:
   * a one-token completion of the same messages (or text). llama.cpp keeps the read prompt in
   * its cache, and the answer to the same prompt reuses it (its `cachedPromptTokens`), so the
   * prompt is read once. A prompt longer than the context is refused before it is read, with its
   * size in the message.
   */
  countPromptTokens(
    prompt: { messages: readonly { role: string; content: string }[]; text: string },
    signal?: AbortSignal,
  ): Promise<number> {
    if (this.promptStyle === 'text') return this.countTokens(prompt.text, signal);
    return this.serial(async () => {
      try {
        const r = await this.guarded(
          estimateTokens(prompt.messages.map((m) => m.content).join('\n')),
          1,
          signal,
          (wllama, s) =>
            wllama.createChatCompletion({
              messages: prompt.messages.map(({ role, content }) => ({
                role: role as 'system' | 'user' | 'assistant',
                content,
              })),
              max_tokens: 1,
              temperature: 0,
              abortSignal: s,
            }),
        );
        return this.promptSize(r);
      } catch (error) {
        if (isAbort(error) || error instanceof StalledCall) throw error;
        const size = /request \((\d+) tokens\)/.exec(errorText(error));
        if (size) return Number(size[1]);
        throw error;
      }
    });
  }

  private async promptTokens(text: string, signal?: AbortSignal): Promise<number> {
    const r = await this.guarded(estimateTokens(text), 1, signal, (wllama, s) =>
      wllama.createCompletion({
        prompt: text,
        // One token, not zero: llama.cpp's server reads max_tokens 0 as "no limit", so a count
        // would generate until the model stops or the context is full (minutes for a chatty
        // instruct model). One greedy token costs one step after the prompt.
        max_tokens: 1,
        temperature: 0,
        abortSignal: s,
      }),
    );
    return this.promptSize(r);
  }

  /** A count's reply: the prompt's size, its speed noted for the stall watchdog's deadlines. */
  private promptSize(r: { usage: { prompt_tokens: number } }): number {
    const timings = (r as { timings?: Timings }).timings;
    if (timings) this.speeds.observe(timings);
    return r.usage.prompt_tokens;
  }

  generate(request: GenerateRequest): Promise<GenerateOutcome> {
    return this.serial(() => this.run(request));
  }

  /**
   * Read `text` as a plain prompt (no chat template) and write up to `maxTokens` at temperature
   * 0, for the speed check page (llm.html) and the llm-speed benchmark: llama.cpp's own timings
   * beside the wall-clock time to the first token.
   */
  measure(text: string, maxTokens: number): Promise<SpeedMeasure> {
    return this.serial(async () => {
      const started = performance.now();
      let firstAt: number | undefined;
      let pieces = 0;
      let written = '';
      let timings: Timings | undefined;
      let promptTokens = 0;
      let cachedTokens = 0;
      await this.wllama.createCompletion({
        prompt: text,
        max_tokens: maxTokens,
        temperature: 0,
        stream: true,
        // Every run reads the whole prompt: a cached prefix would flatter the second run.
        ...({ cache_prompt: false } as object),
        onData: (chunk) => {
          if (chunk.choices[0]?.text) {
            firstAt ??= performance.now();
            pieces++;
            written += chunk.choices[0].text;
          }
          if (chunk.timings) timings = chunk.timings as Timings;
          const usage = chunk.usage as
            | { prompt_tokens?: number; prompt_tokens_details?: { cached_tokens?: number } }
            | null
            | undefined;
          if (typeof usage?.prompt_tokens === 'number') promptTokens = usage.prompt_tokens;
          if (typeof usage?.prompt_tokens_details?.cached_tokens === 'number')
            cachedTokens = usage.prompt_tokens_details.cached_tokens;
        },
      });
      const end = performance.now();
      return {
        threads: this.model.threads,
        crossOriginIsolated: globalThis.crossOriginIsolated === true,
        promptTokens: timings?.prompt_n ?? promptTokens,
        cachedTokens,
        generatedTokens: timings?.predicted_n ?? pieces,
        promptTokensPerS: timings?.prompt_per_second ?? 0,
        generationTokensPerS: timings?.predicted_per_second ?? 0,
        firstTokenMs: (firstAt ?? end) - started,
        totalMs: end - started,
        text: written,
      };
    });
  }

  private async run(request: GenerateRequest): Promise<GenerateOutcome> {
    const started = performance.now();
    let text = '';
    let firstAt: number | undefined;
    let pieces = 0;
    let finish: FinishReason = 'stop';
    let timings: Timings | undefined;
    let promptTokens: number | undefined;
    let cachedTokens: number | undefined;
    const restartsBefore = this.restarts;
    const stats = (): GenerateStats => {
      const end = performance.now();
      const s: GenerateStats = { elapsedMs: end - started };
      if (firstAt !== undefined) s.firstTokenMs = firstAt - started;
      // A streamed chat answer carries no usage: its size is what was read plus what was reused.
      const read = timings?.prompt_n;
      const total = promptTokens ?? (read !== undefined ? read + (cachedTokens ?? 0) : undefined);
      if (total !== undefined) s.promptTokens = total;
      if (cachedTokens !== undefined) s.cachedPromptTokens = cachedTokens;
      s.completionTokens = timings?.predicted_n ?? pieces;
      if (timings?.prompt_per_second) s.promptTokensPerSecond = timings.prompt_per_second;
      if (timings?.predicted_per_second) s.tokensPerSecond = timings.predicted_per_second;
      else if (firstAt !== undefined && pieces > 1 && end > firstAt)
        s.tokensPerSecond = ((pieces - 1) * 1000) / (end - firstAt);
      if (this.restarts > restartsBefore) s.restarts = this.restarts - restartsBefore;
      return s;
    };
    if (request.signal?.aborted) return { ok: false, text, error: STOPPED, stats: stats() };
    const promptText =
      this.promptStyle === 'text'
        ? request.text
        : request.messages.map((m) => m.content).join('\n');
    try {
      await this.guarded(
        estimateTokens(promptText),
        request.maxTokens,
        request.signal,
        async (wllama, signal, progress) => {
          const onChunk = (chunk: {
            choices: Array<{
              finish_reason: string | null;
              text?: string;
              delta?: { content?: string | null };
            }>;
            timings?: Timings;
            usage?: { prompt_tokens?: number } | null;
          }) => {
            const choice = chunk.choices[0];
            const piece = choice?.text ?? choice?.delta?.content ?? '';
            if (piece) {
              firstAt ??= performance.now();
              pieces++;
              text += piece;
              progress();
              request.onToken?.(piece);
            }
            if (choice?.finish_reason === 'length') finish = 'length';
            if (chunk.timings) timings = chunk.timings;
            if (typeof chunk.timings?.cache_n === 'number') cachedTokens = chunk.timings.cache_n;
            if (typeof chunk.usage?.prompt_tokens === 'number')
              promptTokens = chunk.usage.prompt_tokens;
          };
          const common = {
            max_tokens: request.maxTokens,
            stream: true as const,
            ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
            abortSignal: signal,
          };
          if (this.promptStyle === 'text') {
            await wllama.createCompletion({ ...common, prompt: request.text, onData: onChunk });
          } else {
            await wllama.createChatCompletion({
              ...common,
              messages: request.messages.map(({ role, content }) => ({ role, content })),
              onData: onChunk,
            });
          }
        },
      );
    } catch (error) {
      if (isAbort(error) || request.signal?.aborted)
        return { ok: false, text, error: STOPPED, stats: stats() };
      if (error instanceof StalledCall)
        return { ok: false, text, error: error.toLlmError(this.model.name), stats: stats() };
      if (this.model.device === 'gpu' && this.options.toCpu && !OVERFLOW.test(errorText(error)))
        return { ok: false, text, error: await this.leaveGpu(error), stats: stats() };
      return { ok: false, text, error: this.generationError(error), stats: stats() };
    }
    if (timings) this.speeds.observe(timings);
    return { ok: true, text, finish, stats: stats() };
  }

  /**
   * WebGPU failed mid-answer (a lost device, a shader the adapter refused): the model is loaded
   * again on the CPU, so the next question works, and the error says what happened.
   */
  private async leaveGpu(error: unknown): Promise<LlmError> {
    const detail = errorText(error);
    console.warn('[wllama] WebGPU failed while answering, loading on the CPU:', error);
    await forceExit(this.wllama);
    try {
      this.wllama = await this.options.toCpu!();
    } catch (reloadError) {
      return {
        code: 'device-lost',
        message: `The GPU failed while ${this.model.name} was answering, and loading it on the CPU failed too. Load the model again.`,
        detail: `${detail}; ${errorText(reloadError)}`,
      };
    }
    this.model.device = 'cpu';
    delete this.model.gpuLayers;
    this.model.gpuNote = `The GPU (WebGPU) failed while answering (${detail.slice(0, 200)}); runs on the CPU.`;
    return {
      code: 'device-lost',
      message: `The GPU failed while ${this.model.name} was answering; the model now runs on the CPU. Ask again.`,
      detail,
    };
  }

  private generationError(error: unknown): LlmError {
    const detail = errorText(error);
    if (OVERFLOW.test(detail)) {
      return {
        code: 'context-length',
        message: `The prompt does not fit the ${this.contextLimit.toLocaleString('en')}-token context of ${this.model.name}. Lower the answer length or the retrieval budget.`,
        detail,
      };
    }
    return {
      code: 'engine',
      message: `${this.model.name} failed while generating. Load the model again; if it keeps failing, try another model.`,
      detail,
    };
  }

  dispose(): Promise<void> {
    return this.wllama.exit().catch(() => {});
  }
}
