import { describe, expect, it } from 'vitest';
import {
  answerInContext,
  contentWords,
  goldRecall,
  locateGold,
  sentenceSpans,
  spanSelected,
} from './retrieval';

const TEXT =
  'The ship left port at dawn. Nobody aboard knew the captain. ' +
  'He had served on the Pequod for years! Was the whale white? Ahab thought so.';

describe('retrieval metrics', () => {
  it('cuts sentences at end marks and blank lines, trimmed', () => {
    const spans = sentenceSpans(`${TEXT}\n\nA heading\n\nLast words`);
    const texts = spans.map((s) => `${TEXT}\n\nA heading\n\nLast words`.slice(s.start, s.end));
    expect(texts).toEqual([
      'The ship left port at dawn.',
      'Nobody aboard knew the captain.',
      'He had served on the Pequod for years!',
      'Was the whale white?',
      'Ahab thought so.',
      'A heading',
      'Last words',
    ]);
  });

  it('counts a gold span only when every fragment it touches is selected', () => {
    const starts = [0, 10, 20];
    const ends = [10, 20, 30];
    expect(spanSelected(starts, ends, [true, false, false], 2, 8)).toBe(true);
    expect(spanSelected(starts, ends, [true, false, true], 5, 15)).toBe(false);
    expect(spanSelected(starts, ends, [true, true, false], 5, 15)).toBe(true);
    expect(
      goldRecall(
        starts,
        ends,
        [true, false, true],
        [
          { start: 1, end: 3 },
          { start: 12, end: 14 },
          { start: 25, end: 29 },
          { start: 9, end: 21 },
        ],
      ),
    ).toBe(0.5);
    expect(goldRecall(starts, ends, [true, true, true], [])).toBe(0);
  });

  it('measures answer-in-context on content words only', () => {
    const answer = contentWords('The captain of the Pequod');
    expect([...answer].sort()).toEqual(['captain', 'pequod']);
    expect(answerInContext(answer, contentWords('a captain sails'))).toBe(0.5);
    expect(answerInContext(new Set(), contentWords('anything'))).toBe(0);
  });

  it('locates the sentences holding most of the answer, or nothing below the coverage', () => {
    const one = locateGold(TEXT, 'served on the Pequod', { sentences: 1 });
    expect(one && TEXT.slice(one.span.start, one.span.end)).toBe(
      'He had served on the Pequod for years!',
    );
    expect(one?.coverage).toBe(1);
    const two = locateGold(TEXT, 'the whale was white, thought Ahab', { sentences: 2 });
    expect(two && TEXT.slice(two.span.start, two.span.end)).toBe(
      'Was the whale white? Ahab thought so.',
    );
    expect(locateGold(TEXT, 'a green submarine under ice', { minCoverage: 0.5 })).toBeNull();
    expect(locateGold(TEXT, 'the of and')).toBeNull();
  });
});
