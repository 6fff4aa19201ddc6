/**
 * @file The UI side of a worker: typed calls with progress and cancellation.
 */
import {
  AbortError,
  deserializeError,
  type Progress,
  type WorkerApi,
  type WorkerRequest,
  type WorkerResponse,
} from './protocol';

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  onProgress?: (p: Progress) => void;
}

export interface CallOptions {
  signal?: AbortSignal;
  onProgress?: (p: Progress) => void;
  transfer?: Transferable[];
}

/** What callers of a worker need: a Worker behind WorkerClient, or handlers run in-process. */
export interface Caller<Api extends WorkerApi<Api>> {
  call<K extends keyof Api & string>(
    kind: K,
    payload: Api[K]['payload'],
    options?: CallOptions,
  ): Promise<Api[K]['result']>;
}

/**
 * Wraps one Worker. Calls are matched to answers by id; cancelling a call sends a `cancel`
 * message (the worker stops at its next check) and rejects at once with an AbortError.
 */
export class WorkerClient<Api extends WorkerApi<Api>> implements Caller<Api> {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  constructor(private readonly worker: Worker) {
    worker.addEventListener('message', (event: MessageEvent<WorkerResponse>) =>
      this.onMessage(event.data),
    );
    // A failure of the worker itself (an uncaught error, a script that would not load) or an
    // answer that could not be read (a result too large to copy back: out of memory) would
    // otherwise leave every call waiting for ever: each is failed with a message instead.
    worker.addEventListener('error', (event) => {
      event.preventDefault?.();
      this.failAll(
        `A background worker failed: ${event.message || 'unknown error'}. Nothing was stored; reload the page to try again.`,
      );
    });
    worker.addEventListener('messageerror', () => {
      this.failAll(
        'A background worker’s answer could not be read (most likely it was too large for the memory left to this tab). Nothing was stored; close other tabs or add a smaller part.',
      );
    });
  }

  call<K extends keyof Api & string>(
    kind: K,
    payload: Api[K]['payload'],
    options: CallOptions = {},
  ): Promise<Api[K]['result']> {
    const { signal, onProgress, transfer = [] } = options;
    if (signal?.aborted) return Promise.reject(new AbortError());
    const id = this.nextId++;
    return new Promise<Api[K]['result']>((resolve, reject) => {
      const onAbort = () => {
        if (!this.pending.delete(id)) return;
        this.post({ type: 'cancel', id });
        reject(new AbortError());
      };
      this.pending.set(id, {
        resolve: (v) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(v as Api[K]['result']);
        },
        reject: (e) => {
          signal?.removeEventListener('abort', onAbort);
          reject(e);
        },
        onProgress,
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      this.worker.postMessage(
        { type: 'request', id, kind, payload } satisfies WorkerRequest,
        transfer,
      );
    });
  }

  terminate(): void {
    this.worker.terminate();
    for (const p of this.pending.values()) p.reject(new AbortError('The worker was stopped.'));
    this.pending.clear();
  }

  private failAll(message: string): void {
    const error = new Error(message);
    error.name = 'WorkerFailure';
    for (const p of this.pending.values()) p.reject(error);
    this.pending.clear();
  }

  private post(message: WorkerRequest): void {
    this.worker.postMessage(message);
  }

  private onMessage(message: WorkerResponse): void {
    const p = this.pending.get(message.id);
    if (!p) return; // answer to a cancelled call
    if (message.type === 'progress') {
      p.onProgress?.(message.progress);
      return;
    }
    this.pending.delete(message.id);
    if (message.type === 'result') p.resolve(message.result);
    else p.reject(deserializeError(message.error));
  }
}
