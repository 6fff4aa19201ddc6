/**
 * @file A pipeline's trace: the timeline of its steps and LLM calls (open a call to read its
 * prompt and reply), the items each step kept or dropped with their scores and reasons, the
 * sizes adapted to the engine, and the merge tree. Every text from documents or the model is
 * rendered as text, never as markup.
 */
import type { Trace, TraceCall, TraceItem } from '../../core/pipelines/types';
import { EntityGraphView } from '../qrmem/EntityGraphView';
import { QrmemCostView } from '../qrmem/CostView';
import { phaseOfStep } from '../../core/pipelines/qrmem/cost';
import { countOf } from '../format/numbers';

const ms = (v: number | undefined) => (v === undefined ? '…' : `${(v / 1000).toFixed(2)} s`);

function CallView({ call, critical }: { call: TraceCall; critical: boolean }) {
  const took =
    call.startMs !== undefined && call.endMs !== undefined ? call.endMs - call.startMs : undefined;
  return (
    <details
      className="trace__call"
      data-testid="trace-call"
      data-tag={call.tag}
      data-status={call.status}
    >
      <summary>
        {call.tag} #{call.tagIndex + 1} · {call.status} · {call.tokensIn.toLocaleString('en')} in
        {call.tokensReused ? (
          <span data-testid="trace-reused">
            {' '}
            ({call.tokensReused.toLocaleString('en')} reused from the cache)
          </span>
        ) : null}{' '}
        / {call.tokensOut.toLocaleString('en')} out · {ms(took)}
        {critical && <span className="trace__critical"> · critical path</span>}
        {call.parse && <span className="stats"> · {call.parse}</span>}
        {call.retries?.length ? (
          <span className="stats" data-testid="trace-retries">
            {' '}
            · retried {call.retries.length}× after{' '}
            {call.retries
              .map((r) => `${r.code} (waited ${(r.waitMs / 1000).toFixed(0)} s)`)
              .join(', ')}
          </span>
        ) : null}
      </summary>
      {call.error && (
        <p className="answer__error" role="alert">
          {call.error.message}
        </p>
      )}
      <p className="stats">Prompt (max {call.maxTokens} tokens out):</p>
      {call.messages.map((m, i) => (
        <pre key={i} className="trace__text" data-testid="trace-prompt" tabIndex={0}>
          [{m.role}]{'\n'}
          {m.content}
        </pre>
      ))}
      <p className="stats">Reply:</p>
      <pre className="trace__text" data-testid="trace-reply" tabIndex={0}>
        {call.response}
      </pre>
    </details>
  );
}

function ItemRow({ item }: { item: TraceItem }) {
  const scores = Object.entries(item.scores ?? {})
    .map(([k, v]) => `${k} ${Number.isInteger(v) ? v : v.toFixed(3)}`)
    .join(', ');
  return (
    <li
      className={`trace__item trace__item--${item.verdict}`}
      data-testid="trace-item"
      data-verdict={item.verdict}
    >
      <details>
        <summary>
          <strong>{item.verdict}</strong> {item.label}
          {scores && <span className="stats"> · {scores}</span>} · <em>{item.reason}</em>
        </summary>
        <pre className="trace__text" tabIndex={0}>
          {item.text}
        </pre>
      </details>
    </li>
  );
}

export function TraceView({
  trace,
  onOpen,
}: {
  trace: Trace;
  /** Opens a fragment in the reader (QRMeM's segments). */
  onOpen?: (fragmentIndex: number) => void;
}) {
  const critical = new Set(trace.criticalPath.calls);
  // While running there is no end yet: the latest time seen stands for it.
  const total = Math.max(
    1,
    trace.endMs ?? Math.max(0, ...trace.steps.map((s) => s.endMs ?? s.startMs)),
  );
  return (
    <section className="trace" aria-label="Pipeline trace" data-testid="pipeline-trace">
      <h3 className="trace__title">
        Trace: {trace.steps.length} steps, {trace.calls.length} LLM calls (up to {trace.concurrency}{' '}
        at once), {ms(trace.endMs)}
      </h3>
      <p className="stats" data-testid="trace-critical">
        Critical path: {countOf(trace.criticalPath.calls.length, 'call')} in sequence,{' '}
        {ms(trace.criticalPath.ms)}
        {trace.criticalPath.calls.length > 0 &&
          ` (${trace.criticalPath.calls.map((id) => trace.calls[id]?.tag).join(' → ')})`}
      </p>
      {trace.steps.some((s) => phaseOfStep(s.input)) && <QrmemCostView trace={trace} />}
      {trace.sizes.length > 0 && (
        <details className="trace__sizes">
          <summary>Sizes adapted to {trace.engine}</summary>
          <ul>
            {trace.sizes.map((s) => (
              <li key={s.name}>
                {s.name}: {s.value.toLocaleString('en')} {s.unit}{' '}
                <span className="stats">({s.why})</span>
              </li>
            ))}
          </ul>
        </details>
      )}
      <ol className="trace__steps">
        {trace.steps.map((step) => {
          const calls = trace.calls.filter((c) => c.stepId === step.id);
          const items = trace.items.filter((i) => i.stepId === step.id);
          const left = (step.startMs / total) * 100;
          const width = (((step.endMs ?? total) - step.startMs) / total) * 100;
          return (
            <li
              key={step.id}
              className="trace__step"
              data-testid="trace-step"
              data-step={step.id}
              data-status={step.status}
            >
              <div className="trace__bar" aria-hidden="true">
                <span style={{ left: `${left}%`, width: `${Math.max(0.5, width)}%` }} />
              </div>
              <p>
                <strong>{step.label}</strong>{' '}
                <span className="stats">
                  {step.status} · {ms(step.startMs)} → {ms(step.endMs)}
                  {step.output && ` · ${JSON.stringify(step.output)}`}
                </span>
              </p>
              {step.notes.map((n, i) => (
                <p key={i} className="stats trace__note">
                  {n}
                </p>
              ))}
              {calls.length > 0 && (
                <div className="trace__calls">
                  {calls.map((c) => (
                    <CallView key={c.id} call={c} critical={critical.has(c.id)} />
                  ))}
                </div>
              )}
              {items.length > 0 && (
                <details className="trace__items" open={items.length <= 12}>
                  <summary>
                    {items.filter((i) => i.verdict === 'kept').length} kept,{' '}
                    {items.filter((i) => i.verdict === 'dropped').length} dropped
                  </summary>
                  <ul>
                    {items.map((i) => (
                      <ItemRow key={i.id} item={i} />
                    ))}
                  </ul>
                </details>
              )}
            </li>
          );
        })}
      </ol>
      {trace.graph && trace.graph.kind === 'merge-tree' && <MergeTree trace={trace} />}
      {trace.graph && trace.graph.kind === 'entity-graph' && (
        <EntityGraphView trace={trace} onOpen={onOpen} />
      )}
    </section>
  );
}

/** SEGMENT+'s merge tree: every merged note with the notes it merged, up to the answer. */
function MergeTree({ trace }: { trace: Trace }) {
  const graph = trace.graph!;
  const label = new Map(graph.nodes.map((n) => [n.id, n.label]));
  const parents = graph.nodes.filter((n) => graph.edges.some((e) => e.to === n.id));
  return (
    <section aria-label="Merge tree" data-testid="merge-tree">
      <h4>Merge tree</h4>
      <ul>
        {parents.map((p) => (
          <li key={p.id}>
            {p.label} ←{' '}
            {graph.edges
              .filter((e) => e.to === p.id)
              .map((e) => label.get(e.from) ?? e.from)
              .join(', ')}
          </li>
        ))}
      </ul>
    </section>
  );
}
