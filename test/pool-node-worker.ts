/**
 * @file A pool member in Node (worker_threads) for test/pool-node.ts: the app's pool handlers
 * (src/workers/pool-handlers.ts) behind the same protocol host as the browser's pool.worker.ts.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parentPort } from 'node:worker_threads';
import { nodeGrammarSource } from '../src/models/tree-sitter-node';
import { serveWorker } from '../src/workers/host';
import { createPoolHandlers, type PoolApi } from '../src/workers/pool-handlers';
import type { WorkerRequest, WorkerResponse } from '../src/workers/protocol';

const here = path.dirname(fileURLToPath(import.meta.url));
const port = parentPort!;
serveWorker<PoolApi>(
  {
    addEventListener: (_type, listener) =>
      port.on('message', (data: WorkerRequest) =>
        listener({ data } as MessageEvent<WorkerRequest>),
      ),
    postMessage: (message: WorkerResponse, transfer?: Transferable[]) =>
      port.postMessage(message, transfer as never),
  },
  createPoolHandlers(nodeGrammarSource(path.resolve(here, '../node_modules'))),
);
