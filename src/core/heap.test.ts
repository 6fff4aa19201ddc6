import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { kthLargestInPlace, RankHeap, ranksBefore, topK } from './heap';

const fullSort = (scores: ArrayLike<number>) =>
  Array.from(scores, (_, i) => i).sort((a, b) =>
    ranksBefore(scores[a], a, scores[b], b) ? -1 : ranksBefore(scores[b], b, scores[a], a) ? 1 : 0,
  );

describe('ranksBefore', () => {
  it('orders by higher score, then lower index, NaN last', () => {
    expect(ranksBefore(2, 5, 1, 0)).toBe(true);
    expect(ranksBefore(1, 0, 1, 5)).toBe(true);
    expect(ranksBefore(1, 5, 1, 0)).toBe(false);
    expect(ranksBefore(-Infinity, 9, NaN, 0)).toBe(true);
    expect(ranksBefore(NaN, 0, -Infinity, 9)).toBe(false);
    expect(ranksBefore(NaN, 0, NaN, 1)).toBe(true);
  });
});

describe('topK and RankHeap', () => {
  it('pops in rank order with ties to the lower index', () => {
    expect(Array.from(topK([0.5, 0.9, 0.5, 0.9, 0.1], 4))).toEqual([1, 3, 0, 2]);
    expect(Array.from(topK([1, 2], 10))).toEqual([1, 0]);
    expect(Array.from(topK([], 3))).toEqual([]);
    const heap = new RankHeap([3, 1, 2]);
    expect([heap.pop(), heap.pop(), heap.pop(), heap.pop()]).toEqual([0, 2, 1, -1]);
  });

  it('equals a full sort, ties and NaN included (property)', () => {
    const score = fc.oneof(
      fc.integer({ min: 0, max: 5 }),
      fc.constant(NaN),
      fc.double({ noNaN: true }),
    );
    fc.assert(
      fc.property(fc.array(score, { maxLength: 200 }), fc.nat(250), (scores, k) => {
        const want = fullSort(scores).slice(0, k);
        expect(Array.from(topK(Float64Array.from(scores), k))).toEqual(want);
      }),
      { numRuns: 300 },
    );
  });
});

describe('kthLargestInPlace', () => {
  it('finds the k-th largest as a full sort would, ties and repeats included', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -5, max: 5 }), { minLength: 1, maxLength: 60 }),
        fc.nat(),
        (values, pick) => {
          const k = 1 + (pick % values.length);
          const sorted = [...values].sort((a, b) => b - a);
          expect(kthLargestInPlace(Float64Array.from(values), k)).toBe(sorted[k - 1]);
          expect(kthLargestInPlace(Float32Array.from(values), k)).toBe(sorted[k - 1]);
        },
      ),
      { numRuns: 300 },
    );
  });
});
