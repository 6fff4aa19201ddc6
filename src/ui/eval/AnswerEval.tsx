/**
 * @file Answer evaluation with an LLM on the evaluation page (issue 12 §2): the ticked pipelines
 * answer the first N questions of the benchmark with the engine chosen in the shared engine
 * settings; each answer is scored with LongBench F1, exact match, contain-match and, for
 * QuALITY-style questions, letter accuracy (src/core/eval/answers.ts). The cost (calls and
 * tokens) is estimated by a dry run before anything is sent, and the run can be stopped.
 *
 * Runs on the page (the LLM engines live here, as for the answer and pipeline panels); results
 * are not stored, unlike the retrieval grid's. QRMeM is not offered here (it needs the library's
 * embedder and memory). Answers are model output: shown as text, never as markup.
 */
import { useMemo, useRef, useState } from 'react';
import {
  answerOne,
  defaultAnswerRunOptions,
  estimateCost,
  summarizeAnswers,
  type AnswerPipeline,
  type AnswerResult,
  type CostEstimate,
} from '../../core/eval/answer-run';
import type { BenchmarkItem } from '../../core/eval/datasets';
import { pipelineLlm } from '../../llm/pipeline-llm';
import { SharedEngineSettings, useEngine } from '../answer/useEngine';
import {
  defaultPipelineSettings,
  PIPELINE_NAMES,
  runPipeline,
  type PipelineId,
} from '../pipelines/registry';

const OFFERED: PipelineId[] = ['fragrel', 'longrag', 'segment'];

const runnerOf =
  (id: PipelineId): AnswerPipeline =>
  (input) =>
    runPipeline(id, input, defaultPipelineSettings);

const pct = (x: number) => (100 * x).toFixed(1);

export function AnswerEval({ items }: { items: BenchmarkItem[] }) {
  const engine = useEngine();
  const scorable = useMemo(
    () => items.filter((i) => i.answers.length > 0 || i.answerLetter),
    [items],
  );
  const [pipelines, setPipelines] = useState<PipelineId[]>(['fragrel']);
  const [sample, setSample] = useState('3');
  const [estimate, setEstimate] = useState<{
    key: string;
    rows: { id: PipelineId; cost: CostEstimate }[];
  } | null>(null);
  const [results, setResults] = useState<AnswerResult[]>([]);
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const controller = useRef<AbortController | null>(null);

  const n = Math.max(0, Math.min(scorable.length, Math.floor(Number(sample)) || 0));
  const chosen = scorable.slice(0, n);
  const key = `${pipelines.join(',')}|${n}|${engine.contextLimit}`;
  const estimated = estimate?.key === key ? estimate : null;

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
    const signal = new AbortController().signal;
    try {
      const rows = [];
      for (const id of pipelines) {
        const cost = await estimateCost(
          runnerOf(id),
          chosen[0],
          n,
          engine.contextLimit,
          defaultAnswerRunOptions,
          signal,
        );
        rows.push({ id, cost });
      }
      setEstimate({ key, rows });
    } catch (e) {
      setError(`The cost could not be estimated: ${(e as Error).message}`);
    }
  };

  const start = async () => {
    controller.current?.abort();
    const ctrl = new AbortController();
    controller.current = ctrl;
    setError(null);
    setResults([]);
    setRunning(true);
    const total = chosen.length * pipelines.length;
    setProgress({ done: 0, total });
    try {
      const acquired = await engine.acquire(ctrl.signal);
      if (!('generate' in acquired)) {
        if (acquired.code !== 'aborted') setError(acquired.message);
        return;
      }
      const llm = pipelineLlm(acquired);
      let done = 0;
      for (const item of chosen) {
        for (const id of pipelines) {
          if (ctrl.signal.aborted) return;
          const r = await answerOne(
            id,
            runnerOf(id),
            item,
            llm,
            defaultAnswerRunOptions,
            ctrl.signal,
          );
          if (ctrl.signal.aborted) return;
          setResults((all) => [...all, r]);
          setProgress({ done: ++done, total });
        }
      }
    } catch (e) {
      setError((e as Error).message);
    } finally {
      if (controller.current === ctrl) setRunning(false);
    }
  };

  const stop = () => {
    controller.current?.abort();
    setRunning(false);
  };

  const summary = summarizeAnswers(results);

  return (
    <section aria-labelledby="answer-eval-h" data-testid="answer-eval">
      <h2 id="answer-eval-h">Answer evaluation with an LLM</h2>
      <p className="eval-lead">
        Each ticked pipeline answers the first questions of the file with the engine below, over the
        question’s own document (500-word fragments, BM25, context relation α 0.5 w_rel 0.3,
        2000-word budget). Answers are scored with F1, exact match and contain-match (LongBench’s
        normalisation) and, for multiple choice, letter accuracy. API engines are paid per token:
        estimate the cost first.
      </p>
      <SharedEngineSettings busy={running} />
      <fieldset className="eval-grid-like">
        <legend>Pipelines</legend>
        {OFFERED.map((id) => (
          <label key={id}>
            <input
              type="checkbox"
              checked={pipelines.includes(id)}
              disabled={running}
              onChange={(e) =>
                setPipelines((all) =>
                  e.target.checked ? [...all, id] : all.filter((x) => x !== id),
                )
              }
            />{' '}
            {PIPELINE_NAMES[id]}
          </label>
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
          disabled={running || n === 0 || pipelines.length === 0}
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
        {running && (
          <button type="button" onClick={stop}>
            Stop
          </button>
        )}
      </p>
      {engine.problem && <p className="eval-error">{engine.problem}</p>}
      {estimated && (
        <table className="eval-table" data-testid="answer-estimate">
          <caption>
            Estimated cost for {n} questions: a dry run of each pipeline on the first question (a
            stand-in model, tokens counted as words), times {n}. A floor for SEGMENT+, whose merge
            rounds depend on the answers.
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
              <tr key={r.id}>
                <th scope="row">{PIPELINE_NAMES[r.id]}</th>
                <td className="eval-num">{r.cost.calls}</td>
                <td className="eval-num">{r.cost.tokensIn}</td>
                <td className="eval-num">{r.cost.tokensOut}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {progress && (
        <p>
          <progress value={progress.done} max={progress.total} aria-label="Answering progress" />{' '}
          <span data-testid="answer-progress">
            {progress.done} / {progress.total} answers
          </span>
        </p>
      )}
      {error && (
        <p className="eval-error" role="alert" data-testid="answer-error">
          {error}
        </p>
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
      {results.length > 0 && (
        <details>
          <summary>Every answer</summary>
          <ol className="eval-answers">
            {results.map((r, k) => (
              <li key={k}>
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
