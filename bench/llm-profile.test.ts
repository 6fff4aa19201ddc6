import { describe, expect, it } from 'vitest';
import { selfTimes } from './llm-profile';

const frame = (functionName: string) => ({ functionName, url: 'wasm://wasm/0123abcd' });

describe("the sampling profile's self times", () => {
  // Samples 1 ms apart, at 1-3 ms a, at 4-5 ms b, at 6 ms idle, at 7 ms b.
  const profile = {
    nodes: [
      { id: 1, callFrame: frame('a') },
      { id: 2, callFrame: frame('b') },
      { id: 3, callFrame: frame('(idle)') },
    ],
    samples: [1, 1, 1, 2, 2, 3, 2],
    timeDeltas: [1000, 1000, 1000, 1000, 1000, 1000, 1000],
  };

  it('sums self time per function, leaves idle out and names the script', () => {
    expect(selfTimes([profile])).toEqual([
      { function: 'a', selfMs: 3, share: 0.5, script: '0123abcd' },
      { function: 'b', selfMs: 3, share: 0.5, script: '0123abcd' },
    ]);
  });

  it('keeps only the samples inside a time window from the start', () => {
    // From 3.5 ms: b at 4, 5 and 7 ms (idle at 6 left out).
    const late = selfTimes([profile], { fromMs: 3.5, toMs: Infinity });
    expect(late).toEqual([{ function: 'b', selfMs: 3, share: 1, script: '0123abcd' }]);
    expect(selfTimes([profile], { fromMs: 0, toMs: 2.5 })).toEqual([
      { function: 'a', selfMs: 2, share: 1, script: '0123abcd' },
    ]);
  });
});
