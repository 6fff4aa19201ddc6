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
import {
  agreementOf,
  COMPARE_PIPELINE_NAMES,
  COMPARE_PIPELINES,
  COMPARE_SUMMARIES,
  fragmentsUsed,
  runScheduled,
  runsAs,
  type ComparePipelineId,
} from '../../core/compare';
import { fragmentLocation } from '../../core/pipelines/library';
import { defaultPipelineSettings, type PipelineSettings } from '../../core/pipelines/registry';
import type { PipelineLibrary } from '../../core/pipelines/types';
import type { SettingsStore } from '../../llm/keys';
import type { LlmError } from '../../llm/types';
import type { RunDocument } from '../../workers/retrieval-types';
import { useEngine } from '../answer/useEngine';
import { plainLibraryOf, requestRuns } from '../pipelines/estimate';
import { usePipelineHelpers, usePipelineLibrary } from '../pipelines/helpers';
import { PipelineSettingsForm } from '../pipelines/PipelineSettingsForm';
import type { PipelinesPanelProps } from '../pipelines/PipelinesPanel';
import { runOnPage } from '../pipelines/run';
import { RunEstimate, useCostGate } from '../pipelines/RunEstimate';
import { AgreementView } from './AgreementView';
import { CompareColumn, type ColumnRun } from './CompareColumn';
import { acquireEngine, engineOptions, type EngineChoice } from './engines';
import { PriceTable, usePriceTable } from './PriceTable';
import { UsageOverlay } from './UsageOverlay';
import './compare.css';

/** What the pipelines panel gets, and where the price table is kept. */
export interface ComparePanelProps extends PipelinesPanelProps {
  /** Where the price table is kept (the library's settings); in memory without it. */
  store?: SettingsStore;
}

interface Comparison {
  seq: number;
  question: string;
  library: PipelineLibrary;
  documents: RunDocument[];
  columns: ColumnRun[];
}

export function ComparePanel(props: ComparePanelProps) {
  const { result, onCite, hubHost, embedder, memory, store } = props;
  const engine = useEngine();
  const [ticked, setTicked] = useState<ReadonlySet<ComparePipelineId>>(
    () => new Set<ComparePipelineId>(['fragrel', 'plain', 'longrag']),
  );
  const [engineOf, setEngineOf] = useState<Partial<Record<ComparePipelineId, EngineChoice>>>({});
  const [settingsOf, setSettingsOf] = useState<
    Partial<Record<ComparePipelineId, PipelineSettings>>
  >({});
  const helpers = usePipelineHelpers(false, hubHost, embedder);
  const [prices, changePrices] = usePriceTable(store);
  const [comparison, setComparison] = useState<Comparison | null>(null);
  const controllers = useRef(new Map<ComparePipelineId, AbortController>());
  const seqRef = useRef(0);
  const [now, setNow] = useState(0);
  const [open, setOpen] = useState(false);
  const gate = useCostGate();

  const stopAll = useCallback(() => {
    for (const c of controllers.current.values()) c.abort();
    controllers.current.clear();
  }, []);
  useEffect(() => stopAll, [stopAll]);

  const library = usePipelineLibrary(props);

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
    const plain = plainLibraryOf(library, result);
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
      // One cross-encoder kept for the columns and comparisons that use it (hub: the library's).
      const loaded = await helpers.load([runsAs(pipeline)], signal);
      if (!loaded.ok) return fail(pipeline, signal, loaded.error);
      if (signal.aborted) return update(pipeline, { status: 'stopped', endedAt: Date.now() });
      update(pipeline, { status: 'running', startedAt: Date.now() });
      try {
        const output = await runOnPage({
          pipeline: runsAs(pipeline),
          question: result.question,
          library: pipeline === 'plain' ? plain : library,
          engine: acquired,
          speedOf: column.engine,
          helpers: loaded.helpers,
          ...(memory ? { memory } : {}),
          settings: settingsOf[pipeline] ?? defaultPipelineSettings,
          temperature: engine.settings.temperature,
          signal,
          onProgress: (progress) => update(pipeline, { progress }),
          onAnswerToken: (piece) => update(pipeline, (c) => ({ text: c.text + piece })),
        });
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
  }, [chosen, engine, engineOf, helpers, library, memory, options, result, settingsOf, stopAll]);

  // Before anything is sent: each column's calls and tokens by a dry run (estimate.ts), then the
  // comparison, or the question above the threshold (the columns' calls added up).
  const requestCompare = () => {
    if (!result || !library) return;
    const input = { chosen, options, engineOf, settingsOf, engine, result, library, embedder };
    requestRuns(gate, { ...input, models: helpers.models }, start);
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
                    <span className="stats">{COMPARE_SUMMARIES[p]}</span>
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
                            pipeline={runsAs(p)}
                            settings={settingsOf[p] ?? defaultPipelineSettings}
                            onChange={(next) => setSettingsOf((m) => ({ ...m, [p]: next }))}
                            disabled={running}
                            reranker={helpers.reranker}
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
