import { describe, expect, it } from 'vitest';
import { estimatePieces, planBatches } from './batches';

describe('planBatches', () => {
  it('caps the padded tokens of a call: four 512-piece fragments a call, not sixteen', () => {
    const batches = planBatches(Array(10).fill(512), 16, 2048);
    expect(batches.map((b) => b.length)).toEqual([4, 4, 2]);
    expect(batches.flat().sort((a, b) => a - b)).toEqual([...Array(10).keys()]);
  });

  it('keeps short texts sixteen a call, and pads each call to its own longest', () => {
    const pieces = [...Array(20).fill(100), 600];
    const batches = planBatches(pieces, 16, 2048);
    // The 600-piece text goes alone with two others (3 × 600 ≤ 2048), longest first.
    expect(batches[0][0]).toBe(20);
    expect(batches[0]).toHaveLength(3);
    expect(batches.slice(1).map((b) => b.length)).toEqual([16, 2]);
    for (const b of batches)
      expect(b.length * Math.max(...b.map((i) => pieces[i]))).toBeLessThanOrEqual(2048);
  });

  it('always takes one text, even past the cap, and no cap at 0', () => {
    expect(planBatches([5000, 10], 16, 2048)).toEqual([[0], [1]]);
    expect(planBatches(Array(40).fill(512), 16, 0).map((b) => b.length)).toEqual([16, 16, 8]);
  });

  it('estimates pieces from characters, within the model limit', () => {
    expect(estimatePieces('', 512)).toBe(2); // [CLS] and [SEP]
    expect(estimatePieces('word '.repeat(100), 512)).toBe(127);
    expect(estimatePieces('word '.repeat(10_000), 512)).toBe(512);
  });
});
