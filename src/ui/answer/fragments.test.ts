import { describe, expect, it } from 'vitest';
import type { RetrievalResult } from '../../workers/retrieval-types';
import { fragmentLocation, selectedFragments } from './fragments';

const source = 'aaaa bbbb cccc dddd eeee';
const result = {
  documents: [
    { docId: 'd1', name: 'one.txt', offset: 0, count: 3 },
    { docId: 'd2', name: 'two.txt', offset: 3, count: 2 },
  ],
  starts: new Uint32Array([0, 5, 10, 0, 5]),
  ends: new Uint32Array([4, 9, 14, 4, 9]),
  labels: ['', 'Chapter 2', '', '', 'Part B'],
  selected: new Uint32Array([1, 2, 4]),
  selectedRanked: new Uint32Array([4, 1, 2]),
} as unknown as RetrievalResult;

describe('selectedFragments', () => {
  it('gives the selected fragments in document order with rank, place and text', () => {
    const sources = new Map([
      ['d1', source],
      ['d2', source],
    ]);
    expect(selectedFragments(result, sources)).toEqual([
      { index: 1, rank: 1, location: 'one.txt · fragment 2 · Chapter 2', text: 'bbbb' },
      { index: 2, rank: 2, location: 'one.txt · fragment 3', text: 'cccc' },
      { index: 4, rank: 0, location: 'two.txt · fragment 2 · Part B', text: 'bbbb' },
    ]);
    expect(fragmentLocation(result, 3)).toBe('two.txt · fragment 1');
  });

  it('quotes merged code spans once, cited by their best window', () => {
    const merged = {
      ...result,
      spans: [
        {
          docId: 'd1',
          path: 'a.js',
          first: 1,
          last: 30,
          start: 0,
          end: 14,
          windows: [0, 1, 2],
          best: 1,
          rank: 1,
        },
        {
          docId: 'd2',
          path: 'b.js',
          first: 1,
          last: 20,
          start: 0,
          end: 4,
          windows: [3],
          best: 3,
          rank: 0,
        },
      ],
    } as RetrievalResult;
    const sources = new Map([
      ['d1', source],
      ['d2', source],
    ]);
    expect(selectedFragments(merged, sources)).toEqual([
      { index: 1, rank: 1, location: 'one.txt · fragment 2 · a.js:1-30', text: 'aaaa bbbb cccc' },
      { index: 3, rank: 0, location: 'two.txt · fragment 1 · b.js:1-20', text: 'aaaa' },
    ]);
  });

  it('waits for the text of every document involved', () => {
    expect(selectedFragments(result, new Map([['d1', source]]))).toBeNull();
  });
});
