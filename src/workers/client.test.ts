import { describe, expect, it } from 'vitest';
import { WorkerClient, type Caller } from './client';
import type { Handlers } from './host';
import type { IndexApi } from '../indexing';
import type { WorkerRequest, WorkerResponse } from './protocol';

/** A Worker stand-in: records what is posted, and lets the test fire the worker's events. */
class FakeWorker extends EventTarget {
  readonly posted: WorkerRequest[] = [];
  postMessage(message: WorkerRequest): void {
    this.posted.push(message);
  }
  terminate(): void {}
  answer(message: WorkerResponse): void {
    this.dispatchEvent(new MessageEvent('message', { data: message }));
  }
}

type Api = { work: { payload: number; result: number } };

function clientOf(): { worker: FakeWorker; client: WorkerClient<Api> } {
  const worker = new FakeWorker();
  return { worker, client: new WorkerClient<Api>(worker as unknown as Worker) };
}

describe('WorkerClient: a failing worker never leaves a call waiting', () => {
  it('resolves with the answer of its own id', async () => {
    const { worker, client } = clientOf();
    const call = client.call('work', 2);
    worker.answer({ type: 'result', id: 1, result: 4 });
    await expect(call).resolves.toBe(4);
  });

  it('rejects every pending call when an answer cannot be read (messageerror)', async () => {
    const { worker, client } = clientOf();
    const first = client.call('work', 1);
    const second = client.call('work', 2);
    worker.dispatchEvent(new MessageEvent('messageerror'));
    await expect(first).rejects.toThrow(/answer could not be read.*Nothing was stored/);
    await expect(second).rejects.toMatchObject({ name: 'WorkerFailure' });
  });

  it('rejects every pending call when the worker fails, with the error it gave', async () => {
    const { worker, client } = clientOf();
    const call = client.call('work', 1);
    const event = new Event('error') as Event & { message: string };
    event.message = 'Uncaught RangeError: Array buffer allocation failed';
    worker.dispatchEvent(event);
    await expect(call).rejects.toThrow(
      /A background worker failed: Uncaught RangeError: Array buffer allocation failed\. Nothing was stored/,
    );
  });

  it('passes a worker error on as the message it carried', async () => {
    const { worker, client } = clientOf();
    const call = client.call('work', 1);
    worker.answer({ type: 'error', id: 1, error: { name: 'DataCloneError', message: 'too big' } });
    await expect(call).rejects.toMatchObject({ name: 'DataCloneError', message: 'too big' });
  });
});

describe('the typed bridge refuses what the worker does not answer', () => {
  it('type-checks a real call and rejects a misspelt kind or a wrong payload (tsc checks this file)', () => {
    const calls: unknown[] = [];
    const index: Caller<IndexApi> = {
      call: (kind, payload) => {
        calls.push([kind, payload]);
        return Promise.resolve(undefined as never);
      },
    };
    void index.call('dropHeld', { held: 1 });
    // @ts-expect-error: no kind 'indxHeld' (a typo of 'indexHeld')
    void index.call('indxHeld', { nonsense: 1 });
    // @ts-expect-error: 'dropHeld' takes { held }, not a number
    void index.call('dropHeld', 3);
    const handlers: Handlers<Api> = { work: (n) => n + 1 };
    // @ts-expect-error: a handler that answers a string where the API says number
    const wrong: Handlers<Api> = { work: (n) => `${n}` };
    expect([handlers.work(1, undefined as never), typeof wrong, calls.length]).toEqual([
      2,
      'object',
      3,
    ]);
  });
});
