/**
 * @file What indexing asks of a pool of workers, in its own terms: the pool members' API
 * (`PoolApi`: parse a share of a repository's files, build a range of the code relation's rows,
 * run a share of a large document's semantic relation) and the two calls the pipelines make on
 * a pool (`IndexPool`). The pool itself and its members' handlers live with the workers
 * (src/workers/pool.ts, pool-handlers.ts); `WorkerPool<PoolApi>` is an `IndexPool`.
 *
 * Also the two pure helpers that prepare a pool's work: `splitRanges` (shares of about equal
 * cost) and `shareArrays` (one copy of the shared state for every member).
 */
import type { RowBlock, SummaryState } from '../core/code/summary';
import type { SemanticWorkerResult, SemanticWorkerTask } from '../core/relations/semantic-parallel';
import type { RepositorySyntax } from '../models/code-syntax';

export interface ParseShareRequest {
  files: { path: string; text: string }[];
}

export interface CodeRowsRequest {
  state: SummaryState;
  from: number;
  to: number;
  /**
   * Int32Arrays over SharedArrayBuffers; any element 0 set to 1 stops the rows. The loop is
   * synchronous, so neither a cancel message nor terminate() reaches it at once (Chromium
   * forcibly ends a busy worker only after a delay of its own).
   */
  cancelFlags?: Int32Array[];
}

export interface PoolApi {
  parse: { payload: ParseShareRequest; result: RepositorySyntax };
  codeRows: { payload: CodeRowsRequest; result: RowBlock };
  share: { payload: SemanticWorkerTask; result: SemanticWorkerResult };
}

/** The pool calls indexing makes: its size, and `map` (results in payload order). */
export interface IndexPool {
  readonly size: number;
  map<K extends keyof PoolApi & string>(
    kind: K,
    payloads: readonly PoolApi[K]['payload'][],
    options?: {
      signal?: AbortSignal;
      onProgress?: (done: number) => void;
      units?: (payload: PoolApi[K]['payload'], index: number) => number;
    },
  ): Promise<PoolApi[K]['result'][]>;
}

/** Least files / windows worth a pool's start-up (its members load the grammars first). */
export const POOL_MIN_FILES = 32;
export const POOL_MIN_WINDOWS = 1024;
/** Tasks per pool member: small enough shares that a slow one does not hold the others back. */
export const TASKS_PER_MEMBER = 4;

/** The pool, if there is one worth starting for this many items. */
export function poolFor(pool: IndexPool | undefined, items: number, least: number) {
  return pool && pool.size > 1 && items >= least ? pool : null;
}

/**
 * Split `count` items into at most `parts` contiguous ranges of about equal cost (`cost(i)`, e.g.
 * a file's length), each [from, to). Empty when count is 0.
 */
export function splitRanges(
  count: number,
  parts: number,
  cost: (i: number) => number = () => 1,
): { from: number; to: number }[] {
  if (count === 0) return [];
  let total = 0;
  for (let i = 0; i < count; i++) total += cost(i);
  const n = Math.max(1, Math.min(parts, count));
  const ranges: { from: number; to: number }[] = [];
  let from = 0;
  let acc = 0;
  for (let i = 0; i < count; i++) {
    acc += cost(i);
    const goal = (total * (ranges.length + 1)) / n;
    if (acc >= goal && ranges.length < n - 1 && i + 1 < count) {
      ranges.push({ from, to: i + 1 });
      from = i + 1;
    }
  }
  ranges.push({ from, to: count });
  return ranges;
}

type TypedArray =
  | Int8Array
  | Uint8Array
  | Uint8ClampedArray
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | Float32Array
  | Float64Array;

/**
 * The same plain data with every typed array copied onto a SharedArrayBuffer, when this context
 * may share memory (cross-origin isolated, as our pages are): then one copy serves every member
 * of a pool instead of one structured clone per task. Elsewhere (or without isolation) the value
 * is returned as is and crosses by copy. Nobody writes to shared arrays after this.
 */
export function shareArrays<T>(
  value: T,
  canShare: boolean = typeof SharedArrayBuffer !== 'undefined' &&
    (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true,
): T {
  if (!canShare) return value;
  const copy = (v: unknown): unknown => {
    if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
      const a = v as TypedArray;
      if (a.buffer instanceof SharedArrayBuffer) return a;
      const Ctor = a.constructor as new (b: SharedArrayBuffer) => TypedArray;
      const out = new Ctor(new SharedArrayBuffer(a.byteLength));
      out.set(a as never);
      return out;
    }
    if (Array.isArray(v)) return v.map(copy);
    if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, copy(x)]));
    }
    return v;
  };
  return copy(value) as T;
}
