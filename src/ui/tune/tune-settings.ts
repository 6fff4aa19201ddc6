/**
 * @file What Apply and Revert do to the retrieval settings, kept apart from the panel so it can
 * be tested without a DOM. A tuned configuration changes only what the tuner searched (relations,
 * alpha, w_rel); the scorer, query words and budget stay the user's.
 */
import type { TuneConfig } from '../../core/tune';
import type { RetrievalSettings } from '../../workers/retrieval-types';
import { usesWRel } from '../../core/relations/kinds';

/** Stored under the library setting `tuning` while a tuned configuration is applied. */
export interface AppliedTuning {
  /** The settings before Apply: what Revert restores. */
  previous: RetrievalSettings;
  /** The settings Apply set. */
  tuned: RetrievalSettings;
  /** The document it was tuned for, and when. */
  docName: string;
  at: string;
}

export const TUNING_SETTING = 'tuning';

/** The settings with the tuned relations, alpha and w_rel. */
export function withTuned(settings: RetrievalSettings, chosen: TuneConfig): RetrievalSettings {
  // Plain retrieval is alpha 0 with the relations kept as they were (the panel's own way to
  // switch the environment off), so Revert and the relation checkboxes keep their meaning.
  if (chosen.relations.length === 0 || chosen.alpha === 0) return { ...settings, alpha: 0 };
  return {
    ...settings,
    relations: [...chosen.relations],
    alpha: chosen.alpha,
    wRel: chosen.wRel,
  };
}

/** Whether two settings rank alike (same relations in any order, alpha, w_rel, scorer, budget). */
export function sameRanking(a: RetrievalSettings, b: RetrievalSettings): boolean {
  return (
    a.alpha === b.alpha &&
    a.wRel === b.wRel &&
    a.scoring === b.scoring &&
    a.budget === b.budget &&
    (a.queryWords ?? 'all') === (b.queryWords ?? 'all') &&
    a.relations.length === b.relations.length &&
    a.relations.every((r) => b.relations.includes(r))
  );
}

/** A tuning record read back from storage, or null when it is not one (never trusted blindly). */
export function asAppliedTuning(value: unknown): AppliedTuning | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Partial<AppliedTuning>;
  const ok = (s: unknown): s is RetrievalSettings =>
    typeof s === 'object' &&
    s !== null &&
    typeof (s as RetrievalSettings).alpha === 'number' &&
    typeof (s as RetrievalSettings).wRel === 'number' &&
    Array.isArray((s as RetrievalSettings).relations);
  if (!ok(v.previous) || !ok(v.tuned) || typeof v.docName !== 'string') return null;
  return { previous: v.previous, tuned: v.tuned, docName: v.docName, at: String(v.at ?? '') };
}

const ALPHA_WORDS = 'α';

/** "context + semantic, α 0.75, w_rel 0.3" (w_rel only where it shapes the relation). */
export function describeConfig(c: TuneConfig): string {
  if (c.relations.length === 0 || c.alpha === 0) return `plain retrieval (${ALPHA_WORDS} 0)`;
  const reach = usesWRel(c.relations);
  return `${c.relations.join(' + ')}, ${ALPHA_WORDS} ${c.alpha}${reach ? `, w_rel ${c.wRel}` : ''}`;
}
