import { describe, expect, it } from 'vitest';
import { labelFragments } from './sections';

describe('labelFragments', () => {
  it('labels each fragment with the innermost section holding its start', () => {
    const sections = [
      { title: 'Book One', start: 0, end: 100 },
      { title: 'Chapter 1', start: 0, end: 40 },
      { title: 'Chapter 2', start: 40, end: 100 },
      { title: 'Epilogue', start: 120, end: 150 },
    ];
    expect(labelFragments([0, 39, 40, 99, 100, 119, 120, 149, 150], sections)).toEqual([
      'Chapter 1',
      'Chapter 1',
      'Chapter 2',
      'Chapter 2',
      '',
      '',
      'Epilogue',
      'Epilogue',
      '',
    ]);
  });

  it('falls back to the outer section after an inner one ends', () => {
    const sections = [
      { title: 'Part', start: 0, end: 100 },
      { title: 'Note', start: 10, end: 20 },
    ];
    expect(labelFragments([5, 15, 25], sections)).toEqual(['Part', 'Note', 'Part']);
  });

  it('gives empty labels without sections', () => {
    expect(labelFragments([0, 10], [])).toEqual(['', '']);
  });
});
