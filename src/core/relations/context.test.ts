import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contextRelation } from './context';
import { prng } from '../prng';

// Small seeded PRNG (mulberry32): random *scores* for equality-with-brute-force tests.
/** Eq. 9 over the Eq. 7 kernel by the dense O(N^2) double sum. */
function naiveEnvironment(sizes: number[], r: number, s: Float64Array): Float64Array {
  const out = new Float64Array(s.length);
  const maxDoc = Math.max(0, ...sizes);
  const power = Float64Array.from({ length: maxDoc }, (_, d) => r ** d);
  let first = 0;
  for (const n of sizes) {
    for (let i = first; i < first + n; i++) {
      let num = 0;
      let den = 0;
      for (let j = first; j < first + n; j++) {
        if (j === i) continue;
        const w = power[Math.abs(i - j)];
        num += w * s[j];
        den += w;
      }
      out[i] = den > 0 ? num / den : 0;
    }
    first += n;
  }
  return out;
}

const offsets = (sizes: number[]) =>
  sizes.reduce((acc, n) => [...acc, acc[acc.length - 1] + n], [0]);

function expectRelativelyClose(got: Float64Array, want: Float64Array, tolerance = 1e-9) {
  expect(got.length).toBe(want.length);
  for (let i = 0; i < want.length; i++) {
    const err = Math.abs(got[i] - want[i]);
    if (err > tolerance * Math.abs(want[i]) + 1e-300) {
      throw new Error(`fragment ${i}: got ${got[i]}, want ${want[i]} (error ${err})`);
    }
  }
}

describe('contextRelation (Eq. 7) and its environment score (Eq. 9)', () => {
  // Two documents: fragments 0-3 and 4-5; wRel = 0.5; s_ind = [1, 0, 0.5, 0 | 0.2, 0.6].
  const rel = contextRelation([0, 4, 6], 0.5);
  const s = Float64Array.of(1, 0, 0.5, 0, 0.2, 0.6);

  it('has weights wRel^|i-j| inside a document, 0 across and on the diagonal', () => {
    expect(rel.size).toBe(6);
    expect(rel.weight(0, 1)).toBe(0.5);
    expect(rel.weight(0, 3)).toBe(0.125);
    expect(rel.weight(3, 0)).toBe(0.125);
    expect(rel.weight(2, 2)).toBe(0);
    expect(rel.weight(3, 4)).toBe(0);
    expect(rel.weight(4, 5)).toBe(0.5);
  });

  it('matches the hand-computed Eq. 9', () => {
    // Row 0: w = 0.5, 0.25, 0.125 (sum 0.875); sum w s = 0.25 * 0.5 = 0.125 -> 1/7.
    // Row 1: w = 0.5, 0.5, 0.25 (sum 1.25); sum w s = 0.5 * 1 + 0.5 * 0.5 = 0.75 -> 0.6.
    // Row 2: w = 0.25, 0.5, 0.5 (sum 1.25); sum w s = 0.25 * 1 = 0.25 -> 0.2.
    // Row 3: w = 0.125, 0.25, 0.5 (sum 0.875); sum w s = 0.125 + 0.25 = 0.375 -> 3/7.
    // Rows 4 and 5 see only each other (w = 0.5): 0.6 and 0.2. Document 1 never reaches them.
    const env = rel.environmentScores(s);
    const want = [1 / 7, 0.6, 0.2, 3 / 7, 0.6, 0.2];
    want.forEach((w, i) => expect(env[i]).toBeCloseTo(w, 14));
  });

  it('lists contributions with their shares, largest first, zero amounts left out', () => {
    // Row 1: amounts 0.5 * 1 / 1.25 = 0.4 (j = 0) and 0.5 * 0.5 / 1.25 = 0.2 (j = 2); j = 3
    // has s = 0. Shares 0.4 / 0.6 = 2/3 and 1/3.
    const c = rel.contributions(1, s, 5);
    expect(c.map((x) => x.index)).toEqual([0, 2]);
    expect(c[0].weight).toBe(0.5);
    expect(c[0].amount).toBeCloseTo(0.4, 14);
    expect(c[0].share).toBeCloseTo(2 / 3, 14);
    expect(c[1].amount).toBeCloseTo(0.2, 14);
    expect(c[1].share).toBeCloseTo(1 / 3, 14);
    expect(rel.contributions(1, s, 1).map((x) => x.index)).toEqual([0]);
    expect(rel.contributions(1, s, 0)).toEqual([]);
  });

  it('breaks ties between equal contributions by the lower index', () => {
    const sym = contextRelation([0, 5], 0.5);
    const c = sym.contributions(2, Float64Array.of(0.5, 0.5, 0, 0.5, 0.5), 4);
    expect(c.map((x) => x.index)).toEqual([1, 3, 0, 4]);
  });

  it('wRel = 0 empties every row: s_env = 0 and no contributions', () => {
    const off = contextRelation([0, 4, 6], 0);
    expect(Array.from(off.environmentScores(s))).toEqual([0, 0, 0, 0, 0, 0]);
    expect(off.contributions(1, s, 3)).toEqual([]);
  });

  it('wRel = 1 gives the plain mean of the other fragments of the document', () => {
    const flat = contextRelation([0, 4, 6], 1);
    const env = flat.environmentScores(s);
    expect(env[0]).toBeCloseTo(0.5 / 3, 14);
    expect(env[1]).toBeCloseTo(1.5 / 3, 14);
    expect(env[5]).toBeCloseTo(0.2, 14);
  });

  it('gives a one-fragment document s_env = 0 and allows empty documents', () => {
    const rel1 = contextRelation([0, 0, 1, 1, 3], 0.3);
    expect(Array.from(rel1.environmentScores(Float64Array.of(0.9, 0.4, 0.8)))).toEqual([
      0,
      expect.closeTo(0.8, 14),
      expect.closeTo(0.4, 14),
    ]);
  });

  it('refuses wRel outside [0, 1], bad segments and a wrong score count', () => {
    expect(() => contextRelation([0, 3], 1.5)).toThrow(/wRel/);
    expect(() => contextRelation([0, 3], NaN)).toThrow(/wRel/);
    expect(() => contextRelation([1, 3], 0.3)).toThrow(/start with 0/);
    expect(() => contextRelation([0, 3, 2], 0.3)).toThrow(/never decrease/);
    expect(() => rel.environmentScores(new Float64Array(5))).toThrow(/5 independent scores/);
    expect(() => rel.contributions(6, s, 3)).toThrow(/index 6 is outside/);
  });

  it('equals the naive O(N^2) sum within 1e-9 up to N = 2000 over several documents', () => {
    const random = prng(7);
    const sizes = [1, 700, 0, 2, 1297]; // N = 2000
    const n = 2000;
    const scores = Float64Array.from({ length: n }, () => random());
    // Sparse scores too, where most of a row's numerator is tiny.
    const sparse = Float64Array.from({ length: n }, () => (random() < 0.01 ? random() : 0));
    for (const r of [0, 1e-3, 0.05, 0.3, 0.8, 0.99, 1]) {
      const relation = contextRelation(offsets(sizes), r);
      for (const sc of [scores, sparse]) {
        expectRelativelyClose(relation.environmentScores(sc), naiveEnvironment(sizes, r, sc));
      }
    }
  });

  it('equals the naive O(N^2) sum on random layouts (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat(300), { minLength: 1, maxLength: 6 }),
        // Subnormal wRel (< 1e-308) would leave the range where relative error means much.
        fc.oneof(fc.constant(0), fc.double({ min: 1e-6, max: 1, noNaN: true })),
        fc.nat(),
        (sizes, r, seed) => {
          const random = prng(seed);
          const n = sizes.reduce((a, b) => a + b, 0);
          const scores = Float64Array.from({ length: n }, () => random());
          const relation = contextRelation(offsets(sizes), r);
          expectRelativelyClose(
            relation.environmentScores(scores),
            naiveEnvironment(sizes, r, scores),
          );
        },
      ),
      { numRuns: 60 },
    );
  });

  it('lists the same top contributions as the naive per-pair amounts (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 60 }), { minLength: 1, maxLength: 4 }),
        fc.double({ min: 0.01, max: 1, noNaN: true }),
        fc.nat(),
        fc.integer({ min: 1, max: 8 }),
        (sizes, r, seed, limit) => {
          const random = prng(seed);
          const n = sizes.reduce((a, b) => a + b, 0);
          // Few distinct values, so ties between amounts happen and the index decides.
          const scores = Float64Array.from({ length: n }, () => Math.floor(random() * 4) / 4);
          const relation = contextRelation(offsets(sizes), r);
          const env = relation.environmentScores(scores);
          const i = Math.floor(random() * n);
          let rowSum = 0;
          for (let j = 0; j < n; j++) rowSum += relation.weight(i, j);
          const amounts = Array.from({ length: n }, (_, j) =>
            rowSum > 0 ? (relation.weight(i, j) * scores[j]) / rowSum : 0,
          );
          const want = amounts
            .map((amount, index) => ({ index, amount }))
            .filter((c) => c.amount > 0)
            .sort((a, b) => b.amount - a.amount || a.index - b.index)
            .slice(0, limit);
          const got = relation.contributions(i, scores, limit);
          // The same amounts in the same order; indices may differ only between amounts that
          // agree to rounding (wRel within an ulp of 1 makes r^d and r^(d+1) such a pair).
          expect(got.length).toBe(want.length);
          got.forEach((c, k) => {
            expect(c.amount).toBeCloseTo(want[k].amount, 12);
            expect(c.amount).toBeCloseTo(amounts[c.index], 12);
            expect(c.weight / relation.weight(i, c.index)).toBeCloseTo(1, 12);
            expect(c.share).toBeCloseTo(env[i] > 0 ? c.amount / env[i] : 0, 12);
          });
          expect(new Set(got.map((c) => c.index)).size).toBe(got.length);
        },
      ),
      // wRel within one ulp of 1 once ranked near-equal amounts differently from weight().
      { numRuns: 200, examples: [[[19], 0.9999999999999999, 1345900490, 1]] },
    );
  });
});
