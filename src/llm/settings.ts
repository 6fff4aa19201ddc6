/**
 * @file The answer engine's settings: which engine, and each engine's own settings, with their
 * defaults in one place. Stored in the library's settings under `ENGINE_SETTINGS_KEY`; keys are
 * not part of them (see keys.ts).
 */
import { DEFAULT_HUB_HOST } from '../models/settings';
import { AnthropicEngine } from './anthropic';
import { OpenAiCompatibleEngine } from './openai';
import type { EngineKind, LlmEngine } from './types';
import { DEFAULT_WEBLLM_MODEL, webLlmModel } from './webllm-catalogue';

export const ENGINE_SETTINGS_KEY = 'llm.engine';

export interface ApiEngineSettings {
  baseUrl: string;
  model: string;
  /** The model's context window in tokens; APIs do not report it. */
  contextLimit: number;
}

export interface EngineSettings {
  kind: EngineKind;
  /** Tokens kept free for the answer (the request's max_tokens). */
  answerTokens: number;
  /**
   * Sampling temperature. 0 (greedy) by default: an answer from a book is read as a statement
   * of fact, and the same question should get the same answer (the tests rely on it too).
   */
  temperature: number;
  openai: ApiEngineSettings;
  anthropic: ApiEngineSettings;
  /** A GGUF URL or hub shorthand (owner/repo/file.gguf); a dropped file is not stored. */
  /** `hub`: where the recommended models are downloaded from (the Hugging Face hub or a mirror). */
  /** `threads`: CPU threads for llama.cpp, 0 = automatic (half the cores). */
  /** `gpu`: run the model on the GPU (WebGPU) when the computer has a usable one. */
  wllama: { url: string; contextSize: number; hub: string; threads: number; gpu: boolean };
  webllm: { modelId: string };
}

export const ENGINE_KINDS: readonly EngineKind[] = ['openai', 'anthropic', 'wllama', 'webllm'];

export const ENGINE_LABELS: Readonly<Record<EngineKind, string>> = Object.freeze({
  openai: 'OpenAI-compatible API',
  anthropic: 'Anthropic API',
  wllama: 'wllama (GGUF on the CPU)',
  webllm: 'WebLLM (WebGPU)',
});

/** Whether the engine sends the prompt to a server (the others run in this page). */
export function isApiEngine(kind: EngineKind): kind is 'openai' | 'anthropic' {
  return kind === 'openai' || kind === 'anthropic';
}

/** Known OpenAI-compatible endpoints, offered as presets. */
export const OPENAI_PRESETS: ReadonlyArray<{ label: string; baseUrl: string; model: string }> =
  Object.freeze([
    { label: 'OpenAI', baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini' },
    { label: 'OpenRouter', baseUrl: 'https://openrouter.ai/api/v1', model: 'openai/gpt-4o-mini' },
    { label: 'Ollama (local)', baseUrl: 'http://localhost:11434/v1', model: 'llama3.2' },
    { label: 'LM Studio (local)', baseUrl: 'http://localhost:1234/v1', model: 'local-model' },
    { label: 'llama.cpp server (local)', baseUrl: 'http://localhost:8080/v1', model: 'local' },
  ]);

export const defaultEngineSettings: Readonly<EngineSettings> = Object.freeze({
  // Nothing leaves the machine until the person picks an API engine or a model to download.
  kind: 'wllama',
  answerTokens: 512,
  temperature: 0,
  openai: { baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini', contextLimit: 16_384 },
  anthropic: {
    baseUrl: 'https://api.anthropic.com',
    model: 'claude-sonnet-4-5',
    contextLimit: 200_000,
  },
  wllama: {
    url: '',
    contextSize: 4096,
    hub: DEFAULT_HUB_HOST.replace(/\/+$/, ''),
    threads: 0,
    gpu: false,
  },
  webllm: { modelId: DEFAULT_WEBLLM_MODEL },
});

function str(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}
function int(value: unknown, fallback: number, min: number, max: number): number {
  return typeof value === 'number' && Number.isFinite(value)
    ? Math.min(max, Math.max(min, Math.round(value)))
    : fallback;
}
function obj(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
}

function api(value: unknown, d: ApiEngineSettings): ApiEngineSettings {
  const v = obj(value);
  return {
    baseUrl: str(v.baseUrl, d.baseUrl),
    model: str(v.model, d.model),
    contextLimit: int(v.contextLimit, d.contextLimit, 256, 10_000_000),
  };
}

/** Settings from storage, field by field: anything missing or of the wrong type gets its default. */
export function normalizeEngineSettings(stored: unknown): EngineSettings {
  const s = obj(stored);
  const d = defaultEngineSettings;
  const kind = ENGINE_KINDS.includes(s.kind as EngineKind) ? (s.kind as EngineKind) : d.kind;
  const w = obj(s.wllama);
  const modelId = str(obj(s.webllm).modelId, d.webllm.modelId);
  return {
    kind,
    answerTokens: int(s.answerTokens, d.answerTokens, 16, 32_768),
    temperature:
      typeof s.temperature === 'number' && Number.isFinite(s.temperature)
        ? Math.min(2, Math.max(0, s.temperature))
        : d.temperature,
    openai: api(s.openai, d.openai),
    anthropic: api(s.anthropic, d.anthropic),
    wllama: {
      url: str(w.url, d.wllama.url),
      contextSize: int(w.contextSize, d.wllama.contextSize, 256, 131_072),
      threads: int(w.threads, d.wllama.threads, 0, 32),
      gpu: typeof w.gpu === 'boolean' ? w.gpu : d.wllama.gpu,
      hub: /^https?:\/\/\S+$/i.test(str(w.hub, '')) ? str(w.hub, '') : d.wllama.hub,
    },
    webllm: { modelId: webLlmModel(modelId) ? modelId : d.webllm.modelId },
  };
}

/** The scope a key belongs to: the engine kind and the origin it is sent to. */
export function keyScope(kind: EngineKind, baseUrl: string): string | null {
  if (!isApiEngine(kind)) return null;
  try {
    const url = new URL(baseUrl);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
    return `${kind} ${url.origin}`;
  } catch {
    return null;
  }
}

/** Why the API settings cannot be used yet, or null. */
export function apiSettingsProblem(settings: ApiEngineSettings): string | null {
  let url: URL;
  try {
    url = new URL(settings.baseUrl);
  } catch {
    return 'Enter the base URL of the API, starting with https:// (or http:// for a local server).';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return 'The base URL must start with https:// or http://.';
  if (!settings.model.trim()) return 'Enter the name of the model to ask.';
  return null;
}

/** An API engine for the current settings and the key of their scope. */
export function createApiEngine(
  settings: EngineSettings,
  apiKey: string | undefined,
): LlmEngine | null {
  if (settings.kind === 'openai') {
    return apiSettingsProblem(settings.openai)
      ? null
      : new OpenAiCompatibleEngine({ ...settings.openai, apiKey });
  }
  if (settings.kind === 'anthropic') {
    return apiSettingsProblem(settings.anthropic)
      ? null
      : new AnthropicEngine({ ...settings.anthropic, apiKey });
  }
  return null;
}
