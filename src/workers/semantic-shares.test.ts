import { describe, expect, it } from 'vitest';
import { nodeSemanticPool } from '../../test/pool-node';
import { prng } from '../core/prng';
import { semanticNeighbours } from '../core/relations/semantic';
import { semanticNeighboursParallel } from '../core/relations/semantic-parallel';
import { normalizeRows } from '../core/vectors';
import { WorkerPool } from './pool';
import { MAX_SHARE_WORKERS, semanticSharesOn, type ShareApi } from './semantic-shares';

function randomVectors(count: number, dim: number, seed: number) {
  const random = prng(seed);
  const data = new Float32Array(count * dim);
  for (let e = 0; e < data.length; e++) data[e] = random() * 2 - 1;
  return normalizeRows({ dim, count, data });
}

describe("the semantic relation's shares on the index worker's pool (worker threads)", () => {
  it('use the whole pool, up to the cap (each share holds the rows in its own memory)', () => {
    const members = () => ({ call: () => Promise.reject(new Error('not called')) });
    expect(semanticSharesOn(new WorkerPool<ShareApi>(members, 1)).size).toBe(1);
    expect(semanticSharesOn(new WorkerPool<ShareApi>(members, 2)).size).toBe(2);
    expect(semanticSharesOn(new WorkerPool<ShareApi>(members, 64)).size).toBe(MAX_SHARE_WORKERS);
  });

  it('builds the same relation as one thread, stops its workers on a cancel, and works again after', async () => {
    const v = randomVectors(6000, 24, 21);
    const options = { method: 'inverted-file', invertedFile: { lists: 60, probes: 8 } } as const;
    const single = semanticNeighbours(v, [0, v.count], 16, options);
    const pool = nodeSemanticPool(2);
    try {
      const parallel = await semanticNeighboursParallel(v, [0, v.count], 16, { ...options, pool });
      expect(Buffer.from(parallel.col.buffer).equals(Buffer.from(single.col.buffer))).toBe(true);
      expect(Buffer.from(parallel.weight.buffer).equals(Buffer.from(single.weight.buffer))).toBe(
        true,
      );
      expect(Buffer.from(parallel.rowPtr.buffer).equals(Buffer.from(single.rowPtr.buffer))).toBe(
        true,
      );

      // Cancelled as soon as the shares run: the promise rejects at once, not when they end.
      const controller = new AbortController();
      const big = randomVectors(40_000, 24, 22);
      const started = performance.now();
      const build = semanticNeighboursParallel(big, [0, big.count], 16, {
        method: 'inverted-file',
        pool,
        signal: controller.signal,
        onProgress: (done) => {
          if (done === 0) setTimeout(() => controller.abort(), 0);
        },
      });
      await expect(build).rejects.toMatchObject({ name: 'AbortError' });
      expect(performance.now() - started).toBeLessThan(20_000);

      const again = await semanticNeighboursParallel(v, [0, v.count], 16, { ...options, pool });
      expect(Buffer.from(again.col.buffer).equals(Buffer.from(single.col.buffer))).toBe(true);
    } finally {
      pool.close();
    }
  });
});
