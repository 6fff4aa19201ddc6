/**
 * @file The semantic relation's worker pool on Node's worker_threads, for the bench and the
 * tests: the app's pool logic (src/workers/semantic-pool.ts) with workers that load TypeScript
 * through tsx.
 */
import { createRequire } from 'node:module';
import os from 'node:os';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import {
  createSemanticPool,
  poolSize,
  type ClosablePool,
  type ShareResponse,
} from '../src/workers/semantic-pool';

const entry = new URL('./semantic-share-node-worker.ts', import.meta.url);
// Node 20 does not pass `--import tsx` on to a worker's own entry, so a small JS entry registers
// tsx's loader and then imports the TypeScript one.
const tsxApi = pathToFileURL(
  createRequire(import.meta.url)
    .resolve('tsx/esm/api')
    .replace(/\.cjs$/, '.mjs'),
).href;
const bootstrap = `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`;

/** A pool of `size` worker threads (default: the machine's cores). Close it when done. */
export function nodeSemanticPool(size = poolSize(os.availableParallelism())): ClosablePool {
  return createSemanticPool(size, () => {
    const worker = new Worker(bootstrap, { eval: true });
    // An idle worker must not keep the process alive (a running one does: `ref` below).
    worker.unref();
    return {
      postMessage(message, transfer) {
        worker.ref();
        worker.postMessage(message, transfer as unknown as ArrayBuffer[]);
      },
      listen(onMessage, onError) {
        worker.removeAllListeners('message');
        worker.removeAllListeners('error');
        worker.on('message', (m: ShareResponse) => {
          if (m.type !== 'progress') worker.unref();
          onMessage(m);
        });
        worker.on('error', (e: Error) => onError(e));
      },
      terminate: () => void worker.terminate(),
    };
  });
}
