/**
 * @file Cancellation and responsiveness helpers. Ingestion may run on the UI thread, so long
 * synchronous work is cut into slices that give the event loop a turn: a click on "Cancel" can
 * only abort the signal between slices.
 */
import { AbortError } from '../core/abort';

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new AbortError();
}

/**
 * Settles like `promise`, or rejects with an AbortError as soon as `signal` aborts (calling
 * `onAbort` so the caller can stop the work behind the promise).
 */
export function abortable<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
  onAbort?: () => void,
): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    onAbort?.();
    // The abandoned promise may still reject; nobody waits for it any more.
    promise.catch(() => {});
    return Promise.reject(new AbortError());
  }
  return new Promise<T>((resolve, reject) => {
    const listener = () => {
      onAbort?.();
      promise.catch(() => {});
      reject(new AbortError());
    };
    signal.addEventListener('abort', listener, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', listener);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', listener);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/** How long synchronous work may run before it gives the event loop a turn. */
const SLICE_MS = 12;

function now(): number {
  return typeof performance !== 'undefined' ? performance.now() : Date.now();
}

/**
 * A checkpoint to call between units of work: it throws an AbortError if the signal fired, and
 * once per slice it waits for a macrotask so that events (the abort click among them) are handled.
 */
export function createCheckpoint(signal: AbortSignal | undefined): () => Promise<void> {
  let sliceStart = now();
  return async () => {
    throwIfAborted(signal);
    if (now() - sliceStart < SLICE_MS) return;
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
    sliceStart = now();
    throwIfAborted(signal);
  };
}
