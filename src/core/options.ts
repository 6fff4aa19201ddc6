/**
 * @file Every option of the FragRel core with its default, in one place. Names follow the
 * paper's symbols (alpha, wRel) where it has one. Defaults are the paper's settings
 * (DESIGN.md section 2); they are not tuned on our benchmark data.
 */

/** BM25 parameters (Eq. 4, sparse variant). */
export interface Bm25Params {
  /** Term-frequency saturation. Typical range 1.2-2.0. */
  k1: number;
  /** Length normalisation, 0 (none) to 1 (full). */
  b: number;
}
export const defaultBm25Params: Readonly<Bm25Params> = Object.freeze({ k1: 1.2, b: 0.75 });

/** Fragmenting (DESIGN.md section 2, defaults by text type). */
export interface FragmentOptions {
  /** Prose: target fragment length in words; fragments end at sentence boundaries. */
  wordsPerFragment: number;
  /** Code: lines per window. */
  windowLines: number;
  /** Code: lines the window slides by. */
  windowStride: number;
}
export const defaultFragmentOptions: Readonly<FragmentOptions> = Object.freeze({
  wordsPerFragment: 500,
  windowLines: 20,
  windowStride: 10,
});

/** FragRel scoring and selection (Eq. 7, 9, 10, 11). */
export interface FragRelOptions {
  /** Eq. 10: weight of the environment score in the final score. */
  alpha: number;
  /** Eq. 7: decay of the context-structure relation per fragment of distance. */
  wRel: number;
  /** Eq. 6 (as corrected): neighbours kept per fragment in the semantic relation. */
  semanticK: number;
  /** Eq. 11: context budget, in the unit the caller measures fragment costs in. */
  budget: number;
  /**
   * Weight of each relation kind in the combined environment score (a weighted mean over the
   * active kinds, see fragrel.ts). Kinds not listed weigh 1; weight 0 shows a kind without
   * letting it move the ranking.
   */
  relationWeights: Readonly<Record<string, number>>;
  /**
   * Eq. 11 when the next fragment by score does not fit the remaining budget: 'skip' it and try
   * the following ones (fills the budget), or 'stop' there (a strict prefix of the ranking).
   */
  overflow: 'skip' | 'stop';
  /** Eq. 11: at most this many fragments (code: top 10 windows, chat: top 8 turns). */
  maxSelected: number;
  /** Explanations: largest contributors listed per relation kind. */
  contributorsPerKind: number;
}
export const defaultFragRelOptions: Readonly<FragRelOptions> = Object.freeze({
  alpha: 0.5,
  wRel: 0.3,
  semanticK: 16,
  budget: 2000,
  relationWeights: Object.freeze({}),
  overflow: 'skip',
  maxSelected: Infinity,
  contributorsPerKind: 5,
});

/** Per text kind, the paper's defaults that differ from the book defaults above. */
export const defaultsByTextKind = Object.freeze({
  prose: { wRel: 0.3, alpha: 0.5 },
  code: { wRel: 0.3, alpha: 0.5, topWindows: 10 },
  chat: { wRel: 0.8, alpha: 0.5, topTurns: 8, memoryAfterTokens: 1000, memoryAfterRounds: 10 },
});

/**
 * Merge user options over defaults, refusing unknown keys so a typo never silently falls back
 * to a default.
 */
export function withDefaults<T extends object>(
  defaults: Readonly<T>,
  options: Partial<T> | undefined,
  what: string,
): T {
  if (options) {
    for (const key of Object.keys(options)) {
      if (!(key in defaults)) {
        throw new Error(
          `FragRel: unknown ${what} option "${key}". Known: ${Object.keys(defaults).join(', ')}.`,
        );
      }
    }
  }
  return { ...defaults, ...options } as T;
}

/** Hybrid independent score (Eq. 4, hybrid variant; see hybrid.ts for why this fusion). */
export interface HybridOptions {
  /**
   * Convex weight of the rescaled BM25 score; 1 - lambda goes to the clamped cosine.
   * 0.5 weighs both equally: both lie in [0, 1] and we have no tuning data that favours one.
   */
  lambda: number;
}
export const defaultHybridOptions: Readonly<HybridOptions> = Object.freeze({ lambda: 0.5 });
