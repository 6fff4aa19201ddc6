import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bm25Scores, buildBm25Index } from './bm25';
import { hybridScores } from './hybrid';
import type { VectorSet } from './types';
import { cosineScores, normalizeRows } from './vectors';

const set = (dim: number, rows: number[][]): VectorSet => ({
  dim,
  count: rows.length,
  data: Float32Array.from(rows.flat()),
});

describe('normalizeRows', () => {
  it('scales rows to unit length and leaves zero rows at zero', () => {
    const v = normalizeRows(
      set(2, [
        [3, 4],
        [0, 0],
        [0, -2],
      ]),
    );
    expect(Array.from(v.data)).toEqual([0.6, 0.8, 0, 0, 0, -1].map(Math.fround));
  });

  it('refuses data shorter than count x dim', () => {
    expect(() => normalizeRows({ dim: 3, count: 2, data: new Float32Array(5) })).toThrow(/fewer/);
  });
});

describe('cosineScores', () => {
  it('is the cosine with a query of any length, and 0 for a zero query or row', () => {
    const v = normalizeRows(
      set(2, [
        [1, 0],
        [0, 1],
        [1, 1],
        [0, 0],
      ]),
    );
    const s = cosineScores(v, Float32Array.of(2, 0));
    expect(s[0]).toBeCloseTo(1, 7);
    expect(s[1]).toBe(0);
    expect(s[2]).toBeCloseTo(Math.SQRT1_2, 7);
    expect(s[3]).toBe(0);
    expect(Array.from(cosineScores(v, Float32Array.of(0, 0)))).toEqual([0, 0, 0, 0]);
  });

  it('refuses a query of another dimension', () => {
    const v = set(2, [[1, 0]]);
    expect(() => cosineScores(v, new Float32Array(3))).toThrow(/same model/);
  });

  it('is symmetric and lies in [-1, 1] (property)', () => {
    const vec = fc.array(fc.float({ min: -10, max: 10, noNaN: true }), {
      minLength: 4,
      maxLength: 4,
    });
    fc.assert(
      fc.property(vec, vec, (a, b) => {
        const va = normalizeRows(set(4, [a]));
        const vb = normalizeRows(set(4, [b]));
        const ab = cosineScores(va, vb.data)[0];
        const ba = cosineScores(vb, va.data)[0];
        expect(ab).toBeCloseTo(ba, 6);
        expect(Math.abs(ab)).toBeLessThanOrEqual(1 + 1e-6);
      }),
    );
  });
});

describe('hybridScores', () => {
  it('is lambda * bm25 / max + (1 - lambda) * max(0, cos)', () => {
    // bm25 / max = [1, 0.5, 0]; clamped cos = [0.2, 0, 0.8].
    // lambda 0.5: [0.6, 0.25, 0.4]; lambda 0.25: [0.4, 0.125, 0.6].
    const bm25 = [4, 2, 0];
    const cos = [0.2, -0.3, 0.8];
    expect(Array.from(hybridScores(bm25, cos))).toEqual([
      expect.closeTo(0.6, 12),
      expect.closeTo(0.25, 12),
      expect.closeTo(0.4, 12),
    ]);
    expect(Array.from(hybridScores(bm25, cos, { lambda: 0.25 }))).toEqual([
      expect.closeTo(0.4, 12),
      expect.closeTo(0.125, 12),
      expect.closeTo(0.6, 12),
    ]);
  });

  it('reduces to rescaled BM25 at lambda 1 and to clamped cosine at lambda 0', () => {
    const index = buildBm25Index([['a', 'b'], ['b'], ['c']]);
    const raw = bm25Scores(index, ['a', 'b']);
    const cos = [0.5, -1, 0.1];
    const max = Math.max(...raw);
    expect(Array.from(hybridScores(raw, cos, { lambda: 1 }))).toEqual(
      Array.from(raw, (x) => x / max),
    );
    expect(Array.from(hybridScores(raw, cos, { lambda: 0 }))).toEqual([0.5, 0, 0.1]);
  });

  it('refuses lambda outside [0, 1], mismatched lengths and unknown options', () => {
    expect(() => hybridScores([1], [1], { lambda: 2 })).toThrow(/lambda/);
    expect(() => hybridScores([1], [1, 2])).toThrow(/same fragments/);
    expect(() => hybridScores([1], [1], { alpha: 1 } as never)).toThrow(/unknown hybrid option/);
  });
});
