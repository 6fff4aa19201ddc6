/**
 * @file The answer engine's settings: which engine, the answer length and temperature, and each
 * engine's own settings under its kind, with their defaults and reading from the engine table
 * (engines.ts). Stored in the library's settings under `ENGINE_SETTINGS_KEY`; keys are not part
 * of them (see keys.ts).
 */
import {
  ENGINE_KINDS,
  ENGINES,
  int,
  isApiEngine,
  obj,
  type ApiEngineSettings,
  type EngineSettingsByKind,
} from './engines';
import type { EngineKind, LlmEngine } from './types';
import { normalizeScale } from './reading-budget';

export { ENGINE_KINDS, isApiEngine, type ApiEngineSettings } from './engines';

export const ENGINE_SETTINGS_KEY = 'llm.engine';

/** Which engine, the settings every engine shares, and each engine's own under its kind. */
export interface EngineSettings extends EngineSettingsByKind {
  kind: EngineKind;
  /** Tokens kept free for the answer (the request's max_tokens). */
  answerTokens: number;
  /**
   * Sampling temperature. 0 (greedy) by default: an answer from a book is read as a statement
   * of fact, and the same question should get the same answer (the tests rely on it too).
   */
  temperature: number;
  /**
   * How much an in-browser model reads, against its reading budget (reading-budget.ts): 1 = what
   * it reads in about ten seconds here, 2 = twice that, …, 0 = the whole context window.
   */
  passageScale: number;
}

export const ENGINE_LABELS = Object.freeze(
  Object.fromEntries(ENGINE_KINDS.map((k) => [k, ENGINES[k].label])),
) as Readonly<Record<EngineKind, string>>;

/** Each engine's own settings from the table, by a function of its entry. */
function byKind(
  each: <K extends EngineKind>(kind: K) => EngineSettingsByKind[K],
): EngineSettingsByKind {
  return Object.fromEntries(
    ENGINE_KINDS.map((k) => [k, each(k)]),
  ) as unknown as EngineSettingsByKind;
}

type AnyEntry = {
  defaults: unknown;
  normalize(stored: Record<string, unknown>, d: unknown): unknown;
};
const entryOf = (kind: EngineKind) => ENGINES[kind] as AnyEntry;

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
  passageScale: 1,
  ...byKind((k) => entryOf(k).defaults as EngineSettingsByKind[typeof k]),
});

/** Settings from storage, field by field: anything missing or of the wrong type gets its default. */
export function normalizeEngineSettings(stored: unknown): EngineSettings {
  const s = obj(stored);
  const d = defaultEngineSettings;
  const kind = ENGINE_KINDS.includes(s.kind as EngineKind) ? (s.kind as EngineKind) : d.kind;
  return {
    kind,
    answerTokens: int(s.answerTokens, d.answerTokens, 16, 32_768),
    temperature:
      typeof s.temperature === 'number' && Number.isFinite(s.temperature)
        ? Math.min(2, Math.max(0, s.temperature))
        : d.temperature,
    passageScale: normalizeScale(s.passageScale),
    ...byKind((k) => entryOf(k).normalize(obj(s[k]), d[k]) as EngineSettingsByKind[typeof k]),
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

/** An API engine for the current settings and the key of their scope (the table's factory). */
export function createApiEngine(
  settings: EngineSettings,
  apiKey: string | undefined,
): LlmEngine | null {
  const { kind } = settings;
  if (!isApiEngine(kind) || apiSettingsProblem(settings[kind])) return null;
  return ENGINES[kind].create({ ...settings[kind], apiKey });
}
