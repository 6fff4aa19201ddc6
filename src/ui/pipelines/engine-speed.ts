/**
 * @file The measured speed of each engine this page has run a pipeline on (prompt tokens read
 * and tokens written per second, as the engine reports them with each answer), so the cost
 * estimate before a run can say how long it will take there. Kept for the page's life and in
 * localStorage (a speed is a property of the machine and the model, not of a library).
 */
import type { GenerateStats, LlmEngine } from '../../llm/types';

export interface EngineSpeed {
  promptTokensPerSecond: number;
  tokensPerSecond: number;
  /** Answers the figures come from. */
  calls: number;
}

const STORAGE_KEY = 'fragrel-lens:engine-speeds';

/** An engine's key in the table: its kind and model ("wllama|SmolLM2-135M.gguf"). */
export const speedKey = (kind: string, model: string) => `${kind}|${model}`;

// The page's copy, read from localStorage once (where there is none, the page keeps its own).
let speeds: Record<string, EngineSpeed> | null = null;

function readAll(): Record<string, EngineSpeed> {
  if (speeds) return speeds;
  try {
    const raw: unknown = JSON.parse(globalThis.localStorage?.getItem(STORAGE_KEY) ?? '{}');
    speeds = raw && typeof raw === 'object' ? (raw as Record<string, EngineSpeed>) : {};
  } catch {
    speeds = {};
  }
  return speeds;
}

/** The measured speed of an engine, or null before its first measured answer. */
export function speedOf(key: string): EngineSpeed | null {
  const s = readAll()[key];
  const ok = (x: unknown) => typeof x === 'number' && Number.isFinite(x) && x > 0;
  return s && ok(s.promptTokensPerSecond) && ok(s.tokensPerSecond) ? s : null;
}

/**
 * One answer's stats folded into the engine's speed (a running mean over its answers). The
 * prompt rate is the engine's own where it reports one, else prompt tokens over the time to
 * the first token; an answer without both rates is left out.
 */
export function recordSpeed(key: string, stats: GenerateStats): void {
  const prompt =
    stats.promptTokensPerSecond ??
    (stats.promptTokens && stats.firstTokenMs
      ? (stats.promptTokens * 1000) / stats.firstTokenMs
      : undefined);
  const gen = stats.tokensPerSecond;
  if (!prompt || !gen || !Number.isFinite(prompt) || !Number.isFinite(gen)) return;
  const all = readAll();
  const was = all[key];
  const n = was?.calls ?? 0;
  all[key] = {
    promptTokensPerSecond: was ? (was.promptTokensPerSecond * n + prompt) / (n + 1) : prompt,
    tokensPerSecond: was ? (was.tokensPerSecond * n + gen) / (n + 1) : gen,
    calls: n + 1,
  };
  try {
    globalThis.localStorage?.setItem(STORAGE_KEY, JSON.stringify(all));
  } catch {
    // A full or refused storage only loses the figure: the estimate then says it is unmeasured.
  }
}

/** The engine, with each answer's stats recorded under `key`. */
export function recordingSpeed(engine: LlmEngine, key: string): LlmEngine {
  return new Proxy(engine, {
    get(target, property, receiver) {
      if (property === 'generate') {
        return async (request: Parameters<LlmEngine['generate']>[0]) => {
          const outcome = await target.generate(request);
          if (outcome.ok) recordSpeed(key, outcome.stats);
          return outcome;
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function'
        ? (value as (...a: unknown[]) => unknown).bind(target)
        : value;
    },
  });
}
