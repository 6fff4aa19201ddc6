/**
 * @file Worker handlers run on the calling thread, behind the same `Caller` interface as a real
 * worker: for tests in Node, and as a fallback where workers are unavailable.
 */
import type { Caller, CallOptions } from './client';
import type { Handler, Handlers } from './host';
import { AbortError, type WorkerApi } from './protocol';

export class InProcessClient<Api extends WorkerApi<Api>> implements Caller<Api> {
  /** How many times each kind was called: tests assert which work ran. */
  readonly calls: Record<string, number> = {};

  private readonly handlers: Record<string, Handler | undefined>;

  constructor(handlers: Handlers<Api>) {
    this.handlers = handlers as unknown as Record<string, Handler | undefined>;
  }

  async call<K extends keyof Api & string>(
    kind: K,
    payload: Api[K]['payload'],
    options: CallOptions = {},
  ): Promise<Api[K]['result']> {
    const handler = this.handlers[kind];
    if (!handler) throw new Error(`No handler for "${kind}".`);
    if (options.signal?.aborted) throw new AbortError();
    this.calls[kind] = (this.calls[kind] ?? 0) + 1;
    const result = await handler(payload as never, {
      signal: options.signal ?? new AbortController().signal,
      progress: (p) => options.onProgress?.(p),
      transfer: () => {},
    });
    return result as Api[K]['result'];
  }
}
