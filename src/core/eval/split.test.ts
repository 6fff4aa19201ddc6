import { describe, expect, it } from 'vitest';
import { fnv1a, splitOf } from './split';

describe('split', () => {
  it('hashes with FNV-1a 32 (published test vectors)', () => {
    expect(fnv1a('')).toBe(0x811c9dc5);
    expect(fnv1a('a')).toBe(0xe40c292c);
    expect(fnv1a('foobar')).toBe(0xbf9cf968);
  });

  it('puts an id in the same half every time, and about half the ids in each', () => {
    const ids = Array.from({ length: 2000 }, (_, i) => `quality:${i % 15}:${i}`);
    const parts = ids.map(splitOf);
    expect(ids.map(splitOf)).toEqual(parts);
    const tune = parts.filter((p) => p === 'tune').length;
    expect(tune).toBeGreaterThan(900);
    expect(tune).toBeLessThan(1100);
  });
});
