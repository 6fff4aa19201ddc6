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
import type { PipelineEmbedder, PipelineReranker } from '../../core/pipelines/types';
import { isApiEngine } from '../../llm/settings';
import { pipelineLlm } from '../../llm/pipeline-llm';
import { loadCrossEncoder } from '../../models/cross-encoder';
import {
  listAnswerResults,
  putAnswerResult,
  putEvalRun,
  setEvalRunStatus,
  type StoredAnswer,
} from '../../store/eval-runs';
import type { EvalRunRecord, LibraryDb } from '../../store/schema';
import { SharedEngineSettings, useEngine, type EngineState } from '../answer/useEngine';
import { PipelineSettingsForm } from '../pipelines/PipelineSettingsForm';
import {
  defaultPipelineSettings,
  PIPELINE_NAMES,
  runPipeline,
  type PipelineId,
  type PipelineSettings,
} from '../pipelines/registry';
import { pipelineEmbedder } from '../qrmem/embedder';
import { answerCsv, answerRunJson, type AnswerRunSettings } from './answer-export';
import { download } from './download';

const OFFERED: PipelineId[] = ['fragrel', 'longrag', 'segment', 'qrmem'];

/** What a pipeline run needs besides the LLM: loaded once per run, only when a pipeline uses it. */
interface Helpers {
  embedder?: PipelineEmbedder;
  reranker?: PipelineReranker;
}

const runnerOf =
  (id: PipelineId, settings: PipelineSettings, helpers: Helpers): AnswerPipeline =>
  (input) =>
    runPipeline(
      id,
      {
        ...input,
        ...(id === 'qrmem' && helpers.embedder ? { embedder: helpers.embedder } : {}),
        ...(id === 'longrag' && helpers.reranker ? { reranker: helpers.reranker } : {}),
      },
      settings,
    );

/**
 * QRMeM's embedder (the offline GloVe vectors, as the evaluation grid's dense scorer) and
 * LongRAG's cross-encoder when one is named; an error in words when one cannot be loaded.
 */
async function loadHelpers(
  pipelines: readonly string[],
  rerankerId: string,
  signal: AbortSignal,
): Promise<Helpers | string> {
  const helpers: Helpers = {};
  if (pipelines.includes('qrmem')) {
    try {
      helpers.embedder = await pipelineEmbedder(undefined, signal);
    } catch (e) {
      return `The GloVe embedder could not be loaded, and QRMeM needs it for the similarity of edges: ${(e as Error).message}`;
    }
  }
  if (pipelines.includes('longrag') && rerankerId) {
    try {
      helpers.reranker = await loadCrossEncoder(rerankerId, undefined, signal);
    } catch (e) {
      return `The cross-encoder ${rerankerId} could not be loaded (${(e as Error).message}). Clear its field to rerank by the retrieval score.`;
    }
  }
  return helpers;
}

function engineOf(engine: EngineState): AnswerRunEngine {
  const s = engine.settings;
  if (isApiEngine(s.kind)) {
    return {
      kind: s.kind,
      model: s[s.kind].model,
      baseUrl: s[s.kind].baseUrl,
      contextLimit: engine.contextLimit,
    };
  }
  const model = s.kind === 'wllama' ? s.wllama.url : s.webllm.modelId;
  return { kind: s.kind, model, contextLimit: engine.contextLimit };
}

const pct = (x: number) => (100 * x).toFixed(1);

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
  const [rerankerId, setRerankerId] = useState('');
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
        const helpers = await loadHelpers(spec.pipelines, rerankerId, ctrl.signal);
        if (typeof helpers === 'string') {
          setError(helpers);
          return finish('paused');
        }
        const runSettings = (target.settings as AnswerRunSettings).pipelineSettings;
        const pipelineSettings = { ...defaultPipelineSettings, ...runSettings } as PipelineSettings;
        await askAnswerPairs({
          pairs: pending.pairs,
          runnerOf: (id) => runnerOf(id as PipelineId, pipelineSettings, helpers),
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
    [db, engine, items, onRunsChanged, rerankerId],
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
      const helpers = await loadHelpers(pipelines, '', ctrl.signal);
      if (typeof helpers === 'string') {
        setError(helpers);
        return;
      }
      const rows = [];
      for (const id of pipelines) {
        const cost = await estimateCost(
          runnerOf(id, settings, helpers),
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
        {OFFERED.map((id) => (
          <div key={id} className="eval-pipeline">
            <label>
              <input
                type="checkbox"
                checked={pipelines.includes(id)}
                disabled={running}
                onChange={(e) =>
                  setPipelines((all) =>
                    e.target.checked
                      ? OFFERED.filter((x) => x === id || all.includes(x))
                      : all.filter((x) => x !== id),
                  )
                }
              />{' '}
              {PIPELINE_NAMES[id]}
            </label>
            {pipelines.includes(id) && (
              <details>
                <summary>Settings of {PIPELINE_NAMES[id]}</summary>
                <PipelineSettingsForm
                  pipeline={id}
                  settings={settings}
                  onChange={setSettings}
                  disabled={running}
                  reranker={rerankerId}
                  onReranker={setRerankerId}
                />
                {id === 'qrmem' && (
                  <p className="eval-note">
                    QRMeM measures edge similarity with the offline GloVe vectors here, and builds
                    each document’s memory again for every question (nothing is kept between
                    questions).
                  </p>
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
      {estimated && (
        <table className="eval-table" data-testid="answer-estimate">
          <caption>
            Estimated cost for {n} questions: a dry run of each pipeline on the first question (a
            stand-in model, tokens counted as words), times {n}. A floor for SEGMENT+ and QRMeM,
            whose rounds depend on the answers.
          </caption>
          <thead>
            <tr>
              <th scope="col">pipeline</th>
              <th scope="col">LLM calls</th>
              <th scope="col">tokens in</th>
              <th scope="col">tokens out</th>
            </tr>
          </thead>
          <tbody>
            {estimated.rows.map((r) => (
              <tr key={r.id} data-pipeline={r.id}>
                <th scope="row">{PIPELINE_NAMES[r.id]}</th>
                <td className="eval-num">{r.cost.calls}</td>
                <td className="eval-num">{r.cost.tokensIn}</td>
                <td className="eval-num">{r.cost.tokensOut}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {error && (
        <p className="eval-error" role="alert" data-testid="answer-error">
          {error}
        </p>
      )}
      {run && runSpec && runSettings && (
        <div data-testid="answer-run" data-status={running ? 'running' : run.status}>
          <h3>
            Answer run on {run.fileName}:{' '}
            {runSpec.pipelines.map((p) => PIPELINE_NAMES[p as PipelineId] ?? p).join(', ')} ·{' '}
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
            <button
              type="button"
              disabled={answers.length === 0}
              onClick={() =>
                download(
                  `${base}-answers.csv`,
                  'text/csv',
                  answerCsv(runSpec, runSettings, answers),
                )
              }
            >
              Export answers CSV
            </button>
            <button
              type="button"
              disabled={answers.length === 0}
              onClick={() =>
                download(
                  `${base}-answers.json`,
                  'application/json',
                  answerRunJson(run, format, summary, answers),
                )
              }
            >
              Export answers JSON
            </button>
          </p>
        </div>
      )}
      {summary.length > 0 && (
        <table className="eval-table" data-testid="answer-table">
          <caption>Answer scores (%) per pipeline, with the calls and tokens the run used.</caption>
          <thead>
            <tr>
              <th scope="col">pipeline</th>
              <th scope="col">answers</th>
              <th scope="col">failed</th>
              <th scope="col">F1</th>
              <th scope="col">EM</th>
              <th scope="col">contain</th>
              <th scope="col">letter accuracy</th>
              <th scope="col">calls</th>
              <th scope="col">tokens in / out</th>
            </tr>
          </thead>
          <tbody>
            {summary.map((s) => (
              <tr key={s.pipeline} data-pipeline={s.pipeline}>
                <th scope="row">{PIPELINE_NAMES[s.pipeline as PipelineId] ?? s.pipeline}</th>
                <td className="eval-num">{s.questions}</td>
                <td className="eval-num">{s.failed}</td>
                <td className="eval-num">{pct(s.f1)}</td>
                <td className="eval-num">{pct(s.em)}</td>
                <td className="eval-num">{pct(s.contain)}</td>
                <td className="eval-num">{s.letter === null ? '—' : pct(s.letter)}</td>
                <td className="eval-num">{s.calls}</td>
                <td className="eval-num">
                  {s.tokensIn} / {s.tokensOut}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {answers.length > 0 && (
        <details>
          <summary>Every answer</summary>
          <ol className="eval-answers">
            {answers.map((r) => (
              <li key={`${r.pipeline}|${r.question}`}>
                {PIPELINE_NAMES[r.pipeline as PipelineId] ?? r.pipeline} on {r.question}:{' '}
                {r.status === 'done' ? r.answer : `${r.status}${r.error ? `: ${r.error}` : ''}`}
              </li>
            ))}
          </ol>
        </details>
      )}
    </section>
  );
}
