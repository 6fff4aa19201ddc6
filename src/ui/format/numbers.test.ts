import { describe, expect, it } from 'vitest';
import { countOf, formatCount } from './numbers';

describe('countOf', () => {
  it('agrees the noun with the number and separates thousands', () => {
    expect(countOf(1, 'fragment')).toBe('1 fragment');
    expect(countOf(0, 'fragment')).toBe('0 fragments');
    expect(countOf(30000, 'fragment')).toBe('30,000 fragments');
    expect(countOf(2, 'match')).toBe('2 matches');
    expect(countOf(1, 'match')).toBe('1 match');
    expect(countOf(1234567, 'file')).toBe('1,234,567 files');
    expect(countOf(3, 'child', 'children')).toBe('3 children');
  });
  it('formats counts in English whatever the locale', () => {
    expect(formatCount(30000)).toBe('30,000');
  });
});
