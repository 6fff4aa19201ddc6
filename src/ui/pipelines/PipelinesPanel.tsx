/**
 * @file Answer the current question with a pipeline (FragRel, LongRAG, SEGMENT+) on the
 * workspace's engine (set in the answer panel), see its progress step by step, stop it, and read
 * its trace. Its own component, so the page layout can place it anywhere.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import {
  defaultPipelineSettings,
  PIPELINE_IDS,
  PIPELINES,
  type PipelineId,
  type PipelineSettings,
} from '../../core/pipelines/registry';
import type { PipelineMemory, PipelineOutput, PipelineProgress } from '../../core/pipelines/types';
import type { PromptSource } from '../../core/prompt';
import type { TextKind } from '../../core/types';
import type { EmbedderSpec } from '../../models/embedder';
import type { LlmError } from '../../llm/types';
import type { RetrievalResult } from '../../workers/retrieval-types';
import { MarkdownAnswer } from '../markdown/MarkdownAnswer';
import { useEngine } from '../answer/useEngine';
import { ErrorBox } from '../components/ErrorBox';
import { engineOptions } from '../compare/engines';
import { requestRuns } from './estimate';
import { usePipelineHelpers, usePipelineLibrary } from './helpers';
import { PipelineSettingsForm } from './PipelineSettingsForm';
import { runOnPage } from './run';
import { RunEstimate, useCostGate } from './RunEstimate';
import { TraceView } from './TraceView';
import './pipelines.css';

export interface PipelinesPanelProps {
  result: RetrievalResult | null;
  sources: ReadonlyMap<string, string>;
  /** The kind of a document (repositories map hits to files, books to paragraphs). */
  kindOf?: (docId: string) => TextKind;
  onCite: (fragmentIndex: number) => void;
  /** Where models are downloaded from (the library's hub host setting). */
  hubHost?: string;
  /** The library's embedder (QRMeM's edge similarity): static GloVe or the transformer. */
  embedder?: EmbedderSpec;
  /** Where QRMeM keeps what does not depend on the question (the library's store). */
  memory?: PipelineMemory;
}

interface Run {
  id: number;
  pipeline: PipelineId;
  question: string;
  status: 'loading' | 'running' | 'done' | 'stopped' | 'error';
  progress: PipelineProgress | null;
  text: string;
  output: PipelineOutput | null;
  error: LlmError | null;
}

export function PipelinesPanel(props: PipelinesPanelProps) {
  const { result, onCite, hubHost, embedder, memory } = props;
  const engine = useEngine();
  const [pipeline, setPipeline] = useState<PipelineId>('longrag');
  const [settings, setSettings] = useState<PipelineSettings>(defaultPipelineSettings);
  const [run, setRun] = useState<Run | null>(null);
  const helpers = usePipelineHelpers(true, hubHost, embedder);
  const abort = useRef<AbortController | null>(null);
  const runId = useRef(0);
  const gate = useCostGate();
  // The engine the run goes to, for the estimate's time or price and the speed it measures.
  const current = engineOptions(engine)[0];
  useEffect(() => () => abort.current?.abort(), []);

  const library = usePipelineLibrary(props);

  const busy = run !== null && (run.status === 'loading' || run.status === 'running');
  const blocker = !result
    ? 'Ask a question first: the pipelines answer the question asked above.'
    : !library
      ? 'Loading the text of the documents…'
      : engine.problem;
  const name = PIPELINES[pipeline].name;
  // The settings form's props (the same as the evaluation page's, with this panel's state).
  const form = { settings, onChange: setSettings, disabled: busy, reranker: helpers.reranker };

  const start = useCallback(async () => {
    if (!result || !library) return;
    abort.current?.abort();
    const controller = new AbortController();
    abort.current = controller;
    const { signal } = controller;
    const id = ++runId.current;
    const update = (patch: Partial<Run> | ((r: Run) => Partial<Run>)) =>
      setRun((r) =>
        r && r.id === id ? { ...r, ...(typeof patch === 'function' ? patch(r) : patch) } : r,
      );
    setRun({
      id,
      pipeline,
      question: result.question,
      status: 'loading',
      progress: null,
      text: '',
      output: null,
      error: null,
    });
    const stopped = (error: LlmError) =>
      update({ status: signal.aborted || error.code === 'aborted' ? 'stopped' : 'error', error });
    const acquired = await engine.acquire(signal);
    if (!('generate' in acquired)) return stopped(acquired);
    const loaded = await helpers.load([pipeline], signal);
    if (!loaded.ok) return stopped(loaded.error);
    update({ status: 'running' });
    // A pipeline reports its own failures in its output; anything else thrown must still end the
    // run with a message, not leave the panel "running" with nothing running (Compare does too).
    const output = await runOnPage({
      pipeline,
      question: result.question,
      library,
      engine: acquired,
      speedOf: current,
      helpers: loaded.helpers,
      ...(memory ? { memory } : {}),
      settings,
      temperature: engine.settings.temperature,
      signal,
      onProgress: (progress) => update({ progress }),
      onAnswerToken: (piece) => update((r) => ({ text: r.text + piece })),
    }).catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));
    if (abort.current === controller) abort.current = null;
    if (output instanceof Error) {
      return stopped({ code: 'engine', message: 'The pipeline failed.', detail: output.message });
    }
    update({
      status: output.status,
      output,
      text: output.answer || '',
      error: (output.error as LlmError | undefined) ?? null,
    });
  }, [current, engine, helpers, library, memory, pipeline, result, settings]);

  // The embedder is loaded for QRMeM's dry run, which needs it; the engine is not touched.
  const requestRun = () => {
    if (!result || !library) return;
    const one = { chosen: [pipeline], options: [current], settingsOf: { [pipeline]: settings } };
    const { models } = helpers;
    requestRuns(gate, { ...one, engineOf: {}, engine, result, library, embedder, models }, start);
  };

  const sourcesOfRun: PromptSource[] = useMemo(
    () => run?.output?.citations.map((c) => ({ ...c, truncated: false })) ?? [],
    [run?.output],
  );

  return (
    <section
      className="answer pipelines"
      aria-labelledby="pipelines-title"
      data-testid="pipelines-panel"
      data-state={run?.status ?? 'idle'}
    >
      <h2 id="pipelines-title" className="card__title">
        Answer pipelines
      </h2>
      <fieldset className="engine" disabled={busy}>
        <legend>Pipeline (on the engine set above)</legend>
        <div role="radiogroup" aria-label="Pipeline" className="pipelines__choices">
          {PIPELINE_IDS.map((id) => (
            <label key={id}>
              <input
                type="radio"
                name="pipeline"
                value={id}
                checked={pipeline === id}
                onChange={() => setPipeline(id)}
              />{' '}
              {PIPELINES[id].name}
            </label>
          ))}
        </div>
        <p className="stats">{PIPELINES[pipeline].summary}</p>
        <PipelineSettingsForm pipeline={pipeline} {...form} />
      </fieldset>
      <div className="answer__actions">
        <button
          type="button"
          className="primary"
          onClick={requestRun}
          disabled={busy || blocker !== null || gate.estimating || gate.pending}
        >
          Run {name}
        </button>
        {busy && (
          <button type="button" onClick={() => abort.current?.abort()}>
            Stop
          </button>
        )}
      </div>
      {blocker && !busy && <p className="engine__hint">{blocker}</p>}
      <RunEstimate gate={gate} runLabel={`Run ${name}`} />
      {run && (
        <div className="answer__run">
          <p className="answer__question">
            {PIPELINES[run.pipeline].name} · Question: “{run.question}”
          </p>
          <p className="stats" role="status" data-testid="pipeline-status">
            {statusText(run)}
          </p>
          {run.text && (
            <div className="answer__text" data-testid="pipeline-answer">
              {run.output ? (
                <MarkdownAnswer
                  text={run.text}
                  sources={sourcesOfRun}
                  onCite={(s) => onCite(s.index)}
                />
              ) : (
                run.text
              )}
            </div>
          )}
          {run.error && (
            <ErrorBox error={run.error} testId="pipeline-error">
              {run.output && (
                <p className="stats">What was done before the error is in the trace below.</p>
              )}
            </ErrorBox>
          )}
          {run.output && (
            <button
              type="button"
              className="linklike"
              data-testid="pipeline-save-trace"
              onClick={() => saveTrace(run)}
            >
              Save the trace (JSON)
            </button>
          )}
          {/* While running, the trace so far (re-drawn with every progress report). */}
          {(run.output ?? run.progress) && (
            <TraceView trace={run.output?.trace ?? run.progress!.trace} onOpen={onCite} />
          )}
        </div>
      )}
    </section>
  );
}

/**
 * Download the run as JSON (question, answer, citations and the whole trace: every prompt and
 * reply), to keep, compare or read elsewhere; benchmarks read their figures from it.
 */
function saveTrace(run: Run): void {
  if (!run.output) return;
  const json = JSON.stringify(
    {
      pipeline: run.pipeline,
      question: run.question,
      status: run.output.status,
      answer: run.output.answer,
      citations: run.output.citations,
      error: run.output.error ?? null,
      trace: run.output.trace,
    },
    null,
    1,
  );
  const url = URL.createObjectURL(new Blob([json], { type: 'application/json' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = `trace-${run.pipeline}.json`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

function statusText(run: Run): string {
  const p = run.progress;
  const counts = p
    ? ` · ${p.callsDone} calls done, ${p.callsRunning} running, ${p.callsQueued} waiting · ${p.tokensIn.toLocaleString('en')} tokens in, ${p.tokensOut.toLocaleString('en')} out`
    : '';
  switch (run.status) {
    case 'loading':
      return 'Getting the engine ready…';
    case 'running':
      return `${p?.stepLabel ?? 'Starting'}…${counts}`;
    case 'done':
      return `Done${counts}.`;
    case 'stopped':
      return `Stopped${counts}.`;
    case 'error':
      return `Stopped by an error${counts}.`;
  }
}
