/**
 * @file What the retrieval worker answers for one question: everything the visual panel draws.
 * Plain data (typed arrays) so it crosses from the worker as transferred buffers.
 */
import type { Contribution } from '../core/types';

export type ScoringMode = 'dense' | 'bm25' | 'hybrid';
export type RelationKind = 'context' | 'semantic';

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
}

/** One document's block of fragments in a run: fragments [offset, offset + count). */
export interface RunDocument {
  docId: string;
  name: string;
  offset: number;
  count: number;
}

export interface FragmentExplanation {
  index: number;
  rank: number;
  independent: number;
  environment: number;
  final: number;
  byKind: Record<string, { environment: number; contributions: Contribution[] }>;
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
  labels: string[];
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
  settings: RetrievalSettings;
  timings: { independentMs: number; rerankMs: number };
}
