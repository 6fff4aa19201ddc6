/**
 * @file The pool of workers that builds the semantic relation of a large document in shares
 * (core/relations/semantic-parallel.ts), and the worker side of its messages. The same code runs
 * on Web Workers in the app (the index worker starts them: semantic-share.worker.ts) and on
 * Node's worker_threads in the bench and the tests (test/semantic-pool-node.ts): only `spawn`
 * differs.
 *
 * Messages: the pool sends `{ type: 'share', task }` (the document's rows on a SharedArrayBuffer
 * where the page is cross-origin isolated, else a copy transferred to that worker); the worker
 * answers with progress, then one result (its rows' heaps, transferred) or error. A cancel
 * terminates the worker (a running share cannot read messages) and a new one is started for the
 * next share.
 */
import {
  cancelled,
  semanticWork,
  type CancelSignal,
  type PreparedRows,
  type SemanticPool,
  type SemanticWorkerResult,
  type SemanticWorkerTask,
} from '../core/relations/semantic-parallel';
import { deserializeError, serializeError, type SerializedError } from './protocol';

export type ShareRequest = { type: 'share'; task: SemanticWorkerTask };
export type ShareResponse =
  | { type: 'progress'; fraction: number }
  | { type: 'result'; result: SemanticWorkerResult }
  | { type: 'error'; error: SerializedError };

/** The little of a worker the pool uses (a Web Worker or a wrapped worker_threads Worker). */
export interface ShareWorker {
  postMessage(message: ShareRequest, transfer: Transferable[]): void;
  /**
   * Called with each response, and with an Error if the worker itself fails; replaces the
   * listeners of the previous share.
   */
  listen(onMessage: (message: ShareResponse) => void, onError: (error: Error) => void): void;
  terminate(): void;
}

export interface ClosablePool extends SemanticPool {
  /** Stop every worker (the pool starts new ones if used again). */
  close(): void;
}

/**
 * The number of workers for this machine: its cores (navigator.hardwareConcurrency or Node's
 * count), at most `max` (each holds the document's rows in its own wasm memory).
 */
export function poolSize(cores: number | undefined, max = 8): number {
  return Math.max(1, Math.min(max, Math.floor(cores ?? 1)));
}

export function createSemanticPool(size: number, spawn: () => ShareWorker): ClosablePool {
  const idle: ShareWorker[] = [];
  const all = new Set<ShareWorker>();
  const waiting: ((worker: ShareWorker) => void)[] = [];
  const acquire = (): Promise<ShareWorker> => {
    const worker = idle.pop();
    if (worker) return Promise.resolve(worker);
    if (all.size < size) {
      const fresh = spawn();
      all.add(fresh);
      return Promise.resolve(fresh);
    }
    return new Promise((resolve) => waiting.push(resolve));
  };
  const release = (worker: ShareWorker) => {
    const next = waiting.shift();
    if (next) next(worker);
    else idle.push(worker);
  };
  const discard = (worker: ShareWorker) => {
    worker.terminate();
    all.delete(worker);
    const next = waiting.shift();
    if (next) {
      const fresh = spawn();
      all.add(fresh);
      next(fresh);
    }
  };

  return {
    size,
    async run(
      task,
      { signal, onProgress }: { signal?: CancelSignal; onProgress?: (f: number) => void },
    ) {
      if (signal?.aborted) throw signal.reason ?? cancelled();
      const worker = await acquire();
      return new Promise<SemanticWorkerResult>((resolve, reject) => {
        let settled = false;
        const finish = (ok: boolean) => {
          settled = true;
          signal?.removeEventListener('abort', onAbort);
          if (ok) release(worker);
          else discard(worker);
        };
        const onAbort = () => {
          if (settled) return;
          finish(false);
          reject(signal?.reason ?? cancelled());
        };
        signal?.addEventListener('abort', onAbort);
        worker.listen(
          (message) => {
            if (settled) return;
            if (message.type === 'progress') onProgress?.(message.fraction);
            else if (message.type === 'result') {
              finish(true);
              resolve(message.result);
            } else {
              finish(false);
              reject(deserializeError(message.error));
            }
          },
          (error) => {
            if (settled) return;
            finish(false);
            reject(error);
          },
        );
        // The rows cross once per worker: shared where they lie on a SharedArrayBuffer, else a
        // copy of them transferred (the caller keeps its own).
        const shared =
          typeof SharedArrayBuffer !== 'undefined' && task.data.buffer instanceof SharedArrayBuffer;
        const data = shared ? task.data : task.data.slice();
        const transfer: Transferable[] = shared ? [] : [data.buffer as ArrayBuffer];
        worker.postMessage({ type: 'share', task: { ...task, data } }, transfer);
      });
    },
    close() {
      for (const worker of all) worker.terminate();
      all.clear();
      idle.length = 0;
    },
  };
}

/**
 * The worker side: run each task, report progress (every 2%), post its arrays back transferred.
 * One server per worker: it keeps a build's rows in wasm memory from the first pass to the second.
 */
export function shareServer(): (
  request: ShareRequest,
  post: (message: ShareResponse, transfer: Transferable[]) => void,
) => void {
  const prepared: PreparedRows = { session: -1, run: null };
  return (request, post) => {
    try {
      let reported = 0;
      const result = semanticWork(
        request.task,
        (fraction) => {
          if (fraction - reported >= 0.02) {
            reported = fraction;
            post({ type: 'progress', fraction }, []);
          }
        },
        prepared,
      );
      const buffers =
        'probeOf' in result
          ? [result.probeOf.buffer]
          : 'nearest' in result
            ? [result.nearest.buffer]
            : [result.heapScore.buffer, result.heapCol.buffer, result.heapSize.buffer];
      post({ type: 'result', result }, buffers as Transferable[]);
    } catch (error) {
      prepared.session = -1;
      prepared.run = null;
      post({ type: 'error', error: serializeError(error) }, []);
    }
  };
}
