/**
 * @file The part of the DOM's AbortSignal the pure core needs. The core compiles without the DOM
 * library (tsconfig.core.json), so it names this shape instead; a real `AbortSignal` (browser,
 * worker or Node) satisfies it structurally.
 */
export interface AbortSignalLike {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** The error a cancelled core operation rejects with; the UI ignores it by its name. */
export class CoreAbortError extends Error {
  constructor(message = 'Stopped.') {
    super(message);
    this.name = 'AbortError';
  }
}

/** Resolves when `signal` aborts (never, without a signal). */
export function whenAborted(signal: AbortSignalLike | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (!signal) return;
    if (signal.aborted) return resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
