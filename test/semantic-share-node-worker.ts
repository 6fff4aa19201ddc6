/**
 * @file The semantic pool's worker on Node's worker_threads (test/semantic-pool-node.ts): the
 * same `serveShare` as the app's Web Worker (src/workers/semantic-share.worker.ts).
 */
import { parentPort } from 'node:worker_threads';
import { serveShare, type ShareRequest } from '../src/workers/semantic-pool';

parentPort!.on('message', (request: ShareRequest) => {
  serveShare(request, (message, transfer) =>
    parentPort!.postMessage(message, transfer as unknown as ArrayBuffer[]),
  );
});
