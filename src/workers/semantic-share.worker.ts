/// <reference lib="webworker" />
/**
 * @file A worker of the semantic relation's pool (semantic-pool.ts): runs one share of a large
 * document's inverted-file blocks at a time. Started by the index worker.
 */
import { shareServer, type ShareRequest } from './semantic-pool';

const scope = self as unknown as DedicatedWorkerGlobalScope;
const serve = shareServer();
scope.addEventListener('message', (event: MessageEvent<ShareRequest>) => {
  serve(event.data, (message, transfer) => scope.postMessage(message, transfer));
});
