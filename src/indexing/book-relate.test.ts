import { describe, expect, it, vi } from 'vitest';
import { nodeSemanticPool } from '../../test/pool-node';
import { prng } from '../core/prng';
import { EXACT_MAX_FRAGMENTS, semanticNeighbours } from '../core/relations/semantic';
import { semanticWork, type SemanticPool } from '../core/relations/semantic-parallel';
import { normalizeRows } from '../core/vectors';
import type { IndexContext } from './types';
import { createIndexHandlers } from './handlers';
import type { IndexDependencies } from './types';

const n = EXACT_MAX_FRAGMENTS + 500;

function vectors() {
  const random = prng(31);
  const dim = 16;
  const data = new Float32Array(n * dim);
  for (let e = 0; e < data.length; e++) data[e] = random() * 2 - 1;
  return normalizeRows({ dim, count: n, data });
}

const deps = (semanticPool: () => SemanticPool | null): IndexDependencies => ({
  ingest: () => Promise.reject(new Error('not used')),
  loadEmbedder: () => Promise.reject(new Error('not used')),
  semanticPool,
});

const context = (signal = new AbortController().signal): IndexContext => ({
  signal,
  progress: () => {},
  transfer: () => {},
});

describe('the index worker relates a large document on the semantic pool', () => {
  const v = vectors();
  const single = semanticNeighbours(v, [0, n], 16);

  it('uses the pool above the exact limit, with the same relation as one thread', async () => {
    let runs = 0;
    const pool: SemanticPool = {
      size: 2,
      run: async (task) => {
        runs++;
        return semanticWork(structuredClone(task));
      },
    };
    const handlers = createIndexHandlers(deps(() => pool));
    const { semantic } = await handlers.relate({ vectors: v, semanticK: 16 }, context());
    expect(runs).toBe(18);
    expect(Array.from(semantic.col)).toEqual(Array.from(single.col));
    expect(Array.from(semantic.weight)).toEqual(Array.from(single.weight));
  });

  it('runs on real worker threads (the pool the bench uses), with the same relation', async () => {
    const pool = nodeSemanticPool(2);
    try {
      const handlers = createIndexHandlers(deps(() => pool));
      const { semantic } = await handlers.relate({ vectors: v, semanticK: 16 }, context());
      expect(Buffer.from(semantic.col.buffer).equals(Buffer.from(single.col.buffer))).toBe(true);
      expect(Buffer.from(semantic.weight.buffer).equals(Buffer.from(single.weight.buffer))).toBe(
        true,
      );
    } finally {
      pool.close();
    }
  });

  it('falls back to one thread when the workers fail', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const pool: SemanticPool = { size: 2, run: () => Promise.reject(new Error('no workers')) };
    const handlers = createIndexHandlers(deps(() => pool));
    const { semantic } = await handlers.relate({ vectors: v, semanticK: 16 }, context());
    expect(warn).toHaveBeenCalled();
    warn.mockRestore();
    expect(Array.from(semantic.col)).toEqual(Array.from(single.col));
  });

  it('passes a cancel on to the workers and rejects with an AbortError', async () => {
    const controller = new AbortController();
    const stopped: unknown[] = [];
    const pool: SemanticPool = {
      size: 2,
      run: (_task, { signal }) =>
        new Promise((_resolve, reject) => {
          signal?.addEventListener('abort', () => {
            stopped.push(signal.reason);
            reject(signal.reason);
          });
          setTimeout(() => controller.abort(), 5);
        }),
    };
    const handlers = createIndexHandlers(deps(() => pool));
    await expect(
      handlers.relate({ vectors: v, semanticK: 16 }, context(controller.signal)),
    ).rejects.toMatchObject({ name: 'AbortError' });
    expect(stopped).toHaveLength(2);
  });
});
