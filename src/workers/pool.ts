/**
 * @file A pool of workers for work that splits into independent tasks ("work that can
 * run in parallel runs in a pool of workers sized to the machine's cores; large arrays cross as
 * transferred buffers"). Used by the index worker for tree-sitter parsing (files split across
 * workers) and for the code relation's rows (window ranges split across workers).
 *
 * `map` hands tasks out one at a time to whichever member is free, so a slow task does not hold
 * the others back, and returns the results in task order: merging them in order gives what one
 * worker would have given. `run` runs one task on a free member (waiting for one if all are
 * busy): the semantic relation's shares use it (semantic-shares.ts), so one pool serves parsing,
 * the code relation's rows and the semantic relation.
 *
 * Cancelling: a member busy in a synchronous loop cannot read a `cancel` message until the loop
 * ends, so an abort TERMINATES every busy member at once (the call rejects with an AbortError at
 * once too); new members are started on the next call. A member that dies (an uncaught error, a
 * script that would not load, an answer that could not be read) fails the call with a message
 * that says so, and is replaced on the next call.
 *
 * Members are created by a factory: real Workers behind WorkerClient in the browser, or
 * InProcessClient (in-process.ts) in Node tests, where tasks run one after another on the calling
 * thread: the same splitting and merging, so tests can assert that the pooled result equals the
 * single-worker one.
 */
import type { Caller, CallOptions } from './client';
import { AbortError, isAbortError, type Progress, type WorkerApi } from './protocol';

/** One member: a Caller that can be stopped (a Worker is terminated; in-process: nothing to do). */
export interface PoolMember<A extends WorkerApi<A>> extends Caller<A> {
  terminate?: () => void;
}

/** Pool size for this machine: its logical cores (navigator.hardwareConcurrency), at least 1. */
export function poolSize(cores: number | undefined = globalThis.navigator?.hardwareConcurrency) {
  return Math.max(1, Math.floor(cores ?? 1) || 1);
}

export interface MapOptions<P> {
  signal?: AbortSignal;
  /** Sum of the tasks' latest `done`, whenever one of them reports progress or ends. */
  onProgress?: (done: number) => void;
  /** Buffers to transfer with a task's payload (the caller must not touch them again). */
  transfer?: (payload: P, index: number) => Transferable[];
  /** Units a finished task counts in onProgress (default: its last reported `done`). */
  units?: (payload: P, index: number) => number;
}

export class WorkerPool<A extends WorkerApi<A>> {
  private readonly members: (PoolMember<A> | null)[];
  /** Slots no call is using, and the calls waiting for one (first come, first served). */
  private readonly free: number[];
  private readonly waiting: ((slot: number) => void)[] = [];

  constructor(
    private readonly create: () => PoolMember<A>,
    readonly size: number = poolSize(),
  ) {
    if (!(size >= 1)) throw new Error(`A worker pool needs at least one worker, got ${size}.`);
    this.members = Array.from({ length: size }, () => null);
    this.free = Array.from({ length: size }, (_, slot) => size - 1 - slot);
  }

  /** A free slot, waiting for one if needed; rejects with an AbortError if `signal` fires first. */
  private acquire(signal?: AbortSignal): Promise<number> {
    const slot = this.free.pop();
    if (slot !== undefined) return Promise.resolve(slot);
    return new Promise((resolve, reject) => {
      const take = (s: number) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(s);
      };
      const onAbort = () => {
        const at = this.waiting.indexOf(take);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(new AbortError());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(take);
    });
  }

  private release(slot: number): void {
    const next = this.waiting.shift();
    if (next) next(slot);
    else this.free.push(slot);
  }

  private member(slot: number): PoolMember<A> {
    return (this.members[slot] ??= this.create());
  }

  private drop(slot: number): void {
    this.members[slot]?.terminate?.();
    this.members[slot] = null;
  }

  /** Run `kind` on every payload, at most `size` at a time; results in payload order. */
  async map<K extends keyof A & string>(
    kind: K,
    payloads: readonly A[K]['payload'][],
    options: MapOptions<A[K]['payload']> = {},
  ): Promise<A[K]['result'][]> {
    const { signal, onProgress, transfer, units } = options;
    if (signal?.aborted) throw new AbortError();
    const results: A[K]['result'][] = new Array(payloads.length);
    const done = new Float64Array(payloads.length);
    let sum = 0;
    // Every member's call is aborted through this controller: on the caller's abort, or on
    // the first failure (the other members' work is then of no use).
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    let next = 0;
    let failure: unknown = null;
    // onProgress may throw (an AbortError when the caller polls a cancel flag): that stops the
    // call like an abort, busy members included, instead of escaping from a message handler.
    const report = (t: number, value: number) => {
      sum += value - done[t];
      done[t] = value;
      try {
        onProgress?.(sum);
      } catch (error) {
        if (failure === null) failure = error;
        stop.abort();
      }
    };
    const lane = async () => {
      let slot: number;
      try {
        slot = await this.acquire(stop.signal);
      } catch {
        return; // stopped while waiting for a member
      }
      try {
        await work(slot);
      } finally {
        this.release(slot);
      }
    };
    const work = async (slot: number) => {
      while (next < payloads.length && !stop.signal.aborted) {
        const t = next++;
        const payload = payloads[t];
        const call: CallOptions = {
          signal: stop.signal,
          onProgress: (p: Progress) => report(t, p.done),
          transfer: transfer?.(payload, t) ?? [],
        };
        try {
          results[t] = await this.member(slot).call(kind, payload, call);
        } catch (error) {
          // A busy member cannot read a cancel message: stop it now (within 1 s).
          this.drop(slot);
          if (failure === null && !(isAbortError(error) && stop.signal.aborted)) failure = error;
          stop.abort();
          return;
        }
        report(t, units ? units(payload, t) : done[t]);
      }
    };
    try {
      const lanes = Math.min(this.size, payloads.length);
      await Promise.all(Array.from({ length: lanes }, lane));
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
    if (signal?.aborted) throw new AbortError();
    if (failure !== null) throw isAbortError(failure) ? failure : poolFailure(failure);
    return results;
  }

  /**
   * Run `kind` on one payload on a free member (waiting for one while all are busy). An abort
   * terminates the member if it is busy (it cannot read a cancel inside a synchronous loop) and
   * rejects with an AbortError at once; a member that fails is replaced on the next call.
   */
  async run<K extends keyof A & string>(
    kind: K,
    payload: A[K]['payload'],
    options: CallOptions = {},
  ): Promise<A[K]['result']> {
    const { signal } = options;
    if (signal?.aborted) throw new AbortError();
    const slot = await this.acquire(signal);
    try {
      return await this.member(slot).call(kind, payload, {
        signal,
        onProgress: options.onProgress,
        transfer: options.transfer ?? [],
      });
    } catch (error) {
      this.drop(slot);
      if (signal?.aborted) throw new AbortError();
      throw isAbortError(error) ? error : poolFailure(error);
    } finally {
      this.release(slot);
    }
  }

  /** Stop every member (a later call starts new ones). */
  terminate(): void {
    for (let slot = 0; slot < this.size; slot++) this.drop(slot);
  }
}

/** A member's failure as the error the UI shows: says it was a pool worker, keeps the cause. */
function poolFailure(error: unknown): Error {
  const why = error instanceof Error ? error.message : String(error);
  const out = new Error(
    why.startsWith('A background worker')
      ? why
      : `A background worker of the indexing pool failed: ${why}`,
  );
  out.name = error instanceof Error && error.name === 'WorkerFailure' ? 'WorkerFailure' : 'Error';
  return out;
}
