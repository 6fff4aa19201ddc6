/**
 * @file The index worker's pool on Node's worker_threads, for the benches and the tests: the
 * app's WorkerPool and WorkerClient (src/workers) with members that run the app's pool handlers
 * (test/pool-node-worker.ts), so parsing, the code relation's rows and the semantic relation's
 * shares run on real threads as they do on Web Workers in the app.
 */
import os from 'node:os';
import { Worker as NodeWorker } from 'node:worker_threads';
import type { SemanticPool } from '../src/core/relations/semantic-parallel';
import { WorkerClient } from '../src/workers/client';
import { poolSize, WorkerPool } from '../src/workers/pool';
import type { PoolApi } from '../src/workers/pool-handlers';
import type { WorkerRequest, WorkerResponse } from '../src/workers/protocol';
import { semanticSharesOn } from '../src/workers/semantic-shares';

/**
 * A worker_threads Worker shaped as the DOM Worker that WorkerClient expects. An idle member does
 * not keep the process alive; one with a call in flight does.
 */
export function nodePoolWorker(): Worker {
  const w = new NodeWorker(new URL('./pool-node-worker.mjs', import.meta.url));
  w.unref();
  let pending = 0;
  return {
    addEventListener: (type: string, f: (e: unknown) => void) => {
      if (type === 'message') {
        w.on('message', (data: WorkerResponse) => {
          if (data.type !== 'progress' && --pending === 0) w.unref();
          f({ data });
        });
      } else if (type === 'error') w.on('error', (e) => f({ message: e.message }));
      else if (type === 'messageerror') w.on('messageerror', () => f({}));
    },
    postMessage: (m: WorkerRequest, transfer?: Transferable[]) => {
      if (m.type === 'request' && pending++ === 0) w.ref();
      w.postMessage(m, transfer as never);
    },
    terminate: () => void w.terminate(),
  } as unknown as Worker;
}

/** A pool of `size` worker threads (default: the machine's cores). Terminate it when done. */
export function nodePool(size = poolSize(os.availableParallelism())): WorkerPool<PoolApi> {
  return new WorkerPool<PoolApi>(() => new WorkerClient<PoolApi>(nodePoolWorker()), size);
}

/** The semantic relation's shares on a pool of `size` threads; `close` stops them. */
export function nodeSemanticPool(
  size = poolSize(os.availableParallelism()),
): SemanticPool & { close(): void } {
  const pool = nodePool(size);
  return { ...semanticSharesOn(pool), close: () => pool.terminate() };
}
