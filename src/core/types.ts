/**
 * @file Shared types of the FragRel core. Everything here is plain data: typed arrays and
 * objects that cross worker boundaries and go into IndexedDB unchanged.
 */

/** How a text is split into fragments (DESIGN.md section 2, "Defaults by text type"). */
/** Progress of a long task: `done` of `total` units of `stage`. `done` never decreases within a stage. */
export interface Progress {
  stage: string;
  done: number;
  total: number;
}

export type TextKind = 'prose' | 'code' | 'chat';

/**
 * A fragment c_i of a document: a span of the document's source text.
 * `source.slice(start, end)` is its text. Prose and chat fragments tile the source without gaps
 * or overlap; code windows overlap (20 lines sliding by 10).
 */
export interface Fragment {
  /** Document the fragment belongs to. Relations never cross documents. */
  docId: string;
  /** Position of the fragment in its document, 0-based: `loc` in Eq. 7. */
  ordinal: number;
  /** Character span in the document's source text, half-open [start, end). */
  start: number;
  end: number;
  /** Optional structural label shown to people: chapter, page, `file:12-31`, `turn 4`. */
  label?: string;
  /** Whitespace-separated words in the span: the splitters' size unit and a ready budget cost. */
  words?: number;
}

/**
 * Fragment vectors, row-major: row i is `data.subarray(i * dim, (i + 1) * dim)`.
 * Rows are L2-normalised (an all-zero row stands for a fragment with no known words).
 */
export interface VectorSet {
  dim: number;
  count: number;
  data: Float32Array;
}

/**
 * A sparse relation in CSR form: the weights w[i][j] of row i are
 * `weight[rowPtr[i] .. rowPtr[i + 1]]` at columns `col[...]`. w[i][i] is never stored.
 */
export interface CsrMatrix {
  size: number;
  rowPtr: Uint32Array;
  col: Uint32Array;
  weight: Float32Array;
}

/** One related fragment's part in another fragment's environment score. */
export interface Contribution {
  /** Index of the contributing fragment j. */
  index: number;
  /** w[i][j]. */
  weight: number;
  /** w[i][j] * s_ind[j] / sum_j w[i][j]: its additive part of s_env[i]. */
  amount: number;
  /** amount / s_env[i] (0 when s_env[i] is 0): its share of the environment score. */
  share: number;
}

/**
 * A relation kind over the fragments of one retrieval run (Eq. 5). Implemented by the
 * context-structure relation (implicit, Eq. 7), the semantic relation (sparse kNN, Eq. 6) and,
 * later, the code-structure and chat relations.
 */
export interface Relation {
  /** Stable name of the kind: 'context' | 'semantic' | 'code' | ... */
  readonly kind: string;
  /** Number of fragments N the relation is defined over. */
  readonly size: number;
  /** Eq. 9 for every fragment: s_env[i] = sum_j w[i][j] s_ind[j] / sum_j w[i][j], 0 for an empty row. */
  environmentScores(independent: Float64Array, out?: Float64Array): Float64Array;
  /** The `limit` largest contributions to s_env[i], largest first. */
  contributions(i: number, independent: Float64Array, limit: number): Contribution[];
}

/** Scores of one retrieval run, all of length N. */
export interface ScoreSet {
  /** Eq. 4. */
  independent: Float64Array;
  /** Eq. 9 per relation kind, keyed by `Relation.kind`. */
  environmentByKind: Record<string, Float64Array>;
  /** Combined environment score used in Eq. 10. */
  environment: Float64Array;
  /** Eq. 10: s_rel = s_ind + alpha * s_env. */
  final: Float64Array;
}

/** Why a fragment was selected: its three scores and what made up its environment score. */
export interface Explanation {
  index: number;
  /** Rank by final score, 0-based. */
  rank: number;
  independent: number;
  environment: number;
  final: number;
  /** Per relation kind: that kind's s_env[i] and its largest contributions. */
  byKind: Record<string, { environment: number; contributions: Contribution[] }>;
}

/** The outcome of Eq. 11. */
export interface Selection {
  /** Selected fragment indices in document order (chat: chronological). */
  indices: Uint32Array;
  /** Selected fragment indices in descending final score. */
  ranked: Uint32Array;
  /** Cost (tokens or words, as the caller measured) of the selected fragments. */
  used: number;
  budget: number;
  /** Rank by final score (0-based, over all N) of each entry of `ranked`. */
  ranks?: Uint32Array;
}

/** Everything one run of FragRel produces (`retrieve` in fragrel.ts). */
export interface Retrieval {
  scores: ScoreSet;
  selection: Selection;
  /** One per selected fragment, in rank order. */
  explanations: Explanation[];
}
