import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { citedFragments, citedLabels, labelsOf, splitCitations } from './citations';

describe('labelsOf', () => {
  it('reads single labels, lists, ranges and mixed forms', () => {
    expect(labelsOf('[1]', 5)).toEqual([1]);
    expect(labelsOf('[1, 3]', 5)).toEqual([1, 3]);
    expect(labelsOf('[1,3;4]', 5)).toEqual([1, 3, 4]);
    expect(labelsOf('[1-3]', 5)).toEqual([1, 2, 3]);
    expect(labelsOf('[2–4]', 5)).toEqual([2, 3, 4]);
    expect(labelsOf('[ 1 - 2 , 5 ]', 5)).toEqual([1, 2, 5]);
  });

  it('ignores labels out of range, repeats, and reads reversed ranges', () => {
    expect(labelsOf('[0]', 5)).toEqual([]);
    expect(labelsOf('[6]', 5)).toEqual([]);
    expect(labelsOf('[2, 9, 2]', 5)).toEqual([2]);
    expect(labelsOf('[3-1]', 5)).toEqual([1, 2, 3]);
    expect(labelsOf('[4-99999999]', 5)).toEqual([4, 5]);
  });
});

describe('splitCitations', () => {
  it('splits text and citations, keeping the text as written', () => {
    const answer = 'They learned Reeling [1] and Writhing [1, 3]; also [1][2] and [2-3].';
    const pieces = splitCitations(answer, 3);
    expect(pieces.map((p) => p.text).join('')).toBe(answer);
    expect(pieces.filter((p) => p.kind === 'cite')).toEqual([
      { kind: 'cite', text: '[1]', labels: [1] },
      { kind: 'cite', text: '[1, 3]', labels: [1, 3] },
      { kind: 'cite', text: '[1]', labels: [1] },
      { kind: 'cite', text: '[2]', labels: [2] },
      { kind: 'cite', text: '[2-3]', labels: [2, 3] },
    ]);
  });

  it('leaves brackets with nothing in range, or no numbers, as text', () => {
    expect(splitCitations('See [7] and [note] and [].', 3)).toEqual([
      { kind: 'text', text: 'See [7] and [note] and [].' },
    ]);
    expect(splitCitations('An unfinished [1', 3)).toEqual([
      { kind: 'text', text: 'An unfinished [1' },
    ]);
  });

  it('keeps the in-range part of a partly out-of-range citation', () => {
    expect(splitCitations('x [2, 8]', 3)).toEqual([
      { kind: 'text', text: 'x ' },
      { kind: 'cite', text: '[2, 8]', labels: [2] },
    ]);
  });

  it('always concatenates back to the answer', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('[', ']', '1', '2', '9', ',', '-', ' ', 'a') }),
        fc.integer({ min: 0, max: 5 }),
        (answer, count) => {
          const pieces = splitCitations(answer, count);
          expect(pieces.map((p) => p.text).join('')).toBe(answer);
          for (const p of pieces) {
            if (p.kind === 'cite') {
              expect(p.labels.length).toBeGreaterThan(0);
              for (const l of p.labels) expect(l >= 1 && l <= count).toBe(true);
            }
          }
        },
      ),
    );
  });
});

describe('cited labels and fragments', () => {
  it('lists each cited label once, in order of first appearance, mapped to fragments', () => {
    const answer = 'A [3]. B [1, 3]. C [2-3]. D [9].';
    expect(citedLabels(answer, 3)).toEqual([3, 1, 2]);
    expect(citedFragments(answer, [40, 41, 57])).toEqual([57, 40, 41]);
  });
});
