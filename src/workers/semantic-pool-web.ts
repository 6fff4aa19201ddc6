/**
 * @file The semantic relation's pool on Web Workers, started by the index worker (nested
 * dedicated workers) the first time a large document is related, one per core.
 */
import type { SemanticPool } from '../core/relations/semantic-parallel';
import { createSemanticPool, poolSize, type ClosablePool } from './semantic-pool';

let pool: ClosablePool | null = null;

/** The pool, or null where this context cannot start workers (the build then runs here). */
export function webSemanticPool(): SemanticPool | null {
  if (typeof Worker === 'undefined') return null;
  pool ??= createSemanticPool(poolSize(globalThis.navigator?.hardwareConcurrency), () => {
    const worker = new Worker(new URL('./semantic-share.worker.ts', import.meta.url), {
      type: 'module',
      name: 'semantic-share',
    });
    return {
      postMessage: (message, transfer) => worker.postMessage(message, transfer),
      listen(onMessage, onError) {
        worker.onmessage = (event) => onMessage(event.data);
        worker.onerror = (event) => {
          event.preventDefault();
          onError(new Error(event.message || 'The semantic relation worker could not start.'));
        };
      },
      terminate: () => worker.terminate(),
    };
  });
  return pool;
}
