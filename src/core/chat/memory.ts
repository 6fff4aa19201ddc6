/**
 * @file Long-term chat memory (the paper's section 4.3; DESIGN.md section 2, "Chat memory"): the conversation itself is the long text, and each round (a user message with the
 * assistant's reply) is one fragment.
 *
 * For each new message `planChatMemory`:
 * 1. decides whether memory is on: while the history is short (at most `memoryAfterRounds`
 *    rounds and `memoryAfterTokens` tokens, and within the budget) it all goes into the prompt;
 * 2. scores every past round against the query "last round + new message" (Eq. 4: dense, BM25
 *    or hybrid), adds the context-structure relation over round order (Eq. 7, w_rel 0.8) as
 *    the environment score (Eq. 9) and forms the final score (Eq. 10, alpha 0.5);
 * 3. keeps the `recentTurns` newest rounds verbatim and retrieves up to `topTurns` of the older
 *    ones by final score (Eq. 11), sharing the budget with library documents when given
 *    (budget.ts), and hands them over in time order.
 *
 * The environment of a round is made of all other past rounds, the recent ones included: they
 * are part of the conversation's structure even though they are not candidates. Scores are
 * computed in both modes, so the panel can show them along the timeline before the switch too.
 */
import { bm25Scores, buildBm25Index, rescaleByMax } from '../bm25';
import { explain, fragRelScores } from '../fragrel';
import { joinChatTurns, splitChat, type ChatTurns } from '../fragment';
import { hybridScores } from '../hybrid';
import { contextRelation } from '../relations/context';
import { tokenize } from '../tokenize';
import type { Explanation, Fragment, ScoreSet, Selection, VectorSet } from '../types';
import { cosineScores } from '../vectors';
import { shareBudget, splitOf, type BudgetSplit, type DocumentCandidates } from './budget';
import { chatMemoryOptions, type ChatMemoryOptions } from './options';
import { estimateTokens, type TokenCounter } from './tokens';

/** One round of a conversation. The reply is empty while it is being written. */
export interface ChatRound {
  user: string;
  assistant?: string;
}

/** Turns texts into vectors of one model (rows L2-normalised, the `VectorSet` contract). */
export type ChatEmbedder = (texts: readonly string[]) => VectorSet;

export interface ChatMemoryInput {
  /** The past rounds, oldest first. */
  rounds: readonly ChatRound[];
  /** The new user message. */
  message: string;
  /** Tokens of a text in the budget's unit; default `estimateTokens` (words * 4 / 3). */
  countTokens?: TokenCounter;
  /** Embeds round texts and the query for dense and hybrid scoring. */
  embed?: ChatEmbedder;
  /**
   * Precomputed vectors instead of `embed`: one row per round (of `roundText`) and the query's
   * (of `memoryQuery`). A caller that embeds in a worker or caches round vectors passes these.
   */
  vectors?: { rounds: VectorSet; query: Float32Array };
  /** The library's candidates when the chat draws on documents: the budget is then shared. */
  documents?: DocumentCandidates;
  /** Document id of the chat's fragments (for citations); default 'chat'. */
  docId?: string;
}

/** Why a round is in the prompt, or 'not-retrieved'. */
export type RoundReason = 'full-history' | 'recent' | 'retrieved' | 'not-retrieved';

/** One past round as the plan sees it. */
export interface RoundPlan {
  /** 0-based round index (time order). */
  round: number;
  tokens: number;
  /** Eq. 4, 9 and 10 scores against the query. */
  independent: number;
  environment: number;
  final: number;
  /** Rank by final score among all past rounds, 0-based (ties to the older round). */
  rank: number;
  inPrompt: boolean;
  reason: RoundReason;
}

/** Why memory is on or off. */
export type SwitchReason =
  | 'short' // within every threshold: full history
  | 'rounds' // more than memoryAfterRounds rounds
  | 'tokens' // more than memoryAfterTokens tokens
  | 'budget' // the history alone does not fit the budget
  | 'forced-on'
  | 'forced-off';

export interface ChatMemoryPlan {
  /** 'memory': recent plus retrieved rounds; 'full-history': every past round. */
  mode: 'memory' | 'full-history';
  switchReason: SwitchReason;
  /** Eq. 4's query: the last round's text and the new message. */
  query: string;
  /** The scoring actually used ('auto' resolved). */
  scoring: 'dense' | 'bm25' | 'hybrid';
  /** Every past round, in time order. */
  rounds: RoundPlan[];
  /** Rounds in the prompt, in time order (what the prompt builder lays out). */
  included: number[];
  /** Retrieved rounds in time order (a subset of `included`). */
  retrieved: number[];
  /** The verbatim recent rounds in time order (empty in full-history mode). */
  recent: number[];
  /** Eq. 11 over the retrievable rounds (indices are round indices), in rank order too. */
  selection: Selection;
  /**
   * Why each retrieved round scored as it did, in rank order, with the context relation's
   * largest contributors; `rank` is among all past rounds, as in `rounds`.
   */
  explanations: Explanation[];
  /** Every score array (length = past rounds), for the timeline. */
  scores: ScoreSet;
  /** Token accounting, in the counter's unit. */
  tokens: {
    /** The new message. */
    message: number;
    /** All past rounds. */
    history: number;
    recent: number;
    retrieved: number;
    /** Chat tokens in the prompt: recent + retrieved, or the whole history. */
    memory: number;
    /** Selected document fragments (0 without documents). */
    documents: number;
    /** memory + documents + message. */
    total: number;
    budget: number;
    /** True when the rounds that must go in (recent or full history) alone exceed the budget. */
    overBudget: boolean;
  };
  /** The budget split between chat and documents; present when documents were given. */
  split?: BudgetSplit;
  /** Selected document fragments (indices into the candidates), when documents were given. */
  documents?: Selection;
  /** The past rounds as one transcript and one fragment per round (citations, highlighting). */
  transcript: ChatTurns;
  fragments: Fragment[];
}

/** The text of a round that is scored, embedded and counted: the message, then the reply. */
export function roundText(round: ChatRound): string {
  return round.assistant ? `${round.user}\n${round.assistant}` : round.user;
}

/** The retrieval query: the last past round (when there is one) and the new message. */
export function memoryQuery(rounds: readonly ChatRound[], message: string): string {
  return rounds.length > 0 ? `${roundText(rounds[rounds.length - 1])}\n${message}` : message;
}

/**
 * Whether memory is on for a history of `rounds` rounds and `tokens` tokens, and why. Over a
 * threshold means strictly more than it: 10 rounds still go in whole, the 11th switches.
 */
export function memorySwitch(
  rounds: number,
  tokens: number,
  options?: Partial<ChatMemoryOptions>,
): { active: boolean; reason: SwitchReason } {
  const o = chatMemoryOptions(options);
  if (o.memory === 'on') return { active: true, reason: 'forced-on' };
  if (o.memory === 'off') return { active: false, reason: 'forced-off' };
  if (rounds > o.memoryAfterRounds) return { active: true, reason: 'rounds' };
  if (tokens > o.memoryAfterTokens) return { active: true, reason: 'tokens' };
  if (tokens > o.budget) return { active: true, reason: 'budget' };
  return { active: false, reason: 'short' };
}

function resolveScoring(o: ChatMemoryOptions, input: ChatMemoryInput): ChatMemoryPlan['scoring'] {
  const haveVectors = input.vectors !== undefined || input.embed !== undefined;
  if (o.scoring === 'auto') return haveVectors ? 'dense' : 'bm25';
  if (o.scoring !== 'bm25' && !haveVectors) {
    throw new Error(
      `Chat memory: ${o.scoring} scoring needs an embedder or precomputed vectors; choose an embedding model or BM25.`,
    );
  }
  return o.scoring;
}

/** Eq. 4 for every past round. */
function independentScores(
  scoring: ChatMemoryPlan['scoring'],
  texts: readonly string[],
  query: string,
  input: ChatMemoryInput,
  hybridLambda: number,
): Float64Array {
  const n = texts.length;
  const bm25Raw = () => bm25Scores(buildBm25Index(texts.map((t) => tokenize(t))), tokenize(query));
  if (scoring === 'bm25') return rescaleByMax(bm25Raw());
  let rows: VectorSet;
  let queryVector: Float32Array;
  if (input.vectors) {
    rows = input.vectors.rounds;
    queryVector = input.vectors.query;
  } else {
    const all = input.embed!([...texts, query]);
    if (all.count !== n + 1) {
      throw new Error(
        `Chat memory: the embedder returned ${all.count} vectors for ${n + 1} texts.`,
      );
    }
    rows = { dim: all.dim, count: n, data: all.data.subarray(0, n * all.dim) };
    queryVector = all.data.slice(n * all.dim, (n + 1) * all.dim);
  }
  if (rows.count !== n) {
    throw new Error(
      `Chat memory: ${rows.count} round vectors for ${n} rounds; embed the rounds that are missing.`,
    );
  }
  const cosine = cosineScores(rows, queryVector);
  if (scoring === 'dense') return cosine;
  return hybridScores(bm25Raw(), cosine, { lambda: hybridLambda });
}

/** Plan the chat part of the prompt for a new message; see the file comment. */
export function planChatMemory(
  input: ChatMemoryInput,
  options?: Partial<ChatMemoryOptions>,
): ChatMemoryPlan {
  const o = chatMemoryOptions(options);
  const countTokens = input.countTokens ?? estimateTokens;
  const n = input.rounds.length;
  const texts = input.rounds.map(roundText);
  const costs = new Float64Array(n);
  let history = 0;
  for (let i = 0; i < n; i++) {
    costs[i] = countTokens(texts[i]);
    if (!(costs[i] >= 0 && costs[i] < Infinity)) {
      throw new Error(`Chat memory: the token counter gave ${costs[i]} for round ${i + 1}.`);
    }
    history += costs[i];
  }
  const query = memoryQuery(input.rounds, input.message);
  const scoring = resolveScoring(o, input);
  const { active, reason: switchReason } = memorySwitch(n, history, o);

  const independent = independentScores(scoring, texts, query, input, o.hybridLambda);
  const relations = [contextRelation([0, n], o.wRel)];
  const scores = fragRelScores(independent, relations, { alpha: o.alpha });

  // Must-have rounds come off the budget first; the rest is retrievable.
  const recentCount = active ? Math.min(o.recentTurns, n) : n;
  const candidates = n - recentCount;
  let reserved = 0;
  for (let i = candidates; i < n; i++) reserved += costs[i];
  const shared = shareBudget(
    {
      final: scores.final.subarray(0, candidates),
      costs: costs.subarray(0, candidates),
      maxSelected: active ? o.topTurns : 0,
    },
    input.documents,
    o.budget,
    reserved,
    o.budgetSplit,
    o.chatShare,
  );
  const selection = shared.chat;

  const rank = new Uint32Array(n);
  const order = Array.from({ length: n }, (_, i) => i).sort(
    (a, b) => scores.final[b] - scores.final[a] || a - b,
  );
  order.forEach((i, r) => (rank[i] = r));
  const selected = new Set(selection.indices);
  const rounds: RoundPlan[] = [];
  for (let i = 0; i < n; i++) {
    const reason: RoundReason =
      i >= candidates
        ? active
          ? 'recent'
          : 'full-history'
        : selected.has(i)
          ? 'retrieved'
          : 'not-retrieved';
    rounds.push({
      round: i,
      tokens: costs[i],
      independent: scores.independent[i],
      environment: scores.environment[i],
      final: scores.final[i],
      rank: rank[i],
      inPrompt: reason !== 'not-retrieved',
      reason,
    });
  }
  const retrieved = Array.from(selection.indices);
  const recent = active ? Array.from({ length: recentCount }, (_, k) => candidates + k) : [];
  const included = rounds.filter((r) => r.inPrompt).map((r) => r.round);
  const message = countTokens(input.message);
  const documents = shared.documents.used;
  const memory = reserved + selection.used;
  const transcript = joinChatTurns(texts.map((text) => ({ text })));
  const split = input.documents
    ? active
      ? shared.split
      : splitOf('history-first', o.budget, reserved, 0, documents)
    : undefined;

  return {
    mode: active ? 'memory' : 'full-history',
    switchReason,
    query,
    scoring,
    rounds,
    included,
    retrieved,
    recent,
    selection,
    explanations: Array.from(selection.ranked, (i) =>
      explain(i, rank[i], scores, relations, o.contributorsPerKind),
    ),
    scores,
    tokens: {
      message,
      history,
      recent: active ? reserved : 0,
      retrieved: selection.used,
      memory,
      documents,
      total: memory + documents + message,
      budget: o.budget,
      overBudget: reserved > o.budget,
    },
    split,
    documents: input.documents ? shared.documents : undefined,
    transcript,
    fragments: splitChat(input.docId ?? 'chat', transcript),
  };
}
