/**
 * @file Sharing one budget between chat memory and library documents. Both memories
 * have been scored by FragRel (Eq. 10); the rounds that must be in the prompt (the recent ones,
 * or the whole history while memory is off) are taken off the top, and what is left is split by
 * one of two rules:
 *
 * - 'merge' (default): Eq. 11 over the union. Retrievable rounds and document fragments are
 *   taken together in descending final score (ties: the round first, then the lower index),
 *   each skipped when it does not fit what is left, until the budget is full or both sides
 *   reach their caps (`topTurns` rounds, the documents' `maxSelected`). The scores must be
 *   comparable: both Eq. 10 over scores in about [0, 1]. Dense cosines of one model and
 *   rescaled BM25 (whose best fragment always scores 1) are not, so mixing them can starve one
 *   side; the split is reported so this shows.
 * - 'share': the chat gets `chatShare` of the budget for its must-have and retrieved rounds
 *   together; the documents get everything the chat leaves, its unused share included.
 */
import { selectByBudget } from '../fragrel';
import { RankHeap, ranksBefore } from '../heap';
import type { Selection } from '../types';
import type { BudgetSplitRule } from './options';

/** The document retrieval's candidates, as its FragRel run scored them. */
export interface DocumentCandidates {
  /** Eq. 10 final score of each document fragment. */
  final: ArrayLike<number>;
  /** Cost of each fragment, in the chat's token unit (convert words first). */
  costs: ArrayLike<number>;
  /** At most this many fragments (default: no cap, the budget alone limits). */
  maxSelected?: number;
}

/** Retrievable rounds: their final scores, costs and cap. */
export interface ChatCandidates {
  final: Float64Array;
  costs: ArrayLike<number>;
  maxSelected: number;
}

/** How the budget was split, in tokens. */
export interface BudgetSplit {
  /** The rule applied; 'history-first' while memory is off (the whole history goes in first). */
  rule: BudgetSplitRule | 'history-first';
  budget: number;
  /** Tokens of rounds that had to be in the prompt: recent rounds, or the whole history. */
  reserved: number;
  /** Tokens of retrieved rounds. */
  retrieved: number;
  /** All chat tokens in the prompt: reserved + retrieved. */
  chat: number;
  /** Tokens of the selected document fragments. */
  documents: number;
  /** budget - chat - documents (negative when the reserved rounds alone exceed the budget). */
  unused: number;
  /** chat / (chat + documents), 0 when both are empty. */
  chatFraction: number;
}

export interface SharedSelection {
  /** Selected rounds among the candidates (indices into their arrays). */
  chat: Selection;
  /** Selected document fragments (indices into the candidates' arrays). */
  documents: Selection;
  split: BudgetSplit;
}

function checkCandidates(what: string, final: ArrayLike<number>, costs: ArrayLike<number>): void {
  if (final.length !== costs.length) {
    throw new Error(`Chat memory: ${final.length} ${what} scores but ${costs.length} costs.`);
  }
  for (let i = 0; i < costs.length; i++) {
    if (!(costs[i] >= 0 && costs[i] < Infinity)) {
      throw new Error(
        `Chat memory: ${what} ${i} has cost ${costs[i]}; costs must be finite, >= 0.`,
      );
    }
  }
}

function toSelection(picked: number[], ranks: number[], used: number, budget: number): Selection {
  const ranked = Uint32Array.from(picked);
  return { indices: ranked.slice().sort(), ranked, used, budget, ranks: Uint32Array.from(ranks) };
}

/** One side of the merge: its ranking, consumed lazily, and what it has taken. */
class Side {
  private readonly heap: RankHeap;
  readonly picked: number[] = [];
  readonly ranks: number[] = [];
  used = 0;
  /** Rank (within this side) of the candidate at the head. */
  rank = 0;
  cheapest = Infinity;

  constructor(
    readonly final: ArrayLike<number>,
    readonly costs: ArrayLike<number>,
    readonly cap: number,
  ) {
    this.heap = new RankHeap(final);
    for (let i = 0; i < costs.length; i++) this.cheapest = Math.min(this.cheapest, costs[i]);
  }

  /** Whether it can still take anything out of `left` tokens. */
  open(left: number): boolean {
    return this.heap.size > 0 && this.picked.length < this.cap && this.cheapest <= left;
  }
  head(): number {
    return this.heap.peek();
  }
  next(): number {
    this.rank++;
    return this.heap.pop();
  }
}

/** Eq. 11 over both memories in one ranking; see the file comment. */
export function mergeByScore(
  chat: ChatCandidates,
  documents: DocumentCandidates,
  budget: number,
): { chat: Selection; documents: Selection } {
  checkCandidates('round', chat.final, chat.costs);
  checkCandidates('document fragment', documents.final, documents.costs);
  const a = new Side(chat.final, chat.costs, chat.maxSelected);
  const b = new Side(documents.final, documents.costs, documents.maxSelected ?? Infinity);
  let used = 0;
  for (;;) {
    const left = budget - used;
    const openA = a.open(left);
    const openB = b.open(left);
    if (!openA && !openB) break;
    let side: Side;
    if (openA && openB) {
      const i = a.head();
      const j = b.head();
      // Ties go to the round: ranksBefore breaks equal scores by the lower index, so give the
      // round index -1 against the document's.
      side = ranksBefore(a.final[i], -1, b.final[j], j) ? a : b;
    } else {
      side = openA ? a : b;
    }
    const rank = side.rank;
    const i = side.next();
    if (used + side.costs[i] <= budget) {
      side.picked.push(i);
      side.ranks.push(rank);
      side.used += side.costs[i];
      used += side.costs[i];
    }
  }
  return {
    chat: toSelection(a.picked, a.ranks, a.used, budget),
    documents: toSelection(b.picked, b.ranks, b.used, budget),
  };
}

/**
 * Select rounds and document fragments under one budget after `reserved` tokens of must-have
 * rounds, by `rule`, and report the split.
 */
export function shareBudget(
  chat: ChatCandidates,
  documents: DocumentCandidates | undefined,
  budget: number,
  reserved: number,
  rule: BudgetSplitRule,
  chatShare: number,
): SharedSelection {
  const docs = documents ?? { final: [], costs: [] };
  const left = Math.max(0, budget - reserved);
  let chatSelection: Selection;
  let docSelection: Selection;
  if (!documents) {
    // Chat alone: plain Eq. 11 over the retrievable rounds.
    chatSelection = selectByBudget(chat.final, chat.costs, left, { maxSelected: chat.maxSelected });
    docSelection = toSelection([], [], 0, 0);
  } else if (rule === 'merge') {
    ({ chat: chatSelection, documents: docSelection } = mergeByScore(chat, docs, left));
  } else {
    const chatLeft = Math.max(0, chatShare * budget - reserved);
    chatSelection = selectByBudget(chat.final, chat.costs, chatLeft, {
      maxSelected: chat.maxSelected,
    });
    checkCandidates('document fragment', docs.final, docs.costs);
    docSelection = selectByBudget(
      Float64Array.from(docs.final),
      docs.costs,
      Math.max(0, left - chatSelection.used),
      { maxSelected: docs.maxSelected ?? Infinity },
    );
  }
  return {
    chat: chatSelection,
    documents: docSelection,
    split: splitOf(rule, budget, reserved, chatSelection.used, docSelection.used),
  };
}

/** The split report from its parts. */
export function splitOf(
  rule: BudgetSplit['rule'],
  budget: number,
  reserved: number,
  retrieved: number,
  documents: number,
): BudgetSplit {
  const chat = reserved + retrieved;
  return {
    rule,
    budget,
    reserved,
    retrieved,
    chat,
    documents,
    unused: budget - chat - documents,
    chatFraction: chat + documents > 0 ? chat / (chat + documents) : 0,
  };
}
