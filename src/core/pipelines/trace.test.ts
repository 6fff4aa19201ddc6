import { describe, expect, it } from 'vitest';
import { createLimiter } from './limit';
import { fakeLlm, libraryOf, overlapped, testSignal, type FakeReply } from './testing';
import { criticalPath, runTraced, TraceRecorder } from './trace';
import type { PipelineInput, TraceCall } from './types';

function inputFor(
  llm: ReturnType<typeof fakeLlm>,
  signal = testSignal().signal,
): PipelineInput<unknown> {
  return {
    question: 'q',
    library: libraryOf([{ name: 'a', text: 'x' }], 'q'),
    llm,
    settings: {},
    signal,
    clock: llm.clock,
  };
}

describe('createLimiter', () => {
  it('runs at most n tasks at once, in queue order', async () => {
    const limiter = createLimiter(2);
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const task = (i: number) => async () => {
      running++;
      most = Math.max(most, running);
      order.push(i);
      for (let k = 0; k < 5; k++) await Promise.resolve();
      running--;
      return i;
    };
    const out = await Promise.all([0, 1, 2, 3, 4].map((i) => limiter.run(task(i))));
    expect(out).toEqual([0, 1, 2, 3, 4]);
    expect(most).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4]);
  });
});

describe('TraceRecorder', () => {
  it('records calls with tags, indices, tokens and times, under the engine limit', async () => {
    const llm = fakeLlm({ concurrency: 2, fallback: 'two words' });
    const rec = new TraceRecorder('test', inputFor(llm), {});
    const step = rec.step('s', 'Step');
    await Promise.all(
      [0, 1, 2].map(() =>
        rec.call(step, {
          tag: 't.a',
          messages: [{ role: 'user', content: 'one two three' }],
          maxTokens: 8,
        }),
      ),
    );
    step.done();
    const trace = rec.finish('done');
    expect(trace.calls.map((c) => [c.tag, c.tagIndex, c.status, c.tokensIn, c.tokensOut])).toEqual([
      ['t.a', 0, 'ok', 3, 2],
      ['t.a', 1, 'ok', 3, 2],
      ['t.a', 2, 'ok', 3, 2],
    ]);
    expect(llm.maxConcurrent).toBe(2);
    expect(overlapped(llm.calls[0], llm.calls[1])).toBe(true);
    expect(overlapped(llm.calls[0], llm.calls[2])).toBe(false);
    expect(trace.steps[0]).toMatchObject({ id: 's', status: 'done' });
  });

  it("keeps the engine's count of prompt tokens reused from its cache on the call", async () => {
    const base = fakeLlm({ fallback: 'ok' });
    const llm = {
      ...base,
      chat: async () => ({
        ok: true as const,
        text: 'ok',
        finish: 'stop' as const,
        tokensIn: 40,
        tokensOut: 1,
        tokensReused: 39,
      }),
    };
    const rec = new TraceRecorder('test', inputFor(llm), {});
    const step = rec.step('s', 'Step');
    await rec.call(step, { tag: 't.a', messages: [{ role: 'user', content: 'x' }], maxTokens: 8 });
    step.done();
    const trace = rec.finish('done');
    expect(trace.calls[0]).toMatchObject({ tokensIn: 40, tokensOut: 1, tokensReused: 39 });
  });

  it('a failed call ends the run as an error value, stops the calls in flight and keeps the trace', async () => {
    const llm = fakeLlm({
      concurrency: 3,
      script: {
        't.a': ['ok', { error: { code: 'server', message: 'The server failed.' } }, 'late'],
      },
      ticks: (c) => (c.tagIndex === 2 ? 50 : 2),
    });
    const rec = new TraceRecorder('test', inputFor(llm), {});
    const out = await runTraced(rec, async () => {
      const step = rec.step('s', 'Step');
      await Promise.all(
        [0, 1, 2].map(() =>
          rec.call(step, { tag: 't.a', messages: [{ role: 'user', content: 'x' }], maxTokens: 8 }),
        ),
      );
      return { answer: 'never', citations: [] };
    });
    expect(out.status).toBe('error');
    expect(out.error?.code).toBe('server');
    expect(out.trace.calls.map((c) => c.status)).toEqual(['ok', 'error', 'stopped']);
    expect(llm.calls[2].aborted).toBe(true);
    expect(out.trace.steps[0].status).toBe('failed');
  });

  it('Stop before a queued call starts: the call never reaches the engine', async () => {
    const llm = fakeLlm({ concurrency: 1, fallback: 'a' });
    const stop = testSignal();
    const rec = new TraceRecorder('test', inputFor(llm, stop.signal), {});
    const out = await runTraced(rec, async () => {
      const step = rec.step('s', 'Step');
      const first = rec.call(step, {
        tag: 't',
        messages: [{ role: 'user', content: 'x' }],
        maxTokens: 4,
      });
      const second = rec.call(step, {
        tag: 't',
        messages: [{ role: 'user', content: 'y' }],
        maxTokens: 4,
      });
      stop.abort();
      await Promise.all([first, second]);
      return { answer: '', citations: [] };
    });
    expect(out.status).toBe('stopped');
    expect(out.error).toBeUndefined();
    expect(llm.calls.length).toBe(1);
    expect(llm.calls[0].aborted).toBe(true);
  });
});

describe('retries', () => {
  const rateLimited = {
    error: { code: 'rate-limit', message: 'Slow down.', retryAfterSeconds: 3 },
  };
  const serverDown = { error: { code: 'server', message: 'Down.' } };
  const run = async (replies: FakeReply[], sleep = true) => {
    const llm = fakeLlm({ script: { t: replies } });
    const waits: number[] = [];
    const input = {
      ...inputFor(llm),
      ...(sleep ? { sleep: async (ms: number) => void waits.push(ms) } : {}),
    };
    const rec = new TraceRecorder('test', input, {});
    const out = await runTraced(rec, async () => {
      const step = rec.step('s', 'Step');
      const { text } = await rec.call(step, {
        tag: 't',
        messages: [{ role: 'user', content: 'x' }],
        maxTokens: 4,
      });
      return { answer: text, citations: [] };
    });
    return { out, waits, llm };
  };

  it("waits the server's Retry-After, else 1 s then 2 s, and records the attempts in the call", async () => {
    const ok = await run([rateLimited, serverDown, 'fine']);
    expect(ok.out.status).toBe('done');
    expect(ok.out.answer).toBe('fine');
    expect(ok.waits).toEqual([3000, 2000]);
    expect(ok.llm.calls).toHaveLength(3);
    expect(ok.out.trace.calls).toHaveLength(1);
    expect(ok.out.trace.calls[0].retries!.map((r) => [r.code, r.waitMs])).toEqual([
      ['rate-limit', 3000],
      ['server', 2000],
    ]);
  });

  it('gives up after two retries, and never retries auth errors or without a sleep', async () => {
    const many = await run([serverDown, serverDown, serverDown, 'late']);
    expect(many.out.status).toBe('error');
    expect(many.llm.calls).toHaveLength(3);
    const auth = await run([{ error: { code: 'auth', message: 'Bad key.' } }, 'x']);
    expect(auth.out.error?.code).toBe('auth');
    expect(auth.llm.calls).toHaveLength(1);
    const noSleep = await run([serverDown, 'x'], false);
    expect(noSleep.out.error?.code).toBe('server');
    expect(noSleep.llm.calls).toHaveLength(1);
  });
});

describe('criticalPath', () => {
  const call = (id: number, start: number, end: number, after: number[]): TraceCall => ({
    id,
    stepId: 's',
    tag: 't',
    tagIndex: id,
    messages: [],
    maxTokens: 1,
    response: '',
    status: 'ok',
    tokensIn: 0,
    tokensOut: 0,
    queuedMs: start,
    startMs: start,
    endMs: end,
    after,
  });
  it('is the longest chain by duration', () => {
    // 0: extractor (10); 1: CoT (4); 2, 3: filters after the CoT (3, 5); 4: generator after all.
    const calls = [
      call(0, 0, 10, []),
      call(1, 0, 4, []),
      call(2, 4, 7, [1]),
      call(3, 4, 9, [1]),
      call(4, 10, 12, [0, 1, 2, 3]),
    ];
    expect(criticalPath(calls)).toEqual({ calls: [0, 4], ms: 12 });
    expect(criticalPath([])).toEqual({ calls: [], ms: 0 });
    // A coarse clock (every duration 0): the longest sequence of calls.
    const flat = [call(0, 0, 0, []), call(1, 0, 0, []), call(2, 0, 0, [1]), call(3, 0, 0, [0, 2])];
    expect(criticalPath(flat)).toEqual({ calls: [1, 2, 3], ms: 0 });
  });
});
