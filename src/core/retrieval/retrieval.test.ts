import { describe, expect, it } from 'vitest';
import { fragRelScores } from '../fragrel';
import { pprGraph, pprRelation } from '../relations/ppr';
import { adaptiveAlpha } from './adaptive-alpha';
import { selectWithNeighbours } from './expand';
import { queryTerms } from './query';
import { rrfScores } from './rrf';

describe('adaptiveAlpha', () => {
  it('lowers alpha when one fragment stands out and keeps it when the best tie', () => {
    const peak = adaptiveAlpha([0.1, 0.1, 0.2, 0.1, 0.9], 1);
    // d = (0.9 - 0.2) / (0.9 - 0.1) = 0.875
    expect(peak.decisiveness).toBeCloseTo(0.875, 12);
    expect(peak.alpha).toBeCloseTo(0.125, 12);
    expect(peak.reason).toMatch(/stands out/);
    const flat = adaptiveAlpha([0.1, 0.5, 0.5, 0.2, 0.3], 0.8);
    expect(flat.decisiveness).toBe(0);
    expect(flat.alpha).toBe(0.8);
    expect(flat.reason).toMatch(/score alike/);
  });

  it('means the same for scores shifted and scaled', () => {
    const s = [0.3, 0.1, 0.7, 0.65, 0.2, 0.4];
    const a = adaptiveAlpha(s, 1);
    const b = adaptiveAlpha(
      s.map((x) => 3 * x + 2),
      1,
    );
    expect(b.decisiveness).toBeCloseTo(a.decisiveness, 12);
  });
});

describe('rrfScores', () => {
  it('fuses ranks as 1 / (k + rank), rescaled by the best', () => {
    const fused = rrfScores(
      [
        [3, 2, 1],
        [1, 3, 2],
      ],
      60,
    );
    // fragment 0: 1/61 + 1/63; 1: 1/62 + 1/61; 2: 1/63 + 1/62
    const raw = [1 / 61 + 1 / 63, 1 / 62 + 1 / 61, 1 / 63 + 1 / 62];
    const max = Math.max(...raw);
    raw.forEach((r, i) => expect(fused[i]).toBeCloseTo(r / max, 12));
    expect(() => rrfScores([[1, 2], [1]])).toThrow(/same fragments/);
  });
});

describe('queryTerms', () => {
  it('drops function and question words, but never everything', () => {
    expect(queryTerms('Who is Pierre Bezukhov?')).toEqual(['pierre', 'bezukhov']);
    expect(queryTerms('What activation function do they use in their model?')).toEqual([
      'activation',
      'function',
      'use',
      'model',
    ]);
    expect(queryTerms('Who is it?')).toEqual(['who', 'is', 'it']);
  });
});

describe('selectWithNeighbours', () => {
  it('brings the neighbours of each taken fragment, within the budget and the document', () => {
    const scores = Float64Array.from([0.1, 0.2, 0.9, 0.1, 0.3, 0.8]);
    const costs = [10, 10, 10, 10, 10, 10];
    const sel = selectWithNeighbours(scores, costs, 40, 1, [0, 4, 6]);
    // 2 first, then 1 and 3; then 5 and its neighbour 4 does not fit (40 used).
    expect(Array.from(sel.ranked)).toEqual([2, 1, 3, 5]);
    expect(sel.used).toBe(40);
    const cross = selectWithNeighbours(scores, costs, 60, 1, [0, 3, 6]);
    // 2's neighbour 3 lies in the next document: not pulled in by 2.
    expect(Array.from(cross.ranked).slice(0, 2)).toEqual([2, 1]);
    expect(selectWithNeighbours(scores, costs, 30, 0).ranked).toEqual(Uint32Array.from([2, 5, 4]));
  });
});

describe('pprRelation', () => {
  it('lets evidence flow along a chain, two hops further than Eq. 9 reaches', () => {
    // A chain 0-1-2-3-4-5 of context edges only (radius 1); one seed at 0.
    const graph = pprGraph([0, 6], [], { radius: 1, wRel: 0.5 });
    const rel = pprRelation(graph, { seeds: 1, damping: 0.5, iterations: 50 });
    const s = Float64Array.from([1, 0, 0, 0, 0, 0]);
    const env = rel.environmentScores(s);
    expect(env[1]).toBeCloseTo(1, 12); // the largest arrival, scaled to max s_ind
    expect(env[2]).toBeGreaterThan(0);
    expect(env[3]).toBeGreaterThan(0);
    expect(env[2]).toBeGreaterThan(env[3]);
    expect(env[3]).toBeGreaterThan(env[4]);
  });

  it('explains each score by contributions that add up to it', () => {
    const graph = pprGraph([0, 5], [], { radius: 2, wRel: 0.3 });
    const rel = pprRelation(graph, { seeds: 2, iterations: 200 });
    const s = Float64Array.from([0.2, 0.9, 0.1, 0.7, 0.3]);
    const env = rel.environmentScores(s);
    for (let i = 0; i < 5; i++) {
      const c = rel.contributions(i, s, 10);
      const total = c.reduce((sum, x) => sum + x.amount, 0);
      expect(total).toBeCloseTo(env[i], 9);
      if (c.length) expect(c.reduce((sum, x) => sum + x.share, 0)).toBeCloseTo(1, 9);
    }
  });

  it('leaves plain retrieval exactly at alpha 0 and keeps rows stochastic', () => {
    const graph = pprGraph([0, 4, 7], [], { radius: 2, wRel: 0.3 });
    for (let i = 0; i < graph.size; i++) {
      let sum = 0;
      for (let p = graph.rowPtr[i]; p < graph.rowPtr[i + 1]; p++) sum += graph.weight[p];
      expect(sum).toBeCloseTo(1, 6);
    }
    // No edge crosses the document boundary between fragments 3 and 4.
    for (let p = graph.rowPtr[3]; p < graph.rowPtr[4]; p++) expect(graph.col[p]).toBeLessThan(4);
    const s = Float64Array.from([0.1, 0.5, 0.2, 0.9, 0.3, 0.4, 0.8]);
    const scores = fragRelScores(s, [pprRelation(graph)], { alpha: 0 });
    expect(Array.from(scores.final)).toEqual(Array.from(s));
  });
});
