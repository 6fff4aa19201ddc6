import { describe, expect, it } from 'vitest';
import { guardCall, SpeedMemory, StallError, type StallPolicy } from './stall';
import { StalledCall, WllamaEngine, type WllamaLike } from './wllama';

const fast: StallPolicy = {
  graceMs: 40,
  factor: 0,
  promptRate: 5,
  genRate: 2,
  tokenGapMs: 40,
  settleMs: 20,
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const abortError = () => Object.assign(new Error('aborted'), { name: 'AbortError' });

describe('SpeedMemory', () => {
  it('gives pessimistic deadlines until the engine reports, then follows its slowest speeds', () => {
    const m = new SpeedMemory({ ...fast, graceMs: 120_000, factor: 4 });
    // 1,000 prompt tokens at 5/s and 50 written at 2/s: 225 s expected, 4x plus 2 minutes.
    expect(m.deadlineMs(1000, 50)).toBe(120_000 + 4 * 225_000);
    m.observe({ prompt_n: 500, prompt_per_second: 20, predicted_n: 40, predicted_per_second: 8 });
    expect(m.deadlineMs(1000, 48)).toBe(120_000 + 4 * (50_000 + 6_000));
    // A faster call does not shorten it; a slower one lengthens it.
    m.observe({ prompt_n: 500, prompt_per_second: 40, predicted_n: 40, predicted_per_second: 16 });
    expect(m.deadlineMs(1000, 48)).toBe(120_000 + 4 * 56_000);
    m.observe({ prompt_n: 500, prompt_per_second: 10, predicted_n: 40, predicted_per_second: 8 });
    expect(m.deadlineMs(1000, 48)).toBe(120_000 + 4 * (100_000 + 6_000));
  });

  it('ignores speeds from short prompts and caps absurdly slow ones', () => {
    const m = new SpeedMemory({ ...fast, graceMs: 0, factor: 1 });
    m.observe({ prompt_n: 12, prompt_per_second: 0.5, predicted_n: 2, predicted_per_second: 0.1 });
    expect(m.deadlineMs(100, 10)).toBe((100 / 5 + 10 / 2) * 1000);
    m.observe({ prompt_n: 100, prompt_per_second: 0.01 });
    expect(m.deadlineMs(100, 0)).toBe(100_000);
  });
});

describe('guardCall', () => {
  it('passes a result through and never fires after it', async () => {
    await expect(guardCall(async () => 7, { deadlineMs: 30, policy: fast })).resolves.toBe(7);
  });

  it('stops a call past its deadline; a call that settles on the stop is "settled"', async () => {
    let seen: AbortSignal | undefined;
    const work = (signal: AbortSignal) =>
      new Promise<number>((_, reject) => {
        seen = signal;
        signal.addEventListener('abort', () => reject(abortError()));
      });
    const error = await guardCall(work, { deadlineMs: 30, policy: fast }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StallError);
    expect((error as StallError).settled).toBe(true);
    expect(seen?.aborted).toBe(true);
  });

  it('gives up on a call that ignores the stop: "not settled", after settleMs', async () => {
    const started = Date.now();
    const error = await guardCall(() => new Promise<number>(() => {}), {
      deadlineMs: 30,
      policy: fast,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StallError);
    expect((error as StallError).settled).toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(30 + fast.settleMs - 5);
  });

  it('after the first token, the pause between tokens is the limit', async () => {
    // 6 tokens 25 ms apart: 150 ms in all, far past the 40 ms deadline, never a 40 ms pause.
    const work = async (_: AbortSignal, progress: () => void) => {
      for (let i = 0; i < 6; i++) {
        await sleep(25);
        progress();
      }
      return 'done';
    };
    await expect(guardCall(work, { deadlineMs: 40, policy: fast })).resolves.toBe('done');
  });

  it("the caller's stop is the caller's error, not a stall", async () => {
    const stop = new AbortController();
    const work = (signal: AbortSignal) =>
      new Promise<number>((_, reject) =>
        signal.addEventListener('abort', () => reject(abortError())),
      );
    const running = guardCall(work, { deadlineMs: 1000, policy: fast, signal: stop.signal });
    stop.abort();
    await expect(running).rejects.toMatchObject({ name: 'AbortError' });
  });
});

/**
 * A stand-in for wllama: each call takes the next behaviour from a script. 'wedged' never settles
 * and ignores the stop (what CI saw); 'stuck' settles only when stopped; 'ok' answers.
 */
function fakeWllama(script: Array<'ok' | 'wedged' | 'stuck'>, log: string[], name = 'first') {
  let exited = false;
  const answer = (opts: {
    abortSignal?: AbortSignal;
    onData?: (c: unknown) => void;
    stream?: boolean;
  }) => {
    const behaviour = script.shift() ?? 'ok';
    log.push(`${name}:${behaviour}`);
    if (behaviour === 'wedged') return new Promise(() => {});
    if (behaviour === 'stuck')
      return new Promise((_, reject) =>
        opts.abortSignal?.addEventListener('abort', () => reject(abortError())),
      );
    const timings = {
      prompt_n: 100,
      prompt_per_second: 50,
      predicted_n: 2,
      predicted_per_second: 10,
    };
    if (opts.stream) {
      opts.onData?.({ choices: [{ finish_reason: null, text: 'Hello' }] });
      opts.onData?.({ choices: [{ finish_reason: 'stop', text: ' there' }], timings });
      return Promise.resolve(undefined);
    }
    return Promise.resolve({ usage: { prompt_tokens: 42 }, timings });
  };
  const w = {
    createCompletion: answer,
    createChatCompletion: answer,
    exit: () => {
      exited = true;
      log.push(`${name}:exit`);
      return Promise.resolve();
    },
    getLoadedContextInfo: () => ({}),
    get exited() {
      return exited;
    },
  };
  return w as unknown as WllamaLike & { exited: boolean };
}

const model = {
  name: 'tiny.gguf',
  size: 1,
  contextLimit: 2048,
  trainedContext: 2048,
  threads: 1,
  chatTemplate: false,
};
const request = (signal?: AbortSignal) => ({
  messages: [{ role: 'user' as const, content: 'Say hello.' }],
  text: 'Say hello.',
  maxTokens: 8,
  temperature: 0,
  ...(signal ? { signal } : {}),
});

describe('WllamaEngine under the watchdog', () => {
  it('a wedged call restarts the engine and is tried once more on the fresh one', async () => {
    const log: string[] = [];
    const first = fakeWllama(['wedged'], log);
    const engine = new WllamaEngine(first, model, {
      stallPolicy: fast,
      reload: async () => fakeWllama(['ok'], log, 'second'),
    });
    const outcome = await engine.generate(request());
    expect(outcome).toMatchObject({ ok: true, text: 'Hello there' });
    expect(outcome.stats.restarts).toBe(1);
    expect(log).toEqual(['first:wedged', 'first:exit', 'second:ok']);
    expect(engine.restarts).toBe(1);
    // Later calls go to the fresh instance.
    await expect(engine.countTokens('Hello')).resolves.toBe(42);
    expect(log.at(-1)).toBe('second:ok');
  });

  it('a call that only needed stopping is retried on the same instance, no restart', async () => {
    const log: string[] = [];
    const engine = new WllamaEngine(fakeWllama(['stuck', 'ok'], log), model, {
      stallPolicy: fast,
      reload: async () => fakeWllama([], log, 'second'),
    });
    await expect(engine.countTokens('Hello')).resolves.toBe(42);
    expect(log).toEqual(['first:stuck', 'first:ok']);
    expect(engine.restarts).toBe(0);
  });

  it('a second stall is an engine error a person can act on', async () => {
    const log: string[] = [];
    const engine = new WllamaEngine(fakeWllama(['wedged'], log), model, {
      stallPolicy: fast,
      reload: async () => fakeWllama(['wedged'], log, 'second'),
    });
    const outcome = await engine.generate(request());
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) {
      expect(outcome.error.code).toBe('engine');
      expect(outcome.error.message).toMatch(/tiny\.gguf gave no answer twice/);
      expect(outcome.error.message).toMatch(/Run it again/);
    }
    await expect(engine.countTokens('x')).rejects.toBeInstanceOf(StalledCall);
  });

  it('without a way to reload, a wedged engine says so instead of waiting forever', async () => {
    const engine = new WllamaEngine(fakeWllama(['wedged'], []), model, { stallPolicy: fast });
    const outcome = await engine.generate(request());
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.error.message).toMatch(/cannot be restarted here/);
  });

  it('Stop during a call is a stop, never a restart', async () => {
    const log: string[] = [];
    const engine = new WllamaEngine(
      fakeWllama(['stuck'], log),
      model,
      // A deadline far away: only the person's stop ends this call.
      { stallPolicy: { ...fast, graceMs: 60_000 }, reload: async () => fakeWllama([], log, 'x') },
    );
    const stop = new AbortController();
    const running = engine.generate(request(stop.signal));
    await sleep(10);
    stop.abort();
    const outcome = await running;
    expect(outcome).toMatchObject({ ok: false, error: { code: 'aborted' } });
    expect(engine.restarts).toBe(0);
    expect(log).toEqual(['first:stuck']);
  });
});
