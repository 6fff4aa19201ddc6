/**
 * @file Chat memory as the chat view uses it: the budget a new message leaves for
 * recalled rounds and documents, the library's candidates, the prompt built from a plan, and the
 * view models the memory panel draws. Pure: no DOM, no store, no engine; tested in Node.
 *
 * The prompt for a new message (core/prompt.ts, `chatMemoryPrompt`):
 * - full history (a short chat): every past round as dialog, library fragments as evidence;
 * - memory: the retrieved rounds, in time order, then the library fragments, in document order,
 *   as numbered evidence; the recent rounds verbatim as dialog; then the new message.
 * Evidence is ranked by final score over both memories, so fitting the prompt to the engine
 * drops the weakest first, whichever memory it comes from.
 */
import {
  planChatMemory,
  type ChatMemoryOptions,
  type ChatMemoryPlan,
  type ChatRound,
  type DocumentCandidates,
  type TokenCounter,
} from '../../core/chat';
import type { VectorSet } from '../../core/types';
import {
  promptTokens,
  renderChatMemory,
  type ChatMemoryInput as PromptInput,
  type PromptFragment,
  type PromptMessage,
  type PromptStyle,
} from '../../core/prompt';
import type { ChatSettingsRecord } from '../../store/schema';
import type { RetrievalResult } from '../../workers/retrieval-types';
import { fragmentLocation } from '../answer/fragments';
import { documentOf } from '../../workers/retrieval-types';

/** Words to tokens for library fragments (their costs are word counts): 4/3 tokens a word. */
export function wordsToTokens(words: number): number {
  return Math.ceil((words * 4) / 3);
}

/** Share of what is left after the answer and the fixed prompt kept free for labels and roles. */
export const RECALL_MARGIN = 0.1;

/** How the model's context is spent on one message, in tokens. */
export interface ContextBudget {
  /** The model's context window. */
  context: number;
  /** Kept free for the reply. */
  answer: number;
  /** Instructions, the new message and the chat template's overhead. */
  fixed: number;
  /** Kept free for evidence labels and per-message overhead (`RECALL_MARGIN`). */
  margin: number;
  /** What recalled rounds and document fragments may use: planChatMemory's `budget`. */
  recall: number;
}

/**
 * The recall budget for `message`: the context minus the answer's share (at most half the
 * window, as the answer panel does), minus the prompt without any history or evidence, minus a
 * margin for what each recalled piece adds around its text.
 */
export function contextBudget(
  contextLimit: number,
  answerTokens: number,
  message: string,
  style: PromptStyle,
  countTokens: TokenCounter,
): ContextBudget {
  const context = Math.max(0, Math.floor(contextLimit));
  const answer = Math.min(Math.max(0, Math.floor(answerTokens)), Math.floor(context / 2));
  const fixed = promptTokens(
    renderChatMemory({ evidence: [], history: [], message }),
    style,
    countTokens,
  );
  const left = Math.max(0, context - answer - fixed);
  const margin = Math.ceil(left * RECALL_MARGIN);
  return { context, answer, fixed, margin, recall: left - margin };
}

/**
 * The library's side of a shared budget, from the retrieval worker's answer: every fragment's
 * final score, its cost in tokens, and at most as many fragments as the library's own budget
 * (in words, the Ask view's setting) selected.
 */
export function documentCandidates(result: RetrievalResult): DocumentCandidates {
  return {
    final: result.final,
    costs: Float64Array.from(result.costs, wordsToTokens),
    maxSelected: result.selected.length,
  };
}

/** planChatMemory's options for a conversation's settings and a recall budget. */
export function memoryOptions(
  settings: ChatSettingsRecord,
  budget: number,
): Partial<ChatMemoryOptions> {
  return { ...settings, budget };
}

export interface PlanInput {
  /** The rounds before the message, oldest first. */
  rounds: readonly ChatRound[];
  message: string;
  settings: ChatSettingsRecord;
  budget: number;
  countTokens: TokenCounter;
  /** Dense scoring: a vector per round and the query's; BM25 without. */
  vectors?: { rounds: VectorSet; query: Float32Array };
  /** The linked library's retrieval for the same query. */
  documents?: RetrievalResult;
}

export function planMessage(input: PlanInput): ChatMemoryPlan {
  return planChatMemory(
    {
      rounds: input.rounds,
      message: input.message,
      countTokens: input.countTokens,
      vectors: input.vectors,
      documents: input.documents ? documentCandidates(input.documents) : undefined,
    },
    memoryOptions(input.settings, input.budget),
  );
}

/** What an evidence label of the prompt stands for. */
export type EvidenceRef = { kind: 'round'; round: number } | { kind: 'document'; fragment: number };

export interface ChatPromptParts {
  input: PromptInput;
  /** `input.evidence[k].index` is k; `refs[k]` says what it is. */
  refs: EvidenceRef[];
  /** `input.history[k]` comes from round `historyRounds[k]`. */
  historyRounds: number[];
}

/** "User: …\nAssistant: …": a round as evidence. */
export function roundEvidence(round: ChatRound): string {
  const reply = round.assistant?.trim();
  return reply ? `User: ${round.user.trim()}\nAssistant: ${reply}` : `User: ${round.user.trim()}`;
}

/**
 * The prompt builder's input for a plan (see the file comment). `sources` holds the text of the
 * linked documents by id; a document fragment whose text is missing is left out.
 */
export function chatPromptParts(
  plan: ChatMemoryPlan,
  rounds: readonly ChatRound[],
  message: string,
  documents?: { result: RetrievalResult; sources: ReadonlyMap<string, string> },
): ChatPromptParts {
  const memory = plan.mode === 'memory';
  const evidenceRounds = memory ? plan.retrieved : [];
  const dialogRounds = memory ? plan.recent : plan.included;

  type Item = { ref: EvidenceRef; score: number; location: string; text: string };
  const items: Item[] = evidenceRounds.map((i) => ({
    ref: { kind: 'round', round: i },
    score: plan.rounds[i].final,
    location: `round ${i + 1}`,
    text: roundEvidence(rounds[i]),
  }));
  if (documents && plan.documents) {
    const { result, sources } = documents;
    for (const j of plan.documents.indices) {
      const doc = documentOf(result, j);
      const text = doc ? sources.get(doc.docId) : undefined;
      if (text === undefined) continue;
      items.push({
        ref: { kind: 'document', fragment: j },
        score: result.final[j],
        location: fragmentLocation(result, j),
        text: text.slice(result.starts[j], result.ends[j]),
      });
    }
  }
  // Rank over both memories by final score (ties: rounds first, then in order).
  const byScore = items.map((_, k) => k).sort((a, b) => items[b].score - items[a].score || a - b);
  const rank = new Array<number>(items.length);
  byScore.forEach((k, r) => (rank[k] = r));
  const evidence: PromptFragment[] = items.map((item, k) => ({
    index: k,
    rank: rank[k],
    location: item.location,
    text: item.text,
  }));

  const history: PromptMessage[] = [];
  const historyRounds: number[] = [];
  for (const i of dialogRounds) {
    history.push({ role: 'user', content: rounds[i].user });
    historyRounds.push(i);
    const reply = rounds[i].assistant?.trim();
    if (reply) {
      history.push({ role: 'assistant', content: rounds[i].assistant! });
      historyRounds.push(i);
    }
  }
  return { input: { evidence, history, message }, refs: items.map((x) => x.ref), historyRounds };
}

// The panel ------------------------------------------------------------------------------------

/** Why memory is on or off, in one sentence. */
export function switchText(plan: ChatMemoryPlan, options: Partial<ChatMemoryOptions>): string {
  const n = plan.rounds.length;
  const rounds = `${n} past round${n === 1 ? '' : 's'}`;
  const tokens = `${fmtInt(plan.tokens.history)} tokens`;
  const maxRounds = options.memoryAfterRounds ?? 10;
  const maxTokens = options.memoryAfterTokens ?? 1000;
  switch (plan.switchReason) {
    case 'short':
      return `Full history: ${rounds} (${tokens}), within ${maxRounds} rounds and ${fmtInt(maxTokens)} tokens, all go into the prompt.`;
    case 'rounds':
      return `Memory: ${rounds}, more than ${maxRounds}. The most relevant older rounds are retrieved; the latest are kept verbatim.`;
    case 'tokens':
      return `Memory: the history holds ${tokens}, more than ${fmtInt(maxTokens)}. The most relevant older rounds are retrieved; the latest are kept verbatim.`;
    case 'budget':
      return `Memory: the history (${tokens}) does not fit the recall budget of ${fmtInt(plan.tokens.budget)} tokens.`;
    case 'forced-on':
      return 'Memory: switched on in the settings.';
    case 'forced-off':
      return 'Full history: memory is switched off in the settings.';
  }
}

/** Reasons as the panel names them. */
export const REASON_LABELS: Readonly<Record<ChatMemoryPlan['rounds'][number]['reason'], string>> =
  Object.freeze({
    'full-history': 'full history',
    recent: 'recent',
    retrieved: 'retrieved',
    'not-retrieved': 'not retrieved',
  });

/** One part of the token split bar. */
export interface SplitPart {
  key: 'recent' | 'retrieved' | 'history' | 'documents' | 'unused' | 'over';
  label: string;
  tokens: number;
  /** Share of the bar, 0..1. */
  share: number;
}

/**
 * The recall budget as the bar shows it: rounds that had to go in (recent, or the whole history),
 * retrieved rounds, document fragments, and what is left. Over budget (the must-have rounds alone
 * do not fit), the bar is scaled to what was asked for and the excess is its own part.
 */
export function splitParts(plan: ChatMemoryPlan): SplitPart[] {
  const t = plan.tokens;
  const reserved = plan.mode === 'memory' ? t.recent : t.history;
  const used = reserved + t.retrieved + t.documents;
  const budget = Number.isFinite(t.budget) ? t.budget : used;
  const whole = Math.max(budget, used, 1);
  const parts: SplitPart[] = [
    plan.mode === 'memory'
      ? { key: 'recent', label: 'recent rounds', tokens: t.recent, share: 0 }
      : { key: 'history', label: 'full history', tokens: t.history, share: 0 },
    { key: 'retrieved', label: 'retrieved rounds', tokens: t.retrieved, share: 0 },
    { key: 'documents', label: 'library', tokens: t.documents, share: 0 },
  ];
  if (used <= budget) {
    parts.push({ key: 'unused', label: 'unused', tokens: budget - used, share: 0 });
    return parts.map((p) => ({ ...p, share: p.tokens / whole }));
  }
  // Over: the parts fill the budget's share of the bar in proportion, the excess the rest.
  parts.push({ key: 'over', label: 'over budget', tokens: used - budget, share: 0 });
  return parts.map((p) => ({
    ...p,
    share: p.key === 'over' ? p.tokens / whole : (p.tokens / used) * (budget / whole),
  }));
}

/** The score range drawn: from the lowest to the highest of the three scores. */
export function scoreRange(plan: ChatMemoryPlan): { low: number; high: number } {
  let low = Infinity;
  let high = -Infinity;
  for (const r of plan.rounds) {
    for (const v of [r.independent, r.environment, r.final]) {
      if (v < low) low = v;
      if (v > high) high = v;
    }
  }
  if (!(low <= high)) return { low: 0, high: 1 };
  return { low: Math.min(0, low), high: high > low ? high : low + 1 };
}

/**
 * SVG path of one score along the timeline: round i at x = its position over `width`, the score
 * mapped into [pad, height - pad] by `range`.
 */
export function scorePath(
  values: readonly number[],
  width: number,
  height: number,
  pad: number,
  range: { low: number; high: number },
): string {
  const n = values.length;
  const span = range.high - range.low;
  let d = '';
  values.forEach((v, i) => {
    const x = timelineX(i, n, width);
    const y = height - pad - (span > 0 ? ((v - range.low) / span) * (height - 2 * pad) : 0);
    d += `${d ? 'L' : 'M'}${x.toFixed(1)},${y.toFixed(1)}`;
  });
  return d;
}

/** x of round i of n on a timeline `width` wide: centres of n equal slots. */
export function timelineX(i: number, n: number, width: number): number {
  return n <= 0 ? width / 2 : ((i + 0.5) / n) * width;
}

function fmtInt(n: number): string {
  return Number.isFinite(n) ? Math.round(n).toLocaleString('en') : '∞';
}
