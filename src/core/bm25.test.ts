import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bm25Idf,
  bm25IndependentScores,
  bm25Scores,
  buildBm25Index,
  calcBm25Score,
  rescaleByMax,
} from './bm25';

// Toy corpus, N = 3, |c| = 3, 6, 3, avg|c| = 12 / 3 = 4.
const corpus = [
  ['the', 'cat', 'sat'],
  ['the', 'dog', 'sat', 'on', 'the', 'mat'],
  ['cat', 'cat', 'dog'],
];

describe('BM25 on a hand-computed toy corpus', () => {
  // "cat" and "dog" each occur in n = 2 of N = 3 fragments:
  //   idf = ln(1 + (3 - 2 + 0.5) / (2 + 0.5)) = ln(1 + 1.5 / 2.5) = ln(1.6) = 0.470004
  // Length factors k1 (1 - b + b |c| / avg) with k1 = 1.2, b = 0.75:
  //   |c| = 3: 1.2 (0.25 + 0.75 * 0.75) = 1.2 * 0.8125 = 0.975
  //   |c| = 6: 1.2 (0.25 + 0.75 * 1.5)  = 1.2 * 1.375  = 1.65
  // tf part tf (k1 + 1) / (tf + factor):
  //   c0 "cat" tf 1: 2.2 / 1.975 = 1.113924;  c2 "cat" tf 2: 4.4 / 2.975 = 1.478992
  //   c1 "dog" tf 1: 2.2 / 2.65  = 0.830189;  c2 "dog" tf 1: 2.2 / 1.975 = 1.113924
  const idf = Math.log(1.6);
  const cat0 = (idf * 2.2) / 1.975; // 0.523548
  const cat2 = (idf * 4.4) / 2.975; // 0.695131
  const dog1 = (idf * 2.2) / 2.65; // 0.390192
  const dog2 = (idf * 2.2) / 1.975; // 0.523548

  it('uses the non-negative IDF log(1 + (N - n + 0.5) / (n + 0.5))', () => {
    expect(bm25Idf(2, 3)).toBeCloseTo(0.470004, 6);
    // A term in every fragment still scores >= 0: ln(1 + 0.5 / 3.5) = 0.133531.
    expect(bm25Idf(3, 3)).toBeCloseTo(0.133531, 6);
  });

  it('calcBm25Score matches the hand computation', () => {
    expect(calcBm25Score(1, 2, 3, 3, 4)).toBeCloseTo(0.523548, 6);
    expect(calcBm25Score(2, 2, 3, 3, 4)).toBeCloseTo(0.695131, 6);
    expect(calcBm25Score(1, 2, 3, 6, 4)).toBeCloseTo(0.390192, 6);
    // b = 0 turns length normalisation off: 2.2 / (1 + 1.2) = 1.
    expect(calcBm25Score(1, 2, 3, 6, 4, { k1: 1.2, b: 0 })).toBeCloseTo(idf, 12);
  });

  it('the index scores one query term', () => {
    const index = buildBm25Index(corpus);
    expect(index.avgLength).toBe(4);
    const s = bm25Scores(index, ['cat']);
    expect(s[0]).toBeCloseTo(cat0, 12);
    expect(s[1]).toBe(0);
    expect(s[2]).toBeCloseTo(cat2, 12);
  });

  it('the index sums query terms, and rescaling puts the best at exactly 1', () => {
    const index = buildBm25Index(corpus);
    const raw = bm25Scores(index, ['cat', 'dog', 'unknown']);
    // c0 = 0.523548, c1 = 0.390192, c2 = 0.695131 + 0.523548 = 1.218680
    expect(Array.from(raw)).toEqual([
      expect.closeTo(cat0, 12),
      expect.closeTo(dog1, 12),
      expect.closeTo(cat2 + dog2, 12),
    ]);
    const s = bm25IndependentScores(index, ['cat', 'dog']);
    expect(s[2]).toBe(1);
    // Rescaled: 0.523548 / 1.218680 = 0.429603, 0.390192 / 1.218680 = 0.320176.
    expect(s[0]).toBeCloseTo(0.429603, 6);
    expect(s[1]).toBeCloseTo(0.320176, 6);
  });

  it('counts a repeated query term twice', () => {
    const index = buildBm25Index(corpus);
    const once = bm25Scores(index, ['mat']);
    const twice = bm25Scores(index, ['mat', 'mat']);
    expect(twice[1]).toBeCloseTo(2 * once[1], 12);
  });

  it('scores nothing for a query of unknown words, and rescaling keeps zeros', () => {
    const index = buildBm25Index(corpus);
    expect(Array.from(bm25IndependentScores(index, ['zebra']))).toEqual([0, 0, 0]);
    expect(Array.from(rescaleByMax([0, 0]))).toEqual([0, 0]);
    expect(buildBm25Index([]).count).toBe(0);
  });

  it('the inverted index equals the per-pair formula on random corpora (property)', () => {
    const term = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f');
    fc.assert(
      fc.property(
        fc.array(fc.array(term, { maxLength: 12 }), { minLength: 1, maxLength: 15 }),
        fc.array(term, { maxLength: 5 }),
        (fragments, query) => {
          const index = buildBm25Index(fragments);
          const got = bm25Scores(index, query);
          const avg = fragments.reduce((s, f) => s + f.length, 0) / fragments.length;
          fragments.forEach((f, i) => {
            let want = 0;
            for (const q of query) {
              const tf = f.filter((t) => t === q).length;
              const n = fragments.filter((g) => g.includes(q)).length;
              if (tf > 0) want += calcBm25Score(tf, n, fragments.length, f.length, avg);
            }
            expect(got[i]).toBeCloseTo(want, 10);
            expect(got[i]).toBeGreaterThanOrEqual(0);
          });
        },
      ),
      { numRuns: 200 },
    );
  });
});
