/**
 * @file Everything chat memory needs for one message, gathered: the recall budget, round
 * vectors (main thread, vectors.ts), the linked library's scores (the retrieval worker's
 * `query`, for the same query as the rounds), the plan (core/chat) and the prompt's parts
 * (memory.ts). Used for the message being sent and, with the same inputs, for the memory panel
 * of any earlier message, so the panel shows what was (or would now be) remembered.
 */
import { memoryQuery, roundText, type ChatMemoryPlan, type ChatRound } from '../../core/chat';
import type { PromptStyle } from '../../core/prompt';
import { estimateTokens } from '../../llm/tokens';
import type { ChatSettingsRecord } from '../../store/schema';
import type { RetrievalResult } from '../../workers/retrieval-types';
import {
  chatPromptParts,
  contextBudget,
  planMessage,
  type ChatPromptParts,
  type ContextBudget,
} from './memory';
import type { VectorCache } from './vectors';

export interface PlannerDeps {
  /** Round vectors for dense scoring; null: BM25 only. */
  vectors: VectorCache | null;
  /** The retrieval worker's scores of the linked documents for a query. */
  queryLibrary: (query: string, docIds: string[], signal?: AbortSignal) => Promise<RetrievalResult>;
  /** A document's source text (for the fragments' text in the prompt). */
  sourceOf: (docId: string) => Promise<string | undefined>;
}

export interface MemoryRequest {
  /** The rounds before the message, oldest first. */
  rounds: readonly ChatRound[];
  message: string;
  settings: ChatSettingsRecord;
  /** Linked library documents (indexed ones); empty for a standalone chat. */
  docIds: readonly string[];
  contextLimit: number;
  answerTokens: number;
  style: PromptStyle;
}

export interface MemoryView {
  plan: ChatMemoryPlan;
  budget: ContextBudget;
  /** The library's retrieval and the text of its documents, when the chat draws on it. */
  documents: { result: RetrievalResult; sources: Map<string, string> } | null;
  parts: ChatPromptParts;
  /** Something went wrong on the way and was worked around (shown in the panel). */
  notes: string[];
}

/** Counts tokens for planning as the engines' estimate does (llm/tokens.ts). */
export const countTokens = estimateTokens;

export async function prepareMemory(
  deps: PlannerDeps,
  request: MemoryRequest,
  signal?: AbortSignal,
): Promise<MemoryView> {
  const { rounds, message } = request;
  const notes: string[] = [];
  let settings = request.settings;
  const budget = contextBudget(
    request.contextLimit,
    request.answerTokens,
    message,
    request.style,
    countTokens,
  );
  const query = memoryQuery(rounds, message);

  let vectors: Awaited<ReturnType<VectorCache['vectors']>> | undefined;
  const scoring = settings.scoring ?? 'auto';
  if (rounds.length > 0 && scoring !== 'bm25' && deps.vectors) {
    try {
      vectors = await deps.vectors.vectors(rounds.map(roundText), query, signal);
    } catch (e) {
      if (signal?.aborted) throw e;
      notes.push(
        `The word vectors could not be loaded (${(e as Error).message}); rounds were scored by BM25.`,
      );
    }
  }
  // Without vectors (no rounds yet, or none to be had) rounds can only be scored by BM25.
  if (!vectors && settings.scoring !== undefined && settings.scoring !== 'auto') {
    settings = { ...settings, scoring: 'bm25' };
  }

  let documents: MemoryView['documents'] = null;
  if (request.docIds.length > 0) {
    try {
      const result = await deps.queryLibrary(query, [...request.docIds], signal);
      const sources = new Map<string, string>();
      for (const d of result.documents) {
        const text = await deps.sourceOf(d.docId);
        if (text !== undefined) sources.set(d.docId, text);
      }
      documents = { result, sources };
    } catch (e) {
      if (signal?.aborted) throw e;
      notes.push(`The library could not be searched (${(e as Error).message}); chat memory only.`);
    }
  }

  const plan = planMessage({
    rounds,
    message,
    settings,
    budget: budget.recall,
    countTokens,
    vectors,
    documents: documents?.result,
  });
  const parts = chatPromptParts(plan, rounds, message, documents ?? undefined);
  return { plan, budget, documents, parts, notes };
}
