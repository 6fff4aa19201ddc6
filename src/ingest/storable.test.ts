import { describe, expect, it } from 'vitest';
import type { CsrMatrix } from '../core/types';
import { csrBytes, fitRelation } from './storable';

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
