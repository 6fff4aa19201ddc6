import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadGloveFromDisk, sharedDatasetPath } from '../../../test/glove';
import { embedTexts } from '../embed/static';
import { prng } from '../prng';
import type { CsrMatrix, VectorSet } from '../types';
import { normalizeRows } from '../vectors';
import { invertedFileLists } from './inverted-lists';
import { semanticNeighbours, type SemanticBuildOptions } from './semantic';
import {
  partitionClusters,
  semanticNeighboursParallel,
  semanticWork,
  type PreparedRows,
  type SemanticPool,
} from './semantic-parallel';

/** Random directions with exact copies (ties) and zero rows, in a few loose clusters. */
function syntheticVectors(count: number, dim: number, seed: number): VectorSet {
  const random = prng(seed);
  const centres = Array.from({ length: 12 }, () =>
    Float32Array.from({ length: dim }, () => random() * 2 - 1),
  );
  const data = new Float32Array(count * dim);
  for (let i = 0; i < count; i++) {
    const kind = random();
    if (kind < 0.04) continue;
    if (kind < 0.12 && i > 0) {
      const from = Math.floor(random() * i);
      data.copyWithin(i * dim, from * dim, (from + 1) * dim);
      continue;
    }
    const c = centres[Math.floor(random() * centres.length)];
    for (let d = 0; d < dim; d++) data[i * dim + d] = c[d] + (random() * 2 - 1) * 0.9;
  }
  return normalizeRows({ dim, count, data });
}

/**
 * The pool's contract on this thread: each task runs `semanticWork` on a structured clone of
 * its task (as a worker would receive it).
 */
function inProcessPool(size: number, prepared?: PreparedRows): SemanticPool & { runs: number } {
  const pool = {
    size,
    runs: 0,
    async run(task: Parameters<SemanticPool['run']>[0]) {
      pool.runs++;
      await Promise.resolve();
      return semanticWork(structuredClone(task), undefined, prepared);
    },
  };
  return pool;
}

function expectIdentical(a: CsrMatrix, b: CsrMatrix) {
  expect(b.size).toBe(a.size);
  expect(Buffer.from(b.rowPtr.buffer).equals(Buffer.from(a.rowPtr.buffer))).toBe(true);
  expect(Buffer.from(b.col.buffer).equals(Buffer.from(a.col.buffer))).toBe(true);
  // Bit for bit (Buffer compares bytes, so -0 and NaN could not hide either).
  expect(Buffer.from(b.weight.buffer).equals(Buffer.from(a.weight.buffer))).toBe(true);
}

const gutenberg = sharedDatasetPath('gutenberg', 'pg1342.txt');

describe('semanticNeighboursParallel', () => {
  it('splits the second pass into shares that hold every cluster once', () => {
    const v = syntheticVectors(3000, 24, 5);
    const lists = invertedFileLists(v.data, v.dim, 0, v.count, { lists: 40, probes: 6 });
    for (const shares of [1, 2, 3, 7]) {
      const parts = partitionClusters(lists, shares);
      expect(parts).toHaveLength(shares);
      const all = parts.flatMap((p) => Array.from(p)).sort((a, b) => a - b);
      expect(all).toEqual(Array.from({ length: 40 }, (_, c) => c));
      for (const p of parts) expect(Array.from(p)).toEqual([...p].sort((a, b) => a - b));
    }
  });

  it('equals the single-thread build bit for bit on random vectors (ties, zero rows, several documents, both filters, 1-4 shares)', async () => {
    const v = syntheticVectors(4200, 37, 11);
    // Three documents of different sizes and an empty one (no share: nothing to relate).
    const segments = [0, 700, 700, 3900, 4200];
    const cases: SemanticBuildOptions[] = [
      { method: 'inverted-file', invertedFile: { lists: 50, probes: 5 } },
      { method: 'inverted-file', kernel: 'simd-f32', invertedFile: { lists: 30, probes: 3 } },
      { method: 'inverted-file', invertedFile: { lists: 64, probes: 12, maxListShare: 1 } },
    ];
    for (const options of cases) {
      const single = semanticNeighbours(v, segments, 16, options);
      for (const size of [1, 2, 4]) {
        const pool = inProcessPool(size);
        const parallel = await semanticNeighboursParallel(v, segments, 16, { ...options, pool });
        // Six k-means rounds, the assignment and two passes, each in `size` tasks, for each
        // document with rows.
        expect(pool.runs).toBe(27 * size);
        expectIdentical(single, parallel);
      }
    }
    // k other than 16, a one-row document, and ranges of rows that start at odd rows (4199 / 3).
    const single = semanticNeighbours(v, [0, 1, 4200], 5, { method: 'inverted-file' });
    const parallel = await semanticNeighboursParallel(v, [0, 1, 4200], 5, {
      method: 'inverted-file',
      pool: inProcessPool(3),
    });
    expectIdentical(single, parallel);
  });

  it('keeps the rows in the worker from one pass to the next (and across documents) with the same result', async () => {
    const v = syntheticVectors(3000, 20, 17);
    const segments = [0, 1800, 3000];
    const options: SemanticBuildOptions = { method: 'inverted-file' };
    const single = semanticNeighbours(v, segments, 16, options);
    for (const size of [1, 2]) {
      const prepared: PreparedRows = { session: -1, run: null };
      const pool = inProcessPool(size, prepared);
      expectIdentical(
        single,
        await semanticNeighboursParallel(v, segments, 16, { ...options, pool }),
      );
      // Released after the second pass.
      expect(prepared.run).toBeNull();
    }
  });

  it('with every list probed still equals the exact search', async () => {
    const v = syntheticVectors(1500, 16, 3);
    const exact = semanticNeighbours(v, [0, 1500], 16, { method: 'exact' });
    const parallel = await semanticNeighboursParallel(v, [0, 1500], 16, {
      method: 'inverted-file',
      invertedFile: { lists: 20, probes: 20 },
      pool: inProcessPool(2),
    });
    expectIdentical(exact, parallel);
  });

  it('falls back to one thread without a pool, for the exact search and for NN-descent rounds', async () => {
    const v = syntheticVectors(2000, 16, 9);
    const pool = inProcessPool(2);
    await semanticNeighboursParallel(v, [0, 2000], 16, { pool });
    await semanticNeighboursParallel(v, [0, 2000], 16, {
      method: 'inverted-file',
      refine: { rounds: 1, sample: 8, stopShare: 0 },
      pool,
    });
    await semanticNeighboursParallel(v, [0, 2000], 16, {
      method: 'inverted-file',
      kernel: 'js',
      pool,
    });
    expect(pool.runs).toBe(0);
    expectIdentical(
      semanticNeighbours(v, [0, 2000], 16, { method: 'inverted-file' }),
      await semanticNeighboursParallel(v, [0, 2000], 16, { method: 'inverted-file' }),
    );
  });

  it('rejects when a share fails, when a progress report throws, or when cancelled', async () => {
    const v = syntheticVectors(2000, 16, 13);
    const failing: SemanticPool = {
      size: 2,
      run: () => Promise.reject(new Error('worker lost')),
    };
    await expect(
      semanticNeighboursParallel(v, [0, 2000], 16, { method: 'inverted-file', pool: failing }),
    ).rejects.toThrow('worker lost');

    const controller = new AbortController();
    controller.abort();
    await expect(
      semanticNeighboursParallel(v, [0, 2000], 16, {
        method: 'inverted-file',
        pool: inProcessPool(2),
        signal: controller.signal,
      }),
    ).rejects.toMatchObject({ name: 'AbortError' });

    // A cancel while the shares run reaches each share's signal.
    const seen: boolean[] = [];
    const later = new AbortController();
    const hanging: SemanticPool = {
      size: 2,
      run: (_task, { signal }) =>
        new Promise((_resolve, reject) => {
          signal?.addEventListener('abort', () => {
            seen.push(true);
            reject(signal.reason);
          });
          setTimeout(() => later.abort(), 10);
        }),
    };
    await expect(
      semanticNeighboursParallel(v, [0, 2000], 16, {
        method: 'inverted-file',
        pool: hanging,
        signal: later.signal,
      }),
    ).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen).toEqual([true, true]);
  });

  it('equals the single-thread build bit for bit on real GloVe fragment vectors (Pride and Prejudice, 3,000 fragments)', async () => {
    const words = readFileSync(gutenberg, 'utf8').split(/\s+/).filter(Boolean);
    const texts: string[] = [];
    for (let i = 0; i + 15 <= words.length && texts.length < 3000; i += 15) {
      texts.push(words.slice(i, i + 15).join(' '));
    }
    const v = embedTexts(loadGloveFromDisk(), texts);
    for (const options of [
      { method: 'inverted-file' },
      { method: 'inverted-file', invertedFile: { probes: 4 } },
    ] satisfies SemanticBuildOptions[]) {
      const single = semanticNeighbours(v, [0, v.count], 16, options);
      const parallel = await semanticNeighboursParallel(v, [0, v.count], 16, {
        ...options,
        pool: inProcessPool(2),
      });
      expectIdentical(single, parallel);
    }
  });
});
