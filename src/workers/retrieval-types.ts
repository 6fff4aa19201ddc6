/**
 * @file What the retrieval worker answers for one question: everything the visual panel draws.
 * Plain data (typed arrays) so it crosses from the worker as transferred buffers.
 */
import { defaultCodeRelationOptions, type CodeRelationOptions } from '../core/code/options';
import type { Explanation } from '../core/types';

export type ScoringMode = 'dense' | 'bm25' | 'hybrid';
import type { RelationKind } from '../core/relations/kinds';

export type { RelationKind };

/**
 * The parameters a repository's code relation (Eq. 8) is stored under: the same repository
 * indexed with another threshold or cap is another relation record.
 */
export function codeRelationParams(options: CodeRelationOptions = defaultCodeRelationOptions): {
  threshold: number;
  maxPerRow: number;
} {
  return { threshold: options.threshold, maxPerRow: options.maxPerRow };
}

/** Lines before the cursor that make a completion's query (RepoCoder's last 20 lines). */
export const COMPLETION_QUERY_LINES = 20;

/**
 * Where a completion is asked: a file of a repository and the line the completion starts at
 * (1-based; the text before the cursor is lines 1 .. line - 1). The windows overlapping lines
 * [line - COMPLETION_QUERY_LINES, line] hold the cursor or repeat the query, and are kept out
 * of the ranking.
 */
export interface CompletionCursor {
  docId: string;
  path: string;
  line: number;
}

export interface RetrievalSettings {
  /** Eq. 10 weight of the environment score. */
  alpha: number;
  /** Eq. 7 decay of the context relation. */
  wRel: number;
  /** Active relation kinds. */
  relations: RelationKind[];
  /** How the independent score (Eq. 4) is computed. */
  scoring: ScoringMode;
  /** Context budget in words (Eq. 11). */
  budget: number;
  /**
   * Query terms for BM25 and the query embedding: 'content' drops function and question words
   * (core/retrieval/query.ts); absent means 'all'.
   */
  queryWords?: 'all' | 'content';
}

/** One document's block of fragments in a run: fragments [offset, offset + count). */
export interface RunDocument {
  docId: string;
  name: string;
  offset: number;
  count: number;
  /**
   * A repository: whether its multi-hop walk weights the code edges by reference counts (false:
   * indexed before they were stored, so the walk is unweighted; core/code/references.ts).
   */
  referenceWeighted?: boolean;
  /**
   * A repository: whether BM25 reads its windows with their scope names (false: indexed before
   * they were stored, so BM25 reads the windows' text alone; core/code/scopes.ts).
   */
  scopeNames?: boolean;
}

/**
 * The document whose block of fragments [offset, offset + count) holds fragment `index` of a run
 * (a RetrievalResult, or the core's Run): the one lookup of which document a fragment is in.
 */
export function documentOf<D extends { offset: number; count: number }>(
  run: { readonly documents: readonly D[] },
  index: number,
): D | undefined {
  return run.documents.find((d) => index >= d.offset && index < d.offset + d.count);
}

/** A fragment's three scores and the contributors to its environment score (core's Explanation). */
export type FragmentExplanation = Explanation;

/** Selected code windows of one file merged into one span of lines. */
export interface RetrievalSpan {
  docId: string;
  path: string;
  first: number;
  last: number;
  start: number;
  end: number;
  /** Member windows (run indices), ascending; `best` the best-ranked of them, `rank` its rank. */
  windows: number[];
  best: number;
  rank: number;
}

export interface RetrievalResult {
  question: string;
  /** Query terms after tokenizing, for highlighting in the reader. */
  queryTerms: string[];
  documents: RunDocument[];
  /** Per fragment of the run (length N): document-local ordinal, span and label. */
  starts: Uint32Array;
  ends: Uint32Array;
  /** Word counts, the cost unit of the budget. */
  costs: Uint32Array;
  /** Empty when `labelsOmitted`: the caller's earlier result of this `layout` holds them. */
  labels: string[];
  /** The run's identity: the same documents, windows and labels while it is unchanged. */
  layout?: string;
  /** The labels were left out because the request named this `layout` (QueryRequest.layout). */
  labelsOmitted?: boolean;
  independent: Float64Array;
  environmentByKind: Record<string, Float64Array>;
  environment: Float64Array;
  final: Float64Array;
  /** Selected (Eq. 11) in document order, and the same set by rank. */
  selected: Uint32Array;
  selectedRanked: Uint32Array;
  /** The top fragments by final score (selected or not), for the ranked list. */
  top: Uint32Array;
  /** Explanations for every fragment in `top`, keyed by fragment index. */
  explanations: Record<number, FragmentExplanation>;
  /** Final score of the last selected fragment: the budget line on the strip. */
  cutoff: number;
  used: number;
  budget: number;
  /** Eq. 11 by count (code: the top 10 windows); absent when the budget alone decides. */
  maxSelected?: number;
  /** Fragments kept out of the ranking (a completion's cursor windows), ascending; absent when none. */
  excluded?: Uint32Array;
  /**
   * Code with merged windows: the selected windows merged per file (what the prompt quotes; char
   * span [start, end) of the document's source), and the windows left out as repeats of a
   * selected one. `used`/`budget` then count lines.
   */
  spans?: RetrievalSpan[];
  repeats?: Record<number, number>;
  settings: RetrievalSettings;
  timings: { independentMs: number; rerankMs: number };
  /** The independent scorer used: `settings.scoring`, or BM25 when the embedder had no vectors. */
  scoredBy?: ScoringMode;
  /** Why `scoredBy` differs from `settings.scoring`, for the reader. */
  scoringNotice?: string;
}
