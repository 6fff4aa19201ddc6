/**
 * @file Why Eq. 11 took or left a fragment, in the terms a reader can check, and where the
 * strip's budget line belongs.
 *
 * Selection (fragrel.ts `selectByBudget`) walks the ranking by final score and takes each
 * fragment that fits what is left of the budget. A fragment can be left out for different
 * reasons, and the old explanation ("its score was not enough") was wrong whenever length was
 * the cause: with fragments of unequal size a shorter, lower-ranked fragment can take the space
 * a longer, higher-ranked one could not. This module replays that walk over a finished
 * selection (it never decides anything itself) and names the reason for each fragment.
 */
import { RankHeap } from '../heap';

export type SelectionReason =
  /** Taken; `left` is what remained of the budget when its turn came. */
  | { kind: 'selected'; rank: number; cost: number; left: number }
  /**
   * The fragments ranked above it filled the budget: nothing more could fit when its turn came
   * (what was left is below the cheapest fragment), so only a higher score would have helped.
   */
  | { kind: 'score'; rank: number; cost: number; left: number }
  /**
   * Room was left when its turn came, but less than its length (or its length exceeds the whole
   * budget). `shorterTaken`: a lower-ranked, shorter fragment was taken instead.
   */
  | { kind: 'too-long'; rank: number; cost: number; left: number; shorterTaken: boolean }
  /** The selection was capped at `maxSelected` fragments before its turn (code: top 10). */
  | { kind: 'count'; rank: number; cost: number; maxSelected: number }
  /** It repeats a selected fragment (`of`), e.g. a code window inside a span already taken. */
  | { kind: 'duplicate'; rank: number; cost: number; of: number }
  /**
   * With `overflow: 'stop'`, selection ended at the first fragment that did not fit; this one
   * ranks after it.
   */
  | { kind: 'stopped'; rank: number; cost: number; left: number }
  /** Kept out of the ranking altogether (a completion's own cursor windows). */
  | { kind: 'excluded' };

export interface ReasonInput {
  /** Eq. 10 scores over all N fragments. */
  final: ArrayLike<number>;
  /** Eq. 11 cost of each fragment. */
  costs: ArrayLike<number>;
  /** The selected fragments (any order). */
  selected: ArrayLike<number>;
  budget: number;
  maxSelected?: number;
  overflow?: 'skip' | 'stop';
  /** Fragments kept out of the ranking. */
  excluded?: ArrayLike<number>;
  /**
   * For fragments left out as repeats of a selected one: the one they repeat. Used when the
   * caller's selection dedups (merged code windows); absent means no fragment is a repeat.
   */
  duplicateOf?: ReadonlyMap<number, number>;
}

/**
 * The reason for each fragment of `wanted`. Walks the ranking only as far as the lowest-ranked
 * wanted fragment: O(N + K log N) for the K first ranks.
 */
export function selectionReasons(
  input: ReasonInput,
  wanted: ArrayLike<number>,
): Map<number, SelectionReason> {
  const n = input.final.length;
  if (input.costs.length !== n) {
    throw new Error(`FragRel: ${n} scores but ${input.costs.length} fragment costs.`);
  }
  const out = new Map<number, SelectionReason>();
  const excluded = new Uint8Array(n);
  for (let k = 0; k < (input.excluded?.length ?? 0); k++) {
    const i = input.excluded![k];
    if (i >= 0 && i < n) excluded[i] = 1;
  }
  const selected = new Uint8Array(n);
  for (let k = 0; k < input.selected.length; k++) selected[input.selected[k]] = 1;
  const pending = new Set<number>();
  for (let k = 0; k < wanted.length; k++) {
    const i = wanted[k];
    if (!(Number.isInteger(i) && i >= 0 && i < n)) continue;
    if (excluded[i]) out.set(i, { kind: 'excluded' });
    else pending.add(i);
  }
  if (pending.size === 0) return out;

  const keep: number[] = [];
  let cheapest = Infinity;
  for (let i = 0; i < n; i++) {
    if (excluded[i]) continue;
    keep.push(i);
    if (input.costs[i] < cheapest) cheapest = input.costs[i];
  }
  // Is any selected fragment ranked below rank r shorter than a given cost? Needs the whole
  // selection's ranks, so the walk records selected fragments as it goes and the too-long
  // reasons are settled once the walk is over.
  const tooLong: { i: number; rank: number }[] = [];
  const selectedRanks: { rank: number; cost: number }[] = [];
  const maxSelected = input.maxSelected ?? Infinity;
  const heap = new RankHeap(input.final, Uint32Array.from(keep));
  let used = 0;
  let taken = 0;
  let stopped = false;
  let selectedLeft = 0;
  for (let k = 0; k < input.selected.length; k++) if (!excluded[input.selected[k]]) selectedLeft++;
  for (let rank = 0; heap.size > 0 && (pending.size > 0 || selectedLeft > 0); rank++) {
    const i = heap.pop();
    const cost = input.costs[i];
    const left = input.budget - used;
    if (selected[i]) {
      if (pending.delete(i)) out.set(i, { kind: 'selected', rank, cost, left });
      used += cost;
      taken++;
      selectedLeft--;
      selectedRanks.push({ rank, cost });
      continue;
    }
    let reason: SelectionReason;
    const dup = input.duplicateOf?.get(i);
    if (dup !== undefined && selected[dup]) reason = { kind: 'duplicate', rank, cost, of: dup };
    else if (taken >= maxSelected) reason = { kind: 'count', rank, cost, maxSelected };
    else if (stopped || cost <= left) {
      // It fitted and was still left out: only 'stop' does that (after the first misfit).
      reason = { kind: 'stopped', rank, cost, left };
    } else if (cost > input.budget || left >= cheapest) {
      // Room was left, just not this much: its length kept it out, not its score.
      if (input.overflow === 'stop') stopped = true;
      reason = { kind: 'too-long', rank, cost, left, shorterTaken: false };
      tooLong.push({ i, rank });
    } else {
      // Eq. 11's own stopping rule: what is left is below the cheapest fragment.
      reason = { kind: 'score', rank, cost, left };
    }
    if (pending.delete(i)) out.set(i, reason);
  }
  for (const { i, rank } of tooLong) {
    const r = out.get(i);
    if (r?.kind !== 'too-long') continue;
    r.shorterTaken = selectedRanks.some((s) => s.rank > rank && s.cost < r.cost);
  }
  return out;
}

/**
 * Where the strip's budget line goes: the final score of the best fragment left out, so that
 * every fragment scoring strictly above the line was taken (what "budget line" promises). Below
 * it, selected marks are shorter fragments that fitted what was left. With nothing left out,
 * the lowest selected score; with nothing selected, null (no line).
 */
export function budgetLine(
  final: ArrayLike<number>,
  selected: ArrayLike<number>,
  excluded: ArrayLike<number> = [],
): number | null {
  const n = final.length;
  const flag = new Uint8Array(n);
  for (let k = 0; k < excluded.length; k++) flag[excluded[k]] = 2;
  let lowestSelected = Infinity;
  for (let k = 0; k < selected.length; k++) {
    flag[selected[k]] = 1;
    lowestSelected = Math.min(lowestSelected, final[selected[k]]);
  }
  if (selected.length === 0) return null;
  let bestLeftOut = -Infinity;
  for (let i = 0; i < n; i++) if (flag[i] === 0 && final[i] > bestLeftOut) bestLeftOut = final[i];
  return bestLeftOut === -Infinity ? lowestSelected : bestLeftOut;
}
