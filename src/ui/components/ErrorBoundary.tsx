/**
 * @file The last line against a silent failure. Without a boundary, an error thrown while React
 * renders unmounts the whole page: a job, its progress and every notice vanish with no word
 * (a 30,000-file zip "ended" that way). The boundary shows what failed instead, and says
 * that the stored library is untouched (rendering never writes to it). `useGlobalFailures` turns
 * errors that escape every handler (an uncaught exception, a rejected promise nobody awaited)
 * into notices.
 */
import { Component, useEffect, type ReactNode } from 'react';

export class ErrorBoundary extends Component<{ children: ReactNode }, { error: Error | null }> {
  override state: { error: Error | null } = { error: null };

  static getDerivedStateFromError(error: unknown): { error: Error } {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override render() {
    const { error } = this.state;
    if (!error) return this.props.children;
    return (
      <main className="main">
        <div className="notice" role="alert" data-testid="page-failure">
          <p>
            The page failed while showing your library: {error.message || error.name}. Your stored
            library is intact; reload the page to go on.
          </p>
          <button type="button" onClick={() => location.reload()}>
            Reload
          </button>
        </div>
      </main>
    );
  }
}

/** The message of an error that escaped every handler, for a notice. */
export function escapedErrorMessage(reason: unknown): string {
  const what = reason instanceof Error ? reason.message || reason.name : String(reason);
  return `Something failed unexpectedly: ${what}. Nothing was stored by the step that failed.`;
}

/**
 * What a person is told when a job fails. An AbortError that did not come from the Cancel button
 * (the browser aborted a write, or stopped a worker) would otherwise read as "cancelled".
 */
export function jobFailureMessage(name: string, error: unknown): string {
  const e = error instanceof Error ? error : new Error(String(error));
  if (e.name === 'AbortError') {
    return `“${name}” was not added: the browser stopped the work (${e.message || 'aborted'}). Nothing was stored; the library is as it was.`;
  }
  return e.message || `“${name}” failed (${e.name}). Nothing was stored.`;
}

/** Report uncaught errors and unhandled rejections of the page through `notify`. */
export function useGlobalFailures(notify: (text: string) => void): void {
  useEffect(() => {
    const onError = (event: ErrorEvent) =>
      notify(escapedErrorMessage(event.error ?? event.message));
    const onRejection = (event: PromiseRejectionEvent) => {
      // A cancelled job's abandoned promise is no failure.
      if (event.reason instanceof Error && event.reason.name === 'AbortError') return;
      notify(escapedErrorMessage(event.reason));
    };
    window.addEventListener('error', onError);
    window.addEventListener('unhandledrejection', onRejection);
    return () => {
      window.removeEventListener('error', onError);
      window.removeEventListener('unhandledrejection', onRejection);
    };
  }, [notify]);
}
