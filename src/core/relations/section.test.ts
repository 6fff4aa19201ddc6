import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sectionIds, sectionRelation } from './section';

/** Eq. 9 by the dense double sum over the stated weights (the definition, not the code's shortcut). */
function naive(ids: Int32Array, s: Float64Array, decay: number | null): Float64Array {
  const out = new Float64Array(s.length);
  for (let i = 0; i < s.length; i++) {
    let num = 0;
    let den = 0;
    for (let j = 0; j < s.length; j++) {
      if (j === i || ids[i] < 0 || ids[j] !== ids[i]) continue;
      const w = decay === null ? 1 : decay ** Math.abs(i - j);
      num += w * s[j];
      den += w;
    }
    out[i] = den > 0 ? num / den : 0;
  }
  return out;
}

describe('sectionIds', () => {
  it('starts a new section where the label changes, at a document boundary, and skips empty labels', () => {
    const labels = ['A', 'A', 'B', '', 'B', 'A', 'A'];
    // Two documents: [0, 5) and [5, 7); the two 'A' runs of different documents are different sections.
    expect(Array.from(sectionIds([0, 5, 7], labels))).toEqual([0, 0, 1, -1, 2, 3, 3]);
  });

  it('refuses labels that do not match the fragments', () => {
    expect(() => sectionIds([0, 3], ['A', 'B'])).toThrow(/2 section labels for 3 fragments/);
  });
});

describe('sectionRelation', () => {
  const labelsArb = fc.array(fc.constantFrom('', 'A', 'B', 'C'), { minLength: 1, maxLength: 40 });

  it('uniform weights: equals the dense sum of Eq. 9 (property)', () => {
    fc.assert(
      fc.property(labelsArb, fc.integer({ min: 1, max: 1e6 }), (labels, seed) => {
        const ids = sectionIds([0, labels.length], labels);
        const s = Float64Array.from(labels, (_, i) => ((seed * (i + 7)) % 997) / 997);
        const got = sectionRelation(ids).environmentScores(s);
        const want = naive(ids, s, null);
        for (let i = 0; i < s.length; i++) expect(got[i]).toBeCloseTo(want[i], 12);
      }),
    );
  });

  it('decay weights: equals the dense sum of Eq. 9 cut at section boundaries (property)', () => {
    fc.assert(
      fc.property(labelsArb, fc.double({ min: 0.05, max: 1, noNaN: true }), (labels, d) => {
        const ids = sectionIds([0, labels.length], labels);
        const s = Float64Array.from(labels, (_, i) => (i % 5) / 4);
        const got = sectionRelation(ids, { decay: d }).environmentScores(s);
        const want = naive(ids, s, d);
        for (let i = 0; i < s.length; i++) expect(got[i]).toBeCloseTo(want[i], 9);
      }),
    );
  });

  it('a fragment alone in its section or without one gets 0; a neighbour in another section lends nothing', () => {
    const ids = sectionIds([0, 4], ['A', 'B', 'B', '']);
    const env = sectionRelation(ids).environmentScores(Float64Array.of(1, 0.2, 0.6, 1));
    [0, 0.6, 0.2, 0].forEach((want, i) => expect(env[i]).toBeCloseTo(want, 12));
  });

  it('contributions name the section members, largest first, and add up to s_env', () => {
    const ids = sectionIds([0, 6], ['X', 'S', 'S', 'S', 'S', 'Y']);
    const s = Float64Array.of(9, 0.1, 0.5, 0.3, 0.9, 9);
    const rel = sectionRelation(ids);
    const env = rel.environmentScores(s);
    const c = rel.contributions(2, s, 10);
    expect(c.map((x) => x.index)).toEqual([4, 3, 1]);
    expect(c.reduce((t, x) => t + x.amount, 0)).toBeCloseTo(env[2], 12);
    expect(c.reduce((t, x) => t + x.share, 0)).toBeCloseTo(1, 12);
    expect(rel.contributions(2, s, 1)).toHaveLength(1);
    expect(rel.contributions(0, s, 5)).toEqual([]);
  });

  it('refuses a decay outside (0, 1] and scores of the wrong length', () => {
    const ids = sectionIds([0, 2], ['A', 'A']);
    expect(() => sectionRelation(ids, { decay: 0 })).toThrow(/decay/);
    expect(() => sectionRelation(ids).environmentScores(new Float64Array(3))).toThrow(/3 scores/);
  });
});
