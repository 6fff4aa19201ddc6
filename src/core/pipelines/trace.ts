/**
 * @file The trace recorder every pipeline writes through: steps, LLM calls (run under the
 * engine's concurrency limit, stopped by one signal), items with verdicts, adapted sizes, and
 * the critical path. See types.ts for the trace's shape.
 *
 * A failed or stopped call ends the run: `call` throws `PipelineHalt`, `runTraced` catches it and
 * returns the trace so far with the error as a value. The other calls in flight are stopped
 * through the run's own signal, so nothing keeps running after the run has ended.
 */
import { AbortError, type AbortSignalLike } from '../abort';
import type { PromptMessage } from '../prompt';
import { createLimiter, linkedSignal, type Limiter } from './limit';
import type {
  ChatError,
  ChatResult,
  CriticalPath,
  PipelineCitation,
  PipelineInput,
  PipelineOutput,
  StepStatus,
  Trace,
  TraceCall,
  TraceClock,
  TraceGraph,
  TraceItem,
  TraceSize,
  TraceStep,
} from './types';

/** Thrown inside a pipeline when a call failed or the run was stopped; carries the error value. */
export class PipelineHalt extends Error {
  constructor(readonly error: ChatError) {
    super(error.message);
    this.name = error.code === 'aborted' ? 'AbortError' : 'PipelineHalt';
  }
}

export const STOPPED: ChatError = { code: 'aborted', message: 'Stopped.' };

export interface CallRequest {
  tag: string;
  messages: PromptMessage[];
  maxTokens: number;
  temperature?: number;
  stop?: string[];
  /** Calls whose output this prompt contains. */
  after?: number[];
  text?: string;
  onToken?: (piece: string) => void;
}

export interface StepHandle {
  readonly id: string;
  note(text: string): void;
  done(output?: Record<string, unknown>): void;
}

export class TraceRecorder {
  readonly trace: Trace;
  /** Stops every call of the run: the person's Stop, or the first failed call. */
  readonly signal: AbortSignalLike;
  private readonly halt: () => void;
  private readonly limiter: Limiter;
  private readonly clock: TraceClock;
  private readonly origin: number;
  private readonly tagCounts = new Map<string, number>();
  private tokensIn = 0;
  private tokensOut = 0;
  private done = 0;
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    pipeline: string,
    private readonly input: PipelineInput<unknown>,
    settings: Record<string, unknown>,
  ) {
    this.clock = input.clock ?? Date.now;
    this.origin = this.clock();
    const linked = linkedSignal(input.signal);
    this.signal = linked.signal;
    this.halt = linked.abort;
    this.limiter = createLimiter(input.llm.concurrency);
    this.trace = {
      pipeline,
      question: input.question,
      engine: input.llm.label,
      settings,
      startMs: 0,
      steps: [],
      calls: [],
      items: [],
      sizes: [],
      criticalPath: { calls: [], ms: 0 },
      concurrency: Math.max(1, Math.floor(input.llm.concurrency)),
    };
  }

  now(): number {
    return this.clock() - this.origin;
  }

  step(id: string, label: string, input?: Record<string, unknown>): StepHandle {
    const step: TraceStep = { id, label, status: 'running', startMs: this.now(), input, notes: [] };
    this.trace.steps.push(step);
    this.progress();
    return {
      id,
      note: (text) => step.notes.push(text),
      done: (output) => {
        step.status = 'done';
        step.endMs = this.now();
        if (output) step.output = output;
        this.progress();
      },
    };
  }

  item(item: TraceItem): void {
    this.trace.items.push(item);
  }

  size(size: TraceSize): void {
    this.trace.sizes.push(size);
  }

  graph(graph: TraceGraph): void {
    this.trace.graph = graph;
  }

  /**
   * One LLM call under the concurrency limit. Resolves with the reply; throws `PipelineHalt` when
   * the call failed or the run was stopped (and then stops the other calls of the run).
   */
  call(step: StepHandle, request: CallRequest): Promise<{ text: string; call: TraceCall }> {
    const whole = this.callOnce(step, request);
    this.inFlight.add(whole);
    const forget = () => void this.inFlight.delete(whole);
    whole.then(forget, forget);
    return whole;
  }

  private async callOnce(
    step: StepHandle,
    request: CallRequest,
  ): Promise<{ text: string; call: TraceCall }> {
    this.throwIfStopped();
    const tagIndex = this.tagCounts.get(request.tag) ?? 0;
    this.tagCounts.set(request.tag, tagIndex + 1);
    const call: TraceCall = {
      id: this.trace.calls.length,
      stepId: step.id,
      tag: request.tag,
      tagIndex,
      messages: request.messages,
      maxTokens: request.maxTokens,
      temperature: request.temperature,
      response: '',
      status: 'queued',
      tokensIn: 0,
      tokensOut: 0,
      queuedMs: this.now(),
      after: request.after ?? [],
    };
    this.trace.calls.push(call);
    this.progress();
    const pending = this.limiter.run(
      async (): Promise<ChatResult> => {
        for (let attempt = 0; ; attempt++) {
          if (this.signal.aborted) return { ok: false, text: '', error: STOPPED };
          const result = await this.input.llm
            .chat(request.messages, {
              maxTokens: request.maxTokens,
              temperature: request.temperature,
              stop: request.stop,
              signal: this.signal,
              tag: request.tag,
              ...(request.text !== undefined ? { text: request.text } : {}),
              ...(request.onToken ? { onToken: request.onToken } : {}),
            })
            .catch((e: unknown): ChatResult => ({
              ok: false,
              text: '',
              error: {
                code: 'engine',
                message: 'The model failed.',
                detail: (e as Error).message,
              },
            }));
          const wait = result.ok ? null : retryWait(result, attempt);
          if (wait === null || !this.input.sleep || this.signal.aborted) return result;
          if (result.ok) return result;
          (call.retries ??= []).push({
            code: result.error.code,
            message: result.error.message,
            waitMs: wait,
          });
          // The slot is held while waiting: a rate-limited engine should get fewer calls, not more.
          await this.input.sleep(wait, this.signal);
        }
      },
      () => {
        call.status = 'running';
        call.startMs = this.now();
        this.progress();
      },
    );
    const result = await pending;
    call.endMs = this.now();
    call.response = result.text;
    call.tokensIn =
      result.tokensIn ??
      (await this.countQuietly(request.messages.map((m) => m.content).join('\n')));
    call.tokensOut = result.tokensOut ?? (await this.countQuietly(result.text));
    if (result.tokensReused !== undefined) call.tokensReused = result.tokensReused;
    this.tokensIn += call.tokensIn;
    this.tokensOut += call.tokensOut;
    if (result.ok) {
      call.status = 'ok';
      this.done++;
      this.progress();
      return { text: result.text, call };
    }
    const stopped = result.error.code === 'aborted';
    call.status = stopped ? 'stopped' : 'error';
    call.error = result.error;
    this.done++;
    this.progress();
    // The first failure ends the run; the calls still in flight or queued are stopped.
    this.halt();
    throw new PipelineHalt(this.input.signal.aborted || stopped ? STOPPED : result.error);
  }

  /** Wait until no call is in flight or queued (they have been stopped after a failure). */
  async settle(): Promise<void> {
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
  }

  /** Stop whatever the run still has in flight (after an error outside a call). */
  abortRest(): void {
    this.halt();
  }

  throwIfStopped(): void {
    if (this.signal.aborted) throw new PipelineHalt(STOPPED);
  }

  private async countQuietly(text: string): Promise<number> {
    try {
      return await this.input.llm.countTokens(text);
    } catch {
      return 0;
    }
  }

  private progress(): void {
    if (!this.input.onProgress) return;
    const running = this.trace.steps.findLast((s) => s.status === 'running');
    const last = running ?? this.trace.steps.at(-1);
    let callsRunning = 0;
    let callsQueued = 0;
    for (const c of this.trace.calls) {
      if (c.status === 'running') callsRunning++;
      else if (c.status === 'queued') callsQueued++;
    }
    this.input.onProgress({
      step: last?.id ?? '',
      stepLabel: last?.label ?? '',
      callsDone: this.done,
      callsRunning,
      callsQueued,
      tokensIn: this.tokensIn,
      tokensOut: this.tokensOut,
      trace: this.trace,
    });
  }

  /** Close the trace: unfinished steps take `status`, the critical path is computed. */
  finish(status: Exclude<StepStatus, 'running' | 'done'> | 'done'): Trace {
    const end = this.now();
    for (const s of this.trace.steps) {
      if (s.status !== 'running') continue;
      s.status = status === 'done' ? 'done' : status;
      s.endMs = end;
    }
    this.trace.endMs = end;
    this.trace.criticalPath = criticalPath(this.trace.calls);
    return this.trace;
  }
}

/** Retries after a failure, at most (PIPELINES.md 2.2: "backoff for every engine, then a visible error"). */
export const MAX_RETRIES = 2;
/** A Retry-After longer than this is not waited for: the error is shown at once. */
export const MAX_RETRY_WAIT_MS = 60_000;
const RETRYABLE = new Set(['rate-limit', 'server', 'network']);

/**
 * How long to wait before retrying a failed call, or null not to: only rate limits, server errors
 * and lost connections, only when no text had arrived (a streamed answer is not repeated), at
 * most MAX_RETRIES times; the server's Retry-After, else 1 s, 2 s.
 */
export function retryWait(result: ChatResult & { ok: false }, attempt: number): number | null {
  if (attempt >= MAX_RETRIES || result.text || !RETRYABLE.has(result.error.code)) return null;
  const wait =
    result.error.retryAfterSeconds !== undefined
      ? result.error.retryAfterSeconds * 1000
      : 1000 * 2 ** attempt;
  return wait <= MAX_RETRY_WAIT_MS ? wait : null;
}

/**
 * The longest chain of calls through `after` edges, by duration: the part of the run that more
 * concurrency cannot shorten.
 */
export function criticalPath(calls: readonly TraceCall[]): CriticalPath {
  // Per call: the longest chain ending in it, by duration, then by number of calls (so a run
  // with a coarse clock, where durations tie at 0, still finds the longest sequence).
  const best: Array<{ ms: number; n: number; prev: number }> = [];
  const longer = (a: { ms: number; n: number }, b: { ms: number; n: number }) =>
    a.ms > b.ms || (a.ms === b.ms && a.n > b.n);
  let end = -1;
  // Calls only depend on earlier calls, so one pass in id order is a topological order.
  for (const c of calls) {
    const own = c.startMs !== undefined && c.endMs !== undefined ? c.endMs - c.startMs : 0;
    let prev = -1;
    let before = { ms: 0, n: 0 };
    for (const a of c.after) {
      if (best[a] && (prev < 0 || longer(best[a], before))) {
        before = best[a];
        prev = a;
      }
    }
    best[c.id] = { ms: before.ms + own, n: before.n + 1, prev };
    if (end < 0 || longer(best[c.id], best[end])) end = c.id;
  }
  const chain: number[] = [];
  for (let at = end; at >= 0; at = best[at].prev) chain.unshift(at);
  return { calls: chain, ms: end >= 0 ? best[end].ms : 0 };
}

/** Run a pipeline body and turn its halt (a failed call, a stop) into an output value. */
export async function runTraced(
  recorder: TraceRecorder,
  body: () => Promise<{ answer: string; citations: PipelineCitation[] }>,
): Promise<PipelineOutput> {
  try {
    const { answer, citations } = await body();
    return { status: 'done', answer, citations, trace: recorder.finish('done') };
  } catch (e) {
    const error: ChatError =
      e instanceof PipelineHalt
        ? e.error
        : e instanceof AbortError
          ? STOPPED
          : { code: 'engine', message: 'The pipeline failed.', detail: (e as Error).message };
    const stopped = error.code === 'aborted';
    // The calls still in flight were stopped with the run; their ends belong in the trace.
    recorder.abortRest();
    await recorder.settle();
    return {
      status: stopped ? 'stopped' : 'error',
      answer: '',
      citations: [],
      ...(stopped ? {} : { error }),
      trace: recorder.finish(stopped ? 'stopped' : 'failed'),
    };
  }
}
