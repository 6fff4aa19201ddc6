import { describe, expect, it } from 'vitest';
import { SingleFlight } from './single-flight';

describe('SingleFlight', () => {
  it('shares pending work per key, and starts again once it settled or was cleared', async () => {
    const flights = new SingleFlight<number>();
    let started = 0;
    let release: (v: number) => void = () => {};
    const make = () => {
      started++;
      return new Promise<number>((r) => (release = r));
    };
    const a = flights.run('k', make);
    const b = flights.run('k', make);
    expect(b).toBe(a);
    expect(started).toBe(1);
    const other = flights.run('other', () => Promise.resolve(7));
    expect(started).toBe(1);
    release(42);
    expect(await a).toBe(42);
    expect(await b).toBe(42);
    expect(await other).toBe(7);
    // Settled: the next call does the work again.
    const c = flights.run('k', make);
    expect(started).toBe(2);
    flights.clear();
    const d = flights.run('k', make);
    expect(d).not.toBe(c);
    expect(started).toBe(3);
  });

  it('lets a failed key be tried again', async () => {
    const flights = new SingleFlight<number>();
    await expect(flights.run('k', () => Promise.reject(new Error('no')))).rejects.toThrow('no');
    expect(await flights.run('k', () => Promise.resolve(1))).toBe(1);
  });
});
