import { afterEach, describe, expect, it, vi } from 'vitest';
import { PROGRESS_INTERVAL_MS, serveWorker, throttledProgress } from './host';
import type { Progress, WorkerRequest, WorkerResponse } from './protocol';

afterEach(() => vi.useRealTimers());

describe('throttledProgress', () => {
  it('posts each new stage and each stage end at once, the rest at most once per interval', () => {
    vi.useFakeTimers();
    let t = 0;
    const posted: Progress[] = [];
    const { report, stop } = throttledProgress(
      (p) => posted.push(p),
      () => t,
    );
    for (let done = 0; done < 30_000; done++) {
      t = done * 0.01; // 30,000 files in 300 ms
      report({ stage: 'read', done, total: 30_000 });
    }
    report({ stage: 'read', done: 30_000, total: 30_000 });
    report({ stage: 'parse', done: 0, total: 10 });
    stop();
    expect(posted.length).toBeLessThanOrEqual(10);
    expect(posted[0]).toEqual({ stage: 'read', done: 0, total: 30_000 });
    expect(posted.at(-2)).toEqual({ stage: 'read', done: 30_000, total: 30_000 });
    expect(posted.at(-1)).toEqual({ stage: 'parse', done: 0, total: 10 });
    // done never decreases
    for (let i = 1; i < posted.length - 1; i++) {
      expect(posted[i].done).toBeGreaterThan(posted[i - 1].done);
    }
  });

  it('delivers the last skipped report after the interval when nothing follows', () => {
    vi.useFakeTimers();
    let t = 0;
    const posted: Progress[] = [];
    const { report } = throttledProgress(
      (p) => posted.push(p),
      () => t,
    );
    report({ stage: 'embed', done: 1, total: 100 });
    t = 5;
    report({ stage: 'embed', done: 7, total: 100 });
    expect(posted.map((p) => p.done)).toEqual([1]);
    t = PROGRESS_INTERVAL_MS + 5;
    vi.advanceTimersByTime(PROGRESS_INTERVAL_MS);
    expect(posted.map((p) => p.done)).toEqual([1, 7]);
  });
});

describe('serveWorker', () => {
  it('answers a handler that reports per item with few progress messages and its result', async () => {
    let listener: ((event: MessageEvent<WorkerRequest>) => void) | null = null;
    const sent: WorkerResponse[] = [];
    let answered: () => void = () => {};
    const done = new Promise<void>((r) => (answered = r));
    serveWorker<{ count: { payload: number; result: number } }>(
      {
        addEventListener: (_type, l) => (listener = l),
        postMessage: (m) => {
          sent.push(m);
          if (m.type !== 'progress') answered();
        },
      },
      {
        count: (n, ctx) => {
          for (let i = 0; i <= n; i++) ctx.progress({ stage: 'read', done: i, total: n });
          return n * 2;
        },
      },
    );
    listener!(
      new MessageEvent('message', {
        data: { type: 'request', id: 1, kind: 'count', payload: 20_000 },
      }),
    );
    await done;
    const progress = sent.filter((m) => m.type === 'progress');
    expect(progress.length).toBeLessThan(100);
    expect(progress.at(-1)).toMatchObject({ progress: { done: 20_000, total: 20_000 } });
    expect(sent.at(-1)).toEqual({ type: 'result', id: 1, result: 40_000 });
  });
});
