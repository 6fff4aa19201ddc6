/**
 * @file The semantic pool's worker on Node's worker_threads (test/semantic-pool-node.ts): the
 * same `shareServer` as the app's Web Worker (src/workers/semantic-share.worker.ts).
 */
import { parentPort } from 'node:worker_threads';
import { shareServer, type ShareRequest } from '../src/workers/semantic-pool';

const serve = shareServer();
parentPort!.on('message', (request: ShareRequest) => {
  serve(request, (message, transfer) =>
    parentPort!.postMessage(message, transfer as unknown as ArrayBuffer[]),
  );
});
