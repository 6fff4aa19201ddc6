/**
 * @file The message protocol between the UI thread and our workers, shared by both sides.
 *
 * Requests are `{ kind, id, payload }`; the worker answers with progress messages and then
 * exactly one `result` or `error` for that id. Errors cross as `{ name, message }` so the UI
 * can tell an AbortError (ignored) from a failure (shown). Large typed arrays cross as
 * transferred buffers: the sender lists them in `transfer` and must not touch them again.
 */

import type { Progress } from '../core/types';

// The shared words live on the ground floor (src/core); the workers' callers import them here too.
export { AbortError, isAbortError } from '../core/abort';
export { buffersOf } from '../core/transfer';
export type { Progress };

/** One call a worker answers: what goes in and what comes back. */
export interface Endpoint {
  payload: unknown;
  result: unknown;
}

/**
 * A worker's API: an interface with one endpoint per kind. It carries no index signature, so a
 * misspelt kind or a wrong payload does not type-check (client.test.ts proves it).
 */
export type WorkerApi<Api> = { [K in keyof Api]: Endpoint };

export interface SerializedError {
  name: string;
  message: string;
}

export type WorkerRequest =
  { type: 'request'; id: number; kind: string; payload: unknown } | { type: 'cancel'; id: number };

export type WorkerResponse =
  | { type: 'progress'; id: number; progress: Progress }
  | { type: 'result'; id: number; result: unknown }
  | { type: 'error'; id: number; error: SerializedError };

export function serializeError(error: unknown): SerializedError {
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}

export function deserializeError(error: SerializedError): Error {
  const e = new Error(error.message);
  e.name = error.name;
  return e;
}
