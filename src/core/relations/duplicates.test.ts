import { describe, expect, it } from 'vitest';
import { prng } from '../prng';
import type { VectorSet } from '../types';
import { dot, normalizeRows } from '../vectors';
import { distinctRows } from './duplicates';
import { semanticNeighbours, type SemanticBuildOptions, type SemanticWork } from './semantic';
import { toSegments } from './segments';
import { bruteForceKnn, csrRows } from './knn-testing';

/** `count` copies of one random unit vector (a repository of one-line files of one shape). */
function identical(count: number, dim: number): VectorSet {
  const random = prng(3);
  const row = Float32Array.from({ length: dim }, () => random() * 2 - 1);
  const data = new Float32Array(count * dim);
  for (let i = 0; i < count; i++) data.set(row, i * dim);
  return normalizeRows({ dim, count, data });
}

/** Rows drawn from a few vectors (many copies each), some distinct rows and some zero rows. */
function mostlyCopies(count: number, dim: number, seed: number): VectorSet {
  const random = prng(seed);
  const pool = Array.from({ length: 12 }, () =>
    Float32Array.from({ length: dim }, () => random() * 2 - 1),
  );
  const data = new Float32Array(count * dim);
  for (let i = 0; i < count; i++) {
    const kind = random();
    if (kind < 0.03) continue;
    if (kind < 0.25) {
      for (let d = 0; d < dim; d++) data[i * dim + d] = random() * 2 - 1;
    } else {
      data.set(pool[Math.floor(random() * pool.length)], i * dim);
    }
  }
  return normalizeRows({ dim, count, data });
}

const rowsOf = csrRows;
const bruteForce = bruteForceKnn;

const work = (v: VectorSet, options: SemanticBuildOptions): SemanticWork => {
  const counted = { products: 0, offers: 0 };
  semanticNeighbours(v, [0, v.count], 16, { ...options, work: counted });
  return counted;
};

describe('identical vectors in the semantic relation', () => {
  it('groups identical rows per document, and finds none among distinct rows', () => {
    const v = mostlyCopies(400, 8, 2);
    const groups = distinctRows(v, toSegments([0, 200, 400]));
    expect(groups).not.toBeNull();
    // A vector present in both documents is a group in each (relations stay in a document).
    for (let i = 0; i < 400; i++) {
      const r = groups!.repRow[groups!.groupOf[i]];
      expect(r).toBeLessThanOrEqual(i);
      expect(r < 200).toBe(i < 200);
      expect(Array.from(v.data.subarray(r * 8, r * 8 + 8))).toEqual(
        Array.from(v.data.subarray(i * 8, i * 8 + 8)),
      );
    }
    const random = prng(9);
    const distinct = normalizeRows({
      dim: 8,
      count: 300,
      data: Float32Array.from({ length: 2400 }, () => random() - 0.5),
    });
    expect(distinctRows(distinct, toSegments([0, 300]))).toBeNull();
  });

  it('keeps the work on 10,000 identical vectors near linear, with every row its k lowest copies', () => {
    for (const method of ['auto', 'exact', 'inverted-file'] as const) {
      const half = work(identical(5_000, 32), { method });
      const full = work(identical(10_000, 32), { method });
      const total = (w: SemanticWork) => w.products + w.offers;
      // Each row is offered its k = 16 lowest copies and nothing else: 16 n, where all pairs
      // would be n^2 / 2 = 50 million products.
      expect(total(full)).toBeLessThanOrEqual(17 * 10_000);
      expect(total(full) / total(half)).toBeLessThan(2.2);
    }
    const v = identical(10_000, 32);
    const m = semanticNeighbours(v, [0, 10_000], 16, { method: 'inverted-file' });
    const self = Math.fround(dot(v.data, 0, v.data, 0, 32));
    for (const i of [0, 1, 15, 16, 9_999]) {
      const row = rowsOf(m)[i];
      const expected = Array.from({ length: 17 }, (_, j) => j)
        .filter((j) => j !== i)
        .slice(0, 16);
      expect([...row.keys()]).toEqual(expected);
      for (const w of row.values()) expect(w).toBe(self);
    }
  });

  it('equals brute force where most rows are copies (zero rows and several documents, exact)', () => {
    for (const [k, seed] of [
      [16, 1],
      [3, 2],
      [40, 3],
    ]) {
      const v = mostlyCopies(1_200, 12, seed);
      const segments = [0, 500, 510, 1_200];
      expect(rowsOf(semanticNeighbours(v, segments, k))).toEqual(bruteForce(v, segments, k));
    }
  });

  it('keeps recall where most rows are copies under the inverted file', () => {
    const v = mostlyCopies(4_000, 12, 4);
    const exact = rowsOf(semanticNeighbours(v, [0, 4_000], 16, { method: 'exact' }));
    const approx = rowsOf(
      semanticNeighbours(v, [0, 4_000], 16, {
        method: 'inverted-file',
        invertedFile: { lists: 20, probes: 4 },
      }),
    );
    let found = 0;
    let total = 0;
    exact.forEach((row, i) => {
      for (const j of row.keys()) {
        total++;
        if (approx[i].has(j)) found++;
      }
    });
    expect(found / total).toBeGreaterThan(0.9);
  });
});
