import { describe, expect, it } from 'vitest';
import { splitProse } from '../fragment';
import { maskedFragment, pseudoContentWords, pseudoQuestions } from './pseudo';

// A made-up text of many short paragraphs, each with its own rare names, so sentences differ.
const NAMES = 'Aldric Brenna Corvin Delphine Eamon Fenna Garrick Hollis Isolde Jorund'.split(' ');
const PLACES = 'harbour orchard quarry lighthouse monastery granary tannery vineyard'.split(' ');
const TEXT = Array.from({ length: 40 }, (_, i) => {
  const who = NAMES[i % NAMES.length];
  const where = PLACES[i % PLACES.length];
  return (
    `${who} walked slowly to the ${where} before the evening bell rang over the valley. ` +
    `The keeper of the ${where} counted ${i + 3} copper coins and wrapped them in waxed linen. ` +
    `Nobody in the village had seen ${who} carry a lantern shaped like a heron before that night. ` +
    `Rain fell on the roofs while the old dog slept beside the cold hearth of the house.`
  );
}).join('\n\n');

const frags = splitProse('d', TEXT, { wordsPerFragment: 100 });
const starts = frags.map((f) => f.start);
const ends = frags.map((f) => f.end);

describe('pseudo-questions (inverse cloze)', () => {
  it('gives the same questions for the same seed and others for another seed', () => {
    const a = pseudoQuestions(TEXT, starts, ends, { count: 10, seed: 7 });
    const b = pseudoQuestions(TEXT, starts, ends, { count: 10, seed: 7 });
    const c = pseudoQuestions(TEXT, starts, ends, { count: 10, seed: 8 });
    expect(a).toHaveLength(10);
    expect(b).toEqual(a);
    expect(c.map((q) => q.fragment)).not.toEqual(a.map((q) => q.fragment));
    expect(new Set(a.map((q) => q.fragment)).size).toBe(10);
  });

  it('asks with the sentence’s rarest content words, never the sentence, and masks it from its fragment', () => {
    const qs = pseudoQuestions(TEXT, starts, ends, { count: 20, seed: 1, termsPerQuery: 5 });
    expect(qs.length).toBeGreaterThan(10);
    for (const q of qs) {
      const sentence = TEXT.slice(q.sentence.start, q.sentence.end);
      expect(q.sentence.start).toBeGreaterThanOrEqual(starts[q.fragment]);
      expect(q.sentence.end).toBeLessThanOrEqual(ends[q.fragment]);
      expect(q.terms.length).toBeLessThanOrEqual(5);
      expect(q.query).not.toContain(sentence);
      const words = new Set(pseudoContentWords(sentence));
      for (const t of q.terms) expect(words.has(t)).toBe(true);
      const masked = maskedFragment(TEXT, starts[q.fragment], ends[q.fragment], q.sentence);
      expect(masked).not.toContain(sentence);
      expect(masked.length).toBeLessThan(ends[q.fragment] - starts[q.fragment]);
    }
  });

  it('picks the informative sentence: rare names, not the sentence every paragraph repeats', () => {
    const qs = pseudoQuestions(TEXT, starts, ends, { count: 20, seed: 3 });
    for (const q of qs) {
      expect(TEXT.slice(q.sentence.start, q.sentence.end)).not.toMatch(/^Rain fell/);
      // The rarest words are the names, places and the heron lantern, never "rain" or "dog".
      expect(q.terms).not.toContain('dog');
    }
  });

  it('returns fewer questions when few fragments are eligible, and refuses a bad count', () => {
    expect(pseudoQuestions('Short text. Too short.', [0], [22], { count: 5 })).toEqual([]);
    expect(() => pseudoQuestions(TEXT, starts, ends, { count: 0 })).toThrow(/whole number/);
  });
});
