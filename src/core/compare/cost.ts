/**
 * @file A column's cost, read from its trace (src/core/pipelines/trace.ts records every call
 * with its tokens and times): LLM calls, tokens in and out, wall time and the critical path.
 */
import type { Trace } from '../pipelines/types';

export interface ColumnCost {
  /** Calls sent to the engine (queued calls that never started are not counted). */
  calls: number;
  /** Calls that ended in an error (the call that stopped the run among them). */
  failedCalls: number;
  /** Failed attempts retried (rate limits, server errors, lost connections). */
  retries: number;
  tokensIn: number;
  tokensOut: number;
  /** From the pipeline's start to its end (or to `nowMs` while it runs). */
  wallMs: number;
  /** The chain of calls that had to wait for each other: what more concurrency cannot shorten. */
  criticalPathMs: number;
  criticalPathCalls: number;
}

/**
 * `nowMs`: for a running trace, the current time on the trace's clock (ms since its start).
 * A retried call's failed attempts are billed by most APIs only when the server did the work;
 * they are counted in `retries`, not in the tokens (the trace keeps one token count per call).
 */
export function costOf(trace: Trace, nowMs?: number): ColumnCost {
  let calls = 0;
  let failedCalls = 0;
  let retries = 0;
  let tokensIn = 0;
  let tokensOut = 0;
  for (const c of trace.calls) {
    if (c.status === 'queued') continue;
    calls++;
    if (c.status === 'error') failedCalls++;
    retries += c.retries?.length ?? 0;
    tokensIn += c.tokensIn;
    tokensOut += c.tokensOut;
  }
  const end = trace.endMs ?? nowMs ?? trace.startMs;
  return {
    calls,
    failedCalls,
    retries,
    tokensIn,
    tokensOut,
    wallMs: Math.max(0, end - trace.startMs),
    criticalPathMs: trace.criticalPath.ms,
    criticalPathCalls: trace.criticalPath.calls.length,
  };
}
