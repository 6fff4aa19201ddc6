/**
 * @file Cancellation words shared by every floor, and the part of the DOM's AbortSignal the pure core needs. The core compiles without the DOM
 * library (tsconfig.core.json), so it names this shape instead; a real `AbortSignal` (browser,
 * worker or Node) satisfies it structurally.
 */
export interface AbortSignalLike {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * The error a cancelled operation rejects with, on every floor (core, ingest, models, workers).
 * It crosses the worker boundary by its name, 'AbortError', and the UI ignores it by that name.
 */
export class AbortError extends Error {
  override name = 'AbortError';
  constructor(message = 'The operation was cancelled.') {
    super(message);
  }
}

/** True for our AbortError and for the DOM's (a DOMException named 'AbortError'). */
export function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}

/** Resolves when `signal` aborts (never, without a signal). */
export function whenAborted(signal: AbortSignalLike | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (!signal) return;
    if (signal.aborted) return resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
