/**
 * @file A watchdog for in-browser engines whose calls can stop making progress without failing.
 *
 * wllama runs llama.cpp in a worker; a call is answered by polling that worker. Once in a full CI
 * run a call never settled and the page used no CPU for minutes: nothing errs, the
 * person just waits forever. An engine that can be restarted (reloading a model kept in the
 * browser takes seconds) is better served by a deadline: a call that overruns it is stopped, the
 * engine restarted when the stop itself is not answered, and the call tried once more.
 *
 * The deadline comes from the work asked for and the engine's own speed. Reading a prompt blocks
 * the worker (llama.cpp decodes the whole prompt in one batch, so no progress arrives before the
 * first token): before the first token a call gets `grace + factor × expected`, where expected is
 * prompt tokens over the slowest prompt speed seen and output tokens over the slowest writing
 * speed seen (pessimistic defaults until the engine has reported any). After the first token the
 * longest pause between two tokens is the limit.
 */

export interface StallPolicy {
  /** Granted to every call on top of its expected time (ms). */
  graceMs: number;
  /** A call may take this many times its expected time before it counts as stalled. */
  factor: number;
  /** Prompt tokens read per second, assumed until the engine reports its own. */
  promptRate: number;
  /** Tokens written per second, assumed until the engine reports its own. */
  genRate: number;
  /** The longest pause between two streamed tokens (ms). */
  tokenGapMs: number;
  /** How long a stopped call may take to settle before the engine counts as wedged (ms). */
  settleMs: number;
}

/**
 * Measured here: SmolLM2-135M in wllama on 2 cores read 1,051 tokens in 167 s at load average 8.6
 * (6.3 tokens/s) and about 19 tokens/s on an idle machine; it writes 3-8 tokens/s. The defaults
 * sit below the loaded figure, and the factor leaves room for a machine four times busier.
 */
export const defaultStallPolicy: Readonly<StallPolicy> = Object.freeze({
  graceMs: 120_000,
  factor: 4,
  promptRate: 5,
  genRate: 2,
  tokenGapMs: 120_000,
  settleMs: 10_000,
});

/** Prompt speeds are trusted only from prompts this long (fixed costs dominate short ones). */
const MIN_PROMPT_FOR_RATE = 64;
/** A reported speed below this is taken as this (a hiccup must not make deadlines endless). */
const MIN_RATE = 1;

/** The slowest speeds an engine has reported, and the deadlines they give. */
export class SpeedMemory {
  private promptRate: number | undefined;
  private genRate: number | undefined;

  constructor(private readonly policy: StallPolicy = defaultStallPolicy) {}

  /** Note a finished call's speeds (llama.cpp's timings). */
  observe(timings: {
    prompt_n?: number;
    prompt_per_second?: number;
    predicted_n?: number;
    predicted_per_second?: number;
  }): void {
    const { prompt_n, prompt_per_second, predicted_n, predicted_per_second } = timings;
    if (prompt_per_second && prompt_per_second > 0 && (prompt_n ?? 0) >= MIN_PROMPT_FOR_RATE) {
      const rate = Math.max(MIN_RATE, prompt_per_second);
      this.promptRate = Math.min(this.promptRate ?? rate, rate);
    }
    if (predicted_per_second && predicted_per_second > 0 && (predicted_n ?? 0) >= 4) {
      const rate = Math.max(MIN_RATE, predicted_per_second);
      this.genRate = Math.min(this.genRate ?? rate, rate);
    }
  }

  /** Milliseconds a call reading `promptTokens` and writing up to `maxTokens` may take. */
  deadlineMs(promptTokens: number, maxTokens: number): number {
    const p = this.promptRate ?? this.policy.promptRate;
    const g = this.genRate ?? this.policy.genRate;
    const expected = (promptTokens / p + maxTokens / g) * 1000;
    return Math.round(this.policy.graceMs + this.policy.factor * expected);
  }
}

/** Thrown inside a guarded call when its deadline passed. */
export class StallError extends Error {
  constructor(
    readonly afterMs: number,
    /** Whether the stopped call settled; if not, the engine is wedged and must be restarted. */
    readonly settled: boolean,
  ) {
    super(`No answer after ${Math.round(afterMs / 1000)} s.`);
    this.name = 'StallError';
  }
}

export interface GuardTimers {
  setTimeout: (fn: () => void, ms: number) => unknown;
  clearTimeout: (handle: unknown) => void;
}

const realTimers: GuardTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

/**
 * Run `work` under a deadline. `work` gets a signal that is aborted when the caller's signal is,
 * or when the call stalls, and a `progress` callback to call on each token (which switches the
 * limit to the pause between tokens). Resolves or rejects as `work` does; on a stall rejects with
 * a `StallError` once the stopped call has settled, or after `settleMs` if it never does.
 */
export function guardCall<T>(
  work: (signal: AbortSignal, progress: () => void) => Promise<T>,
  options: {
    deadlineMs: number;
    policy?: StallPolicy;
    signal?: AbortSignal;
    timers?: GuardTimers;
  },
): Promise<T> {
  const policy = options.policy ?? defaultStallPolicy;
  const timers = options.timers ?? realTimers;
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  if (options.signal?.aborted) controller.abort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });

  return new Promise<T>((resolve, reject) => {
    let done = false;
    let stalledAfter: number | undefined;
    const started = Date.now();
    let timer: unknown;
    const finish = (fn: () => void) => {
      if (done) return;
      done = true;
      timers.clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const arm = (ms: number) => {
      timers.clearTimeout(timer);
      timer = timers.setTimeout(() => {
        stalledAfter = Date.now() - started;
        controller.abort();
        // The stopped call gets a moment to settle; one that does not is wedged.
        timer = timers.setTimeout(
          () => finish(() => reject(new StallError(stalledAfter ?? ms, false))),
          policy.settleMs,
        );
      }, ms);
    };
    arm(options.deadlineMs);
    const progress = () => {
      if (!done && stalledAfter === undefined) arm(policy.tokenGapMs);
    };
    work(controller.signal, progress).then(
      (value) =>
        finish(() =>
          stalledAfter === undefined ? resolve(value) : reject(new StallError(stalledAfter, true)),
        ),
      (error: unknown) =>
        finish(() =>
          reject(stalledAfter === undefined ? error : new StallError(stalledAfter, true)),
        ),
    );
  });
}
