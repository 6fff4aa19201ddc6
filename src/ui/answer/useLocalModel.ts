/**
 * @file The in-browser model (wllama, WebLLM or ONNX Runtime) of the answer panel: loaded on request, once
 * per source, with its progress; disposed when the source changes or the panel goes away.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { STOPPED } from '../../llm/errors';
import { loadLocal, type LocalSource } from '../../llm/engines';
import type { LlmEngine, LlmError, LoadProgress } from '../../llm/types';

export type { LocalSource } from '../../llm/engines';

export interface LocalModelState {
  /** Identity of the source this state is about. */
  key: string;
  status: 'loading' | 'ready' | 'error';
  progress: LoadProgress | null;
  engine: LlmEngine | null;
  error: LlmError | null;
}

export function localSourceKey(source: LocalSource): string {
  if (source.kind === 'webllm') return `webllm ${source.modelId}`;
  if (source.kind === 'onnx') {
    const o = source.source;
    return `onnx ${o.modelId} at ${o.host} ctx ${o.contextSize} threads ${o.threads || 'auto'}`;
  }
  const s = source.source;
  const where =
    s.kind === 'url' ? `url ${s.url}` : `file ${s.file.name} ${s.file.size} ${s.file.lastModified}`;
  return `wllama ${where} ctx ${source.options.contextSize} threads ${source.options.threads ?? 'auto'} gpu ${source.options.gpu ?? 'off'}`;
}

export function useLocalModel() {
  const [state, setState] = useState<LocalModelState | null>(null);
  const current = useRef<{ key: string; engine: Promise<LlmEngine | LlmError> } | null>(null);
  const loading = useRef<AbortController | null>(null);

  const unload = useCallback(() => {
    loading.current?.abort();
    loading.current = null;
    const previous = current.current;
    current.current = null;
    setState(null);
    void previous?.engine.then((e) => ('generate' in e ? e.dispose() : undefined));
  }, []);

  useEffect(() => unload, [unload]);

  /**
   * The engine for `source`: the loaded one when it is the same source, else a new load (the
   * previous model is freed first: two models rarely fit in memory).
   */
  const load = useCallback(
    (source: LocalSource, signal?: AbortSignal): Promise<LlmEngine | LlmError> => {
      const key = localSourceKey(source);
      if (current.current?.key === key) return current.current.engine;
      unload();
      const controller = new AbortController();
      loading.current = controller;
      signal?.addEventListener('abort', () => controller.abort(), { once: true });
      setState({ key, status: 'loading', progress: null, engine: null, error: null });
      const onProgress = (progress: LoadProgress) =>
        setState((s) => (s?.key === key ? { ...s, progress } : s));
      const events = { onProgress, signal: controller.signal };
      const engine = (async (): Promise<LlmEngine | LlmError> => {
        // The engine table's factory for the source's kind (src/llm/engines.ts).
        const r = await loadLocal(source, events);
        if (loading.current === controller) loading.current = null;
        if (current.current?.key !== key) {
          if (r.ok) void r.engine.dispose();
          return r.ok ? STOPPED : r.error;
        }
        if (!r.ok) {
          // A failed or cancelled load is not kept: the next request tries again.
          current.current = null;
          setState({ key, status: 'error', progress: null, engine: null, error: r.error });
          return r.error;
        }
        setState((s) => ({
          key,
          status: 'ready',
          progress: s?.progress ?? null,
          engine: r.engine,
          error: null,
        }));
        return r.engine;
      })();
      current.current = { key, engine };
      return engine;
    },
    [unload],
  );

  return { state, load, unload };
}
