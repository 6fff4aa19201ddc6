/**
 * @file Chat memory settings (DESIGN.md section 2, "Chat memory"), every one with its
 * default here. The paper's numbers come from `defaultsByTextKind.chat` so they live in one place
 * for the whole core; the settings the paper does not fix are ours and say why below.
 */
import { defaultHybridOptions, defaultsByTextKind, withDefaults } from '../options';

/** Eq. 4 for chat rounds. 'auto': dense when vectors or an embedder are given, else BM25. */
export type ChatScoring = 'auto' | 'dense' | 'bm25' | 'hybrid';

/** 'auto' switches memory on by the thresholds below; 'on' and 'off' force it. */
export type ChatMemoryMode = 'auto' | 'on' | 'off';

/**
 * How a shared budget is split between chat memory and library documents (budget.ts):
 * 'merge' ranks retrievable rounds and document fragments together by final score (Eq. 11 over
 * both memories), 'share' gives the chat a fixed share and the documents the rest.
 */
export type BudgetSplitRule = 'merge' | 'share';

export interface ChatMemoryOptions {
  /** Force memory on or off, or let the thresholds decide ('auto'). */
  memory: ChatMemoryMode;
  /** Memory switches on once the past rounds hold more than this many tokens (paper: 1K). */
  memoryAfterTokens: number;
  /** ... or once there are more than this many past rounds (paper: 10). */
  memoryAfterRounds: number;
  /** Eq. 11: at most this many rounds are retrieved from memory (paper: 8). */
  topTurns: number;
  /**
   * The most recent rounds, always in the prompt verbatim and never retrieved. Not in the paper;
   * default 2. The query already holds the last round, so it would rank first anyway, and a
   * follow-up ("what about a cactus?") often leans on the round before it too. With 2 recent
   * plus `topTurns` 8, the prompt holds 10 rounds right after the switch at 10 rounds, as many
   * as it held just before, so turning memory on never shrinks what the model sees.
   */
  recentTurns: number;
  /** Eq. 7: decay of the context-structure relation per round of distance (paper, chat: 0.8). */
  wRel: number;
  /** Eq. 10: weight of the environment score (paper: 0.5). */
  alpha: number;
  /** Eq. 4 for rounds, see `ChatScoring`. */
  scoring: ChatScoring;
  /** Hybrid scoring: weight of rescaled BM25 against clamped cosine (hybrid.ts). */
  hybridLambda: number;
  /**
   * Tokens for everything recalled into the prompt: past rounds plus, when a library takes
   * part, document fragments. The new message, system prompt and answer are the caller's to
   * subtract from the model's context. Infinity: only `topTurns` limits.
   */
  budget: number;
  /** With documents: how `budget` is split (see `BudgetSplitRule`). */
  budgetSplit: BudgetSplitRule;
  /** 'share' rule: the chat's share of `budget` (recent plus retrieved rounds), 0 to 1. */
  chatShare: number;
  /** Explanations: largest contributors listed per retrieved round. */
  contributorsPerKind: number;
}

const paper = defaultsByTextKind.chat;

export const defaultChatMemoryOptions: Readonly<ChatMemoryOptions> = Object.freeze({
  memory: 'auto',
  memoryAfterTokens: paper.memoryAfterTokens,
  memoryAfterRounds: paper.memoryAfterRounds,
  topTurns: paper.topTurns,
  recentTurns: 2,
  wRel: paper.wRel,
  alpha: paper.alpha,
  scoring: 'auto',
  hybridLambda: defaultHybridOptions.lambda,
  budget: Infinity,
  // One ranking over both memories is Eq. 11 as the paper states it; the plan reports the split
  // so a lopsided one is visible, and 'share' is there when the two scorings are not comparable.
  budgetSplit: 'merge',
  chatShare: 0.5,
  contributorsPerKind: 5,
});

function count(value: number, name: string): void {
  if (!(Number.isInteger(value) && value >= 0)) {
    throw new Error(`Chat memory: ${name} must be a whole number of at least 0, got ${value}.`);
  }
}

function nonNegative(value: number, name: string): void {
  if (!(value >= 0)) {
    throw new Error(`Chat memory: ${name} must be a number of at least 0, got ${value}.`);
  }
}

/** Merge over the defaults (unknown keys refused) and check every value. */
export function chatMemoryOptions(options?: Partial<ChatMemoryOptions>): ChatMemoryOptions {
  const o = withDefaults(defaultChatMemoryOptions, options, 'chat memory');
  if (!['auto', 'on', 'off'].includes(o.memory)) {
    throw new Error(`Chat memory: memory must be 'auto', 'on' or 'off', got ${String(o.memory)}.`);
  }
  if (!['auto', 'dense', 'bm25', 'hybrid'].includes(o.scoring)) {
    throw new Error(
      `Chat memory: scoring must be 'auto', 'dense', 'bm25' or 'hybrid', got ${String(o.scoring)}.`,
    );
  }
  if (!['merge', 'share'].includes(o.budgetSplit)) {
    throw new Error(
      `Chat memory: budgetSplit must be 'merge' or 'share', got ${String(o.budgetSplit)}.`,
    );
  }
  nonNegative(o.memoryAfterTokens, 'memoryAfterTokens');
  count(o.memoryAfterRounds, 'memoryAfterRounds');
  count(o.topTurns, 'topTurns');
  count(o.recentTurns, 'recentTurns');
  nonNegative(o.budget, 'budget');
  if (!(o.chatShare >= 0 && o.chatShare <= 1)) {
    throw new Error(`Chat memory: chatShare must lie in [0, 1], got ${o.chatShare}.`);
  }
  // alpha, wRel and hybridLambda are checked where they are used (fragrel, context, hybrid).
  return o;
}
