import { describe, expect, it } from 'vitest';
import type { CsrMatrix } from '../core/types';
import { mergeRowBlocks, type RowBlock } from '../core/code/summary';
import { csrBytes, fitRelation, fitRowBlocks } from './storable';

/** A random CSR matrix (fixed seed): row i has `len(i)` entries in increasing column order. */
function randomCsr(rows: number, len: (i: number) => number, seed = 3): CsrMatrix {
  let x = seed;
  const rand = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const rowPtr = new Uint32Array(rows + 1);
  const col: number[] = [];
  const weight: number[] = [];
  for (let i = 0; i < rows; i++) {
    const n = len(i);
    for (let j = 0; j < n; j++) {
      col.push(j * 3);
      weight.push(Math.round(rand() * 50) / 50); // ties on purpose
    }
    rowPtr[i + 1] = col.length;
  }
  return { size: rows, rowPtr, col: Uint32Array.from(col), weight: Float32Array.from(weight) };
}

function row(m: CsrMatrix, i: number): [number, number][] {
  const out: [number, number][] = [];
  for (let j = m.rowPtr[i]; j < m.rowPtr[i + 1]; j++) out.push([m.col[j], m.weight[j]]);
  return out;
}

describe('fitRelation', () => {
  it('returns a matrix that fits unchanged', () => {
    const m = randomCsr(50, () => 10);
    const fitted = fitRelation(m, csrBytes(m));
    expect(fitted.perRow).toBeNull();
    expect(fitted.matrix).toBe(m);
  });

  it('keeps each row’s strongest weights, in column order, within the budget', () => {
    const m = randomCsr(200, (i) => (i % 5 === 0 ? 3 : 40 + (i % 30)));
    const budget = Math.floor(csrBytes(m) / 3);
    const { matrix, perRow } = fitRelation(m, budget);
    expect(perRow).not.toBeNull();
    expect(csrBytes(matrix)).toBeLessThanOrEqual(budget);
    // The largest cap that fits: one more per row would not.
    const k = perRow!;
    let more = 0;
    for (let i = 0; i < m.size; i++) more += Math.min(m.rowPtr[i + 1] - m.rowPtr[i], k + 1);
    expect(4 * (m.size + 1) + 8 * more).toBeGreaterThan(budget);
    for (let i = 0; i < m.size; i++) {
      const before = row(m, i);
      const after = row(matrix, i);
      expect(after.length).toBe(Math.min(before.length, k));
      // A subsequence of the row, columns in order...
      let at = 0;
      for (const entry of after) {
        while (at < before.length && before[at][0] !== entry[0]) at++;
        expect(before[at]).toEqual(entry);
      }
      // ...holding its k largest weights.
      const strongest = before
        .map((e) => e[1])
        .sort((a, b) => b - a)
        .slice(0, after.length);
      expect(after.map((e) => e[1]).sort((a, b) => b - a)).toEqual(strongest);
    }
  });
});

/** Rows [from, to) of `m` as a block (rowPtr from 0), as a pool member returns them. */
function blockOf(m: CsrMatrix, from: number, to: number): RowBlock {
  const base = m.rowPtr[from];
  return {
    rowPtr: Uint32Array.from(m.rowPtr.subarray(from, to + 1), (p) => p - base),
    col: m.col.slice(base, m.rowPtr[to]),
    weight: m.weight.slice(base, m.rowPtr[to]),
  };
}

describe('fitRowBlocks', () => {
  const m = randomCsr(300, (i) => (i % 7 === 0 ? 0 : i % 5 === 0 ? 3 : 20 + ((i * 13) % 61)));
  const cuts = [0, 1, 2, 90, 91, 150, 299, 300];
  const blocks = () => cuts.slice(1).map((to, b) => blockOf(m, cuts[b], to));

  it('merges blocks that fit, as mergeRowBlocks, and takes them', () => {
    const given = blocks();
    const { matrix, perRow } = fitRowBlocks(m.size, given, csrBytes(m));
    expect(perRow).toBeNull();
    expect(matrix).toEqual(mergeRowBlocks(m.size, blocks()));
    expect(matrix).toEqual(m);
    expect(given).toHaveLength(0);
  });

  it('cuts as fitRelation cuts the merged matrix, at every budget tried', () => {
    for (const share of [0.9, 0.5, 0.31, 0.12, 0.02]) {
      const budget = Math.floor(csrBytes(m) * share);
      const given = blocks();
      const fused = fitRowBlocks(m.size, given, budget);
      const merged = fitRelation(mergeRowBlocks(m.size, blocks()), budget);
      expect(fused.perRow).not.toBeNull();
      expect(fused.perRow).toBe(merged.perRow);
      expect(fused.matrix).toEqual(merged.matrix);
      expect(csrBytes(fused.matrix)).toBeLessThanOrEqual(budget);
      expect(given).toHaveLength(0);
    }
  });

  it('refuses blocks that do not cover the rows', () => {
    expect(() => fitRowBlocks(m.size + 1, blocks(), csrBytes(m))).toThrow(/cover 300 rows/);
  });
});
