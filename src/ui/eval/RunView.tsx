/**
 * @file A retrieval grid's run on the evaluation page: its status and progress, pause, resume,
 * cancel and export, and its results as a table with paired bootstrap intervals against the
 * baseline and as a plot.
 */
import { useMemo } from 'react';
import type { ParsedBenchmark } from '../../core/eval/datasets';
import {
  configKey,
  configLabel,
  summarizeGrid,
  type GridSpec,
  type QuestionResult,
} from '../../core/eval/grid';
import { listEvalResults } from '../../store/eval-runs';
import type { EvalRunRecord, LibraryDb } from '../../store/schema';
import type { EvalRunSettings } from '../../workers/eval-handlers';
import { download } from './download';
import { runJson, summaryCsv } from './export';
import { RecallPlot } from './RecallPlot';
import { ResultsTable } from './ResultsTable';

/** The run the page shows, with the results stored so far. */
export interface Active {
  run: EvalRunRecord;
  benchmark: ParsedBenchmark;
  results: QuestionResult[];
  progress: { done: number; total: number } | null;
  /** Results found stored when this run was (re)started, and whether that was a resume. */
  resumedFrom: number | null;
  /** When this page (re)started the run, ms since the epoch: later results are this start's. */
  startedAt: number;
  running: boolean;
}

export type Metric = 'gold' | 'answer';

export function RunView({
  active,
  db,
  metric,
  setMetric,
  onPause,
  onCancel,
  onResume,
}: {
  active: Active;
  db: LibraryDb | null;
  metric: Metric;
  setMetric: (metric: Metric) => void;
  onPause: () => Promise<void>;
  onCancel: () => Promise<void>;
  onResume: () => Promise<void>;
}) {
  const activeSpec = active.run.spec as GridSpec;
  const activeSettings = active.run.settings as EvalRunSettings;
  const questionCount = Math.min(activeSettings?.sample ?? Infinity, active.benchmark.items.length);
  const summary = useMemo(
    () =>
      activeSpec && activeSettings
        ? summarizeGrid(
            activeSpec,
            active.results,
            activeSettings.baseline,
            activeSettings.bootstrap,
          )
        : [],
    [active, activeSpec, activeSettings],
  );
  const hasGold = summary.some((r) => r.gold.some((c) => c.n > 0));
  const hasAnswer = summary.some((r) => r.answer.some((c) => c.n > 0));
  const shownMetric = metric === 'gold' && !hasGold && hasAnswer ? 'answer' : metric;
  const plotUnit = activeSpec?.budgets.some((b) => b.unit === 'words') ? 'words' : 'tokens';
  if (!activeSpec || !activeSettings) return null;
  return (
    <section aria-labelledby="eval-run-h" data-testid="eval-run" data-status={active.run.status}>
      <h2 id="eval-run-h">
        Run on {active.run.fileName} ({active.benchmark.label})
      </h2>
      <p>
        Status:{' '}
        <span data-testid="eval-status">{active.running ? 'running' : active.run.status}</span>
        {active.resumedFrom !== null && active.resumedFrom > 0 && (
          <span data-testid="eval-resumed" data-started-at={active.startedAt}>
            {' '}
            · resumed: {active.resumedFrom} results were already stored and are not computed again
          </span>
        )}
      </p>
      {active.progress && (
        <p>
          <progress
            value={active.progress.done}
            max={active.progress.total}
            aria-label="Evaluation progress"
            data-testid="eval-progress"
            data-done={active.progress.done}
            data-total={active.progress.total}
          />{' '}
          {active.progress.done} / {active.progress.total} (configuration, question) pairs
        </p>
      )}
      <p className="eval-actions">
        {active.running ? (
          <button type="button" onClick={() => void onPause()}>
            Pause
          </button>
        ) : (
          active.run.status !== 'done' &&
          db && (
            <button type="button" onClick={() => void onResume()}>
              Resume
            </button>
          )
        )}
        {active.running && (
          <button type="button" onClick={() => void onCancel()}>
            Cancel (discard this run)
          </button>
        )}
        <button
          type="button"
          onClick={() =>
            download(
              `${active.run.fileName.replace(/\.[^.]*$/, '')}-evaluation.csv`,
              'text/csv',
              summaryCsv(activeSpec, summary, activeSettings.baseline),
            )
          }
        >
          Export CSV
        </button>
        <button
          type="button"
          onClick={() =>
            db &&
            void listEvalResults(db, active.run.id).then((all) =>
              download(
                `${active.run.fileName.replace(/\.[^.]*$/, '')}-evaluation.json`,
                'application/json',
                runJson(active.run, active.benchmark.label, summary, all),
              ),
            )
          }
        >
          Export JSON
        </button>
      </p>
      <p>
        Baseline:{' '}
        {activeSpec.configs.find((c) => configKey(c) === activeSettings.baseline)
          ? configLabel(activeSpec.configs.find((c) => configKey(c) === activeSettings.baseline)!)
          : activeSettings.baseline}
        . Embedder: <span data-testid="eval-embedder">{activeSettings.embedder.id}</span>.
        Intervals: paired bootstrap over questions, {activeSettings.bootstrap.resamples} resamples,
        seed {activeSettings.bootstrap.seed}.
      </p>
      <fieldset className="eval-metric">
        <legend>Metric</legend>
        <label>
          <input
            type="radio"
            name="metric"
            checked={shownMetric === 'gold'}
            disabled={!hasGold}
            onChange={() => setMetric('gold')}
          />{' '}
          gold recall
        </label>
        <label>
          <input
            type="radio"
            name="metric"
            checked={shownMetric === 'answer'}
            disabled={!hasAnswer}
            onChange={() => setMetric('answer')}
          />{' '}
          answer-in-context
        </label>
      </fieldset>
      <ResultsTable
        spec={activeSpec}
        rows={summary}
        metric={shownMetric}
        baseline={activeSettings.baseline}
        questions={questionCount}
      />
      {active.results.length > 0 && (
        <RecallPlot spec={activeSpec} rows={summary} metric={shownMetric} unit={plotUnit} />
      )}
    </section>
  );
}
