import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  environmentScores,
  explain,
  fragRelScores,
  relationAwareScores,
  retrieve,
  selectByBudget,
} from './fragrel';
import { topK } from './heap';
import { contextRelation } from './relations/context';
import { csrRelation } from './relations/csr';
import type { Relation } from './types';
import { prng } from './prng';

/** A random sparse relation: up to 4 positive weights per row inside each document. */
function randomCsr(kind: string, segments: number[], random: () => number): Relation {
  const rowPtr = [0];
  const col: number[] = [];
  const weight: number[] = [];
  for (let s = 0; s + 1 < segments.length; s++) {
    const [a, b] = [segments[s], segments[s + 1]];
    for (let i = a; i < b; i++) {
      const picked = new Set<number>();
      for (let t = 0; t < 4 && b - a > 1; t++) {
        const j = a + Math.floor(random() * (b - a));
        if (j !== i) picked.add(j);
      }
      for (const j of [...picked].sort((x, y) => x - y)) {
        col.push(j);
        weight.push(random());
      }
      rowPtr.push(col.length);
    }
  }
  const size = segments[segments.length - 1];
  return csrRelation(kind, {
    size,
    rowPtr: Uint32Array.from(rowPtr),
    col: Uint32Array.from(col),
    weight: Float32Array.from(weight),
  });
}

describe('Eq. 10: relationAwareScores', () => {
  it('adds alpha times the environment score (hand-computed)', () => {
    // [0.2 + 0.5 * 0.6, 0.8 + 0.5 * 0.2, 0.4 + 0.5 * 0] = [0.5, 0.9, 0.4]
    const f = relationAwareScores(
      Float64Array.of(0.2, 0.8, 0.4),
      Float64Array.of(0.6, 0.2, 0),
      0.5,
    );
    expect(Array.from(f)).toEqual([expect.closeTo(0.5, 14), expect.closeTo(0.9, 14), 0.4]);
  });

  it('leaves s_ind bit for bit at alpha = 0, and refuses a bad alpha', () => {
    const s = Float64Array.of(0.1, 0.7, 1 / 3);
    expect(relationAwareScores(s, Float64Array.of(5, 6, 7), 0)).toEqual(s);
    expect(() => relationAwareScores(s, s, -1)).toThrow(/alpha/);
    expect(() => relationAwareScores(s, new Float64Array(2), 0.5)).toThrow(/environment/);
  });
});

describe('Eq. 9 combined over relation kinds', () => {
  // Context relation, wRel 0.5, over 3 fragments; s = [1, 0.2, 0.3]:
  //   env0 = (0.5 * 0.2 + 0.25 * 0.3) / 0.75 = 0.175 / 0.75 = 0.233333
  //   env1 = (0.5 * 1 + 0.5 * 0.3) / 1 = 0.65
  //   env2 = (0.25 * 1 + 0.5 * 0.2) / 0.75 = 0.35 / 0.75 = 0.466667
  // A sparse relation where each fragment's one neighbour is fragment 0 (0 has 1):
  //   semantic = [0.2, 1, 1]
  const s = Float64Array.of(1, 0.2, 0.3);
  const context = contextRelation([0, 3], 0.5);
  const semantic = csrRelation('semantic', {
    size: 3,
    rowPtr: Uint32Array.of(0, 1, 2, 3),
    col: Uint32Array.of(1, 0, 0),
    weight: Float32Array.of(0.9, 0.7, 0.4),
  });

  it('is the weighted mean of the kinds (weights default 1)', () => {
    const env = environmentScores([context, semantic], s);
    expect(env.byKind.context[1]).toBeCloseTo(0.65, 14);
    expect(env.byKind.semantic[0]).toBeCloseTo(0.2, 7);
    // Equal weights: [(0.233333 + 0.2) / 2, (0.65 + 1) / 2, (0.466667 + 1) / 2]
    expect(env.combined[0]).toBeCloseTo((0.175 / 0.75 + 0.2) / 2, 7);
    expect(env.combined[1]).toBeCloseTo(0.825, 7);
    expect(env.combined[2]).toBeCloseTo((0.35 / 0.75 + 1) / 2, 7);
    // Weights 1 and 3: (0.65 + 3 * 1) / 4 = 0.9125.
    const weighted = environmentScores([context, semantic], s, { semantic: 3 });
    expect(weighted.combined[1]).toBeCloseTo(0.9125, 7);
  });

  it('with one kind is exactly that kind, and weight 0 shows a kind without using it', () => {
    const one = environmentScores([context], s);
    expect(one.combined).toEqual(one.byKind.context);
    expect(one.combined).not.toBe(one.byKind.context);
    const off = environmentScores([context, semantic], s, { semantic: 0 });
    expect(off.combined).toEqual(off.byKind.context);
    expect(off.byKind.semantic[1]).toBeCloseTo(1, 7);
    expect(Array.from(environmentScores([], s).combined)).toEqual([0, 0, 0]);
  });

  it('treats a kind named like an Object member as any other kind', () => {
    const odd = csrRelation('constructor', {
      size: 3,
      rowPtr: Uint32Array.of(0, 1, 2, 3),
      col: Uint32Array.of(1, 0, 0),
      weight: Float32Array.of(1, 1, 1),
    });
    const env = environmentScores([odd], s);
    expect(Array.from(env.combined)).toEqual([0.2, 1, 1].map((x) => expect.closeTo(x, 7)));
  });

  it('refuses two relations of one kind and a negative weight', () => {
    expect(() => environmentScores([context, context], s)).toThrow(/two relations/);
    expect(() => environmentScores([context], s, { context: -1 })).toThrow(/weight/);
    expect(() => fragRelScores(new Float64Array(4), [context])).toThrow(/covers 3/);
  });
});

describe('Eq. 11: selectByBudget', () => {
  // final = [0.9, 0.8, 0.7, 0.6, 0.5], costs = [5, 6, 3, 2, 1], budget 10.
  const final = Float64Array.of(0.9, 0.8, 0.7, 0.6, 0.5);
  const costs = Uint32Array.of(5, 6, 3, 2, 1);

  it('skips a fragment that does not fit and tries the next ones', () => {
    // Take 0 (used 5); 1 would make 11 > 10: skip; take 2 (8); take 3 (10); 0 left < cheapest.
    const sel = selectByBudget(final, costs, 10);
    expect(Array.from(sel.ranked)).toEqual([0, 2, 3]);
    expect(Array.from(sel.indices)).toEqual([0, 2, 3]);
    expect(Array.from(sel.ranks!)).toEqual([0, 2, 3]);
    expect(sel.used).toBe(10);
    expect(sel.budget).toBe(10);
  });

  it("stops at the first misfit with overflow 'stop', and caps the count with maxSelected", () => {
    expect(Array.from(selectByBudget(final, costs, 10, { overflow: 'stop' }).ranked)).toEqual([0]);
    expect(Array.from(selectByBudget(final, costs, 10, { maxSelected: 2 }).ranked)).toEqual([0, 2]);
    expect(Array.from(selectByBudget(final, costs, 0).ranked)).toEqual([]);
    expect(Array.from(selectByBudget(final, costs, Infinity).ranked)).toEqual([0, 1, 2, 3, 4]);
  });

  it('returns document order and rank order, ties to the lower index', () => {
    const sel = selectByBudget(Float64Array.of(0.5, 0.9, 0.1, 0.5), new Float64Array(4).fill(1), 3);
    expect(Array.from(sel.ranked)).toEqual([1, 0, 3]);
    expect(Array.from(sel.indices)).toEqual([0, 1, 3]);
  });

  it('refuses bad costs and budgets', () => {
    expect(() => selectByBudget(final, [1, 2], 10)).toThrow(/costs/);
    expect(() => selectByBudget(final, [1, 2, -3, 4, 5], 10)).toThrow(/cost -3/);
    expect(() => selectByBudget(final, costs, NaN)).toThrow(/budget/);
    expect(() => selectByBudget(final, costs, 1, { budget: 1 } as never)).toThrow(/unknown/);
  });

  it('equals taking a fully sorted ranking greedily (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 9 })), {
          maxLength: 60,
        }),
        fc.integer({ min: 0, max: 80 }),
        fc.constantFrom<'skip' | 'stop'>('skip', 'stop'),
        (rows, budget, overflow) => {
          const final = Float64Array.from(rows, ([s]) => s / 6);
          const costs = Float64Array.from(rows, ([, c]) => c);
          const order = Array.from(final, (_, i) => i).sort((a, b) => final[b] - final[a] || a - b);
          const want: number[] = [];
          let used = 0;
          for (const i of order) {
            if (used + costs[i] <= budget) {
              want.push(i);
              used += costs[i];
            } else if (overflow === 'stop') break;
          }
          const sel = selectByBudget(final, costs, budget, { overflow });
          expect(Array.from(sel.ranked)).toEqual(want);
          expect(Array.from(sel.ranks!)).toEqual(want.map((i) => order.indexOf(i)));
          expect(sel.used).toBe(used);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('retrieve: the whole method', () => {
  // One document of 4 fragments, wRel 0.5, alpha 0.5, s_ind = [1, 0.25, 0.3, 0]:
  //   row 0: w 0.5, 0.25, 0.125 (0.875); sum w s = 0.125 + 0.075 = 0.2    -> env 0.228571
  //   row 1: w 0.5, 0.5, 0.25 (1.25);     sum w s = 0.5 + 0.15 = 0.65     -> env 0.52
  //   row 2: w 0.25, 0.5, 0.5 (1.25);     sum w s = 0.25 + 0.125 = 0.375  -> env 0.3
  //   row 3: w 0.125, 0.25, 0.5 (0.875);  sum w s = 0.125 + 0.0625 + 0.15 -> env 0.385714
  //   final = [1.114286, 0.51, 0.45, 0.192857]
  // Plain retrieval ranks 0, 2, 1, 3; FragRel ranks 0, 1, 2, 3: fragment 1, next to the best
  // one, overtakes fragment 2. With 2 fragments of cost 1: plain {0, 2}, FragRel {0, 1}.
  const s = Float64Array.of(1, 0.25, 0.3, 0);
  const context = contextRelation([0, 4], 0.5);
  const costs = Float64Array.of(1, 1, 1, 1);

  it('matches the hand computation and changes the selection', () => {
    const out = retrieve({ independent: s, relations: [context], costs }, { budget: 2 });
    const want = [1 + 0.5 * (0.2 / 0.875), 0.51, 0.45, 0.5 * (0.3375 / 0.875)];
    want.forEach((w, i) => expect(out.scores.final[i]).toBeCloseTo(w, 14));
    expect(Array.from(out.selection.ranked)).toEqual([0, 1]);
    expect(Array.from(selectByBudget(s, costs, 2).ranked)).toEqual([0, 2]);
  });

  it('explains each selected fragment: scores, rank and contributors with shares', () => {
    const out = retrieve({ independent: s, relations: [context], costs }, { budget: 2 });
    expect(out.explanations.map((e) => [e.index, e.rank])).toEqual([
      [0, 0],
      [1, 1],
    ]);
    const e = out.explanations[1];
    expect(e.independent).toBe(0.25);
    expect(e.environment).toBeCloseTo(0.52, 14);
    expect(e.final).toBeCloseTo(0.51, 14);
    // Row 1: fragment 0 gives 0.5 * 1 / 1.25 = 0.4 (share 0.4 / 0.52), fragment 2 gives
    // 0.5 * 0.3 / 1.25 = 0.12 (share 0.12 / 0.52); fragment 3 scores 0 and is left out.
    const c = e.byKind.context.contributions;
    expect(c.map((x) => x.index)).toEqual([0, 2]);
    expect(c[0].share).toBeCloseTo(0.4 / 0.52, 14);
    expect(c[1].share).toBeCloseTo(0.12 / 0.52, 14);
    expect(explain(3, 3, out.scores, [context], 1).byKind.context.contributions).toHaveLength(1);
  });

  it('alpha = 0 or wRel = 0 gives exactly the plain ranking and selection (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat(80), { minLength: 1, maxLength: 5 }),
        fc.nat(),
        fc.integer({ min: 0, max: 400 }),
        (sizes, seed, budget) => {
          const random = prng(seed);
          const segments = sizes.reduce((acc, n) => [...acc, acc[acc.length - 1] + n], [0]);
          const n = segments[segments.length - 1];
          // Quantised scores so that ties (and the index tie-break) are common.
          const independent = Float64Array.from({ length: n }, () => Math.floor(random() * 8) / 8);
          const costs = Uint32Array.from({ length: n }, () => 1 + Math.floor(random() * 20));
          const plainOrder = Array.from(topK(independent, n));
          const plain = selectByBudget(independent, costs, budget);
          const runs = [
            retrieve(
              {
                independent,
                relations: [
                  contextRelation(segments, 0.3),
                  randomCsr('semantic', segments, random),
                ],
                costs,
              },
              { alpha: 0, budget },
            ),
            retrieve(
              { independent, relations: [contextRelation(segments, 0)], costs },
              { alpha: 0.5, budget },
            ),
          ];
          for (const run of runs) {
            expect(run.scores.final).toEqual(independent);
            expect(Array.from(topK(run.scores.final, n))).toEqual(plainOrder);
            expect(run.selection.ranked).toEqual(plain.ranked);
            expect(run.selection.indices).toEqual(plain.indices);
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it('overwrites the arrays of an earlier run when asked to, with the same results', () => {
    const semantic = csrRelation('semantic', {
      size: 4,
      rowPtr: Uint32Array.of(0, 1, 2, 3, 4),
      col: Uint32Array.of(1, 0, 3, 2),
      weight: Float32Array.of(1, 1, 1, 1),
    });
    const input = { independent: s, relations: [context, semantic], costs };
    const first = retrieve(input, { budget: 2 });
    const fresh = retrieve(input, { budget: 3, alpha: 0.2 });
    const again = retrieve({ ...input, reuse: first.scores }, { budget: 3, alpha: 0.2 });
    expect(again.scores.final).toBe(first.scores.final);
    expect(again.scores.environment).toBe(first.scores.environment);
    expect(again.scores.environmentByKind.semantic).toBe(first.scores.environmentByKind.semantic);
    expect(again.scores).toEqual(fresh.scores);
    expect(again.selection).toEqual(fresh.selection);
  });

  it('refuses unknown options', () => {
    expect(() => retrieve({ independent: s, relations: [], costs }, { alfa: 1 } as never)).toThrow(
      /unknown FragRel option "alfa"/,
    );
  });
});
