import { describe, expect, it } from 'vitest';
import { prefillEnds } from './prefill';

describe('prefillEnds', () => {
  it('cuts a prompt into pieces and leaves the last piece (at least one token) to generation', () => {
    expect(prefillEnds(0, 1000, 256)).toEqual([256, 512, 768]);
    // 1,024 tokens: the last full piece is left to the generation loop, never an empty rest.
    expect(prefillEnds(0, 1024, 256)).toEqual([256, 512, 768]);
    expect(prefillEnds(0, 1025, 256)).toEqual([256, 512, 768, 1024]);
  });

  it('starts after the tokens the cache already holds', () => {
    expect(prefillEnds(300, 1000, 256)).toEqual([556, 812]);
    expect(prefillEnds(900, 1000, 256)).toEqual([]);
  });

  it('reads in one call when the prompt fits one piece or pieces are off', () => {
    expect(prefillEnds(0, 256, 256)).toEqual([]);
    expect(prefillEnds(0, 10, 256)).toEqual([]);
    expect(prefillEnds(0, 5000, 0)).toEqual([]);
  });
});
