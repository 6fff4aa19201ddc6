/**
 * @file One Compare column: a pipeline's run of the question, with its answer (rendered Markdown,
 * citations that open the reader), its costs, the fragments it used, its error, and its trace on
 * demand. Its Stop button ends this column only.
 */
import { useMemo, useState } from 'react';
import {
  COMPARE_PIPELINE_NAMES,
  costOf,
  estimatePrice,
  formatUsd,
  type ComparePipelineId,
  type PriceEntry,
} from '../../core/compare';
import type { PipelineOutput, PipelineProgress } from '../../core/pipelines/types';
import type { PromptSource } from '../../core/prompt';
import type { LlmError } from '../../llm/types';
import { MarkdownAnswer } from '../markdown/MarkdownAnswer';
import { TraceView } from '../pipelines/TraceView';
import { PIPELINE_COLOURS } from '../pipelines/registry';
import type { EngineOption } from './engines';
import { countOf } from '../format/numbers';

export interface ColumnRun {
  pipeline: ComparePipelineId;
  engine: EngineOption;
  /** waiting: for its turn on the in-browser engine; loading: the engine or a model. */
  status: 'waiting' | 'loading' | 'running' | 'done' | 'stopped' | 'error';
  progress: PipelineProgress | null;
  text: string;
  output: PipelineOutput | null;
  error: LlmError | null;
  /** Fragments its answer was built from (fragmentsUsed), once it is done. */
  used: number[];
  /** Date.now() when its pipeline started and ended. */
  startedAt: number | null;
  endedAt: number | null;
}

const STATUS: Record<ColumnRun['status'], string> = {
  waiting: 'Waiting for the in-browser engine…',
  loading: 'Getting the engine ready…',
  running: 'Running',
  done: 'Done',
  stopped: 'Stopped',
  error: 'Stopped by an error',
};

export function CompareColumn({
  column,
  prices,
  locationOf,
  onCite,
  onStop,
  now,
}: {
  column: ColumnRun;
  /** Date.now() of the panel's last tick: a running column's wall time. */
  now: number;
  prices: readonly PriceEntry[];
  locationOf: (index: number) => string;
  onCite: (index: number) => void;
  onStop: () => void;
}) {
  const { pipeline, status, output, progress, error } = column;
  const name = COMPARE_PIPELINE_NAMES[pipeline];
  const [showTrace, setShowTrace] = useState(false);
  const trace = output?.trace ?? progress?.trace ?? null;
  const end = column.endedAt ?? now;
  const cost = trace
    ? costOf(trace, column.startedAt !== null ? end - column.startedAt : undefined)
    : null;
  const price = cost ? estimatePrice(prices, column.engine, cost) : null;
  const sources: PromptSource[] = useMemo(
    () => output?.citations.map((c) => ({ ...c, truncated: false })) ?? [],
    [output],
  );
  const busy = status === 'waiting' || status === 'loading' || status === 'running';
  const titleId = `compare-col-${pipeline}`;

  return (
    <article
      className="compare__column"
      aria-labelledby={titleId}
      data-testid="compare-column"
      data-pipeline={pipeline}
      data-state={status}
      style={{ borderTopColor: PIPELINE_COLOURS[pipeline] }}
    >
      <h3 id={titleId} className="compare__name">
        {name}
      </h3>
      <p className="stats">{column.engine.label}</p>
      <p className="stats" role="status" data-testid="column-status">
        {STATUS[status]}
        {status === 'running' && progress ? ` · ${progress.stepLabel}…` : ''}
      </p>
      {busy && (
        <button type="button" onClick={onStop} aria-label={`Stop ${name}`}>
          Stop
        </button>
      )}
      {column.text && (
        <div className="answer__text" data-testid="column-answer">
          {output ? (
            <MarkdownAnswer text={column.text} sources={sources} onCite={(s) => onCite(s.index)} />
          ) : (
            column.text
          )}
        </div>
      )}
      {error && (
        <div
          className="answer__error"
          role="alert"
          data-testid="column-error"
          data-code={error.code}
        >
          <p>{error.message}</p>
          {error.detail && <p className="stats">{error.detail}</p>}
        </div>
      )}
      {cost && (
        <dl className="compare__cost" data-testid="column-cost">
          <dt>LLM calls</dt>
          <dd data-testid="cost-calls">
            {cost.calls}
            {cost.failedCalls ? ` (${cost.failedCalls} failed)` : ''}
            {cost.retries ? ` · ${cost.retries} retried` : ''}
          </dd>
          <dt>Tokens in / out</dt>
          <dd data-testid="cost-tokens">
            {cost.tokensIn.toLocaleString('en')} / {cost.tokensOut.toLocaleString('en')}
          </dd>
          <dt>Wall time</dt>
          <dd data-testid="cost-wall">{seconds(cost.wallMs)}</dd>
          <dt>Critical path</dt>
          <dd>
            {countOf(cost.criticalPathCalls, 'call')}, {seconds(cost.criticalPathMs)}
          </dd>
          <dt>Price (estimate)</dt>
          <dd data-testid="cost-price">
            {price?.kind === 'priced'
              ? `${formatUsd(price.usd)} at $${price.entry.inputPerMillion} / $${price.entry.outputPerMillion} per 1M tokens`
              : price?.kind === 'local'
                ? '$0 (runs in this browser)'
                : `unknown: ${price?.model ?? ''} is not in the price table`}
          </dd>
        </dl>
      )}
      {status === 'done' && (
        <details
          className="compare__used"
          data-testid="column-used"
          data-count={column.used.length}
        >
          <summary>
            {column.used.length} fragment{column.used.length === 1 ? '' : 's'} used
          </summary>
          <ul>
            {column.used.map((i) => (
              <li key={i}>
                <button type="button" className="link" onClick={() => onCite(i)}>
                  {locationOf(i)}
                </button>
              </li>
            ))}
          </ul>
        </details>
      )}
      {trace && (
        <details
          onToggle={(e) => {
            if (e.target === e.currentTarget) setShowTrace(e.currentTarget.open);
          }}
        >
          <summary>Trace of {name}</summary>
          {showTrace && <TraceView trace={trace} onOpen={onCite} />}
        </details>
      )}
    </article>
  );
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
