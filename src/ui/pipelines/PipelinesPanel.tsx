/**
 * @file Answer the current question with a pipeline (FragRel, LongRAG, SEGMENT+) on the
 * workspace's engine (set in the answer panel), see its progress step by step, stop it, and read
 * its trace. Its own component, so the page layout can place it anywhere.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { AbortSignalLike } from '../../core/abort';
import type {
  PipelineEmbedder,
  PipelineMemory,
  PipelineOutput,
  PipelineProgress,
  PipelineReranker,
} from '../../core/pipelines/types';
import type { PromptSource } from '../../core/prompt';
import type { TextKind } from '../../core/types';
import { pipelineLlm } from '../../llm/pipeline-llm';
import { withCountCache } from '../../core/pipelines/count-cache';
import { loadCrossEncoder } from '../../models/cross-encoder';
import type { EmbedderSpec } from '../../models/embedder';
import { pipelineEmbedder } from '../qrmem/embedder';
import type { LlmError } from '../../llm/types';
import type { RetrievalResult } from '../../workers/retrieval-types';
import { MarkdownAnswer } from '../markdown/MarkdownAnswer';
import { useEngine } from '../answer/useEngine';
import { pipelineLibraryOf } from './library';
import { PipelineSettingsForm } from './PipelineSettingsForm';
import {
  defaultPipelineSettings,
  PIPELINE_NAMES,
  PIPELINE_SUMMARIES,
  runPipeline,
  type PipelineId,
  type PipelineSettings,
} from './registry';
import { TraceView } from './TraceView';
import { dryRunCost, type AnswerPipeline } from '../../core/eval/answer-run';
import { engineOptions } from '../compare/engines';
import { recordingSpeed, speedKey } from './engine-speed';
import { RunEstimate, useCostGate } from './RunEstimate';
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

export function PipelinesPanel({
  result,
  sources,
  kindOf,
  onCite,
  hubHost,
  embedder,
  memory,
}: PipelinesPanelProps) {
  const engine = useEngine();
  const [pipeline, setPipeline] = useState<PipelineId>('longrag');
  const [settings, setSettings] = useState<PipelineSettings>(defaultPipelineSettings);
  const [run, setRun] = useState<Run | null>(null);
  const [rerankerId, setRerankerId] = useState('');
  // '' = the library's hub host; a mirror in the hub's layout works too.
  const [rerankerHost, setRerankerHost] = useState('');
  // A loaded cross-encoder is kept for the next runs, by its id.
  const reranker = useRef<{ id: string; model: PipelineReranker } | null>(null);
  const abort = useRef<AbortController | null>(null);
  const runId = useRef(0);
  const gate = useCostGate();
  // The engine the run goes to, for the estimate's time or price and the speed it measures.
  const current = engineOptions(engine)[0];
  useEffect(() => () => abort.current?.abort(), []);

  const library = useMemo(
    () => (result ? pipelineLibraryOf(result, sources, kindOf) : null),
    [result, sources, kindOf],
  );
  const busy = run !== null && (run.status === 'loading' || run.status === 'running');
  const blocker = !result
    ? 'Ask a question first: the pipelines answer the question asked above.'
    : !library
      ? 'Loading the text of the documents…'
      : engine.problem;

  const start = useCallback(async () => {
    if (!result || !library) return;
    abort.current?.abort();
    const controller = new AbortController();
    abort.current = controller;
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
    const acquired = await engine.acquire(controller.signal);
    if (!('generate' in acquired)) {
      update({ status: acquired.code === 'aborted' ? 'stopped' : 'error', error: acquired });
      return;
    }
    let loadedReranker: PipelineReranker | undefined;
    if (pipeline === 'longrag' && rerankerId) {
      const host = rerankerHost || hubHost;
      const key = `${host ?? ''}|${rerankerId}`;
      if (reranker.current?.id !== key) {
        try {
          reranker.current = {
            id: key,
            model: await loadCrossEncoder(rerankerId, host, controller.signal),
          };
        } catch (e) {
          update({
            status: controller.signal.aborted ? 'stopped' : 'error',
            error: {
              code: 'model-load',
              message: `The cross-encoder ${rerankerId} could not be loaded. Check its id, or clear the field to rerank by the retrieval score.`,
              detail: (e as Error).message,
            },
          });
          return;
        }
      }
      loadedReranker = reranker.current.model;
    }
    let loadedEmbedder: PipelineEmbedder | undefined;
    if (pipeline === 'qrmem') {
      try {
        loadedEmbedder = await pipelineEmbedder(embedder, controller.signal);
      } catch (e) {
        update({
          status: controller.signal.aborted ? 'stopped' : 'error',
          error: {
            code: 'model-load',
            message:
              "The library's embedder could not be loaded, and QRMeM needs it for the similarity of edges.",
            detail: (e as Error).message,
          },
        });
        return;
      }
    }
    update({ status: 'running' });
    const output = await runPipeline(
      pipeline,
      {
        question: result.question,
        library,
        // Counts remembered per text for the run: in-browser engines count by reading the text.
        // Each answer's speed is kept for the next estimate on this engine.
        llm: withCountCache(
          pipelineLlm(recordingSpeed(acquired, speedKey(current.kind, current.model))),
        ),
        ...(loadedReranker ? { reranker: loadedReranker } : {}),
        ...(loadedEmbedder ? { embedder: loadedEmbedder } : {}),
        ...(memory ? { memory } : {}),
        signal: controller.signal,
        onProgress: (progress) => update({ progress }),
        sleep: wait,
        onAnswerToken: (piece) => update((r) => ({ text: r.text + piece })),
      },
      // FragRel answers as the answer panel does, at the engine's temperature when it has one
      // (the engine settings gain it on main); LongRAG and SEGMENT+ run at 0 (PIPELINES.md).
      {
        ...settings,
        fragrel: {
          ...settings.fragrel,
          temperature: (engine.settings as { temperature?: number }).temperature,
        },
      },
    );
    if (abort.current === controller) abort.current = null;
    update({
      status: output.status,
      output,
      text: output.answer || '',
      error: (output.error as LlmError | undefined) ?? null,
    });
  }, [
    current.kind,
    current.model,
    embedder,
    memory,
    engine,
    hubHost,
    library,
    pipeline,
    rerankerId,
    rerankerHost,
    result,
    settings,
  ]);

  // Before anything is sent: the run's calls and tokens by a dry run (the embedder is loaded for
  // QRMeM's, which needs it; the engine is not), then the run, or the question above the threshold.
  const requestRun = () => {
    if (!result || !library) return;
    const controller = new AbortController();
    void gate.request(
      async () => {
        const dryEmbedder =
          pipeline === 'qrmem' ? await pipelineEmbedder(embedder, controller.signal) : undefined;
        const runner: AnswerPipeline = (input) =>
          runPipeline(
            pipeline,
            { ...input, ...(dryEmbedder ? { embedder: dryEmbedder } : {}) },
            settings,
          );
        const cost = await dryRunCost(
          runner,
          { question: result.question, library },
          engine.contextLimit,
          controller.signal,
        );
        return [
          {
            label: PIPELINE_NAMES[pipeline],
            cost,
            floor: pipeline === 'segment' || pipeline === 'qrmem',
            engine: current,
          },
        ];
      },
      () => void start(),
    );
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
          {(Object.keys(PIPELINE_NAMES) as PipelineId[]).map((id) => (
            <label key={id}>
              <input
                type="radio"
                name="pipeline"
                value={id}
                checked={pipeline === id}
                onChange={() => setPipeline(id)}
              />{' '}
              {PIPELINE_NAMES[id]}
            </label>
          ))}
        </div>
        <p className="stats">{PIPELINE_SUMMARIES[pipeline]}</p>
        <PipelineSettingsForm
          pipeline={pipeline}
          settings={settings}
          onChange={setSettings}
          disabled={busy}
          reranker={rerankerId}
          onReranker={setRerankerId}
          rerankerHost={rerankerHost}
          onRerankerHost={setRerankerHost}
          {...(hubHost ? { defaultHost: hubHost } : {})}
        />
      </fieldset>
      <div className="answer__actions">
        <button
          type="button"
          className="primary"
          onClick={requestRun}
          disabled={busy || blocker !== null || gate.estimating || gate.pending}
        >
          Run {PIPELINE_NAMES[pipeline]}
        </button>
        {busy && (
          <button type="button" onClick={() => abort.current?.abort()}>
            Stop
          </button>
        )}
      </div>
      {blocker && !busy && <p className="engine__hint">{blocker}</p>}
      <RunEstimate gate={gate} runLabel={`Run ${PIPELINE_NAMES[pipeline]}`} />
      {run && (
        <div className="answer__run">
          <p className="answer__question">
            {PIPELINE_NAMES[run.pipeline]} · Question: “{run.question}”
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
            <div
              className="answer__error"
              role="alert"
              data-testid="pipeline-error"
              data-code={run.error.code}
            >
              <p>{run.error.message}</p>
              {run.error.detail && <p className="stats">{run.error.detail}</p>}
              {run.output && (
                <p className="stats">What was done before the error is in the trace below.</p>
              )}
            </div>
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

/** Waits `ms`, or less when the run is stopped (the pipelines' retry back-off). */
function wait(ms: number, signal: AbortSignalLike): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
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
