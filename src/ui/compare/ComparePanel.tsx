/**
 * @file Compare: the question asked above through the pipelines the person
 * ticks, each with its own settings and engine, side by side. Each column shows its answer with
 * its citations, the fragments it used, its calls, tokens, wall time and estimated price; one
 * picture overlays where each column's fragments sit in the documents, and the agreement says
 * which fragments all used and which only one did.
 *
 * Each column has its own AbortController: Stop ends that column only, a failed column shows its
 * error and the others go on. Columns on the in-browser engine run one after another (one model,
 * one call at a time); API columns run at once (src/core/compare/schedule.ts). Nothing is
 * stored but the price table (library settings): a comparison lasts until the next one.
 */
import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import type { AbortSignalLike } from '../../core/abort';
import {
  agreementOf,
  COMPARE_PIPELINE_NAMES,
  COMPARE_PIPELINES,
  fragmentsUsed,
  normalizePriceTable,
  plainRetrievalLibrary,
  runScheduled,
  type ComparePipelineId,
  type PriceEntry,
} from '../../core/compare';
import { fragmentLocation } from '../../core/pipelines/library';
import type {
  PipelineEmbedder,
  PipelineLibrary,
  PipelineReranker,
} from '../../core/pipelines/types';
import type { SettingsStore } from '../../llm/keys';
import { pipelineLlm } from '../../llm/pipeline-llm';
import type { LlmError } from '../../llm/types';
import { loadCrossEncoder } from '../../models/cross-encoder';
import type { RunDocument } from '../../workers/retrieval-types';
import { useEngine } from '../answer/useEngine';
import { pipelineLibraryOf } from '../pipelines/library';
import { PipelineSettingsForm } from '../pipelines/PipelineSettingsForm';
import type { PipelinesPanelProps } from '../pipelines/PipelinesPanel';
import { defaultPipelineSettings, runPipeline, type PipelineSettings } from '../pipelines/registry';
import { pipelineEmbedder } from '../qrmem/embedder';
import { AgreementView } from './AgreementView';
import { CompareColumn, type ColumnRun } from './CompareColumn';
import { acquireEngine, engineOptions, type EngineChoice } from './engines';
import { PriceTable } from './PriceTable';
import { recordingSpeed, speedKey } from '../pipelines/engine-speed';
import { RunEstimate, useCostGate } from '../pipelines/RunEstimate';
import { compareEstimate, registryId } from './estimate';
import { UsageOverlay } from './UsageOverlay';
import './compare.css';

export const PRICES_SETTING = 'compare.prices';

/** What the pipelines panel gets, and where the price table is kept. */
export interface ComparePanelProps extends PipelinesPanelProps {
  /** Where the price table is kept (the library's settings); in memory without it. */
  store?: SettingsStore;
}

const SUMMARIES: Record<ComparePipelineId, string> = {
  fragrel: 'The fragments FragRel selected (relations on), one call.',
  plain:
    'The baseline: the same one call, on the fragments selected by the independent score alone (alpha = 0).',
  longrag: 'Retrieve, rerank, extract and filter, then answer (up to k + 3 calls).',
  segment: 'A note per segment, filtered and merged, then answer (one call per segment and more).',
  qrmem: 'An entity graph built for the question and navigated (many calls: prefer an API).',
};

interface Comparison {
  seq: number;
  question: string;
  library: PipelineLibrary;
  documents: RunDocument[];
  columns: ColumnRun[];
}

export function ComparePanel({
  result,
  sources,
  kindOf,
  onCite,
  hubHost,
  embedder,
  memory,
  store,
}: ComparePanelProps) {
  const engine = useEngine();
  const [ticked, setTicked] = useState<ReadonlySet<ComparePipelineId>>(
    () => new Set<ComparePipelineId>(['fragrel', 'plain', 'longrag']),
  );
  const [engineOf, setEngineOf] = useState<Partial<Record<ComparePipelineId, EngineChoice>>>({});
  const [settingsOf, setSettingsOf] = useState<
    Partial<Record<ComparePipelineId, PipelineSettings>>
  >({});
  const [rerankerId, setRerankerId] = useState('');
  const [prices, setPrices] = useState<PriceEntry[]>(() => normalizePriceTable(undefined));
  const [comparison, setComparison] = useState<Comparison | null>(null);
  const controllers = useRef(new Map<ComparePipelineId, AbortController>());
  const seqRef = useRef(0);
  const reranker = useRef<{ id: string; model: Promise<PipelineReranker> } | null>(null);
  const [now, setNow] = useState(0);
  const [open, setOpen] = useState(false);
  const gate = useCostGate();

  const stopAll = useCallback(() => {
    for (const c of controllers.current.values()) c.abort();
    controllers.current.clear();
  }, []);
  useEffect(() => stopAll, [stopAll]);

  // The price table, once from the library's settings.
  const pricesLoaded = useRef(false);
  useEffect(() => {
    if (!store) return;
    let live = true;
    void store
      .getSetting<unknown>(PRICES_SETTING, null)
      .then((stored) => {
        if (live && stored !== null) setPrices(normalizePriceTable(stored));
      })
      .catch((e: Error) => console.warn('The price table could not be read:', e.message))
      .finally(() => {
        pricesLoaded.current = true;
      });
    return () => {
      live = false;
    };
  }, [store]);
  const changePrices = (next: PriceEntry[]) => {
    setPrices(next);
    if (store && pricesLoaded.current)
      void store.setSetting(PRICES_SETTING, next).catch((e: Error) => {
        console.warn('The price table could not be saved:', e.message);
      });
  };

  const library = useMemo(
    () => (result ? pipelineLibraryOf(result, sources, kindOf) : null),
    [result, sources, kindOf],
  );
  const options = engineOptions(engine);
  const chosen = COMPARE_PIPELINES.filter((p) => ticked.has(p));
  const running = comparison?.columns.some((c) => isBusy(c.status)) ?? false;

  // While a column runs, its wall time ticks every second (between progress reports too).
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [running]);

  const blocker = !result
    ? 'Ask a question first: Compare answers the question asked above.'
    : !library
      ? 'Loading the text of the documents…'
      : chosen.length < 2
        ? 'Tick at least two pipelines to compare.'
        : null;

  const start = useCallback(async () => {
    if (!result || !library) return;
    stopAll();
    const seq = ++seqRef.current;
    const plain = plainRetrievalLibrary(library, {
      costs: result.costs,
      budget: result.budget,
      ...(result.maxSelected !== undefined ? { maxSelected: result.maxSelected } : {}),
    });
    const columns: ColumnRun[] = chosen.map((pipeline) => {
      const option = options.find((o) => o.id === (engineOf[pipeline] ?? 'current')) ?? options[0];
      return {
        pipeline,
        engine: option,
        status: 'waiting',
        progress: null,
        text: '',
        output: null,
        error: null,
        used: [],
        startedAt: null,
        endedAt: null,
      };
    });
    const mine = new Map<ComparePipelineId, AbortController>();
    for (const c of columns) mine.set(c.pipeline, new AbortController());
    controllers.current = mine;
    setComparison({
      seq,
      question: result.question,
      library,
      documents: result.documents,
      columns,
    });

    const update = (
      pipeline: ComparePipelineId,
      patch: Partial<ColumnRun> | ((c: ColumnRun) => Partial<ColumnRun>),
    ) =>
      setComparison((cmp) =>
        cmp && cmp.seq === seq
          ? {
              ...cmp,
              columns: cmp.columns.map((c) =>
                c.pipeline === pipeline
                  ? { ...c, ...(typeof patch === 'function' ? patch(c) : patch) }
                  : c,
              ),
            }
          : cmp,
      );
    const fail = (pipeline: ComparePipelineId, signal: AbortSignal, error: LlmError) =>
      update(pipeline, {
        status: signal.aborted || error.code === 'aborted' ? 'stopped' : 'error',
        error: signal.aborted || error.code === 'aborted' ? null : error,
        endedAt: Date.now(),
      });

    const runColumn = async (column: ColumnRun): Promise<void> => {
      const { pipeline } = column;
      const controller = mine.get(pipeline)!;
      const { signal } = controller;
      if (signal.aborted) return update(pipeline, { status: 'stopped' });
      update(pipeline, { status: 'loading' });
      const acquired = await acquireEngine(engine, column.engine.id, signal);
      if (!('generate' in acquired)) return fail(pipeline, signal, acquired);
      let loadedReranker: PipelineReranker | undefined;
      if (pipeline === 'longrag' && rerankerId) {
        try {
          // One load shared by the runs that need it (a promise, so two columns wait on one).
          if (reranker.current?.id !== rerankerId)
            reranker.current = {
              id: rerankerId,
              model: loadCrossEncoder(rerankerId, hubHost),
            };
          loadedReranker = await reranker.current.model;
        } catch (e) {
          reranker.current = null;
          return fail(pipeline, signal, {
            code: 'model-load',
            message: `The cross-encoder ${rerankerId} could not be loaded. Check its id, or clear the field to rerank by the retrieval score.`,
            detail: (e as Error).message,
          });
        }
      }
      let loadedEmbedder: PipelineEmbedder | undefined;
      if (pipeline === 'qrmem') {
        try {
          loadedEmbedder = await pipelineEmbedder(embedder, signal);
        } catch (e) {
          return fail(pipeline, signal, {
            code: 'model-load',
            message:
              "The library's embedder could not be loaded, and QRMeM needs it for the similarity of edges.",
            detail: (e as Error).message,
          });
        }
      }
      if (signal.aborted) return update(pipeline, { status: 'stopped', endedAt: Date.now() });
      update(pipeline, { status: 'running', startedAt: Date.now() });
      const settings = settingsOf[pipeline] ?? defaultPipelineSettings;
      try {
        const output = await runPipeline(
          registryId(pipeline),
          {
            question: result.question,
            library: pipeline === 'plain' ? plain : library,
            // Each answer's speed is kept for the next estimate on this engine.
            llm: pipelineLlm(
              recordingSpeed(acquired, speedKey(column.engine.kind, column.engine.model)),
            ),
            ...(loadedReranker ? { reranker: loadedReranker } : {}),
            ...(loadedEmbedder ? { embedder: loadedEmbedder } : {}),
            ...(memory ? { memory } : {}),
            signal,
            onProgress: (progress) => update(pipeline, { progress }),
            sleep: wait,
            onAnswerToken: (piece) => update(pipeline, (c) => ({ text: c.text + piece })),
          },
          {
            ...settings,
            // As the pipelines panel: FragRel answers at the engine's temperature.
            fragrel: { ...settings.fragrel, temperature: engine.settings.temperature },
          },
        );
        update(pipeline, {
          status: output.status,
          output,
          text: output.answer,
          error: (output.error as LlmError | undefined) ?? null,
          used: fragmentsUsed(pipeline, output),
          endedAt: Date.now(),
        });
      } catch (e) {
        fail(pipeline, signal, {
          code: 'engine',
          message: 'The pipeline failed.',
          detail: (e as Error).message,
        });
      }
    };

    await runScheduled(
      columns.map((c) => ({ lane: c.engine.local ? 'in-browser' : null, run: () => runColumn(c) })),
    );
    if (controllers.current === mine) controllers.current = new Map();
  }, [
    chosen,
    embedder,
    engine,
    engineOf,
    hubHost,
    library,
    memory,
    options,
    rerankerId,
    result,
    settingsOf,
    stopAll,
  ]);

  // Before anything is sent: each column's calls and tokens by a dry run (estimate.ts), then the
  // comparison, or the question above the threshold (the columns' calls added up).
  const requestCompare = () => {
    if (!result || !library) return;
    const signal = new AbortController().signal;
    void gate.request(
      () =>
        compareEstimate(
          { chosen, options, engineOf, settingsOf, engine, result, library, embedder },
          signal,
        ),
      () => void start(),
    );
  };

  const agreement = useMemo(() => {
    const done = comparison?.columns.filter((c) => c.status === 'done') ?? [];
    return agreementOf(done.map((c) => ({ column: c.pipeline, fragments: c.used })));
  }, [comparison]);
  const locationOf = useCallback(
    (index: number) => (comparison ? fragmentLocation(comparison.library, index) : ''),
    [comparison],
  );

  return (
    <section className="answer compare" aria-labelledby="compare-title" data-testid="compare-panel">
      {/* Drawn only while open: a closed panel adds no second set of settings fields to the page. */}
      <details
        className="compare__open"
        onToggle={(e) => {
          // React passes a nested disclosure's toggle up the tree: only this one's counts.
          if (e.target === e.currentTarget) setOpen(e.currentTarget.open);
        }}
      >
        <summary>
          <h2 id="compare-title" className="card__title compare__title">
            Compare pipelines side by side
          </h2>
        </summary>
        {open && (
          <>
            <fieldset className="engine" disabled={running}>
              <legend>Pipelines to compare, each with its engine and settings</legend>
              <ul className="compare__choices">
                {COMPARE_PIPELINES.map((p) => (
                  <li key={p} data-testid="compare-choice" data-pipeline={p}>
                    <label>
                      <input
                        type="checkbox"
                        checked={ticked.has(p)}
                        onChange={(e) =>
                          setTicked((t) => {
                            const n = new Set(t);
                            if (e.target.checked) n.add(p);
                            else n.delete(p);
                            return n;
                          })
                        }
                      />{' '}
                      <strong>{COMPARE_PIPELINE_NAMES[p]}</strong>
                    </label>{' '}
                    <span className="stats">{SUMMARIES[p]}</span>
                    {ticked.has(p) && (
                      <div className="compare__choice-settings">
                        <label className="engine__row">
                          <span>Engine for {COMPARE_PIPELINE_NAMES[p]}</span>
                          <select
                            value={engineOf[p] ?? 'current'}
                            onChange={(e) =>
                              setEngineOf((m) => ({ ...m, [p]: e.target.value as EngineChoice }))
                            }
                          >
                            {options.map((o) => (
                              <option key={o.id} value={o.id}>
                                {o.label}
                              </option>
                            ))}
                          </select>
                        </label>
                        <SettingsDisclosure title={`Settings of ${COMPARE_PIPELINE_NAMES[p]}`}>
                          <PipelineSettingsForm
                            pipeline={registryId(p)}
                            settings={settingsOf[p] ?? defaultPipelineSettings}
                            onChange={(next) => setSettingsOf((m) => ({ ...m, [p]: next }))}
                            disabled={running}
                            reranker={rerankerId}
                            onReranker={setRerankerId}
                          />
                        </SettingsDisclosure>
                      </div>
                    )}
                  </li>
                ))}
              </ul>
              <p className="stats">
                Columns on an in-browser engine run one after another; columns on API engines run at
                the same time. Other API engines appear in the engine lists once their base URL,
                model and key are set in the Answer panel.
              </p>
            </fieldset>
            <PriceTable prices={prices} onChange={changePrices} disabled={running} />
            <div className="answer__actions">
              <button
                type="button"
                className="primary"
                onClick={requestCompare}
                disabled={running || blocker !== null || gate.estimating || gate.pending}
              >
                Compare {chosen.length} pipelines
              </button>
              {running && (
                <button type="button" onClick={stopAll}>
                  Stop all
                </button>
              )}
            </div>
            {blocker && !running && <p className="engine__hint">{blocker}</p>}
            <RunEstimate
              gate={gate}
              prices={prices}
              runLabel={`Compare ${chosen.length} pipelines`}
            />
            {comparison && (
              <div className="compare__result" data-testid="compare-result">
                <p className="answer__question">Question: “{comparison.question}”</p>
                <div className="compare__columns">
                  {comparison.columns.map((c) => (
                    <CompareColumn
                      key={`${comparison.seq}:${c.pipeline}`}
                      column={c}
                      prices={prices}
                      locationOf={locationOf}
                      onCite={onCite}
                      onStop={() => controllers.current.get(c.pipeline)?.abort()}
                      now={now}
                    />
                  ))}
                </div>
                <UsageOverlay
                  documents={comparison.documents}
                  rows={comparison.columns.map((c) => ({ pipeline: c.pipeline, used: c.used }))}
                />
                <AgreementView agreement={agreement} locationOf={locationOf} onOpen={onCite} />
              </div>
            )}
          </>
        )}
      </details>
    </section>
  );
}

/** A disclosure whose content is drawn only while open (the same fields exist once per page). */
function SettingsDisclosure({ title, children }: { title: string; children: ReactNode }) {
  const [open, setOpen] = useState(false);
  return (
    <details
      onToggle={(e) => {
        // React passes a nested disclosure's toggle up the tree: only this one's counts.
        if (e.target === e.currentTarget) setOpen(e.currentTarget.open);
      }}
    >
      <summary>{title}</summary>
      {open && children}
    </details>
  );
}

export function isBusy(status: ColumnRun['status']): boolean {
  return status === 'waiting' || status === 'loading' || status === 'running';
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
