/**
 * @file "Check an embedding model": load a transformer model in the embed worker, embed a few
 * sentences, and show what came out (dims, norms, batch vs one-by-one, timing) or why it failed.
 *
 * A diagnostic tool for people and for the end-to-end tests: the full numbers are in
 * `<pre data-testid="result">` as JSON, and the page's state is `data-state` on its <main>.
 */
import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { Capabilities } from '../../models/capabilities';
import {
  EMBEDDING_MODELS,
  defaultDtype,
  resolveModel,
  type EmbedDtype,
} from '../../models/catalogue';
import { WorkerClient } from '../../workers/client';
import { RankPassages } from './RankPassages';
import type { EmbedApi, EmbedLoadResult } from '../../workers/embed.worker';
import { isAbortError, type Progress } from '../../workers/protocol';
import {
  CUSTOM_MODEL,
  SAMPLE_PASSAGES,
  SAMPLE_QUERY,
  analyse,
  formatBytes,
  rowsOf,
  settingsFromUrl,
  type CheckNumbers,
  type CheckSettings,
} from './check';

type Phase = 'idle' | 'loading' | 'embedding' | 'done' | 'error' | 'cancelled';

interface CheckResult {
  load: EmbedLoadResult;
  count: number;
  batchMs: number;
  singleMs: number;
  queryMs: number;
  numbers: CheckNumbers;
  /** Download progress events of the load, in order. */
  progress: Progress[];
  batch: number[][];
  single: number[][];
  query: number[];
}

function startWorker(): WorkerClient<EmbedApi> {
  return new WorkerClient<EmbedApi>(
    new Worker(new URL('../../workers/embed.worker.ts', import.meta.url), {
      type: 'module',
      name: 'embed',
    }),
  );
}

const initial = settingsFromUrl(window.location.search);

export function ModelCheck() {
  const [settings, setSettings] = useState<CheckSettings>(initial.settings);
  const [caps, setCaps] = useState<Capabilities | null>(null);
  const [capsError, setCapsError] = useState<string | null>(null);
  const [phase, setPhase] = useState<Phase>('idle');
  const [progress, setProgress] = useState<Progress | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [result, setResult] = useState<CheckResult | null>(null);
  const client = useRef<WorkerClient<EmbedApi> | null>(null);
  const running = useRef<AbortController | null>(null);

  const worker = () => (client.current ??= startWorker());

  useEffect(() => {
    let live = true;
    worker()
      .call('probe', null)
      .then((c) => live && setCaps(c))
      .catch((e: Error) => live && setCapsError(e.message));
    return () => {
      live = false;
    };
  }, []);

  useEffect(
    () => () => {
      running.current?.abort();
      client.current?.terminate();
      client.current = null;
    },
    [],
  );

  const busy = phase === 'loading' || phase === 'embedding';
  const modelId = settings.choice === CUSTOM_MODEL ? settings.customId.trim() : settings.choice;
  let modelInfo: ReturnType<typeof resolveModel> | null = null;
  try {
    modelInfo = modelId ? resolveModel(modelId) : null;
  } catch {
    modelInfo = null;
  }
  const dtypes: readonly EmbedDtype[] = modelInfo?.dtypes ?? ['q8', 'fp32', 'fp16'];
  const update = (patch: Partial<CheckSettings>) => setSettings((s) => ({ ...s, ...patch }));

  async function run(event: FormEvent) {
    event.preventDefault();
    if (busy) return;
    const controller = new AbortController();
    running.current = controller;
    const { signal } = controller;
    setError(null);
    setResult(null);
    setProgress(null);
    setPhase('loading');
    const events: Progress[] = [];
    try {
      const w = worker();
      const load = await w.call(
        'load',
        {
          modelId,
          host: settings.host,
          device: settings.device,
          dtype: settings.dtype || undefined,
          batchSize: settings.batchSize,
          batchTokens: settings.batchTokens,
          ...(settings.threads ? { threads: settings.threads } : {}),
        },
        {
          signal,
          onProgress: (p) => {
            if (p.stage === 'download') events.push(p);
            setProgress(p);
          },
        },
      );
      setPhase('embedding');
      const texts = [...SAMPLE_PASSAGES];
      const onProgress = (p: Progress) => setProgress(p);
      const batch = await w.call('embed', { texts, kind: 'passage' }, { signal, onProgress });
      const singles: Float32Array[] = [];
      let singleMs = 0;
      for (const text of texts) {
        const one = await w.call('embed', { texts: [text], kind: 'passage' }, { signal });
        singles.push(one.data);
        singleMs += one.ms;
      }
      const query = await w.call('embed', { texts: [SAMPLE_QUERY], kind: 'query' }, { signal });
      const batchRows = rowsOf(batch.data, batch.dim);
      const numbers = analyse(texts, batchRows, singles, query.data);
      setResult({
        load,
        count: batch.count,
        batchMs: batch.ms,
        singleMs,
        queryMs: query.ms,
        numbers,
        progress: events,
        batch: batchRows.map((r) => Array.from(r)),
        single: singles.map((r) => Array.from(r)),
        query: Array.from(query.data),
      });
      setPhase('done');
    } catch (e) {
      if (isAbortError(e)) {
        setPhase('cancelled');
      } else {
        setError(e instanceof Error ? e.message : String(e));
        setPhase('error');
      }
    } finally {
      if (running.current === controller) running.current = null;
    }
  }

  function cancel() {
    // The worker aborts the downloads in flight, or stops before the next batch.
    running.current?.abort();
  }

  return (
    <main className="model-check" data-state={phase} aria-busy={busy}>
      <h1>Check an embedding model</h1>
      <p className="lead">
        Loads a transformer embedding model in a background worker, embeds a few sentences and shows
        what came out. Part of <a href="./">FragRel Lens</a>.
      </p>

      <section aria-labelledby="device-heading">
        <h2 id="device-heading">This browser</h2>
        {capsError && <p role="alert">Could not probe the device: {capsError}</p>}
        {!caps && !capsError && <p>Probing…</p>}
        {caps && (
          <dl className="facts" data-testid="capabilities" data-device={caps.device}>
            <dt>Device (auto)</dt>
            <dd data-testid="auto-device">{caps.device}</dd>
            <dt>WebGPU adapter</dt>
            <dd>
              {caps.adapter
                ? [
                    caps.adapter.vendor || 'unknown vendor',
                    caps.adapter.architecture,
                    caps.adapter.description,
                    caps.adapter.isFallbackAdapter ? '(software fallback: slow)' : '',
                    caps.adapter.shaderF16 ? 'shader-f16' : 'no shader-f16',
                  ]
                    .filter(Boolean)
                    .join(', ')
                : (caps.webgpuUnavailableReason ?? 'none')}
            </dd>
            <dt>Cross-origin isolated</dt>
            <dd>
              {caps.crossOriginIsolated ? 'yes (wasm threads available)' : 'no (one wasm thread)'}
            </dd>
            <dt>CPU cores</dt>
            <dd>{caps.hardwareConcurrency}</dd>
          </dl>
        )}
      </section>

      <form onSubmit={run} aria-labelledby="model-heading">
        <h2 id="model-heading">Model</h2>
        {initial.problems.map((p) => (
          <p key={p} className="note">
            {p}
          </p>
        ))}
        <div className="field">
          <label htmlFor="model-choice">Model</label>
          <select
            id="model-choice"
            value={settings.choice}
            disabled={busy}
            onChange={(e) => update({ choice: e.target.value, dtype: '' })}
          >
            <optgroup label="Catalogue">
              {EMBEDDING_MODELS.filter((m) => !m.testOnly).map((m) => (
                <option key={m.key} value={m.key}>
                  {m.label}, about {m.approxMB[defaultDtype(m)]} MB
                </option>
              ))}
            </optgroup>
            <optgroup label="Tests only (random weights)">
              {EMBEDDING_MODELS.filter((m) => m.testOnly).map((m) => (
                <option key={m.key} value={m.key}>
                  {m.label}
                </option>
              ))}
            </optgroup>
            <option value={CUSTOM_MODEL}>Another hub id…</option>
          </select>
        </div>
        {settings.choice === CUSTOM_MODEL && (
          <RequiredField
            id="model-id"
            label="Hub id"
            type="text"
            placeholder="org/model-name"
            value={settings.customId}
            disabled={busy}
            onChange={(customId) => update({ customId })}
          />
        )}
        {modelInfo && <p className="note">{modelInfo.note}</p>}
        <RequiredField
          id="hub-host"
          label="Hub host"
          type="url"
          value={settings.host}
          disabled={busy}
          onChange={(host) => update({ host })}
        />
        <div className="row">
          <div className="field">
            <label htmlFor="device">Device</label>
            <select
              id="device"
              value={settings.device}
              disabled={busy}
              onChange={(e) => update({ device: e.target.value as CheckSettings['device'] })}
            >
              <option value="auto">auto{caps ? ` (${caps.device})` : ''}</option>
              <option value="webgpu">webgpu</option>
              <option value="wasm">wasm</option>
            </select>
          </div>
          <div className="field">
            <label htmlFor="dtype">Weights</label>
            <select
              id="dtype"
              value={settings.dtype}
              disabled={busy}
              onChange={(e) => update({ dtype: e.target.value as CheckSettings['dtype'] })}
            >
              <option value="">default{modelInfo ? ` (${defaultDtype(modelInfo)})` : ''}</option>
              {dtypes.map((d) => (
                <option key={d} value={d}>
                  {d}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="batch-size">Batch size</label>
            <input
              id="batch-size"
              type="number"
              min={1}
              max={1024}
              value={settings.batchSize}
              disabled={busy}
              onChange={(e) => update({ batchSize: Number(e.target.value) || 1 })}
            />
          </div>
        </div>
        <div className="actions">
          <button type="submit" disabled={busy || !modelId}>
            Load and check
          </button>
          <button type="button" onClick={cancel} disabled={!busy}>
            Cancel
          </button>
        </div>
      </form>

      <section aria-labelledby="status-heading">
        <h2 id="status-heading">Status</h2>
        <div role="status" aria-live="polite" data-testid="status">
          {statusText(phase, progress)}
        </div>
        {busy && progress && (
          <progress
            aria-label="Progress"
            max={progress.total || 1}
            value={progress.total ? progress.done : undefined}
          />
        )}
        {error && (
          <p role="alert" className="error" data-testid="error">
            {error}
          </p>
        )}
      </section>

      {result && <Results result={result} />}
      {result && <RankPassages worker={worker} disabled={busy} />}
    </main>
  );
}

function statusText(phase: Phase, p: Progress | null): string {
  switch (phase) {
    case 'idle':
      return 'Pick a model and press "Load and check".';
    case 'loading':
      if (p?.stage === 'download')
        return `Downloading: ${formatBytes(p.done)} of ${formatBytes(p.total)}`;
      if (p?.stage === 'warmup') return 'Starting the model…';
      return 'Loading…';
    case 'embedding':
      return p?.stage === 'embed' ? `Embedding: ${p.done} of ${p.total} sentences` : 'Embedding…';
    case 'done':
      return 'Done.';
    case 'cancelled':
      return 'Cancelled.';
    case 'error':
      return 'Failed.';
  }
}

function Results({ result }: { result: CheckResult }) {
  const { load, numbers } = result;
  const worstNorm = Math.max(...numbers.norms.map((n) => Math.abs(n - 1)));
  const worstBatch = Math.max(...numbers.batchVsSingle);
  return (
    <section aria-labelledby="result-heading" data-testid="results">
      <h2 id="result-heading">Result</h2>
      <dl className="facts">
        <dt>Model</dt>
        <dd>
          {load.id} ({load.dtype}) from {load.host}
        </dd>
        <dt>Device used</dt>
        <dd data-testid="device-used">{load.device}</dd>
        {load.fallbackReason && (
          <>
            <dt>Fallback</dt>
            <dd>{load.fallbackReason}</dd>
          </>
        )}
        <dt>Dimension</dt>
        <dd data-testid="dim">{load.dim}</dd>
        <dt>wasm threads</dt>
        <dd data-testid="wasm-threads">
          {load.wasmThreads}
          {load.wasmThreads !== load.setup.numThreads
            ? ` (asked for ${load.setup.numThreads})`
            : ''}
        </dd>
        <dt>Load (download and warm-up)</dt>
        <dd>{load.ms.toFixed(0)} ms</dd>
        <dt>Embed {result.count} sentences as one call</dt>
        <dd>{result.batchMs.toFixed(1)} ms</dd>
        <dt>Embed them one by one</dt>
        <dd>{result.singleMs.toFixed(1)} ms</dd>
        <dt>Largest |norm − 1|</dt>
        <dd>{worstNorm.toExponential(2)}</dd>
        <dt>Largest batch vs one-by-one difference</dt>
        <dd>{worstBatch.toExponential(2)}</dd>
        <dt>Equal texts, largest difference</dt>
        <dd>{numbers.equalTextDiff.toExponential(2)}</dd>
      </dl>
      <table>
        <caption>Sample sentences</caption>
        <thead>
          <tr>
            <th scope="col">Sentence</th>
            <th scope="col">Norm</th>
            <th scope="col">Cosine to “{SAMPLE_QUERY}”</th>
          </tr>
        </thead>
        <tbody>
          {SAMPLE_PASSAGES.map((s, i) => (
            <tr key={i}>
              <td>{s}</td>
              <td>{numbers.norms[i].toFixed(6)}</td>
              <td>{numbers.queryCosines[i].toFixed(4)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <details>
        <summary>All numbers (JSON)</summary>
        <pre data-testid="result">
          {JSON.stringify({
            ...result,
            texts: SAMPLE_PASSAGES,
            queryText: SAMPLE_QUERY,
          })}
        </pre>
      </details>
    </section>
  );
}

/** A required text field of the form (no spell-check: ids and addresses). */
function RequiredField({
  id,
  label,
  type,
  placeholder,
  value,
  disabled,
  onChange,
}: {
  id: string;
  label: string;
  type: 'text' | 'url';
  placeholder?: string;
  value: string;
  disabled: boolean;
  onChange: (value: string) => void;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type={type}
        placeholder={placeholder}
        value={value}
        disabled={disabled}
        onChange={(e) => onChange(e.target.value)}
        required
        spellCheck={false}
      />
    </div>
  );
}
