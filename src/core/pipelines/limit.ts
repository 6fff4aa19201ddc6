/**
 * @file A concurrency limiter for LLM calls and a signal that stops with its parent or by itself.
 *
 * Independent calls (LongRAG's filters, SEGMENT+'s notes and merges of one round) are started
 * together and run at most `concurrency` at a time: the engine's own limit (one for an in-browser
 * model, a few for an API). Waiting tasks start in the order they were queued.
 */
import type { AbortSignalLike } from '../abort';

export interface Limiter {
  /** Run `task` when a slot is free. `onStart` is called as it gets the slot. */
  run<T>(task: () => Promise<T>, onStart?: () => void): Promise<T>;
  readonly running: number;
  readonly queued: number;
}

export function createLimiter(concurrency: number): Limiter {
  const limit = Math.max(1, Math.floor(concurrency));
  let running = 0;
  const waiting: Array<() => void> = [];
  const release = () => {
    running--;
    const next = waiting.shift();
    if (next) next();
  };
  return {
    get running() {
      return running;
    },
    get queued() {
      return waiting.length;
    },
    run<T>(task: () => Promise<T>, onStart?: () => void): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        const start = () => {
          running++;
          onStart?.();
          let p: Promise<T>;
          try {
            p = task();
          } catch (e) {
            release();
            reject(e as Error);
            return;
          }
          p.then(
            (v) => {
              release();
              resolve(v);
            },
            (e: unknown) => {
              release();
              reject(e as Error);
            },
          );
        };
        if (running < limit) start();
        else waiting.push(start);
      });
    },
  };
}

/** A signal that aborts when `parent` does or when `abort()` is called (the DOM-free core's AbortController). */
export function linkedSignal(parent: AbortSignalLike): { signal: AbortSignalLike; abort(): void } {
  // Each listener maps to what is called, so a `once` listener can still be removed.
  const listeners = new Map<() => void, () => void>();
  let aborted = false;
  const abort = () => {
    if (aborted) return;
    aborted = true;
    const called = [...listeners.values()];
    listeners.clear();
    for (const l of called) l();
  };
  const signal: AbortSignalLike = {
    get aborted() {
      return aborted;
    },
    addEventListener(_type, listener, options) {
      if (aborted) return;
      listeners.set(
        listener,
        options?.once
          ? () => {
              listeners.delete(listener);
              listener();
            }
          : listener,
      );
    },
    removeEventListener(_type, listener) {
      listeners.delete(listener);
    },
  };
  if (parent.aborted) abort();
  else parent.addEventListener('abort', abort, { once: true });
  return { signal, abort };
}
