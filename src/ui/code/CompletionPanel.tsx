/**
 * @file A code completion as the code view shows it: the panel with its status, the text, the
 * windows the model was given and the prompt, and the completion drawn inline in the viewer.
 */
import { useMemo } from 'react';
import { PromptDetails } from '../answer/PromptDetails';
import type { InlineCompletion } from './CodeViewer';
import type { CompletionRun, CompletionStatus } from './useCompletion';

const COMPLETION_STATUS: Record<CompletionStatus, string> = {
  retrieving: 'Retrieving windows…',
  preparing: 'Preparing the prompt…',
  loading: 'Loading the model…',
  streaming: 'Writing…',
  done: 'Done.',
  stopped: 'Stopped.',
  error: 'The completion could not be made.',
};

/** The completion drawn in the viewer (null: none in the open file), stable while unchanged. */
export function useInlineCompletion(completionHere: CompletionRun | null): InlineCompletion | null {
  const inlineText = completionHere?.text;
  const inlineStatus: InlineCompletion['status'] | undefined = completionHere
    ? completionHere.status === 'streaming'
      ? 'streaming'
      : completionHere.status === 'done'
        ? 'done'
        : completionHere.status === 'stopped'
          ? 'stopped'
          : completionHere.status === 'error'
            ? 'error'
            : 'waiting'
    : undefined;
  // Stable while the completion is unchanged, so the (memoised) viewer skips unrelated renders.
  return useMemo<InlineCompletion | null>(
    () =>
      inlineText !== undefined && inlineStatus !== undefined
        ? { text: inlineText, status: inlineStatus }
        : null,
    [inlineText, inlineStatus],
  );
}

export function CompletionPanel({
  run,
  engineProblem,
  onPick,
}: {
  run: CompletionRun;
  /** The engine is not set up: a bad request says where to set it up. */
  engineProblem: boolean;
  onPick: (index: number) => void;
}) {
  return (
    <section
      className="card completion"
      aria-labelledby="completion-title"
      data-testid="completion-panel"
      data-state={run.status}
    >
      <h2 id="completion-title" className="card__title">
        Completion at {run.cursor.path}:{run.cursor.line}
      </h2>
      <p className="stats" role="status" data-testid="completion-status">
        {COMPLETION_STATUS[run.status]}
        {run.engineLabel && ` · ${run.engineLabel}`}
        {run.stats && run.status === 'done' && ` · ${(run.stats.elapsedMs / 1000).toFixed(1)} s`}
      </p>
      {run.error && (
        <div className="answer__error" role="alert" data-testid="completion-error">
          <p>{run.error.message}</p>
          {run.error.detail && <p className="stats">{run.error.detail}</p>}
          {run.error.code === 'bad-request' && engineProblem && (
            <p className="stats">Set up the engine in the Answer panel below.</p>
          )}
        </div>
      )}
      {run.text && (
        <pre className="code-completion" data-testid="completion-text">
          {run.text}
        </pre>
      )}
      {run.prompt && (
        <>
          <ol className="answer__sources" aria-label="Windows the model was given">
            {run.prompt.sources.map((s) => (
              <li key={s.label}>
                <button type="button" className="link" onClick={() => onPick(s.index)}>
                  [{s.label}] {s.location}
                </button>
              </li>
            ))}
          </ol>
          <PromptDetails prompt={run.prompt} exact={run.exactCounts} />
        </>
      )}
    </section>
  );
}
