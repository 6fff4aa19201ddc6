/**
 * @file The answer engines, one entry each: the one table a new engine is added to (with its
 * engine class in this folder and its kind in types.ts `EngineKind`). Each entry has the
 * engine's label, its settings (defaults, how stored ones are read, the model they name, the
 * context window known before loading) and its factory: an API engine is made at once
 * (`create`), an in-browser one is loaded (`load`) from the source its settings point to.
 * settings.ts (the stored settings, `createApiEngine`), the page's engine (ui/answer/useEngine,
 * useLocalModel), Compare's engine list and the evaluation page all derive from it; the
 * settings form's fields per engine are ui/answer/EngineSettings.tsx's table.
 */
import { DEFAULT_HUB_HOST } from '../models/settings';
import { AnthropicEngine } from './anthropic';
import { OpenAiCompatibleEngine } from './openai';
import type { EngineKind, LlmEngine, LlmError, LoadProgress } from './types';
import { DEFAULT_WEBLLM_MODEL, webLlmModel } from './webllm-catalogue';
import { loadWebLlm } from './webllm';
import { ggufUrl, loadWllama, type GgufSource, type WllamaOptions } from './wllama';
import { isHubModelId, loadOnnxLlm, type OnnxSource } from './onnx/engine';
import { RECOMMENDED_ONNX_MODEL } from './onnx/catalogue';

export interface ApiEngineSettings {
  baseUrl: string;
  model: string;
  /** The model's context window in tokens; APIs do not report it. */
  contextLimit: number;
}

/**
 * `url`: a GGUF URL or hub shorthand (owner/repo/file.gguf); a dropped file is not stored.
 * `hub`: where the recommended models are downloaded from (the Hugging Face hub or a mirror).
 * `threads`: CPU threads for llama.cpp, 0 = automatic (half the cores).
 * `gpu`: run the model on the GPU (WebGPU) when the computer has a usable one.
 */
export interface WllamaSettings {
  url: string;
  contextSize: number;
  hub: string;
  threads: number;
  gpu: boolean;
}

export interface WebLlmSettings {
  modelId: string;
}

/**
 * `modelId`: a hub model in transformers.js's layout (config.json, tokenizer.json,
 * onnx/model.onnx). `hub`: where it is downloaded from (the page's one hub-host setting is laid
 * over it, ui/answer/useEngine.tsx). `threads`: wasm threads, 0 = automatic (half the cores).
 */
export interface OnnxSettings {
  modelId: string;
  contextSize: number;
  hub: string;
  threads: number;
}

/** Each engine's own settings, by kind (stored under the kind in `EngineSettings`). */
export interface EngineSettingsByKind {
  openai: ApiEngineSettings;
  anthropic: ApiEngineSettings;
  wllama: WllamaSettings;
  webllm: WebLlmSettings;
  onnx: OnnxSettings;
}

/** The in-browser model a page loads: what the engine's settings (or a dropped file) point to. */
export type LocalSource =
  | { kind: 'wllama'; source: GgufSource; options: WllamaOptions }
  | { kind: 'webllm'; modelId: string }
  | { kind: 'onnx'; source: OnnxSource };

export interface LoadEvents {
  onProgress?: (p: LoadProgress) => void;
  signal?: AbortSignal;
}

export type LoadResult = { ok: true; engine: LlmEngine } | { ok: false; error: LlmError };

interface EngineBase<S> {
  label: string;
  defaults: S;
  /** Settings from storage, field by field: anything missing or wrong gets its default. */
  normalize(stored: Record<string, unknown>, defaults: S): S;
  /** The model the settings name (an id, a URL), for the records of a run. */
  model(settings: S): string;
  /** The context window as far as known before a model is loaded, in tokens. */
  contextLimit(settings: S): number;
}

/** An engine that sends the prompt to a server, made at once from its settings and key. */
export interface ApiEngineEntry extends EngineBase<ApiEngineSettings> {
  api: true;
  create(settings: ApiEngineSettings & { apiKey: string | undefined }): LlmEngine;
}

/** An engine that runs in this page, loaded from a source. */
export interface LocalEngineEntry<S, K extends LocalSource['kind']> extends EngineBase<S> {
  api: false;
  /** What the settings (or a model file chosen on the page) point to, or null. */
  source(settings: S, file: File | null): Extract<LocalSource, { kind: K }> | null;
  /** Why there is no source, in words. */
  noSource: string;
  load(source: Extract<LocalSource, { kind: K }>, events: LoadEvents): Promise<LoadResult>;
}

export type EngineEntry<K extends EngineKind> = EngineSettingsByKind[K] extends ApiEngineSettings
  ? ApiEngineEntry
  : LocalEngineEntry<EngineSettingsByKind[K], K & LocalSource['kind']>;

/** The kinds whose engine is an API's. */
export type ApiEngineKind = {
  [K in EngineKind]: EngineSettingsByKind[K] extends ApiEngineSettings ? K : never;
}[EngineKind];

export const str = (value: unknown, fallback: string): string =>
  typeof value === 'string' ? value : fallback;
export const int = (value: unknown, fallback: number, min: number, max: number): number =>
  typeof value === 'number' && Number.isFinite(value)
    ? Math.min(max, Math.max(min, Math.round(value)))
    : fallback;
export const obj = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' ? (value as Record<string, unknown>) : {};

/** The shared part of the API engines' entries. */
function apiEngine(
  label: string,
  defaults: ApiEngineSettings,
  create: ApiEngineEntry['create'],
): ApiEngineEntry {
  return {
    label,
    api: true,
    defaults,
    normalize: (v, d) => ({
      baseUrl: str(v.baseUrl, d.baseUrl),
      model: str(v.model, d.model),
      contextLimit: int(v.contextLimit, d.contextLimit, 256, 10_000_000),
    }),
    model: (s) => s.model,
    contextLimit: (s) => s.contextLimit,
    create,
  };
}

export const ENGINES: { readonly [K in EngineKind]: EngineEntry<K> } = {
  openai: apiEngine(
    'OpenAI-compatible API',
    { baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini', contextLimit: 16_384 },
    (settings) => new OpenAiCompatibleEngine(settings),
  ),
  anthropic: apiEngine(
    'Anthropic API',
    { baseUrl: 'https://api.anthropic.com', model: 'claude-sonnet-4-5', contextLimit: 200_000 },
    (settings) => new AnthropicEngine(settings),
  ),
  wllama: {
    label: 'wllama (GGUF on the CPU)',
    api: false,
    defaults: {
      url: '',
      contextSize: 4096,
      hub: DEFAULT_HUB_HOST.replace(/\/+$/, ''),
      threads: 0,
      gpu: false,
    },
    normalize: (w, d) => ({
      url: str(w.url, d.url),
      contextSize: int(w.contextSize, d.contextSize, 256, 131_072),
      threads: int(w.threads, d.threads, 0, 32),
      gpu: typeof w.gpu === 'boolean' ? w.gpu : d.gpu,
      hub: /^https?:\/\/\S+$/i.test(str(w.hub, '')) ? str(w.hub, '') : d.hub,
    }),
    model: (s) => s.url,
    contextLimit: (s) => s.contextSize,
    source: (s, file) => {
      const options = {
        contextSize: s.contextSize,
        ...(s.threads ? { threads: s.threads } : {}),
        ...(s.gpu ? { gpu: 'auto' as const } : {}),
      };
      if (file) return { kind: 'wllama', source: { kind: 'file', file }, options };
      const url = ggufUrl(s.url);
      return url ? { kind: 'wllama', source: { kind: 'url', url }, options } : null;
    },
    noSource: 'Choose a .gguf model file, or enter its URL.',
    load: (s, events) => loadWllama(s.source, s.options, events),
  },
  webllm: {
    label: 'WebLLM (WebGPU)',
    api: false,
    defaults: { modelId: DEFAULT_WEBLLM_MODEL },
    normalize: (v, d) => {
      const modelId = str(v.modelId, d.modelId);
      return { modelId: webLlmModel(modelId) ? modelId : d.modelId };
    },
    model: (s) => s.modelId,
    contextLimit: (s) => webLlmModel(s.modelId)?.contextLimit ?? 4096,
    source: (s) => ({ kind: 'webllm', modelId: s.modelId }),
    noSource: 'Choose a model.',
    load: (s, events) => loadWebLlm(s.modelId, events),
  },
  onnx: {
    label: 'ONNX Runtime (a small model on the CPU)',
    api: false,
    defaults: {
      modelId: RECOMMENDED_ONNX_MODEL.id,
      contextSize: 4096,
      hub: DEFAULT_HUB_HOST.replace(/\/+$/, ''),
      threads: 0,
    },
    normalize: (v, d) => ({
      modelId: isHubModelId(str(v.modelId, '')) ? str(v.modelId, '').trim() : d.modelId,
      contextSize: int(v.contextSize, d.contextSize, 256, 131_072),
      threads: int(v.threads, d.threads, 0, 32),
      hub: /^https?:\/\/\S+$/i.test(str(v.hub, '')) ? str(v.hub, '') : d.hub,
    }),
    model: (s) => s.modelId,
    contextLimit: (s) => s.contextSize,
    source: (s) =>
      isHubModelId(s.modelId)
        ? {
            kind: 'onnx',
            source: {
              modelId: s.modelId,
              host: s.hub,
              threads: s.threads,
              contextSize: s.contextSize,
            },
          }
        : null,
    noSource: 'Enter the model name (owner/name) of an ONNX model on the hub.',
    load: (s, events) => loadOnnxLlm(s.source, events),
  },
};

/** The engines in the order the settings offer them. */
export const ENGINE_KINDS = Object.keys(ENGINES) as EngineKind[];

/** Whether the engine sends the prompt to a server (the others run in this page). */
export function isApiEngine(kind: EngineKind): kind is ApiEngineKind {
  return ENGINES[kind].api;
}

/** Load an in-browser model by its engine's factory. */
export function loadLocal(source: LocalSource, events: LoadEvents): Promise<LoadResult> {
  return (ENGINES[source.kind] as AnyLocalEntry).load(source, events);
}

type AnyLocalEntry = LocalEngineEntry<unknown, LocalSource['kind']>;
type AnyEntry = EngineBase<unknown>;

/** The model the settings of `kind` name (a model id, a GGUF URL). */
export function settingsModel(kind: EngineKind, settings: EngineSettingsByKind): string {
  return (ENGINES[kind] as AnyEntry).model(settings[kind]);
}

/** The context window the settings of `kind` give before a model is loaded. */
export function settingsContextLimit(kind: EngineKind, settings: EngineSettingsByKind): number {
  return (ENGINES[kind] as AnyEntry).contextLimit(settings[kind]);
}

/** The in-browser model the settings of `kind` (or a chosen file) point to; null for an API. */
export function localSourceOf(
  kind: EngineKind,
  settings: EngineSettingsByKind,
  file: File | null,
): LocalSource | null {
  const entry = ENGINES[kind];
  return entry.api ? null : (entry as AnyLocalEntry).source(settings[kind], file);
}

/** Why an in-browser engine of `kind` has nothing to load, in words. */
export function noSourceProblem(kind: EngineKind): string {
  const entry = ENGINES[kind];
  return entry.api ? 'Set up the engine first.' : (entry as AnyLocalEntry).noSource;
}
