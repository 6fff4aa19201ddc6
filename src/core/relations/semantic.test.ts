import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CsrMatrix, VectorSet } from '../types';
import { normalizeRows } from '../vectors';
import { csrRelation, validateCsr } from './csr';
import { semanticNeighbours, semanticRelation } from './semantic';
import { prng } from '../prng';
import { bruteForceKnn, csrRows } from './knn-testing';

const csr = (size: number, rows: [number, number][][]): CsrMatrix => {
  const rowPtr = new Uint32Array(size + 1);
  rows.forEach((r, i) => (rowPtr[i + 1] = rowPtr[i] + r.length));
  return {
    size,
    rowPtr,
    col: Uint32Array.from(rows.flat().map(([j]) => j)),
    weight: Float32Array.from(rows.flat().map(([, w]) => w)),
  };
};

/**
 * Synthetic vectors for equality-with-brute-force tests only (they stand for no meaning): random
 * directions, some exact copies (ties), some zero rows (fragments with no known words).
 */
function syntheticVectors(count: number, dim: number, seed: number): VectorSet {
  const random = prng(seed);
  const data = new Float32Array(count * dim);
  for (let i = 0; i < count; i++) {
    const kind = random();
    if (kind < 0.05) continue;
    if (kind < 0.15 && i > 0) {
      const from = Math.floor(random() * i);
      data.copyWithin(i * dim, from * dim, (from + 1) * dim);
      continue;
    }
    for (let d = 0; d < dim; d++) data[i * dim + d] = random() * 2 - 1;
  }
  return normalizeRows({ dim, count, data });
}

const rowsOf = csrRows;
const bruteForce = bruteForceKnn;

describe('csrRelation (Eq. 9 over any sparse relation)', () => {
  // w[0][1] = 0.5, w[0][2] = 0.25, w[1][0] = 1, row 2 empty; s_ind = [0.2, 0.8, 0.4].
  const rel = csrRelation(
    'code',
    csr(3, [
      [
        [1, 0.5],
        [2, 0.25],
      ],
      [[0, 1]],
      [],
    ]),
  );
  const s = Float64Array.of(0.2, 0.8, 0.4);

  it('matches the hand-computed Eq. 9', () => {
    // Row 0: (0.5 * 0.8 + 0.25 * 0.4) / 0.75 = 0.5 / 0.75 = 2/3. Row 1: 1 * 0.2 / 1 = 0.2.
    // Row 2 is empty: 0.
    const env = rel.environmentScores(s);
    expect(env[0]).toBeCloseTo(2 / 3, 14);
    expect(env[1]).toBeCloseTo(0.2, 14);
    expect(env[2]).toBe(0);
    expect(rel.kind).toBe('code');
  });

  it('lists contributions with shares', () => {
    // Row 0: j = 1 gives 0.4 / 0.75 = 0.5333 (share 0.8), j = 2 gives 0.1 / 0.75 (share 0.2).
    const c = rel.contributions(0, s, 5);
    expect(c.map((x) => x.index)).toEqual([1, 2]);
    expect(c[0].amount).toBeCloseTo(0.4 / 0.75, 14);
    expect(c[0].share).toBeCloseTo(0.8, 14);
    expect(c[1].share).toBeCloseTo(0.2, 14);
    expect(rel.contributions(2, s, 5)).toEqual([]);
    expect(() => rel.contributions(-1, s, 5)).toThrow(/outside/);
  });

  it('refuses malformed matrices: self loops, columns out of range, negative weights', () => {
    expect(() => validateCsr(csr(2, [[[0, 1]], []]))).toThrow(/itself/);
    expect(() => validateCsr(csr(2, [[[5, 1]], []]))).toThrow(/beyond/);
    expect(() => validateCsr(csr(2, [[[1, -1]], []]))).toThrow(/>= 0/);
    expect(() => validateCsr({ ...csr(2, [[], []]), rowPtr: new Uint32Array(2) })).toThrow(
      /rowPtr/,
    );
  });
});

describe('semanticNeighbours / semanticRelation (Eq. 6, kNN of max(0, cos))', () => {
  // Four unit vectors in 2D: cos(0,1) = 0.8, cos(1,2) = 0.6, cos(0,2) = 0, cos(0,3) = -1,
  // cos(1,3) = -0.8, cos(2,3) = 0. Zero and negative cosines are no relation.
  const v: VectorSet = {
    dim: 2,
    count: 4,
    data: Float32Array.of(1, 0, 0.8, 0.6, 0, 1, -1, 0),
  };

  it('keeps each fragment its k best positive cosines (hand-computed)', () => {
    const rows = rowsOf(semanticNeighbours(v, [0, 4], 2));
    expect(rows.map((r) => Object.fromEntries(r))).toEqual([
      { 1: Math.fround(0.8) },
      { 0: Math.fround(0.8), 2: Math.fround(0.6) },
      { 1: Math.fround(0.6) },
      {},
    ]);
    // k = 1: fragment 1 keeps only its nearest; rows are not symmetrised, so 2 keeps 1.
    const one = rowsOf(semanticNeighbours(v, [0, 4], 1));
    expect([...one[1].keys()]).toEqual([0]);
    expect([...one[2].keys()]).toEqual([1]);
  });

  it('never relates fragments of different documents', () => {
    const rows = rowsOf(semanticNeighbours(v, [0, 1, 4], 3));
    expect(rows[0].size).toBe(0);
    expect([...rows[1].keys()]).toEqual([2]);
  });

  it('gives Eq. 9 as the weighted mean over the neighbours', () => {
    // Row 1: (0.8 * s0 + 0.6 * s2) / 1.4 with s = [1, 0, 0.5, 1]: (0.8 + 0.3) / 1.4 = 0.785714.
    const rel = semanticRelation(v, [0, 4], 2);
    const env = rel.environmentScores(Float64Array.of(1, 0, 0.5, 1));
    expect(env[1]).toBeCloseTo(1.1 / 1.4, 6);
    expect(env[3]).toBe(0);
    expect(rel.kind).toBe('semantic');
  });

  it('reports progress and stops when the callback throws', () => {
    const seen: number[] = [];
    semanticNeighbours(v, [0, 4], 2, { onProgress: (done, total) => seen.push(done, total) });
    expect(seen.slice(-2)).toEqual([4, 4]);
    expect(() =>
      semanticNeighbours(v, [0, 4], 2, {
        onProgress: () => {
          throw new Error('cancelled');
        },
      }),
    ).toThrow('cancelled');
  });

  it('refuses a vector count that does not match the segments, and a bad k', () => {
    expect(() => semanticNeighbours(v, [0, 3], 2)).toThrow(/4 fragment vectors for 3/);
    expect(() => semanticNeighbours(v, [0, 4], -1)).toThrow(/semanticK/);
    expect(semanticNeighbours(v, [0, 4], 0).rowPtr[4]).toBe(0);
  });

  it('equals brute-force kNN on synthetic vectors, ties and zero rows included (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat(120), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 24 }),
        fc.nat(),
        (sizes, k, dim, seed) => {
          const segments = sizes.reduce((acc, n) => [...acc, acc[acc.length - 1] + n], [0]);
          const n = segments[segments.length - 1];
          const vectors = syntheticVectors(n, dim, seed);
          const m = semanticNeighbours(vectors, segments, k);
          expect(rowsOf(m)).toEqual(bruteForce(vectors, segments, k));
          for (let i = 0; i < n; i++) {
            for (let p = m.rowPtr[i] + 1; p < m.rowPtr[i + 1]; p++) {
              expect(m.col[p]).toBeGreaterThan(m.col[p - 1]);
            }
          }
        },
      ),
      { numRuns: 20 },
    );
  });

  it('equals brute force on one larger document (N = 1000, dim 16, k = 16)', () => {
    const vectors = syntheticVectors(1000, 16, 11);
    expect(rowsOf(semanticNeighbours(vectors, [0, 1000], 16))).toEqual(
      bruteForce(vectors, [0, 1000], 16),
    );
  });
});
