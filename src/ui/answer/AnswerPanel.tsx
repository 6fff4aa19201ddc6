/**
 * @file The answer to the current question: pick an engine, press Answer, read the streamed
 * answer whose citations open their fragments; stop, regenerate, copy, and see the exact prompt.
 *
 * The panel asks nothing of the network by itself. An API engine is called when the person
 * presses Answer; an in-browser model is downloaded when they press Load (or Answer).
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { citedLabels } from '../../core/citations';
import { storyQaPrompt, type Prompt, type PromptSource } from '../../core/prompt';
import { fitPromptToEngine } from '../../llm/fit';
import { KeyRing, type SettingsStore } from '../../llm/keys';
import { probeCapabilities } from '../../models/capabilities';
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
import type { FinishReason, GenerateStats, LlmEngine, LlmError } from '../../llm/types';
import { webLlmUnsupported } from '../../llm/webllm';
import { webLlmModel } from '../../llm/webllm-catalogue';
import { ggufUrl } from '../../llm/wllama';
import type { RetrievalResult } from '../../workers/retrieval-types';
import { AnswerText } from './AnswerText';
import { EngineSettingsForm } from './EngineSettings';
import { selectedFragments } from './fragments';
import { PromptDetails } from './PromptDetails';
import { localSourceKey, useLocalModel, type LocalSource } from './useLocalModel';
import './answer.css';

export interface AnswerPanelProps {
  /** The current retrieval result (null before the first question). */
  result: RetrievalResult | null;
  /** Source text per document id. */
  sources: ReadonlyMap<string, string>;
  /** Where engine settings and remembered keys are kept (the library). */
  library: SettingsStore;
  /** Open a fragment in the reader. */
  onCite: (fragmentIndex: number) => void;
}

type RunStatus = 'preparing' | 'loading' | 'streaming' | 'done' | 'stopped' | 'error';

interface Run {
  id: number;
  question: string;
  status: RunStatus;
  text: string;
  prompt: Prompt | null;
  exactCounts: boolean;
  engineLabel: string;
  error: LlmError | null;
  stats: GenerateStats | null;
  finish: FinishReason | null;
}

const STATUS_TEXT: Record<RunStatus, string> = {
  preparing: 'Preparing the prompt…',
  loading: 'Loading the model…',
  streaming: 'Writing…',
  done: 'Done.',
  stopped: 'Stopped.',
  error: 'The answer could not be completed.',
};

export function AnswerPanel({ result, sources, library, onCite }: AnswerPanelProps) {
  const [settings, setSettings] = useState<EngineSettings>(defaultEngineSettings);
  const ring = useMemo(() => new KeyRing(library), [library]);
  const [keysVersion, setKeysVersion] = useState(0);
  const [rememberWanted, setRememberWanted] = useState<Record<string, boolean>>({});
  const [ggufFile, setGgufFile] = useState<File | null>(null);
  const [webgpuProblem, setWebgpuProblem] = useState<LlmError | null>(null);
  const [run, setRun] = useState<Run | null>(null);
  const [copied, setCopied] = useState<'copied' | 'failed' | null>(null);
  const [activeLabel, setActiveLabel] = useState<number | null>(null);
  const local = useLocalModel();
  const abort = useRef<AbortController | null>(null);
  const runId = useRef(0);
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

  useEffect(() => () => abort.current?.abort(), []);

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
  const bump = () => setKeysVersion((v) => v + 1);
  const apiKey = {
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

  // The in-browser model the current settings point to.
  const localSource: LocalSource | null = useMemo(() => {
    if (settings.kind === 'webllm') return { kind: 'webllm', modelId: settings.webllm.modelId };
    if (settings.kind !== 'wllama') return null;
    const options = { contextSize: settings.wllama.contextSize };
    if (ggufFile) return { kind: 'wllama', source: { kind: 'file', file: ggufFile }, options };
    const url = ggufUrl(settings.wllama.url);
    return url ? { kind: 'wllama', source: { kind: 'url', url }, options } : null;
  }, [settings.kind, settings.webllm.modelId, settings.wllama, ggufFile]);

  const fragments = useMemo(
    () => (result ? selectedFragments(result, sources) : null),
    [result, sources],
  );
  const busy = run !== null && ['preparing', 'loading', 'streaming'].includes(run.status);

  /** Why Answer cannot be pressed now, or null. */
  const blocker = ((): string | null => {
    if (!result)
      return 'Ask a question first: the answer is written from the fragments it selects.';
    if (result.selected.length === 0) return 'No fragments were selected for this question.';
    if (!fragments) return 'Loading the text of the selected fragments…';
    if (isApiEngine(settings.kind)) return apiSettingsProblem(settings[settings.kind]);
    if (settings.kind === 'webllm' && webgpuProblem) return webgpuProblem.message;
    if (!localSource) {
      return settings.kind === 'wllama'
        ? 'Choose a .gguf model file, or enter its URL.'
        : 'Choose a model.';
    }
    return null;
  })();

  const answer = useCallback(async () => {
    if (!result || !fragments) return;
    abort.current?.abort();
    const controller = new AbortController();
    abort.current = controller;
    const id = ++runId.current;
    const question = result.question;
    const update = (patch: Partial<Run>) =>
      setRun((r) => (r && r.id === id ? { ...r, ...patch } : r));
    setCopied(null);
    setActiveLabel(null);
    setRun({
      id,
      question,
      status: 'preparing',
      text: '',
      prompt: null,
      exactCounts: false,
      engineLabel: '',
      error: null,
      stats: null,
      finish: null,
    });
    const failWith = (error: LlmError) =>
      update({ status: error.code === 'aborted' ? 'stopped' : 'error', error });

    let engine: LlmEngine | null;
    if (isApiEngine(settings.kind)) {
      engine = createApiEngine(settings, ring.get(scope) || undefined);
    } else if (localSource) {
      update({ status: 'loading' });
      const loaded = await local.load(localSource, controller.signal);
      if (!('generate' in loaded)) return failWith(loaded);
      engine = loaded;
    } else {
      engine = null;
    }
    if (!engine) {
      return failWith({ code: 'bad-request', message: blocker ?? 'Set up the engine first.' });
    }
    if (controller.signal.aborted) return failWith({ code: 'aborted', message: 'Stopped.' });

    update({ status: 'preparing', engineLabel: engine.label });
    // Never reserve more than half the window for the answer: the excerpts need room too.
    const answerTokens = Math.min(settings.answerTokens, Math.floor(engine.contextLimit / 2));
    let fitted;
    try {
      fitted = await fitPromptToEngine(
        engine,
        (budget) => storyQaPrompt({ question, fragments }, budget),
        answerTokens,
        controller.signal,
      );
    } catch (e) {
      if (controller.signal.aborted) return failWith({ code: 'aborted', message: 'Stopped.' });
      return failWith({
        code: 'engine',
        message: 'The prompt could not be measured for this model.',
        detail: (e as Error).message,
      });
    }
    if (!fitted.ok) return failWith({ code: 'context-length', message: fitted.reason });
    const prompt = fitted.prompt;
    update({ status: 'streaming', prompt, exactCounts: engine.exactTokenCounts });

    // Tokens arrive faster than the screen redraws: gather them and paint once per frame.
    let pending = '';
    let frame = 0;
    const flush = () => {
      frame = 0;
      if (!pending) return;
      const piece = pending;
      pending = '';
      setRun((r) => (r && r.id === id ? { ...r, text: r.text + piece } : r));
    };
    const outcome = await engine.generate({
      messages: prompt.messages,
      text: prompt.text,
      maxTokens: Math.max(16, Math.min(answerTokens, engine.contextLimit - prompt.tokens)),
      signal: controller.signal,
      onToken: (t) => {
        pending += t;
        frame ||= requestAnimationFrame(flush);
      },
    });
    if (frame) cancelAnimationFrame(frame);
    flush();
    if (abort.current === controller) abort.current = null;
    if (outcome.ok) {
      update({ status: 'done', stats: outcome.stats, finish: outcome.finish, text: outcome.text });
    } else {
      update({
        status: outcome.error.code === 'aborted' ? 'stopped' : 'error',
        error: outcome.error.code === 'aborted' ? null : outcome.error,
        stats: outcome.stats,
        text: outcome.text,
      });
    }
  }, [result, fragments, settings, ring, scope, localSource, local, blocker]);

  const stop = () => abort.current?.abort();

  const cite = (source: PromptSource) => {
    setActiveLabel(source.label);
    onCite(source.index);
    // The reader is in the retrieval panel above: bring it into view.
    requestAnimationFrame(() =>
      document.querySelector('.reader')?.scrollIntoView({ block: 'nearest', behavior: 'smooth' }),
    );
  };

  const copy = async () => {
    if (!run) return;
    try {
      await navigator.clipboard.writeText(run.text);
      setCopied('copied');
    } catch {
      setCopied('failed');
    }
  };

  const runText = run?.text ?? '';
  const runSources = run?.prompt?.sources.length ?? 0;
  const cited = useMemo(() => new Set(citedLabels(runText, runSources)), [runText, runSources]);

  const canLoad = localSource !== null;
  return (
    <section
      className="answer"
      aria-labelledby="answer-title"
      data-testid="answer-panel"
      data-state={run?.status ?? 'idle'}
    >
      <h2 id="answer-title" className="card__title">
        Answer
      </h2>
      <EngineSettingsForm
        settings={settings}
        onChange={changeSettings}
        apiKey={apiKey}
        local={
          local.state && localSource && local.state.key === localSourceKey(localSource)
            ? local.state
            : null
        }
        onLoad={() => {
          if (localSource) void local.load(localSource);
        }}
        onUnload={local.unload}
        ggufFile={ggufFile}
        onGgufFile={setGgufFile}
        webgpuProblem={settings.kind === 'webllm' ? webgpuProblem : null}
        canLoad={canLoad}
        busy={busy}
      />
      <div className="answer__actions">
        <button
          type="button"
          className="primary"
          onClick={() => void answer()}
          disabled={busy || blocker !== null}
        >
          Answer
        </button>
        {busy && (
          <button type="button" onClick={stop}>
            Stop
          </button>
        )}
        {run && !busy && (
          <button type="button" onClick={() => void answer()} disabled={blocker !== null}>
            Regenerate
          </button>
        )}
        {run && run.text && !busy && (
          <button type="button" onClick={() => void copy()}>
            Copy
          </button>
        )}
        {copied && (
          <span role="status" className="stats" data-testid="copy-status">
            {copied === 'copied' ? 'Copied the answer.' : 'Could not copy: the browser refused.'}
          </span>
        )}
      </div>
      {blocker && !busy && (
        <p className="engine__hint" data-testid="answer-blocker">
          {blocker}
        </p>
      )}
      {run && (
        <div className="answer__run">
          <p className="answer__question" data-testid="answer-question">
            Question: “{run.question}”
          </p>
          <p className="stats" role="status" data-testid="answer-status">
            {STATUS_TEXT[run.status]}
            {run.engineLabel && ` · ${run.engineLabel}`}
            {run.stats &&
              (run.status === 'done' || run.status === 'stopped') &&
              statsText(run.stats)}
            {run.finish === 'length' && ' · stopped at the answer length limit'}
          </p>
          {(run.text || run.status === 'streaming') && (
            <div
              className="answer__text"
              data-testid="answer-text"
              aria-live="polite"
              aria-busy={run.status === 'streaming'}
              data-tokens-per-second={run.stats?.tokensPerSecond?.toFixed(1) ?? ''}
            >
              {run.prompt ? (
                <AnswerText text={run.text} sources={run.prompt.sources} onCite={cite} />
              ) : (
                run.text
              )}
            </div>
          )}
          {run.error && (
            <div
              className="answer__error"
              role="alert"
              data-testid="answer-error"
              data-code={run.error.code}
            >
              <p>{run.error.message}</p>
              {run.error.detail && !run.error.message.includes(run.error.detail) && (
                <p className="stats">{run.error.detail}</p>
              )}
            </div>
          )}
          {run.prompt && (
            <>
              <ol className="answer__sources" aria-label="Excerpts the model was given">
                {run.prompt.sources.map((s) => (
                  <li
                    key={s.label}
                    className={`${cited.has(s.label) ? 'answer__source--cited' : ''}${activeLabel === s.label ? ' answer__source--active' : ''}`}
                  >
                    <button type="button" className="link" onClick={() => cite(s)}>
                      [{s.label}] {s.location}
                    </button>
                    {s.truncated && <span className="stats"> (cut to fit)</span>}
                  </li>
                ))}
              </ol>
              <PromptDetails prompt={run.prompt} exact={run.exactCounts} />
            </>
          )}
        </div>
      )}
    </section>
  );
}

function statsText(stats: GenerateStats): string {
  const parts: string[] = [];
  if (stats.completionTokens) parts.push(`${stats.completionTokens.toLocaleString('en')} tokens`);
  if (stats.tokensPerSecond) parts.push(`${stats.tokensPerSecond.toFixed(1)} tokens/s`);
  parts.push(`${(stats.elapsedMs / 1000).toFixed(1)} s`);
  return ` · ${parts.join(', ')}`;
}
