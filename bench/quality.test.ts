/**
 * @file Sanity checks of the retrieval-quality benchmark's helpers (bench/quality/haystack.ts):
 * the bAbI parser, the haystack builder (every fact placed exactly once, in order, at a sentence
 * end, the book text untouched) and the fact-in-selection test.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { splitProse } from '../src/core';
import { sharedDatasetPath } from '../test/glove';
import {
  buildHaystack,
  indexWords,
  parseBabi,
  pickPassage,
  prng,
  sampleDistinct,
  spanSelected,
} from './quality/haystack';
import { restrictQuestions } from './quality/items';

const BABI = `1 Mary moved to the bathroom.
2 John went to the hallway.
3 Where is Mary? \tbathroom\t1
4 Daniel went back to the hallway.
5 Where is Daniel? \thallway\t4
1 Sandra got the milk.
2 Sandra went to the garden.
3 Where is the milk? \tgarden\t2 1
`;

// A synthetic "book": numbered sentences, some with abbreviations, wrapped over lines.
const BOOK = Array.from(
  { length: 400 },
  (_, i) =>
    `Sentence ${i} tells of Mr. Smith and the sea${i % 7 === 0 ? '\n\n' : i % 3 ? ' ' : '\n'}`,
)
  .join('')
  .replace(/sea/g, 'sea.');

/** Remove the inserted facts (each " " + fact) from the haystack. */
function stripFacts(text: string, spans: { start: number; end: number }[]): string {
  let out = '';
  let at = 0;
  for (const s of spans) {
    out += text.slice(at, s.start - 1);
    at = s.end;
  }
  return out + text.slice(at);
}

describe('parseBabi', () => {
  it('keeps the story statements before each question and maps supporting lines', () => {
    const samples = parseBabi('qa1', BABI);
    expect(samples).toHaveLength(3);
    expect(samples[0]).toMatchObject({
      story: 0,
      question: 'Where is Mary?',
      answer: 'bathroom',
      facts: ['Mary moved to the bathroom.', 'John went to the hallway.'],
      supporting: [0],
    });
    expect(samples[1].facts).toHaveLength(3);
    expect(samples[1].supporting).toEqual([2]);
    expect(samples[2]).toMatchObject({
      story: 1,
      facts: ['Sandra got the milk.', 'Sandra went to the garden.'],
      supporting: [0, 1],
    });
  });
});

describe('sampleDistinct', () => {
  it('draws distinct indices, reproducibly', () => {
    const a = sampleDistinct(prng(1), 50, 50);
    expect(new Set(a).size).toBe(50);
    expect(sampleDistinct(prng(7), 100, 10)).toEqual(sampleDistinct(prng(7), 100, 10));
  });
});

describe('buildHaystack', () => {
  const book = indexWords(BOOK);

  for (const count of [0, 1, 5, 120, 500]) {
    it(`places each of ${count} facts exactly once, in order, at sentence ends`, () => {
      const rng = prng(count + 3);
      const passage = pickPassage(book, 1000, rng)!;
      expect(passage).not.toBeNull();
      expect(passage.words).toBeGreaterThanOrEqual(1000);
      const facts = Array.from({ length: count }, (_, k) => `Zed${k} went to room ${k}.`);
      const hay = buildHaystack(BOOK, book, passage, facts, rng);
      expect(hay.factSpans).toHaveLength(count);
      hay.factSpans.forEach((s, k) => {
        expect(hay.text.slice(s.start, s.end)).toBe(facts[k]);
        // Exactly once in the haystack.
        expect(hay.text.split(facts[k]).length).toBe(2);
        if (k > 0) expect(s.start).toBeGreaterThan(hay.factSpans[k - 1].end);
        // Inserted as " " + fact after the end of a sentence (or of an earlier fact).
        expect(hay.text[s.start - 1]).toBe(' ');
        expect(hay.text[s.start - 2]).toBe('.');
      });
      // Without the facts, the passage comes back unchanged.
      expect(stripFacts(hay.text, hay.factSpans)).toBe(BOOK.slice(passage.start, passage.end));
    });
  }

  it('is deterministic for a seed', () => {
    const make = () => {
      const rng = prng(42);
      const passage = pickPassage(book, 800, rng)!;
      return buildHaystack(BOOK, book, passage, ['A b.', 'C d.', 'E f.'], rng);
    };
    expect(make()).toEqual(make());
  });
});

describe('spanSelected', () => {
  const starts = [0, 10, 20, 30];
  const ends = [10, 20, 30, 40];
  it('needs every fragment the span overlaps', () => {
    const sel = [false, true, false, true];
    expect(spanSelected(starts, ends, sel, 12, 18)).toBe(true);
    expect(spanSelected(starts, ends, sel, 2, 8)).toBe(false);
    expect(spanSelected(starts, ends, sel, 15, 25)).toBe(false);
    expect(spanSelected(starts, ends, [false, true, true, false], 15, 25)).toBe(true);
    expect(spanSelected(starts, ends, sel, 30, 40)).toBe(true);
  });
});

describe('the real haystack', () => {
  const bookFile = sharedDatasetPath('gutenberg', 'pg2701.txt');
  const babiFile = sharedDatasetPath(
    'babi_en10k_test_qa1-5',
    'qa3_three-supporting-facts_test.txt',
  );
  it('keeps every qa3 fact inside one 500-word fragment of Moby Dick', () => {
    const text = readFileSync(bookFile, 'utf8').replace(/\r\n?/g, '\n');
    const book = indexWords(text);
    const samples = parseBabi('qa3', readFileSync(babiFile, 'utf8'));
    const rng = prng(5);
    for (const index of sampleDistinct(rng, samples.length, 5)) {
      const facts = samples[index].facts;
      const hay = buildHaystack(text, book, pickPassage(book, 20_000, rng)!, facts, rng);
      const frags = splitProse('h', hay.text, { wordsPerFragment: 500 });
      expect(stripFacts(hay.text, hay.factSpans)).not.toContain(facts[facts.length - 1]);
      for (const s of hay.factSpans) {
        const inside = frags.filter((f) => f.start < s.end && f.end > s.start);
        expect(inside).toHaveLength(1);
      }
    }
  });
});

describe('restrictQuestions', () => {
  const q = (id: string, split: 'tune' | 'heldout') => ({
    id,
    set: 's',
    group: 'g',
    split,
    query: id,
    document: { id, source: id },
    gold: [],
    answerWords: null,
  });
  const set = {
    name: 's',
    questions: [
      q('a', 'tune'),
      q('b', 'heldout'),
      q('c', 'heldout'),
      q('d', 'tune'),
      q('e', 'heldout'),
      q('f', 'heldout'),
    ],
    unlocated: 0,
    note: 'n',
  };
  it('keeps one half, then every k-th of it in order, and says so in the note', () => {
    const held = restrictQuestions(set, { split: 'heldout', every: 2 });
    expect(held.questions.map((x) => x.id)).toEqual(['b', 'e']);
    expect(held.note).toBe('n; heldout half only, one question in 2 (2 questions)');
    expect(restrictQuestions(set, { split: 'tune' }).questions.map((x) => x.id)).toEqual([
      'a',
      'd',
    ]);
  });
  it('returns the set itself when nothing is restricted, and refuses a bad stride', () => {
    expect(restrictQuestions(set, {})).toBe(set);
    expect(() => restrictQuestions(set, { every: 0 })).toThrow(/every/);
  });
});
