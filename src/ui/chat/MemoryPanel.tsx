/**
 * @file What the chat remembered for one message: every past round's independent, environment
 * and final score along the conversation's timeline (the look of DocumentStrip: plain SVG),
 * which rounds went into the prompt and why, the switch between full history and memory, the
 * token split, the library's part when the chat draws on documents, and the prompt as sent.
 */
import { useMemo, useState } from 'react';
import { defaultChatMemoryOptions, type ChatRound } from '../../core/chat';
import type { Prompt } from '../../core/prompt';
import type { ChatSettingsRecord } from '../../store';
import { fragmentLocation } from '../answer/fragments';
import { PromptDetails } from '../answer/PromptDetails';
import { ScoreBar, fmt } from '../components/ScoreBar';
import { REASON_LABELS, scorePath, scoreRange, splitParts, switchText, timelineX } from './memory';
import type { MemoryView } from './planner';
import { TableHead } from '../components/TableHead';

export interface MemoryEntry {
  /** 0-based round of the message. */
  round: number;
  message: string;
  status: 'loading' | 'ready' | 'error';
  view: MemoryView | null;
  /** The prompt as sent, for a message sent in this session with these settings. */
  prompt: Prompt | null;
  exact: boolean;
  error: string | null;
}

const W = 1000;
const H = 140;
const PAD = 8;
const n = (x: number) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en') : '∞');

function snippet(text: string, max = 160): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export function MemoryPanel({
  entry,
  rounds,
  settings,
}: {
  entry: MemoryEntry | null;
  /** The conversation's rounds (for the text of past rounds). */
  rounds: readonly ChatRound[];
  settings: ChatSettingsRecord;
}) {
  return (
    <section className="memory card" aria-labelledby="memory-title" data-testid="memory-panel">
      <h2 id="memory-title" className="card__title">
        Memory
        {entry && (
          <span className="stats">
            {' '}
            for round {entry.round + 1}: “{snippet(entry.message, 80)}”
          </span>
        )}
      </h2>
      {!entry ? (
        <p className="empty-state">
          Send a message to see which earlier rounds the chat recalls for it, and why.
        </p>
      ) : entry.status === 'error' ? (
        <p role="alert" className="answer__error">
          The memory for this message could not be worked out: {entry.error}
        </p>
      ) : !entry.view ? (
        <p role="status">Scoring the earlier rounds…</p>
      ) : (
        <MemoryDetails
          key={`${entry.round}`}
          entry={entry}
          view={entry.view}
          rounds={rounds}
          settings={settings}
        />
      )}
    </section>
  );
}

function MemoryDetails({
  entry,
  view,
  rounds,
  settings,
}: {
  entry: MemoryEntry;
  view: MemoryView;
  rounds: readonly ChatRound[];
  settings: ChatSettingsRecord;
}) {
  const { plan, budget, documents } = view;
  const alpha = settings.alpha ?? defaultChatMemoryOptions.alpha;
  const count = plan.rounds.length;
  const firstPick = plan.selection.ranked[0] ?? (count > 0 ? count - 1 : null);
  const [picked, setPicked] = useState<number | null>(null);
  const focused = picked !== null && picked < count ? picked : firstPick;

  const range = useMemo(() => scoreRange(plan), [plan]);
  const paths = useMemo(() => {
    const line = (key: 'independent' | 'environment' | 'final') =>
      scorePath(
        plan.rounds.map((r) => r[key]),
        W,
        H,
        PAD,
        range,
      );
    return { ind: line('independent'), env: line('environment'), fin: line('final') };
  }, [plan, range]);
  const span = range.high - range.low;
  const y = (v: number) => H - PAD - (span > 0 ? ((v - range.low) / span) * (H - 2 * PAD) : 0);
  const slot = count > 0 ? W / count : W;
  // The budget line: the final score of the weakest retrieved round.
  const cutoff = plan.retrieved.length
    ? Math.min(...plan.retrieved.map((i) => plan.rounds[i].final))
    : null;
  const parts = splitParts(plan);
  const maxFinal = Math.max(1e-9, ...plan.rounds.map((r) => r.final));
  const droppedRounds = new Set(
    (entry.prompt?.dropped ?? []).flatMap((d) => {
      const ref = view.parts.refs[d.index];
      return ref?.kind === 'round' ? [ref.round] : [];
    }),
  );
  const droppedDialog = new Set(
    (entry.prompt?.droppedTurns ?? []).map((k) => view.parts.historyRounds[k]),
  );
  const options = { ...defaultChatMemoryOptions, ...settings };

  const focusedRound = focused !== null ? plan.rounds[focused] : null;
  const explanation =
    focused !== null ? plan.explanations.find((e) => e.index === focused) : undefined;

  return (
    <div className="memory__body">
      <p data-testid="memory-mode" data-mode={plan.mode} data-reason={plan.switchReason}>
        <span className={`badge badge--${plan.mode}`}>
          {plan.mode === 'memory' ? 'memory' : 'full history'}
        </span>{' '}
        {switchText(plan, options)}
      </p>
      <p className="stats">
        Query (Eq. 4): the last round and the new message · scoring:{' '}
        {plan.scoring === 'dense' ? 'dense, GloVe word vectors' : plan.scoring} · w_rel{' '}
        {options.wRel}, α {options.alpha}, top {options.topTurns}, recent {options.recentTurns}
        {entry.prompt ? ' · as sent' : ' · with the current settings'}
      </p>
      {view.notes.map((note) => (
        <p key={note} className="notice notice--info">
          {note}
        </p>
      ))}

      {count === 0 ? (
        <p className="empty-state">This is the first message: there is nothing to recall yet.</p>
      ) : (
        <figure className="strip memory__timeline">
          <figcaption>
            <strong>Timeline</strong> — {count} past round{count === 1 ? '' : 's'},{' '}
            {plan.included.length} in the prompt
            {plan.mode === 'memory' &&
              ` (${plan.retrieved.length} retrieved, ${plan.recent.length} recent)`}
          </figcaption>
          <svg
            viewBox={`0 0 ${W} ${H}`}
            preserveAspectRatio="none"
            role="slider"
            tabIndex={0}
            aria-label="Past round to inspect. The timeline plots each round's independent, environment and final score; rounds in the prompt are marked."
            aria-valuemin={1}
            aria-valuemax={count}
            aria-valuenow={(focused ?? 0) + 1}
            aria-valuetext={
              focusedRound
                ? `round ${focusedRound.round + 1}, ${REASON_LABELS[focusedRound.reason]}`
                : 'none'
            }
            onClick={(e) => {
              const rect = e.currentTarget.getBoundingClientRect();
              const rel = (e.clientX - rect.left) / rect.width;
              setPicked(Math.min(count - 1, Math.max(0, Math.floor(rel * count))));
            }}
            onKeyDown={(e) => {
              const at = focused ?? 0;
              const step = { ArrowLeft: -1, ArrowDown: -1, ArrowRight: 1, ArrowUp: 1 }[e.key];
              let next: number | null = null;
              if (step !== undefined) next = at + step;
              else if (e.key === 'Home') next = 0;
              else if (e.key === 'End') next = count - 1;
              if (next === null) return;
              e.preventDefault();
              setPicked(Math.min(count - 1, Math.max(0, next)));
            }}
          >
            {plan.rounds.map((r) =>
              r.inPrompt ? (
                <rect
                  key={r.round}
                  className={`memory__mark memory__mark--${r.reason}`}
                  x={timelineX(r.round, count, W) - Math.min(slot * 0.4, 6)}
                  y={0}
                  width={Math.min(slot * 0.8, 12)}
                  height={H}
                />
              ) : null,
            )}
            <path className="strip__line strip__line--env" d={paths.env} />
            <path className="strip__line strip__line--ind" d={paths.ind} />
            <path className="strip__line strip__line--final" d={paths.fin} />
            {cutoff !== null && (
              <line className="strip__cutoff" x1={0} x2={W} y1={y(cutoff)} y2={y(cutoff)} />
            )}
            {focused !== null && (
              <rect
                className="strip__focus"
                x={timelineX(focused, count, W) - Math.min(slot * 0.5, 8)}
                y={1}
                width={Math.min(slot, 16)}
                height={H - 2}
              />
            )}
          </svg>
          <div className="strip__legend" aria-hidden="true">
            <span className="swatch swatch--ind" /> independent{' '}
            <span className="swatch swatch--env" /> environment{' '}
            <span className="swatch swatch--final" /> final{' '}
            <span className="swatch swatch--retrieved" /> retrieved{' '}
            <span className="swatch swatch--recent" /> recent{' '}
            <span className="swatch swatch--history" /> full history{' '}
            {cutoff !== null && (
              <>
                <span className="swatch swatch--cutoff" /> weakest retrieved
              </>
            )}
          </div>
        </figure>
      )}

      {focusedRound && (
        <div
          className="memory__focus"
          data-testid="memory-focus"
          data-round={focusedRound.round + 1}
        >
          <p>
            <strong>Round {focusedRound.round + 1}</strong>{' '}
            <span className={`badge badge--${focusedRound.reason}`}>
              {REASON_LABELS[focusedRound.reason]}
            </span>{' '}
            rank {focusedRound.rank + 1} of {count} by final score · {n(focusedRound.tokens)} tokens
            {droppedRounds.has(focusedRound.round) || droppedDialog.has(focusedRound.round)
              ? ' · left out to fit the context window'
              : ''}
          </p>
          <ScoreBar
            independent={focusedRound.independent}
            environment={focusedRound.environment}
            alpha={alpha}
            scale={maxFinal}
          />
          <p className="memory__text">“{snippet(rounds[focusedRound.round]?.user ?? '', 240)}”</p>
          {explanation && (explanation.byKind.context?.contributions.length ?? 0) > 0 && (
            <p className="help">
              Its environment (rounds nearby in time, weight w_rel^distance):{' '}
              {explanation.byKind.context.contributions
                .map((c) => `round ${c.index + 1} (${Math.round(c.share * 100)}%)`)
                .join(', ')}
              .
            </p>
          )}
        </div>
      )}

      <div className="memory__split" data-testid="memory-split">
        <h3>Token split</h3>
        <div
          className="memory__bar"
          role="img"
          aria-label={parts.map((p) => `${p.label} ${n(p.tokens)} tokens`).join(', ')}
        >
          {parts.map((p) =>
            p.share > 0 ? (
              <span
                key={p.key}
                className={`memory__part memory__part--${p.key}`}
                style={{ width: `${(p.share * 100).toFixed(2)}%` }}
              />
            ) : null,
          )}
        </div>
        <ul className="memory__legend">
          {parts.map((p) => (
            <li key={p.key} data-part={p.key} data-tokens={p.tokens}>
              <span className={`swatch memory__part--${p.key}`} /> {p.label}: {n(p.tokens)}
            </li>
          ))}
        </ul>
        <p className="stats" data-testid="memory-budget">
          Context {n(budget.context)} tokens = reply {n(budget.answer)} + instructions and the
          message {n(budget.fixed)} + recall budget {n(budget.recall)} + margin {n(budget.margin)}.
          {plan.tokens.overBudget &&
            ' The rounds that must go in do not fit by themselves: the oldest are left out when the prompt is fitted.'}
        </p>
        {plan.split && (
          <p
            data-testid="memory-library-split"
            data-chat={plan.split.chat}
            data-documents={plan.split.documents}
          >
            Shared with the library (
            {plan.split.rule === 'merge'
              ? 'one ranking over both'
              : plan.split.rule === 'share'
                ? 'fixed share'
                : 'history first'}
            ): chat {n(plan.split.chat)} tokens, library {n(plan.split.documents)} tokens (
            {Math.round(plan.split.chatFraction * 100)}% chat).
          </p>
        )}
      </div>

      {documents && plan.documents && (
        <div className="memory__library" data-testid="memory-library">
          <h3>From the library</h3>
          {plan.documents.indices.length === 0 ? (
            <p className="help">No fragment of the linked documents made it into the budget.</p>
          ) : (
            <ol>
              {Array.from(plan.documents.ranked, (j) => (
                <li key={j} data-fragment={j}>
                  {fragmentLocation(documents.result, j)} · final {fmt(documents.result.final[j])}
                </li>
              ))}
            </ol>
          )}
        </div>
      )}

      {count > 0 && (
        <div className="memory__table-wrap">
          <table className="explain__table memory__table" data-testid="memory-rounds">
            <caption className="visually-hidden">Every past round's scores</caption>
            <TableHead
              columns={['Round', 'In the prompt', 'Independent', 'Environment', 'Final', 'Rank']}
            />
            <tbody>
              {plan.rounds.map((r) => (
                <tr
                  key={r.round}
                  className={`memory__row memory__row--${r.reason}${focused === r.round ? ' memory__row--focused' : ''}`}
                  data-testid="memory-row"
                  data-round={r.round + 1}
                  data-reason={r.reason}
                  data-independent={r.independent}
                  data-environment={r.environment}
                  data-final={r.final}
                >
                  <th scope="row">
                    <button type="button" className="link" onClick={() => setPicked(r.round)}>
                      Round {r.round + 1}
                    </button>
                  </th>
                  <td>{REASON_LABELS[r.reason]}</td>
                  <td>{fmt(r.independent)}</td>
                  <td>{fmt(r.environment)}</td>
                  <td>{fmt(r.final)}</td>
                  <td>{r.rank + 1}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      {entry.prompt && <PromptDetails prompt={entry.prompt} exact={entry.exact} />}
    </div>
  );
}
