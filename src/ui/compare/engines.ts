/**
 * @file The engines a Compare column can run on: the one set in the Answer panel, and every other
 * API engine that is configured (valid base URL and model, and a key typed or remembered for its
 * endpoint). In-browser engines are offered only as the current one: the page holds one loaded
 * model, and loading a second one to compare would evict the first.
 */
import type { EngineState } from '../answer/useEngine';
import { settingsModel, type ApiEngineKind } from '../../llm/engines';
import {
  apiSettingsProblem,
  createApiEngine,
  ENGINE_KINDS,
  ENGINE_LABELS,
  isApiEngine,
} from '../../llm/settings';
import type { EngineKind, LlmEngine, LlmError } from '../../llm/types';

export type EngineChoice = 'current' | ApiEngineKind;

export interface EngineOption {
  id: EngineChoice;
  kind: EngineKind;
  /** The model id, for people and for the price table. */
  model: string;
  label: string;
  /** Runs in this page: columns on it run one after another, and it costs nothing. */
  local: boolean;
  /** Why it cannot run now, or null. */
  problem: string | null;
}

/** The model's name for people and the price table: a GGUF model by its file's name. */
function modelOf(engine: EngineState, kind: EngineKind): string {
  const s = engine.settings;
  if (kind === 'wllama') return engine.ggufFile?.name ?? s.wllama.url.split('/').pop() ?? '';
  return settingsModel(kind, s);
}

export function engineOptions(engine: EngineState): EngineOption[] {
  const kind = engine.settings.kind;
  const current: EngineOption = {
    id: 'current',
    kind,
    model: modelOf(engine, kind),
    label: `Answer panel's engine: ${ENGINE_LABELS[kind]}${modelOf(engine, kind) ? ` · ${modelOf(engine, kind)}` : ''}`,
    local: !isApiEngine(kind),
    problem: engine.problem,
  };
  const others: EngineOption[] = ENGINE_KINDS.filter(isApiEngine)
    .filter(
      (k) =>
        k !== kind && !apiSettingsProblem(engine.settings[k]) && engine.keyFor(k).trim() !== '',
    )
    .map((k) => ({
      id: k,
      kind: k,
      model: engine.settings[k].model,
      label: `${ENGINE_LABELS[k]} · ${engine.settings[k].model}`,
      local: false,
      problem: null,
    }));
  return [current, ...others];
}

/** The engine of a choice, ready to generate, or why not. */
export async function acquireEngine(
  engine: EngineState,
  choice: EngineChoice,
  signal: AbortSignal,
): Promise<LlmEngine | LlmError> {
  if (choice === 'current') return engine.acquire(signal);
  const made = createApiEngine({ ...engine.settings, kind: choice }, engine.keyFor(choice));
  return (
    made ?? {
      code: 'bad-request',
      message: `Set up the ${ENGINE_LABELS[choice]} in the Answer panel first.`,
    }
  );
}
