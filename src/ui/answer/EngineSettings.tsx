import { useId, type ReactNode } from 'react';
import type { ApiEngineKind } from '../../llm/engines';
import { hostOf } from '../../llm/errors';
import { READING_TARGET_SECONDS, WHOLE_WINDOW } from '../../llm/reading-budget';
import {
  ENGINE_KINDS,
  ENGINE_LABELS,
  OPENAI_PRESETS,
  apiSettingsProblem,
  isApiEngine,
  type ApiEngineSettings,
  type EngineSettings,
} from '../../llm/settings';
import type { EngineKind } from '../../llm/types';
import { WEBLLM_MODELS, describeWebLlmModel } from '../../llm/webllm-catalogue';
import { WllamaEngine } from '../../llm/wllama';
import { OnnxLlmEngine } from '../../llm/onnx/engine';
import type { EngineSettingsProps, KeyField } from './engine-fields';
import { WllamaFields } from './WllamaFields';
import { OnnxFields } from './OnnxFields';
import './engine.css';

export type { EngineSettingsProps, KeyField } from './engine-fields';

/** The engine's settings: which engine, its endpoint or model, the key, the answer length. */
export function EngineSettingsForm(props: EngineSettingsProps) {
  const { settings, onChange } = props;
  const id = useId();
  const setKind = (kind: EngineKind) => onChange({ ...settings, kind });
  return (
    <fieldset className="engine" data-testid="engine-settings">
      <legend>Answer engine</legend>
      <div className="engine__row">
        <label htmlFor={`${id}-kind`}>Engine</label>
        <select
          id={`${id}-kind`}
          value={settings.kind}
          onChange={(e) => setKind(e.target.value as EngineKind)}
        >
          {ENGINE_KINDS.map((k) => (
            <option key={k} value={k}>
              {ENGINE_LABELS[k]}
            </option>
          ))}
        </select>
      </div>
      <p className="engine__privacy" data-testid="engine-privacy">
        {privacyLine(settings)}
      </p>
      {ENGINE_FIELDS[settings.kind](props, `${id}-${settings.kind}`)}
      {!isApiEngine(settings.kind) && <LocalStatus {...props} />}
      <div className="engine__row">
        <label htmlFor={`${id}-answer-tokens`}>Answer length (tokens)</label>
        <input
          id={`${id}-answer-tokens`}
          type="number"
          min={16}
          max={32768}
          step={16}
          value={settings.answerTokens}
          onChange={(e) => {
            const v = Number(e.target.value);
            if (Number.isFinite(v) && v >= 16)
              onChange({ ...settings, answerTokens: Math.round(v) });
          }}
        />
      </div>
      {(settings.kind === 'wllama' || settings.kind === 'onnx') && (
        <div className="engine__row">
          <label htmlFor={`${id}-passages`}>Passages to read</label>
          <select
            id={`${id}-passages`}
            value={settings.passageScale}
            title="A model on this computer's CPU reads the passages before it writes a word: the more it is given, the longer the wait."
            onChange={(e) => onChange({ ...settings, passageScale: Number(e.target.value) })}
          >
            {PASSAGE_SCALES.map(([scale, label]) => (
              <option key={scale} value={scale}>
                {label}
              </option>
            ))}
          </select>
        </div>
      )}
      <div className="engine__row">
        <label htmlFor={`${id}-temperature`}>Temperature</label>
        <input
          id={`${id}-temperature`}
          type="number"
          min={0}
          max={2}
          step={0.1}
          value={settings.temperature}
          title="0 gives the model's most likely answer, the same every time; higher values vary it."
          onChange={(e) => {
            const v = Number(e.target.value);
            if (Number.isFinite(v) && v >= 0 && v <= 2) onChange({ ...settings, temperature: v });
          }}
        />
      </div>
    </fieldset>
  );
}

/** The reading budget's choices (reading-budget.ts): its scale and how it reads. */
const PASSAGE_SCALES: ReadonlyArray<readonly [number, string]> = [
  [1, `What it reads in about ${READING_TARGET_SECONDS} s here`],
  [2, 'Twice that'],
  [4, 'Four times that'],
  [8, '8 times that'],
  [16, '16 times that'],
  [32, '32 times that'],
  [64, '64 times that'],
  [WHOLE_WINDOW, 'As many as the context window holds'],
];

/**
 * Each engine's own fields, by kind: typed by the engine table's kinds (src/llm/engines.ts), so
 * an engine registered there without its fields here does not compile.
 */
const ENGINE_FIELDS: {
  readonly [K in EngineKind]: (props: EngineSettingsProps, idPrefix: string) => ReactNode;
} = {
  openai: (props, idPrefix) => apiFields('openai', props, idPrefix, true),
  anthropic: (props, idPrefix) => apiFields('anthropic', props, idPrefix, false),
  wllama: (props, idPrefix) => <WllamaFields {...props} idPrefix={idPrefix} />,
  webllm: (props, idPrefix) => <WebLlmFields {...props} idPrefix={idPrefix} />,
  onnx: (props, idPrefix) => <OnnxFields {...props} idPrefix={idPrefix} />,
};

function apiFields(
  kind: ApiEngineKind,
  { settings, onChange, apiKey }: EngineSettingsProps,
  idPrefix: string,
  presets: boolean,
) {
  return (
    <ApiFields
      idPrefix={idPrefix}
      value={settings[kind]}
      onChange={(next) => onChange({ ...settings, [kind]: next })}
      apiKey={apiKey}
      presets={presets}
    />
  );
}

function privacyLine(settings: EngineSettings): string {
  if (isApiEngine(settings.kind)) {
    const host = hostOf(settings[settings.kind].baseUrl) || 'the endpoint';
    return `Your question or message and the excerpts or earlier rounds chosen for it are sent to ${host}, and your key goes only there.`;
  }
  return 'Runs in this page: nothing leaves your computer, apart from downloading the model when you ask for it.';
}

function ApiFields({
  idPrefix,
  value,
  onChange,
  apiKey,
  presets = false,
}: {
  idPrefix: string;
  value: ApiEngineSettings;
  onChange: (next: ApiEngineSettings) => void;
  apiKey: KeyField;
  presets?: boolean;
}) {
  const problem = apiSettingsProblem(value);
  return (
    <>
      {presets && (
        <div className="engine__row">
          <label htmlFor={`${idPrefix}-preset`}>Preset</label>
          <select
            id={`${idPrefix}-preset`}
            value={OPENAI_PRESETS.find((p) => p.baseUrl === value.baseUrl)?.baseUrl ?? ''}
            onChange={(e) => {
              const preset = OPENAI_PRESETS.find((p) => p.baseUrl === e.target.value);
              if (preset) onChange({ ...value, baseUrl: preset.baseUrl, model: preset.model });
            }}
          >
            <option value="">Custom</option>
            {OPENAI_PRESETS.map((p) => (
              <option key={p.baseUrl} value={p.baseUrl}>
                {p.label}
              </option>
            ))}
          </select>
        </div>
      )}
      <div className="engine__row">
        <label htmlFor={`${idPrefix}-url`}>Base URL</label>
        <input
          id={`${idPrefix}-url`}
          type="url"
          value={value.baseUrl}
          spellCheck={false}
          onChange={(e) => onChange({ ...value, baseUrl: e.target.value.trim() })}
        />
      </div>
      <div className="engine__row">
        <label htmlFor={`${idPrefix}-model`}>Model</label>
        <input
          id={`${idPrefix}-model`}
          value={value.model}
          spellCheck={false}
          onChange={(e) => onChange({ ...value, model: e.target.value })}
        />
      </div>
      <div className="engine__row">
        <label htmlFor={`${idPrefix}-key`}>API key</label>
        <input
          id={`${idPrefix}-key`}
          type="password"
          autoComplete="off"
          spellCheck={false}
          value={apiKey.value}
          placeholder="Not needed for most local servers"
          onChange={(e) => apiKey.onChange(e.target.value.trim())}
        />
      </div>
      <div className="engine__row engine__row--key">
        <label>
          <input
            type="checkbox"
            checked={apiKey.remember}
            onChange={(e) => apiKey.onRemember(e.target.checked)}
          />{' '}
          Remember the key on this device
        </label>
        {apiKey.stored && (
          <span className="engine__stored" data-testid="key-stored">
            Stored in this browser, unencrypted.{' '}
            <button type="button" onClick={apiKey.onForget}>
              Forget the key
            </button>
          </span>
        )}
      </div>
      <div className="engine__row">
        <label htmlFor={`${idPrefix}-context`}>Context window (tokens)</label>
        <input
          id={`${idPrefix}-context`}
          type="number"
          min={256}
          step={1024}
          value={value.contextLimit}
          onChange={(e) => {
            const v = Number(e.target.value);
            if (Number.isFinite(v) && v >= 256) onChange({ ...value, contextLimit: Math.round(v) });
          }}
        />
      </div>
      {problem && <p className="engine__hint">{problem}</p>}
    </>
  );
}

function WebLlmFields(props: EngineSettingsProps & { idPrefix: string }) {
  const { settings, onChange, webgpuProblem, idPrefix } = props;
  return (
    <>
      <div className="engine__row">
        <label htmlFor={`${idPrefix}-model`}>Model</label>
        <select
          id={`${idPrefix}-model`}
          value={settings.webllm.modelId}
          onChange={(e) => onChange({ ...settings, webllm: { modelId: e.target.value } })}
        >
          {WEBLLM_MODELS.map((m) => (
            <option key={m.id} value={m.id}>
              {describeWebLlmModel(m)}
            </option>
          ))}
        </select>
      </div>
      <p className="engine__hint">
        Downloaded once from huggingface.co (weights) and raw.githubusercontent.com (model library),
        then kept in the browser’s cache.
      </p>
      {webgpuProblem && (
        <div className="engine__problem" role="alert" data-testid="webllm-unsupported">
          <p>{webgpuProblem.message}</p>
          {webgpuProblem.detail && <p className="stats">{webgpuProblem.detail}</p>}
          <p>
            <button type="button" onClick={() => onChange({ ...settings, kind: 'wllama' })}>
              Use wllama
            </button>{' '}
            <button type="button" onClick={() => onChange({ ...settings, kind: 'openai' })}>
              Use an OpenAI-compatible API
            </button>{' '}
            <button type="button" onClick={() => onChange({ ...settings, kind: 'anthropic' })}>
              Use the Anthropic API
            </button>
          </p>
        </div>
      )}
    </>
  );
}

/**
 * The CPU threads a local model runs on (null for other engines): worth showing, because a page
 * that is not cross-origin isolated runs it on one thread (docs/deploy.md).
 */
function engineThreads(engine: unknown): number | null {
  if (engine instanceof WllamaEngine) return engine.model.threads;
  return engine instanceof OnnxLlmEngine ? engine.facts.threads : null;
}

function LocalStatus({
  local,
  onLoad,
  onUnload,
  canLoad,
  busy,
  webgpuProblem,
  settings,
}: EngineSettingsProps) {
  const blocked = settings.kind === 'webllm' && webgpuProblem !== null;
  const progress = local?.progress;
  return (
    <div className="engine__local" data-testid="local-model" data-status={local?.status ?? 'none'}>
      <button
        type="button"
        onClick={onLoad}
        disabled={
          !canLoad || blocked || busy || local?.status === 'loading' || local?.status === 'ready'
        }
      >
        Load the model
      </button>
      {(local?.status === 'ready' || local?.status === 'loading') && (
        <button type="button" onClick={onUnload}>
          {local.status === 'loading' ? 'Cancel' : 'Unload'}
        </button>
      )}
      {local?.status === 'loading' && (
        <span role="status">
          {progress?.text ?? 'Starting…'}
          {progress && progress.total > 0 && (
            <>
              {' '}
              <progress
                max={progress.total}
                value={progress.loaded}
                aria-label="Model download"
              />{' '}
              {Math.round((progress.loaded / progress.total) * 100)}%
            </>
          )}
        </span>
      )}
      {local?.status === 'ready' && local.engine && (
        <span
          role="status"
          data-testid="local-model-ready"
          data-threads={engineThreads(local.engine) ?? undefined}
        >
          Ready: {local.engine.label} · context {local.engine.contextLimit.toLocaleString('en')}{' '}
          tokens
          {engineThreads(local.engine) !== null &&
            ` · ${engineThreads(local.engine)} CPU thread${engineThreads(local.engine) === 1 ? '' : 's'}`}
          {local.engine instanceof WllamaEngine && local.engine.model.gpuNote && (
            <span className="stats" data-testid="local-model-gpu-note">
              {' '}
              · {local.engine.model.gpuNote}
            </span>
          )}
        </span>
      )}
      {local?.status === 'error' && local.error && local.error.code !== 'aborted' && (
        <span role="alert" className="engine__error" data-testid="local-model-error">
          {local.error.message}
          {local.error.detail && <span className="stats"> ({local.error.detail})</span>}
        </span>
      )}
    </div>
  );
}
