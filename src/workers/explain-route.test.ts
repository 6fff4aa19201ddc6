import { describe, expect, it } from 'vitest';
import { ExplainRoute, type Terminable } from './explain-route';
import type { RetrievalApi } from './retrieval.worker';

/** A stand-in worker that records what it was asked and answers with its name. */
function fake(name: string, log: string[]): Terminable<RetrievalApi> & { ended: boolean } {
  return {
    ended: false,
    call(kind) {
      log.push(`${name}:${kind}`);
      return Promise.resolve(kind === 'forget' ? null : { from: name }) as never;
    },
    terminate() {
      this.ended = true;
    },
  };
}

describe('ExplainRoute', () => {
  it('explains windows in a second worker, started on the first explanation', async () => {
    const log: string[] = [];
    const main = fake('main', log);
    let started = 0;
    let second: ReturnType<typeof fake> | null = null;
    const route = new ExplainRoute(main, () => {
      started++;
      return (second = fake('explain', log));
    });
    await route.call('forget', {});
    expect(started).toBe(0);
    expect(await route.call('ping', null)).toEqual({ from: 'main' });
    expect(await route.call('explainWindow', { docId: 'r', window: 3 })).toEqual({
      from: 'explain',
    });
    await route.call('explainWindow', { docId: 'r', window: 4 });
    expect(started).toBe(1);
    // Once it exists, `forget` reaches both (each keeps its own caches); the rest stays in one.
    await route.call('forget', { docIds: ['r'] });
    await route.call('prepare', {} as never);
    expect(log).toEqual([
      'main:forget',
      'main:ping',
      'explain:explainWindow',
      'explain:explainWindow',
      'explain:forget',
      'main:forget',
      'main:prepare',
    ]);
    route.terminate();
    expect(main.ended).toBe(true);
    expect(second!.ended).toBe(true);
  });
});
