/**
 * @file What the chat's memory is computed with: the planner's dependencies (the static vectors
 * that score earlier rounds, the retrieval worker that scores linked documents with the Ask
 * view's settings, the documents' texts), the key that names one computation, and the bounded
 * cache of computed entries the memory panel shows (ChatView.tsx).
 */
import { useMemo, useRef } from 'react';
import type { Library } from '../../store';
import type { Caller } from '../../workers/client';
import type { RetrievalApi } from '../../workers/retrieval.worker';
import type { RetrievalSettings } from '../../workers/retrieval-types';
import { embedderSpec, type IndexSettings } from '../library-service';
import type { MemoryEntry } from './MemoryPanel';
import type { MemoryRequest, PlannerDeps } from './planner';
import { staticVectorCache } from './vectors';

/**
 * Identity of a memory computation: the same inputs give the same plan. `library` names how
 * linked documents are scored (the Ask view's settings), '' for a standalone chat.
 */
export function memoryKey(
  chatId: string,
  round: number,
  request: MemoryRequest,
  library: string,
): string {
  return JSON.stringify([
    chatId,
    round,
    library,
    request.message,
    request.settings,
    request.docIds,
    request.contextLimit,
    request.answerTokens,
    request.style,
  ]);
}

const MAX_ENTRIES = 40;

export function withEntry(
  entries: ReadonlyMap<string, MemoryEntry>,
  key: string,
  entry: MemoryEntry,
): Map<string, MemoryEntry> {
  const next = new Map(entries);
  next.delete(key);
  next.set(key, entry);
  while (next.size > MAX_ENTRIES) next.delete(next.keys().next().value!);
  return next;
}

/**
 * The planner's dependencies, and `scoringKey`: how linked documents are scored (a memory
 * computed under other settings is computed again).
 */
export function useMemoryPlanner(
  library: Library,
  retrieval: Caller<RetrievalApi>,
  indexSettings: IndexSettings,
  retrievalSettings: RetrievalSettings,
): { deps: PlannerDeps; scoringKey: string } {
  const sources = useRef(new Map<string, Promise<string | undefined>>());
  const vectors = useMemo(() => staticVectorCache(), []);
  const deps: PlannerDeps = useMemo(
    () => ({
      vectors,
      queryLibrary: (query, docIds, signal) =>
        retrieval.call(
          'query',
          {
            question: query,
            docIds,
            embedder: embedderSpec(indexSettings),
            semanticK: indexSettings.semanticK,
            settings: retrievalSettings,
          },
          { signal },
        ),
      sourceOf: (docId) => {
        let text = sources.current.get(docId);
        if (!text) {
          text = library.getSource(docId);
          text.catch(() => sources.current.delete(docId));
          sources.current.set(docId, text);
        }
        return text;
      },
    }),
    [vectors, retrieval, indexSettings, retrievalSettings, library],
  );

  const scoringKey = useMemo(
    () => JSON.stringify([embedderSpec(indexSettings), indexSettings.semanticK, retrievalSettings]),
    [indexSettings, retrievalSettings],
  );
  return { deps, scoringKey };
}
