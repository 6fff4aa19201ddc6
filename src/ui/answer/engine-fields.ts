/**
 * @file What the engine form's parts share: its props and the size format (EngineSettings.tsx,
 * WllamaFields.tsx).
 */
import type { EngineSettings } from '../../llm/settings';
import type { LlmError } from '../../llm/types';
import type { LocalModelState } from './useLocalModel';

export interface KeyField {
  /** The key of the current endpoint ('' when none). */
  value: string;
  /** The "remember" box. */
  remember: boolean;
  /** The key is stored on this device (Forget is offered). */
  stored: boolean;
  onChange: (key: string) => void;
  onRemember: (remember: boolean) => void;
  onForget: () => void;
}

export interface EngineSettingsProps {
  settings: EngineSettings;
  onChange: (next: EngineSettings) => void;
  apiKey: KeyField;
  /** The in-browser model of the current engine, when one is loading, loaded or failed. */
  local: LocalModelState | null;
  onLoad: () => void;
  onUnload: () => void;
  /** A .gguf file chosen or dropped (not stored). */
  ggufFile: File | null;
  onGgufFile: (file: File | null) => void;
  /** Why WebLLM cannot run here (probed when it is picked), or null. */
  webgpuProblem: LlmError | null;
  /** Whether a model can be loaded now (a source is set). */
  canLoad: boolean;
  busy: boolean;
  /** Download (or take from the browser's copy) and load a GGUF model by URL. */
  onLoadUrl?: (url: string) => void;
  /** Where the catalogue's models come from (the page's one hub-host setting). */
  hub?: string;
  onHubChange?: (hub: string) => void;
}

export const mb = (bytes: number) =>
  bytes >= 1e9 ? `${(bytes / 1e9).toFixed(2)} GB` : `${(bytes / 1e6).toFixed(1)} MB`;
