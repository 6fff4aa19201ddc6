/**
 * @file The answer evaluation's two tables: the estimated cost before a run (a dry run of each
 * pipeline), and the scores per pipeline after it.
 */
import type { CostEstimate, summarizeAnswers } from '../../core/eval/answer-run';
import {
  PIPELINE_IDS,
  PIPELINES,
  pipelineName,
  type PipelineId,
} from '../../core/pipelines/registry';

const pct = (x: number) => (100 * x).toFixed(1);

/** The pipelines whose rounds depend on the answers, so a dry run counts a floor. */
const floors = PIPELINE_IDS.filter((id) => PIPELINES[id].estimateIsFloor)
  .map((id) => PIPELINES[id].name)
  .join(' and ');

const SCORE_COLUMNS = [
  'pipeline',
  'answers',
  'failed',
  'F1',
  'EM',
  'contain',
  'letter accuracy',
  'calls',
  'tokens in / out',
];

function Head({ cols }: { cols: readonly string[] }) {
  return (
    <thead>
      <tr>
        {cols.map((c) => (
          <th key={c} scope="col">
            {c}
          </th>
        ))}
      </tr>
    </thead>
  );
}

export function AnswerEstimateTable({
  n,
  rows,
}: {
  n: number;
  rows: ReadonlyArray<{ id: PipelineId; cost: CostEstimate }>;
}) {
  return (
    <table className="eval-table" data-testid="answer-estimate">
      <caption>
        Estimated cost for {n} questions: a dry run of each pipeline on the first question (a
        stand-in model, tokens counted as words), times {n}. A floor for {floors}, whose rounds
        depend on the answers.
      </caption>
      <Head cols={['pipeline', 'LLM calls', 'tokens in', 'tokens out']} />
      <tbody>
        {rows.map((r) => (
          <tr key={r.id} data-pipeline={r.id}>
            <th scope="row">{PIPELINES[r.id].name}</th>
            <td className="eval-num">{r.cost.calls}</td>
            <td className="eval-num">{r.cost.tokensIn}</td>
            <td className="eval-num">{r.cost.tokensOut}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function AnswerScoreTable({ summary }: { summary: ReturnType<typeof summarizeAnswers> }) {
  return (
    <table className="eval-table" data-testid="answer-table">
      <caption>Answer scores (%) per pipeline, with the calls and tokens the run used.</caption>
      <Head cols={SCORE_COLUMNS} />
      <tbody>
        {summary.map((s) => (
          <tr key={s.pipeline} data-pipeline={s.pipeline}>
            <th scope="row">{pipelineName(s.pipeline)}</th>
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
  );
}
