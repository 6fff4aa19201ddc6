/// <reference lib="webworker" />
/**
 * @file The retrieval worker: runs core scoring off the main thread.
 */
import { serveWorker } from './host';

export interface RetrievalApi {
  [kind: string]: { payload: unknown; result: unknown };
  ping: { payload: null; result: { pong: true; crossOriginIsolated: boolean } };
}

serveWorker(self as unknown as Parameters<typeof serveWorker>[0], {
  ping: () => ({ pong: true, crossOriginIsolated: self.crossOriginIsolated }),
});
