/**
 * @file The answer engine, shared by every view that generates (the answer panel, the chat):
 * its settings (stored in the library), API keys, the in-browser model and whether this browser
 * can run it. `EngineProvider` holds one of each for the whole workspace, so the person sets the
 * engine once and a loaded model serves both views; `useEngine()` reads it, and
 * `SharedEngineSettings` is the settings form bound to it.
 *
 * Nothing here calls the network by itself: an API engine is called when a view generates, an
 * in-browser model is downloaded when the person presses Load or a view asks for it.
 */
import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
  type ReactNode,
} from 'react';
import { KeyRing, type SettingsStore } from '../../llm/keys';
import {
  ENGINE_SETTINGS_KEY,
  apiSettingsProblem,
  createApiEngine,
  defaultEngineSettings,
  isApiEngine,
  keyScope,
  normalizeEngineSettings,
  type EngineSettings,
} from '../../llm/settings';
import type { EngineKind, LlmEngine, LlmError } from '../../llm/types';
import { webLlmUnsupported } from '../../llm/webllm';
import { webLlmModel } from '../../llm/webllm-catalogue';
import { localSourceOf, noSourceProblem, settingsContextLimit } from '../../llm/engines';
import { probeCapabilities } from '../../models/capabilities';
import { EngineSettingsForm, type KeyField } from './EngineSettings';
import { localSourceKey, useLocalModel, type LocalSource } from './useLocalModel';

export interface EngineState {
  settings: EngineSettings;
  /** Change the settings (stored once the stored ones have been read). */
  changeSettings: (next: EngineSettings) => void;
  /** The key field of the current API endpoint. */
  apiKey: KeyField;
  /** The in-browser model: its state, load and unload. */
  local: ReturnType<typeof useLocalModel>;
  /** The in-browser model the settings point to, or null (an API engine, or no model chosen). */
  localSource: LocalSource | null;
  /** A .gguf file chosen or dropped (not stored). */
  ggufFile: File | null;
  setGgufFile: (file: File | null) => void;
  /** Why WebLLM cannot run here (probed when it is picked), or null. */
  webgpuProblem: LlmError | null;
  /** Why no engine can be had with these settings, in words, or null. */
  problem: string | null;
  /**
   * The chosen engine's context window in tokens as far as known before generating: the loaded
   * in-browser model's, else the settings'.
   */
  contextLimit: number;
  /**
   * The engine to generate with: an API engine at once, or the in-browser model (loaded now if
   * it is not; `onLoading` is called first). An error value when there is none.
   */
  acquire: (signal: AbortSignal, onLoading?: () => void) => Promise<LlmEngine | LlmError>;
  /**
   * The key typed or remembered for an API engine's endpoint, current or not ('' when none):
   * Compare runs its columns on different engines (src/ui/compare/engines.ts).
   */
  keyFor: (kind: EngineKind) => string;
  /** Where models are downloaded from: the library's one hub-host setting (ui/hub/hub-host.ts). */
  hub: string;
  setHub: (host: string) => void;
}

/** The page's hub-host setting, handed to the engine so the GGUF catalogue uses it too. */
export interface HubSetting {
  host: string;
  onChange: (host: string) => void;
}

/** Every engine state this page holds; the state itself, for `EngineProvider`. */
export function useEngineState(library: SettingsStore, hubSetting?: HubSetting): EngineState {
  const [settings, setSettings] = useState<EngineSettings>(defaultEngineSettings);
  const ring = useMemo(() => new KeyRing(library), [library]);
  const [keysVersion, setKeysVersion] = useState(0);
  const [rememberWanted, setRememberWanted] = useState<Record<string, boolean>>({});
  const [ggufFile, setGgufFile] = useState<File | null>(null);
  const [webgpuProblem, setWebgpuProblem] = useState<LlmError | null>(null);
  const local = useLocalModel();
  const loadedSettings = useRef(false);

  // Stored settings and remembered keys, once.
  useEffect(() => {
    let live = true;
    void (async () => {
      try {
        const stored = await library.getSetting<unknown>(ENGINE_SETTINGS_KEY, null);
        if (live) setSettings(normalizeEngineSettings(stored));
        await ring.load();
      } catch (e) {
        console.warn('Answer settings could not be read:', e);
      }
      if (live) {
        loadedSettings.current = true;
        setKeysVersion((v) => v + 1);
      }
    })();
    return () => {
      live = false;
    };
  }, [library, ring]);

  const changeSettings = useCallback(
    (next: EngineSettings) => {
      setSettings(next);
      if (loadedSettings.current) {
        void library.setSetting(ENGINE_SETTINGS_KEY, next).catch((e: Error) => {
          console.warn('Answer settings could not be saved:', e.message);
        });
      }
    },
    [library],
  );

  // WebLLM: say at once whether this browser can run it (a local probe, no request).
  const webllmModel = webLlmModel(settings.webllm.modelId);
  useEffect(() => {
    if (settings.kind !== 'webllm') return;
    let live = true;
    void probeCapabilities().then((caps) => {
      if (live) setWebgpuProblem(webLlmUnsupported(caps, webllmModel));
    });
    return () => {
      live = false;
    };
  }, [settings.kind, webllmModel]);

  // Keys belong to the engine and the origin of its base URL.
  const scope = isApiEngine(settings.kind)
    ? keyScope(settings.kind, settings[settings.kind].baseUrl)
    : null;
  // keysVersion changes whenever the ring does.
  const { keyValue, keyStored } = useMemo(
    () => ({ keyValue: ring.get(scope), keyStored: ring.isRemembered(scope), keysVersion }),
    [ring, scope, keysVersion],
  );
  const remember = scope ? (rememberWanted[scope] ?? keyStored) : false;
  const apiKey = useMemo((): KeyField => {
    const bump = () => setKeysVersion((v) => v + 1);
    return {
      value: keyValue,
      remember,
      stored: keyStored,
      onChange: (key: string) => {
        if (!scope) return;
        void ring.set(scope, key, remember).finally(bump);
        bump();
      },
      onRemember: (on: boolean) => {
        if (!scope) return;
        setRememberWanted((w) => ({ ...w, [scope]: on }));
        void ring.set(scope, ring.get(scope), on).finally(bump);
      },
      onForget: () => {
        if (!scope) return;
        setRememberWanted((w) => ({ ...w, [scope]: false }));
        void ring.forget(scope).finally(bump);
        bump();
      },
    };
  }, [keyValue, keyStored, remember, ring, scope]);

  // The in-browser model the current settings point to (the engine table's `source`).
  // The ONNX engine downloads from the page's one hub-host setting.
  const hubHost = hubSetting?.host ?? settings.wllama.hub;
  const localSource: LocalSource | null = useMemo(
    () =>
      localSourceOf(
        settings.kind,
        { ...settings, onnx: { ...settings.onnx, hub: hubHost } },
        ggufFile,
      ),
    [settings, ggufFile, hubHost],
  );

  const problem = ((): string | null => {
    if (isApiEngine(settings.kind)) return apiSettingsProblem(settings[settings.kind]);
    if (settings.kind === 'webllm' && webgpuProblem) return webgpuProblem.message;
    return localSource ? null : noSourceProblem(settings.kind);
  })();

  const loaded =
    local.state?.status === 'ready' &&
    local.state.engine &&
    localSource &&
    local.state.key === localSourceKey(localSource)
      ? local.state.engine
      : null;
  const contextLimit = loaded?.contextLimit ?? settingsContextLimit(settings.kind, settings);

  const acquire = useCallback(
    async (signal: AbortSignal, onLoading?: () => void): Promise<LlmEngine | LlmError> => {
      if (isApiEngine(settings.kind)) {
        const engine = createApiEngine(settings, ring.get(scope) || undefined);
        return engine ?? { code: 'bad-request', message: problem ?? 'Set up the engine first.' };
      }
      if (!localSource) {
        return { code: 'bad-request', message: problem ?? 'Set up the engine first.' };
      }
      onLoading?.();
      return local.load(localSource, signal);
    },
    [settings, ring, scope, localSource, local, problem],
  );

  const keyFor = useCallback(
    (kind: EngineKind) =>
      isApiEngine(kind) ? ring.get(keyScope(kind, settings[kind].baseUrl)) : '',
    // keysVersion: a key typed since is read again.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [ring, settings, keysVersion],
  );

  const hub = hubHost;
  const setHub = (host: string) =>
    hubSetting
      ? hubSetting.onChange(host)
      : changeSettings({ ...settings, wllama: { ...settings.wllama, hub: host } });
  return {
    hub,
    setHub,
    settings,
    changeSettings,
    keyFor,
    apiKey,
    local,
    localSource,
    ggufFile,
    setGgufFile,
    webgpuProblem,
    problem,
    contextLimit,
    acquire,
  };
}

const EngineContext = createContext<EngineState | null>(null);

/** One engine state for everything below it. */
export function EngineProvider({
  library,
  hub,
  children,
}: {
  library: SettingsStore;
  /** The page's hub-host setting (without it: the engine settings' own, as before). */
  hub?: HubSetting;
  children: ReactNode;
}) {
  const engine = useEngineState(library, hub);
  return <EngineContext value={engine}>{children}</EngineContext>;
}

/** The shared engine state; call below an `EngineProvider`. */
export function useEngine(): EngineState {
  const engine = useContext(EngineContext);
  if (!engine) throw new Error('useEngine() needs an <EngineProvider> above it.');
  return engine;
}

/** The engine settings form, bound to the shared engine. */
export function SharedEngineSettings({ busy }: { busy: boolean }) {
  const engine = useEngine();
  const { settings, local, localSource } = engine;
  return (
    <EngineSettingsForm
      settings={settings}
      onChange={engine.changeSettings}
      apiKey={engine.apiKey}
      local={
        local.state && localSource && local.state.key === localSourceKey(localSource)
          ? local.state
          : null
      }
      onLoad={() => {
        if (localSource) void local.load(localSource);
      }}
      onUnload={local.unload}
      onLoadUrl={(url) => {
        engine.setGgufFile(null);
        const next = { ...settings, kind: 'wllama' as const, wllama: { ...settings.wllama, url } };
        engine.changeSettings(next);
        // The engine table's own source for these settings (threads, GPU and all).
        const source = localSourceOf('wllama', next, null);
        if (source) void local.load(source);
      }}
      ggufFile={engine.ggufFile}
      onGgufFile={engine.setGgufFile}
      webgpuProblem={settings.kind === 'webllm' ? engine.webgpuProblem : null}
      canLoad={localSource !== null}
      busy={busy}
      hub={engine.hub}
      onHubChange={engine.setHub}
    />
  );
}
