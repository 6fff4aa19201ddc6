/**
 * @file Retrieval settings for repositories (DESIGN.md section 2, "Defaults by text type"): BM25
 * independent scores (dense optional), the multi-hop relation over the code-structure edges
 * weighted by reference counts (measured best on RepoEval, bench/repoeval.ts; the paper's code relation is
 * one click away), alpha 1,
 * the top 10 windows. Kept apart from the book settings, under their own key in the library.
 */
import { codeRelationKinds } from '../../core/relations/kinds';
import { defaultsByTextKind } from '../../core/options';
import { MEASURED_CODE_ALPHA } from '../../core/retrieval/presets';
import type { RelationKind, RetrievalSettings, ScoringMode } from '../../workers/retrieval-types';

export interface CodeSettings {
  /** Eq. 10 weight of the environment score. */
  alpha: number;
  /** Eq. 7 decay, when the context relation is on for code too. */
  wRel: number;
  scoring: ScoringMode;
  relations: RelationKind[];
  /** Eq. 11 by count: the windows handed to the model. */
  topWindows: number;
}

export const CODE_SETTINGS_KEY = 'code-retrieval';

export const defaultCodeSettings: Readonly<CodeSettings> = Object.freeze<CodeSettings>({
  // The measured preset's alpha (core/retrieval/presets.ts), not the paper's 0.5.
  alpha: MEASURED_CODE_ALPHA,
  wRel: defaultsByTextKind.code.wRel,
  scoring: 'bm25',
  // The multi-hop relation over the code relation's edges, weighted by the reference counts the
  // index stores (core/code/references.ts): the best idea on RepoEval's tune half, "ppr (code
  // graph) refs" (core/retrieval/presets.ts, BENCHMARKS.md); the paper's 'code' is one click away.
  relations: ['ppr'],
  topWindows: defaultsByTextKind.code.topWindows,
});

/** Stored settings, checked field by field (an older or damaged record falls back per field). */
export function normalizeCodeSettings(stored: unknown): CodeSettings {
  const s = (stored && typeof stored === 'object' ? stored : {}) as Partial<CodeSettings>;
  const d = defaultCodeSettings;
  const num = (v: unknown, lo: number, hi: number, fallback: number) =>
    typeof v === 'number' && v >= lo && v <= hi ? v : fallback;
  return {
    alpha: num(s.alpha, 0, 2, d.alpha),
    wRel: num(s.wRel, 0, 0.95, d.wRel),
    scoring: s.scoring === 'dense' || s.scoring === 'hybrid' ? s.scoring : 'bm25',
    relations: Array.isArray(s.relations)
      ? codeRelationKinds.filter((k) => s.relations!.includes(k))
      : [...d.relations],
    topWindows: Math.round(num(s.topWindows, 1, 50, d.topWindows)),
  };
}

/**
 * The retrieval worker's settings for a code run: selection by count, so no word budget. A
 * question in words is scored on its content words: its function and question words ("how does
 * a … whether … it") match comments and prose (a README, a heavily commented file) more than the
 * code that answers it. A completion's query is code, scored whole, as RepoEval measured it.
 */
export function retrievalSettingsOf(
  settings: CodeSettings,
  kind: 'question' | 'completion' = 'completion',
): RetrievalSettings {
  return {
    alpha: settings.alpha,
    wRel: settings.wRel,
    relations: settings.relations,
    scoring: settings.scoring,
    budget: Infinity,
    ...(kind === 'question' ? { queryWords: 'content' as const } : {}),
  };
}
