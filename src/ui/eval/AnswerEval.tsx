/**
 * @file Answer evaluation with an LLM on the evaluation page: the ticked pipelines
 * (FragRel, LongRAG, SEGMENT+, QRMeM, each with its settings) answer the first N questions of the
 * benchmark with the engine chosen in the shared engine settings; each answer is scored with
 * LongBench F1, exact match, contain-match and, for QuALITY-style questions, letter accuracy
 * (src/core/eval/answers.ts). The cost (calls and tokens) is estimated by a dry run before
 * anything is sent, and the run can be stopped.
 *
 * Runs on the page (the LLM engines live here, as for the answer and pipeline panels). Every
 * answer is stored as it completes (its own transaction, src/store/eval-runs.ts) in a run that
 * keeps the file, the questions, the pipelines with their settings and the engine (never its
 * key), so a reload offers to resume it and a resumed run asks only the pairs not stored
 * (src/core/eval/answer-resume.ts). A reload never resumes by itself: an API engine is paid per
 * token, so the user presses Resume. Answers are model output: shown as text, never as markup.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import {
  askAnswerPairs,
  orderAnswers,
  pendingAnswerPairs,
  type AnswerRunEngine,
  type AnswerRunSpec,
} from '../../core/eval/answer-resume';
import {
  defaultAnswerRunOptions,
  estimateCost,
  summarizeAnswers,
  type AnswerPipeline,
  type CostEstimate,
} from '../../core/eval/answer-run';
import type { BenchmarkItem } from '../../core/eval/datasets';
import {
  defaultPipelineSettings,
  PIPELINE_IDS,
  PIPELINES,
  pipelineName,
  runPipeline,
  type PipelineId,
  type PipelineSettings,
  isPipelineId,
} from '../../core/pipelines/registry';
import { settingsModel } from '../../llm/engines';
import { isApiEngine } from '../../llm/settings';
import { pipelineLlm } from '../../llm/pipeline-llm';
import {
  listAnswerResults,
  putAnswerResult,
  putEvalRun,
  setEvalRunStatus,
  type StoredAnswer,
} from '../../store/eval-runs';
import type { EvalRunRecord, LibraryDb } from '../../store/schema';
import { SharedEngineSettings, useEngine, type EngineState } from '../answer/useEngine';
import { usePipelineHelpers, type PipelineHelpers } from '../pipelines/helpers';
import { PIPELINE_VIEWS } from '../pipelines/registry';
import { PipelineSettingsForm } from '../pipelines/PipelineSettingsForm';
import { AnswerEstimateTable, AnswerScoreTable } from './AnswerTables';
import { answerCsv, answerRunJson, type AnswerRunSettings } from './answer-export';
import { download } from './download';

const runnerOf =
  (id: PipelineId, settings: PipelineSettings, helpers: PipelineHelpers): AnswerPipeline =>
  (input) =>
    runPipeline(id, { ...input, ...helpers }, settings);

function engineOf(engine: EngineState): AnswerRunEngine {
  const { kind } = engine.settings;
  return {
    kind,
    model: settingsModel(kind, engine.settings),
    ...(isApiEngine(kind) ? { baseUrl: engine.settings[kind].baseUrl } : {}),
    contextLimit: engine.contextLimit,
  };
}

const helperError = (e: { message: string; detail?: string }) =>
  e.detail ? `${e.message} (${e.detail})` : e.message;

export interface AnswerEvalProps {
  items: BenchmarkItem[];
  /** The benchmark file (and companions) as text, kept with a run to parse again on resume. */
  files: { name: string; text: string }[];
  format: string;
  db: LibraryDb;
  /**
   * A stored answer run to show (and offer to resume), chosen by the page; read when mounted (the
   * page gives this section a new key with each run it shows).
   */
  shown: EvalRunRecord | null;
  /** Called after a run is created or changes status, so the page lists it again. */
  onRunsChanged: () => void;
}

export function AnswerEval({ items, files, format, db, shown, onRunsChanged }: AnswerEvalProps) {
  const engine = useEngine();
  const scorable = useMemo(
    () => items.filter((i) => i.answers.length > 0 || i.answerLetter),
    [items],
  );
  const [pipelines, setPipelines] = useState<PipelineId[]>(['fragrel']);
  const [settings, setSettings] = useState<PipelineSettings>(defaultPipelineSettings);
  // QRMeM's embedder is the offline GloVe vectors here, as the evaluation grid's.
  const helpers = usePipelineHelpers(false);
  const [sample, setSample] = useState('3');
  const [estimate, setEstimate] = useState<{
    key: string;
    rows: { id: PipelineId; cost: CostEstimate }[];
  } | null>(null);
  const [estimating, setEstimating] = useState(false);
  // The page remounts this section (its key) whenever it shows another stored run.
  const [run, setRun] = useState<EvalRunRecord | null>(shown);
  const [answers, setAnswers] = useState<StoredAnswer[]>([]);
  const [resumedFrom, setResumedFrom] = useState<number | null>(null);
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const controller = useRef<AbortController | null>(null);

  // A stored run chosen by the page: show what it has stored.
  useEffect(() => {
    if (!shown) return;
    let live = true;
    void listAnswerResults(db, shown.id).then((stored) => {
      if (live) setAnswers(orderAnswers(shown.spec as AnswerRunSpec, stored));
    });
    return () => {
      live = false;
    };
  }, [db, shown]);

  useEffect(() => () => controller.current?.abort(), []);

  const n = Math.max(0, Math.min(scorable.length, Math.floor(Number(sample)) || 0));
  const chosen = scorable.slice(0, n);
  const key = `${pipelines.join(',')}|${n}|${engine.contextLimit}|${JSON.stringify(settings)}`;
  const estimated = estimate?.key === key ? estimate : null;
  const form = { settings, onChange: setSettings, disabled: running, reranker: helpers.reranker };

  /** Ask what `target` has not stored yet; each answer is stored before the next is asked. */
  const execute = useCallback(
    async (target: EvalRunRecord) => {
      controller.current?.abort();
      const ctrl = new AbortController();
      controller.current = ctrl;
      setError(null);
      setRun(target);
      setRunning(true);
      const spec = target.spec as AnswerRunSpec;
      const stored = orderAnswers(spec, await listAnswerResults(db, target.id));
      setAnswers(stored);
      setResumedFrom(stored.length);
      const pending = pendingAnswerPairs(spec, items, stored);
      const finish = async (status: EvalRunRecord['status'], message?: string) => {
        const next = await setEvalRunStatus(db, target.id, status, message);
        if (controller.current === ctrl) {
          if (next) setRun(next);
          setRunning(false);
        }
        onRunsChanged();
      };
      if (!pending.ok) {
        setError(pending.error);
        return finish('failed', pending.error);
      }
      try {
        if (target.status !== 'running') {
          const next = await setEvalRunStatus(db, target.id, 'running');
          if (next) setRun(next);
          onRunsChanged();
        }
        const acquired = await engine.acquire(ctrl.signal);
        if (!('generate' in acquired)) {
          if (acquired.code !== 'aborted') setError(acquired.message);
          return finish('paused');
        }
        const loaded = await helpers.load(spec.pipelines.filter(isPipelineId), ctrl.signal);
        if (!loaded.ok) {
          setError(helperError(loaded.error));
          return finish('paused');
        }
        const runSettings = (target.settings as AnswerRunSettings).pipelineSettings;
        const pipelineSettings = { ...defaultPipelineSettings, ...runSettings } as PipelineSettings;
        await askAnswerPairs({
          pairs: pending.pairs,
          runnerOf: (id) => runnerOf(id as PipelineId, pipelineSettings, loaded.helpers),
          llm: pipelineLlm(acquired),
          options: spec.options,
          signal: ctrl.signal,
          store: async (result) => {
            const computedAt = Date.now();
            const ok = await putAnswerResult(db, target.id, result, computedAt);
            if (ok && controller.current === ctrl)
              setAnswers((all) => orderAnswers(spec, [...all, { ...result, computedAt }]));
            return ok;
          },
        });
        // Stopped: Stop has already marked the run paused.
        if (!ctrl.signal.aborted) await finish('done');
      } catch (e) {
        setError((e as Error).message);
        await finish('failed', (e as Error).message);
      }
    },
    [db, engine, helpers, items, onRunsChanged],
  );

  if (scorable.length === 0) {
    return (
      <section aria-labelledby="answer-eval-h">
        <h2 id="answer-eval-h">Answer evaluation with an LLM</h2>
        <p>This file has no gold answers (MTBench+ gives none), so answers cannot be scored.</p>
      </section>
    );
  }

  const doEstimate = async () => {
    setError(null);
    setEstimating(true);
    const ctrl = new AbortController();
    try {
      // The dry run needs no cross-encoder.
      const loaded = await helpers.models.load(pipelines, { rerankerId: '' }, ctrl.signal);
      if (!loaded.ok) {
        setError(helperError(loaded.error));
        return;
      }
      const rows = [];
      for (const id of pipelines) {
        const cost = await estimateCost(
          runnerOf(id, settings, loaded.helpers),
          chosen[0],
          n,
          engine.contextLimit,
          defaultAnswerRunOptions,
          ctrl.signal,
        );
        rows.push({ id, cost });
      }
      setEstimate({ key, rows });
    } catch (e) {
      setError(`The cost could not be estimated: ${(e as Error).message}`);
    } finally {
      setEstimating(false);
    }
  };

  const start = async () => {
    const now = Date.now();
    const spec: AnswerRunSpec = {
      kind: 'answers',
      pipelines: [...pipelines],
      questions: chosen.map((i) => i.id),
      options: { ...defaultAnswerRunOptions },
    };
    const runSettings: AnswerRunSettings = {
      engine: engineOf(engine),
      pipelineSettings: Object.fromEntries(pipelines.map((id) => [id, settings[id]])),
    };
    const record: EvalRunRecord = {
      id: `answers-${now.toString(36)}-${Math.random().toString(36).slice(2, 8)}`,
      kind: 'answers',
      createdAt: now,
      updatedAt: now,
      status: 'running',
      fileName: files[0].name,
      files,
      spec,
      settings: runSettings,
    };
    try {
      await putEvalRun(db, record);
    } catch (e) {
      setError((e as Error).message);
      return;
    }
    onRunsChanged();
    await execute(record);
  };

  const stop = async () => {
    controller.current?.abort();
    setRunning(false);
    if (!run) return;
    const next = await setEvalRunStatus(db, run.id, 'paused');
    if (next) setRun(next);
    onRunsChanged();
  };

  const runSpec = run ? (run.spec as AnswerRunSpec) : null;
  const runSettings = run ? (run.settings as AnswerRunSettings) : null;
  const total = runSpec ? runSpec.questions.length * runSpec.pipelines.length : 0;
  const summary = summarizeAnswers(answers);
  const base = run ? run.fileName.replace(/\.[^.]*$/, '') : '';

  return (
    <section aria-labelledby="answer-eval-h" data-testid="answer-eval">
      <h2 id="answer-eval-h">Answer evaluation with an LLM</h2>
      <p className="eval-lead">
        Each ticked pipeline answers the first questions of the file with the engine below, over the
        question’s own document (500-word fragments, BM25, context relation α 0.5 w_rel 0.3,
        2000-word budget). Answers are scored with F1, exact match and contain-match (LongBench’s
        normalisation) and, for multiple choice, letter accuracy. API engines are paid per token:
        estimate the cost first. Every answer is stored as it comes, so a reload can resume the run.
      </p>
      <SharedEngineSettings busy={running} />
      <fieldset className="eval-grid-like">
        <legend>Pipelines</legend>
        {PIPELINE_IDS.map((id) => (
          <div key={id} className="eval-pipeline">
            <label>
              <input
                type="checkbox"
                checked={pipelines.includes(id)}
                disabled={running}
                onChange={(e) =>
                  setPipelines((all) =>
                    e.target.checked
                      ? PIPELINE_IDS.filter((x) => x === id || all.includes(x))
                      : all.filter((x) => x !== id),
                  )
                }
              />{' '}
              {PIPELINES[id].name}
            </label>
            {pipelines.includes(id) && (
              <details>
                <summary>Settings of {PIPELINES[id].name}</summary>
                <PipelineSettingsForm pipeline={id} {...form} />
                {PIPELINE_VIEWS[id].evalNote && (
                  <p className="eval-note">{PIPELINE_VIEWS[id].evalNote}</p>
                )}
              </details>
            )}
          </div>
        ))}
        <label>
          questions (of {scorable.length} with gold answers){' '}
          <input
            type="number"
            min={1}
            max={scorable.length}
            value={sample}
            disabled={running}
            onChange={(e) => setSample(e.target.value)}
            data-testid="answer-sample"
          />
        </label>
      </fieldset>
      <p className="eval-actions">
        <button
          type="button"
          disabled={running || estimating || n === 0 || pipelines.length === 0}
          onClick={() => void doEstimate()}
        >
          Estimate the cost
        </button>
        <button
          type="button"
          disabled={running || !estimated || Boolean(engine.problem)}
          onClick={() => void start()}
        >
          Start answering
        </button>
      </p>
      {engine.problem && <p className="eval-error">{engine.problem}</p>}
      {estimated && <AnswerEstimateTable n={n} rows={estimated.rows} />}
      {error && (
        <p className="eval-error" role="alert" data-testid="answer-error">
          {error}
        </p>
      )}
      {run && runSpec && runSettings && (
        <div data-testid="answer-run" data-status={running ? 'running' : run.status}>
          <h3>
            Answer run on {run.fileName}: {runSpec.pipelines.map(pipelineName).join(', ')} ·{' '}
            {runSettings.engine.model || runSettings.engine.kind}
          </h3>
          <p>
            <progress value={answers.length} max={total} aria-label="Answering progress" />{' '}
            <span data-testid="answer-progress">
              {answers.length} / {total} answers
            </span>
            {' · '}
            <span data-testid="answer-status">{running ? 'running' : run.status}</span>
            {running && resumedFrom !== null && resumedFrom > 0 && (
              <span data-testid="answer-resumed">
                {' '}
                · resumed: {resumedFrom} answers were already stored and are not asked again
              </span>
            )}
          </p>
          {!running && run.status === 'running' && (
            <p className="eval-note" data-testid="answer-interrupted">
              This run was interrupted (the page was closed or reloaded). Resume asks only the
              questions not answered yet, with the engine above.
            </p>
          )}
          <p className="eval-actions">
            {running ? (
              <button type="button" onClick={() => void stop()}>
                Stop
              </button>
            ) : (
              run.status !== 'done' && (
                <button
                  type="button"
                  disabled={Boolean(engine.problem)}
                  onClick={() => void execute(run)}
                >
                  Resume answering
                </button>
              )
            )}
            {(
              [
                ['CSV', 'csv', 'text/csv', () => answerCsv(runSpec, runSettings, answers)],
                [
                  'JSON',
                  'json',
                  'application/json',
                  () => answerRunJson(run, format, summary, answers),
                ],
              ] as const
            ).map(([label, ext, type, text]) => (
              <button
                key={ext}
                type="button"
                disabled={answers.length === 0}
                onClick={() => download(`${base}-answers.${ext}`, type, text())}
              >
                Export answers {label}
              </button>
            ))}
          </p>
        </div>
      )}
      {summary.length > 0 && <AnswerScoreTable summary={summary} />}
      {answers.length > 0 && (
        <details>
          <summary>Every answer</summary>
          <ol className="eval-answers">
            {answers.map((r) => (
              <li key={`${r.pipeline}|${r.question}`}>
                {pipelineName(r.pipeline)} on {r.question}:{' '}
                {r.status === 'done' ? r.answer : `${r.status}${r.error ? `: ${r.error}` : ''}`}
              </li>
            ))}
          </ol>
        </details>
      )}
    </section>
  );
}
