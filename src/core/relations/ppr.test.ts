/**
 * The multi-hop relation's faster graph build, walk and incoming edges against the first
 * implementation (ppr-reference.ts): the same bits on random graphs with context edges, several
 * sparse relations, repeated columns, self-loops, zero weights and empty rows.
 */
import { describe, expect, it } from 'vitest';
import { prng } from '../prng';
import type { CsrMatrix } from '../types';
import { defaultPprOptions, pprGraph, pprRelation } from './ppr';
import { pprGraphReference, pprReference } from './ppr-reference';

function randomCsr(size: number, perRow: number, rnd: () => number): CsrMatrix {
  const rowPtr = new Uint32Array(size + 1);
  const col: number[] = [];
  const weight: number[] = [];
  for (let i = 0; i < size; i++) {
    const n = Math.floor(rnd() * (perRow + 1));
    const cols = new Set<number>();
    for (let t = 0; t < n; t++) cols.add(Math.floor(rnd() * size));
    for (const j of [...cols].sort((a, b) => a - b)) {
      col.push(j);
      // Some zero weights, some self-loops (j === i): both are left out of the graph.
      weight.push(rnd() < 0.1 ? 0 : rnd());
    }
    rowPtr[i + 1] = col.length;
  }
  return { size, rowPtr, col: Uint32Array.from(col), weight: Float32Array.from(weight) };
}

function expectSameCsr(a: CsrMatrix, b: CsrMatrix) {
  expect(a.size).toBe(b.size);
  expect([...a.rowPtr]).toEqual([...b.rowPtr]);
  expect([...a.col]).toEqual([...b.col]);
  expect([...a.weight]).toEqual([...b.weight]);
}

describe('pprGraph', () => {
  it('equals the Map-per-row build bit for bit', () => {
    const rnd = prng(16);
    for (let trial = 0; trial < 40; trial++) {
      const docs = 1 + Math.floor(rnd() * 4);
      const segments = [0];
      for (let d = 0; d < docs; d++) segments.push(segments[d] + Math.floor(rnd() * 30));
      const size = segments[docs];
      const sparse = Array.from({ length: Math.floor(rnd() * 3) }, () => randomCsr(size, 8, rnd));
      const options = {
        radius: [0, 1, 2, 3, 1.5][trial % 5],
        wRel: [0, 0.3, 0.8][trial % 3],
        ...(trial % 4 === 0 ? { contextIn: segments.slice(1).map(() => rnd() < 0.5) } : {}),
      };
      expectSameCsr(
        pprGraph(segments, sparse, options),
        pprGraphReference(segments, sparse, options),
      );
    }
  });

  it('refuses a relation over another number of fragments', () => {
    expect(() => pprGraph([0, 4], [randomCsr(5, 2, prng(1))], { radius: 1, wRel: 0.3 })).toThrow(
      /5 fragments in a graph of 4/,
    );
  });
});

describe('pprRelation against the first implementation', () => {
  it('gives the same environment scores and contributions, and reuses its walk by value', () => {
    const rnd = prng(7);
    for (let trial = 0; trial < 12; trial++) {
      const size = 20 + Math.floor(rnd() * 80);
      const graph = pprGraph([0, size], [randomCsr(size, 12, rnd)], {
        radius: trial % 3,
        wRel: 0.3,
      });
      const options = { ...defaultPprOptions, seeds: 1 + (trial % 6) };
      const relation = pprRelation(graph, options);
      for (let q = 0; q < 3; q++) {
        // Ties and zeros among the scores, as BM25 gives.
        const independent = Float64Array.from({ length: size }, () =>
          rnd() < 0.4 ? 0 : Math.round(rnd() * 8) / 8,
        );
        const reference = pprReference(graph, independent, options);
        expect([...relation.environmentScores(independent)]).toEqual([...reference.environment]);
        for (let i = 0; i < size; i++) {
          expect(relation.contributions(i, independent, 5)).toEqual(reference.contributions(i, 5));
        }
        // The same scores in another array, and new scores in the same array: never stale.
        expect([...relation.environmentScores(independent.slice())]).toEqual([
          ...reference.environment,
        ]);
        const refilled = independent;
        refilled.reverse();
        expect([...relation.environmentScores(refilled)]).toEqual([
          ...pprReference(graph, refilled, options).environment,
        ]);
      }
    }
  });
});
