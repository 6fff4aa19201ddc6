/**
 * @file The semantic relation of a large document on the index worker's one pool (pool.ts):
 * `share`, the handler a pool member runs (one share of the inverted file's clusters, an
 * assignment range, or the nearest centroids of a sample: core/relations/semantic-parallel.ts),
 * and `semanticSharesOn`, the `SemanticPool` the core asks for, made of that pool's `run`.
 *
 * There used to be a second pool with its own message protocol for this (semantic-pool.ts); the
 * members now serve parsing, the code relation's rows and these shares alike, over the same
 * protocol (host.ts, client.ts), with the same cancel (an abort terminates a busy member).
 *
 * A member keeps a build's rows in its wasm memory from the first pass to the second
 * (`PreparedRows`, keyed by the build's session): a pass that lands on another member prepares
 * them again, with the same result.
 */
import {
  semanticWork,
  type PreparedRows,
  type SemanticPool,
  type SemanticWorkerResult,
  type SemanticWorkerTask,
} from '../core/relations/semantic-parallel';
import type { HandlerContext } from './host';
import type { WorkerApi } from './protocol';
import type { WorkerPool } from './pool';

/** Progress of a share as the protocol carries it: `done` of this many units. */
const SHARE_UNITS = 1000;

/** Most workers a build uses: each holds the document's rows in its own wasm memory. */
export const MAX_SHARE_WORKERS = 8;

/** The member's side: run one share and send its arrays back transferred. */
export function createShareHandler(): (
  task: SemanticWorkerTask,
  ctx: HandlerContext,
) => SemanticWorkerResult {
  const prepared: PreparedRows = { session: -1, run: null };
  return (task, ctx) => {
    try {
      const result = semanticWork(
        task,
        (fraction) =>
          ctx.progress({
            stage: 'relate',
            done: Math.round(fraction * SHARE_UNITS),
            total: SHARE_UNITS,
          }),
        prepared,
      );
      const buffers =
        'probeOf' in result
          ? [result.probeOf.buffer]
          : 'nearest' in result
            ? [result.nearest.buffer]
            : [result.heapScore.buffer, result.heapCol.buffer, result.heapSize.buffer];
      ctx.transfer(buffers as Transferable[]);
      return result;
    } catch (error) {
      prepared.session = -1;
      prepared.run = null;
      throw error;
    }
  };
}

/** The API a pool must serve for the semantic shares. */
export interface ShareApi {
  share: { payload: SemanticWorkerTask; result: SemanticWorkerResult };
}

/** The semantic relation's shares on `pool`, at most `max` at once. */
export function semanticSharesOn<A extends ShareApi & WorkerApi<A>>(
  pool: WorkerPool<A>,
  max = MAX_SHARE_WORKERS,
): SemanticPool {
  return {
    size: Math.max(1, Math.min(max, pool.size)),
    async run(task, { signal, onProgress }) {
      // The core's CancelSignal is an AbortSignal in practice; pass on its abort either way.
      const controller = new AbortController();
      const onAbort = () => controller.abort();
      if (signal?.aborted) controller.abort();
      signal?.addEventListener('abort', onAbort);
      // The rows cross once per member: shared where they lie on a SharedArrayBuffer, else a
      // copy of them transferred (the caller keeps its own).
      const shared =
        typeof SharedArrayBuffer !== 'undefined' && task.data.buffer instanceof SharedArrayBuffer;
      const data = shared ? task.data : task.data.slice();
      try {
        return (await pool.run(
          'share',
          { ...task, data },
          {
            signal: controller.signal,
            onProgress: (p) => onProgress?.(p.total ? p.done / p.total : 0),
            transfer: shared ? [] : [data.buffer as ArrayBuffer],
          },
        )) as SemanticWorkerResult;
      } finally {
        signal?.removeEventListener('abort', onAbort);
      }
    },
  };
}
