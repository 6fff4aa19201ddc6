import { describe, expect, it } from 'vitest';
import { selectByBudget } from '../fragrel';
import { budgetLine, selectionReasons } from './reasons';

/**
 * The case in miniature: a 2,000-word budget, three 500-word fragments taken, the
 * 4th-ranked fragment 600 words long (500 were left), a shorter 5th one that fits, then the rest.
 */
const final = Float64Array.from([0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3]);
const costs = Uint32Array.from([500, 500, 500, 600, 300, 500, 100]);
const budget = 2000;

describe('selectionReasons', () => {
  it('tells length from score on a case where length, not score, excludes a fragment', () => {
    const sel = selectByBudget(final, costs, budget);
    // 0, 1, 2 take 1,500 words; 3 (600) does not fit the 500 left; 4 (300) does; 5 (500) does
    // not fit the 200 left; 6 (100) does: 1,900 words.
    expect([...sel.indices]).toEqual([0, 1, 2, 4, 6]);
    const why = selectionReasons(
      { final, costs, selected: sel.indices, budget },
      [0, 1, 2, 3, 4, 5, 6],
    );
    expect(why.get(0)).toEqual({ kind: 'selected', rank: 0, cost: 500, left: 2000 });
    expect(why.get(3)).toEqual({
      kind: 'too-long',
      rank: 3,
      cost: 600,
      left: 500,
      shorterTaken: true,
    });
    // 200 words were left for fragment 5: room for the 100-word fragment, so still length.
    expect(why.get(5)).toMatchObject({ kind: 'too-long', left: 200, shorterTaken: true });
    expect(why.get(6)).toMatchObject({ kind: 'selected', rank: 6, left: 200 });
  });

  it('says "score" once the fragments above filled the budget', () => {
    const equal = Uint32Array.from([500, 500, 500, 500, 500, 500, 500]);
    const sel = selectByBudget(final, equal, budget);
    expect([...sel.indices]).toEqual([0, 1, 2, 3]);
    const why = selectionReasons({ final, costs: equal, selected: sel.indices, budget }, [4, 6]);
    expect(why.get(4)).toEqual({ kind: 'score', rank: 4, cost: 500, left: 0 });
    expect(why.get(6)).toEqual({ kind: 'score', rank: 6, cost: 500, left: 0 });
  });

  it('names a fragment longer than the whole budget as too long', () => {
    const big = Uint32Array.from([2500, 500, 500, 500, 500, 500, 500]);
    const sel = selectByBudget(final, big, budget);
    const why = selectionReasons({ final, costs: big, selected: sel.indices, budget }, [0]);
    expect(why.get(0)).toMatchObject({ kind: 'too-long', cost: 2500, left: 2000 });
  });

  it('names the count cap, repeats and excluded fragments', () => {
    const sel = selectByBudget(final, costs, 10_000, { maxSelected: 2 });
    expect([...sel.indices]).toEqual([0, 1]);
    const why = selectionReasons(
      {
        final,
        costs,
        selected: sel.indices,
        budget: 10_000,
        maxSelected: 2,
        duplicateOf: new Map([[2, 1]]),
        excluded: [6],
      },
      [2, 3, 6],
    );
    expect(why.get(2)).toMatchObject({ kind: 'duplicate', of: 1 });
    expect(why.get(3)).toMatchObject({ kind: 'count', maxSelected: 2 });
    expect(why.get(6)).toEqual({ kind: 'excluded' });
  });

  it("follows overflow 'stop': the first misfit is too long, the rest ranked after it", () => {
    const sel = selectByBudget(final, costs, budget, { overflow: 'stop' });
    expect([...sel.indices]).toEqual([0, 1, 2]);
    const why = selectionReasons(
      { final, costs, selected: sel.indices, budget, overflow: 'stop' },
      [3, 4],
    );
    expect(why.get(3)).toMatchObject({ kind: 'too-long', shorterTaken: false });
    expect(why.get(4)).toMatchObject({ kind: 'stopped', left: 500 });
  });
});

describe('budgetLine', () => {
  it('sits at the best fragment left out: nothing above it is unselected', () => {
    const sel = selectByBudget(final, costs, budget);
    const line = budgetLine(final, sel.indices);
    expect(line).toBe(0.6);
    for (let i = 0; i < final.length; i++) {
      if (final[i] > line!) expect(sel.indices).toContain(i);
    }
  });

  it('is the lowest selected score when everything fits, and absent when nothing does', () => {
    expect(budgetLine(final, [0, 1, 2, 3, 4, 5, 6])).toBe(0.3);
    expect(budgetLine(final, [])).toBeNull();
    // Excluded fragments are not "left out by the budget".
    expect(budgetLine(final, [1, 2], [0])).toBe(0.6);
  });
});
