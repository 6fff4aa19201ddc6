import { describe, expect, it } from 'vitest';
import type { MtBenchRow } from '../mtbench';
import { chatIntervals } from './chat';

type Hit = { any: number; eachTopic: number; all: number };
const row = (method: 'plain' | 'fragrel', hits: [string, Hit][]): MtBenchRow =>
  ({
    set: 'retrieved8',
    scoring: 'dense',
    embedder: 'GloVe',
    method,
    byType: {} as MtBenchRow['byType'],
    meanBestGoldRank: null,
    perDialog: hits.map(([id, h]) => ({ id, included: [], hits: h, bestGoldRank: null })),
  }) as MtBenchRow;
const h = (all: number): Hit => ({ any: 1, eachTopic: 1, all });

describe('chat default against plain (MTBench+)', () => {
  it('pairs dialogs by id, whatever their order, and reports the mean change', () => {
    const plain = row('plain', [
      ['a', h(0)],
      ['b', h(1)],
      ['c', h(0)],
      ['d', h(1)],
    ]);
    // Same dialogs in another order: a and c gain, b and d keep.
    const fragrel = row('fragrel', [
      ['d', h(1)],
      ['c', h(1)],
      ['b', h(1)],
      ['a', h(1)],
    ]);
    const cells = chatIntervals([plain, fragrel]);
    const all = cells.find((c) => c.metric === 'all')!;
    expect(all).toMatchObject({ dialogs: 4, plain: 0.5, fragrel: 1 });
    expect(all.delta.mean).toBeCloseTo(0.5, 12);
    expect(all.delta.better).toBe(2);
    expect(all.delta.worse).toBe(0);
    expect(all.delta.ci95[0]).toBeGreaterThanOrEqual(0);
    expect(cells.find((c) => c.metric === 'any')!.delta.mean).toBe(0);
  });

  it('refuses a dialog missing from the plain row', () => {
    const plain = row('plain', [['a', h(0)]]);
    const fragrel = row('fragrel', [['z', h(1)]]);
    expect(() => chatIntervals([plain, fragrel])).toThrow(/dialog z missing/);
  });
});
