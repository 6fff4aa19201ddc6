import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadGloveFromDisk, sharedDatasetPath } from '../../../test/glove';
import { embedTexts } from '../embed/static';
import { prng } from '../prng';
import type { CsrMatrix, VectorSet } from '../types';
import { normalizeRows } from '../vectors';
import { invertedFileLists } from './inverted-lists';
import { semanticNeighbours } from './semantic';

/** Random directions with some exact copies (ties) and zero rows; they stand for no meaning. */
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

const rowOf = (m: CsrMatrix, i: number) => ({
  col: Array.from(m.col.subarray(m.rowPtr[i], m.rowPtr[i + 1])),
  weight: Array.from(m.weight.subarray(m.rowPtr[i], m.rowPtr[i + 1])),
});

/** Share of the exact rows' entries that the approximate rows hold (recall@k). */
function recall(exact: CsrMatrix, approx: CsrMatrix): number {
  let hit = 0;
  let total = 0;
  for (let i = 0; i < exact.size; i++) {
    const got = new Set(rowOf(approx, i).col);
    for (const j of rowOf(exact, i).col) {
      total++;
      if (got.has(j)) hit++;
    }
  }
  return total === 0 ? 1 : hit / total;
}

const gutenberg = sharedDatasetPath('gutenberg', 'pg1342.txt');

describe('invertedFileLists', () => {
  it('puts every fragment in exactly one list, and each probes its own list first', () => {
    const v = syntheticVectors(700, 12, 5);
    const lists = invertedFileLists(v.data, v.dim, 0, v.count, { lists: 9, probes: 3 });
    expect(lists.listStart[9]).toBe(700);
    expect([...lists.order].sort((a, b) => a - b)).toEqual(
      Array.from({ length: 700 }, (_, i) => i),
    );
    // Every fragment probes 3 distinct lists, its own among them.
    const probed = new Map<number, number[]>();
    for (let c = 0; c < 9; c++) {
      for (let p = lists.proberStart[c]; p < lists.proberStart[c + 1]; p++) {
        const i = lists.prober[p];
        probed.set(i, [...(probed.get(i) ?? []), c]);
      }
    }
    for (let c = 0; c < 9; c++) {
      for (let p = lists.listStart[c]; p < lists.listStart[c + 1]; p++) {
        const mine = probed.get(lists.order[p]) ?? [];
        expect(new Set(mine).size).toBe(3);
        expect(mine).toContain(c);
      }
    }
  });

  it('caps list sizes with maxListShare: every fragment still in one list and probing its own', () => {
    const v = syntheticVectors(2000, 12, 9);
    const free = invertedFileLists(v.data, v.dim, 0, v.count, { lists: 20, probes: 6 });
    const capped = invertedFileLists(v.data, v.dim, 0, v.count, {
      lists: 20,
      probes: 6,
      maxListShare: 1.2,
    });
    const sizes = (l: typeof free) =>
      Array.from({ length: 20 }, (_, c) => l.listStart[c + 1] - l.listStart[c]);
    // Unequal without the cap; with it, no list above 1.2 x the mean of 100 unless a fragment's
    // six probed lists were all full (none here).
    expect(Math.max(...sizes(free))).toBeGreaterThan(120);
    expect(Math.max(...sizes(capped))).toBeLessThanOrEqual(120);
    expect([...capped.order].sort((a, b) => a - b)).toEqual(
      Array.from({ length: 2000 }, (_, i) => i),
    );
    // The probes are the same sets (only which one is "own" changed), and own is among them.
    expect(capped.prober).toEqual(free.prober);
    for (let c = 0; c < 20; c++) {
      const probers = new Set(
        capped.prober.subarray(capped.proberStart[c], capped.proberStart[c + 1]),
      );
      for (let p = capped.listStart[c]; p < capped.listStart[c + 1]; p++) {
        expect(probers.has(capped.order[p])).toBe(true);
      }
    }
  });

  it('is deterministic for a seed', () => {
    const v = syntheticVectors(500, 8, 2);
    const a = invertedFileLists(v.data, v.dim, 0, v.count, { lists: 7, seed: 3 });
    const b = invertedFileLists(v.data, v.dim, 0, v.count, { lists: 7, seed: 3 });
    expect(a.order).toEqual(b.order);
    expect(a.prober).toEqual(b.prober);
  });
});

describe('semanticNeighbours by inverted file (approximate Eq. 6)', () => {
  it.each(['simd', 'simd-f32', 'js'] as const)(
    'equals the exact search when every fragment probes every list (ties, zero rows, two documents; %s kernel)',
    (kernel) => {
      const v = syntheticVectors(900, 10, 11);
      const segments = [0, 350, 900];
      const exact = semanticNeighbours(v, segments, 7, { method: 'exact' });
      const full = semanticNeighbours(v, segments, 7, {
        method: 'inverted-file',
        kernel,
        invertedFile: { lists: 6, probes: 6 },
        refine: { rounds: 0, sample: 4, stopShare: 0 },
      });
      expect(full.rowPtr).toEqual(exact.rowPtr);
      expect(full.col).toEqual(exact.col);
      expect(full.weight).toEqual(exact.weight);
    },
  );

  it('the wasm SIMD blocks (i16 and f32 filters) give exactly the JS blocks on the same lists (odd and even dims, narrow probes)', () => {
    for (const dim of [16, 37]) {
      const v = syntheticVectors(2500, dim, dim);
      const segments = [0, 1000, 2500];
      // The same lists for both (the JS clustering), so only the block kernel differs.
      const invertedFile = { lists: 14, probes: 3, kernel: 'js' as const };
      const js = semanticNeighbours(v, segments, 12, {
        method: 'inverted-file',
        kernel: 'js',
        invertedFile,
      });
      const simd = semanticNeighbours(v, segments, 12, {
        method: 'inverted-file',
        kernel: 'simd',
        invertedFile,
      });
      expect(simd.rowPtr).toEqual(js.rowPtr);
      expect(simd.col).toEqual(js.col);
      expect(simd.weight).toEqual(js.weight);
      const f32 = semanticNeighbours(v, segments, 12, {
        method: 'inverted-file',
        kernel: 'simd-f32',
        invertedFile,
      });
      expect(f32.col).toEqual(js.col);
      expect(f32.weight).toEqual(js.weight);
    }
  });

  it('keeps only true cosines of the same document, at most k per row, columns ascending', () => {
    const v = syntheticVectors(1200, 16, 4);
    const segments = [0, 500, 1200];
    const k = 9;
    const approx = semanticNeighbours(v, segments, k, {
      method: 'inverted-file',
      invertedFile: { lists: 12, probes: 3 },
    });
    for (let i = 0; i < v.count; i++) {
      const { col, weight } = rowOf(approx, i);
      expect(col.length).toBeLessThanOrEqual(k);
      col.forEach((j, e) => {
        expect(j).not.toBe(i);
        expect(j < 500).toBe(i < 500);
        if (e > 0) expect(j).toBeGreaterThan(col[e - 1]);
        let dot = 0;
        for (let d = 0; d < v.dim; d++) dot += v.data[i * v.dim + d] * v.data[j * v.dim + d];
        expect(weight[e]).toBe(Math.fround(dot));
        expect(weight[e]).toBeGreaterThan(0);
      });
    }
  });

  it('stops when the progress callback throws', () => {
    const v = syntheticVectors(800, 8, 1);
    let calls = 0;
    expect(() =>
      semanticNeighbours(v, [0, 800], 8, {
        method: 'inverted-file',
        invertedFile: { lists: 8 },
        onProgress: () => {
          if (++calls === 2) throw new DOMException('cancelled', 'AbortError');
        },
      }),
    ).toThrow('cancelled');
    expect(calls).toBe(2);
  });

  it('reports progress inside the clustering too (every 1,024 fragments), so a cancel is seen there', () => {
    const v = syntheticVectors(5000, 8, 6);
    const reports: number[] = [];
    semanticNeighbours(v, [0, 5000], 4, {
      method: 'inverted-file',
      invertedFile: { lists: 10, iterations: 2 },
      onProgress: (done) => reports.push(done),
    });
    // Two k-means rounds over a 400-row sample, then the assignment of 5,000 rows: at least four
    // reports before the first block, all at 0 rows related.
    const beforeBlocks = reports.findIndex((r) => r > 0);
    expect(beforeBlocks).toBeGreaterThanOrEqual(4);
    expect(reports.every((r, i) => i === 0 || r >= reports[i - 1])).toBe(true);
    expect(reports[reports.length - 1]).toBe(5000);
  });

  it('reaches recall@16 >= 0.95 on real GloVe fragment vectors (Pride and Prejudice, 3,000 fragments of 15 words)', () => {
    const words = readFileSync(gutenberg, 'utf8').split(/\s+/).filter(Boolean);
    const texts: string[] = [];
    for (let i = 0; i + 15 <= words.length && texts.length < 3000; i += 15) {
      texts.push(words.slice(i, i + 15).join(' '));
    }
    const v = embedTexts(loadGloveFromDisk(), texts);
    const exact = semanticNeighbours(v, [0, v.count], 16, { method: 'exact' });
    const approx = semanticNeighbours(v, [0, v.count], 16, { method: 'inverted-file' });
    const r = recall(exact, approx);
    expect(r).toBeGreaterThanOrEqual(0.95);
    // And it is an approximation: with two probes it misses neighbours.
    const narrow = semanticNeighbours(v, [0, v.count], 16, {
      method: 'inverted-file',
      invertedFile: { probes: 2 },
      refine: { rounds: 0, sample: 8, stopShare: 0 },
    });
    expect(recall(exact, narrow)).toBeLessThan(r);
    // Neighbour-of-neighbour rounds (NN-descent) recover part of what two probes missed (with
    // one probe they could not: every row then points inside its own, fully compared, list).
    const refined = semanticNeighbours(v, [0, v.count], 16, {
      method: 'inverted-file',
      invertedFile: { probes: 2 },
      refine: { rounds: 2, sample: 8, stopShare: 0 },
    });
    expect(recall(exact, refined)).toBeGreaterThan(recall(exact, narrow) + 0.05);
  });
});
