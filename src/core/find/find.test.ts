import { describe, expect, it } from 'vitest';
import { findInText } from './find';

const text = 'The Cat grinned.\nThe Cheshire\ncat vanished. A CAT again; cat.';
const starts = [0, 17, 44];

describe('findInText', () => {
  it('finds every case-insensitive match and the fragments holding them', () => {
    const r = findInText(text, 'cat', starts);
    expect(r.offsets.map((o) => text.slice(o, o + 3))).toEqual(['Cat', 'cat', 'CAT', 'cat']);
    expect(r.fragments).toEqual([0, 1, 2]);
    expect(r.truncated).toBe(false);
  });

  it('matches a phrase across a line break, and treats the phrase as text, not a pattern', () => {
    expect(findInText(text, 'Cheshire cat', starts).fragments).toEqual([1]);
    expect(findInText(text, 'c.t', starts).offsets).toEqual([]);
    expect(findInText('a (b) c', '(b)', [0]).offsets).toEqual([2]);
  });

  it('stops at the limit and says so; an empty phrase finds nothing', () => {
    const r = findInText(text, 'cat', starts, 2);
    expect(r.offsets).toHaveLength(2);
    expect(r.truncated).toBe(true);
    expect(findInText(text, '   ', starts)).toEqual({
      offsets: [],
      fragments: [],
      truncated: false,
    });
  });
});
