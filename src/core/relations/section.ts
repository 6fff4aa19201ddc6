/**
 * @file The section relation: fragments of the same section (chapter, heading) are related.
 * Ingest finds the sections (src/ingest/text.ts, epub.ts, pdf.ts) and every fragment carries the
 * title of the innermost section holding its start (core/sections.ts `labelFragments`). A
 * section here is a maximal run of consecutive fragments of one document with the same non-empty
 * label; fragments without a label relate to nothing (an empty row: Eq. 9 gives 0).
 *
 * Weights, for i != j in the same section k (|k| fragments):
 *
 *   uniform:  w[i][j] = 1             so  s_env[i] = (Σ_{j ∈ k} s_ind[j] − s_ind[i]) / (|k| − 1)
 *   decay d:  w[i][j] = d^|i − j|     (Eq. 7's kernel, cut at section boundaries)
 *
 * Uniform is O(N) through one sum per section; the decay form reuses the context relation's
 * exact recursions with the sections as segments.
 */
import type { Contribution, Relation } from '../types';
import { contextRelation } from './context';
import { toSegments } from './segments';

export interface SectionOptions {
  /** null: every fragment of the section weighs 1; a number d in (0, 1]: w = d^|i-j|. */
  decay: number | null;
}

export const defaultSectionOptions: Readonly<SectionOptions> = Object.freeze({ decay: null });

/**
 * Section id of each fragment: a new id wherever the label changes or a document starts; -1 for
 * a fragment with an empty label. `segments` are the run's document boundaries [0, ..., N].
 */
export function sectionIds(segments: ArrayLike<number>, labels: readonly string[]): Int32Array {
  const seg = toSegments(segments);
  const size = seg[seg.length - 1];
  if (labels.length !== size) {
    throw new Error(`FragRel: ${labels.length} section labels for ${size} fragments.`);
  }
  const ids = new Int32Array(size).fill(-1);
  let next = 0;
  for (let d = 0; d + 1 < seg.length; d++) {
    let prev: string | null = null;
    for (let i = seg[d]; i < seg[d + 1]; i++) {
      const label = labels[i] ?? '';
      if (!label) {
        prev = null;
        continue;
      }
      if (label !== prev) next++;
      ids[i] = next - 1;
      prev = label;
    }
  }
  return ids;
}

/** The sections as segments [0, ..., N] (a fragment without a section is a segment of its own). */
function sectionSegments(ids: Int32Array): Uint32Array {
  const out = [0];
  for (let i = 1; i < ids.length; i++) {
    if (ids[i] < 0 || ids[i] !== ids[i - 1]) out.push(i);
  }
  if (ids.length > 0) out.push(ids.length);
  return Uint32Array.from(out);
}

/** The section relation over fragments with the given section ids (sectionIds). */
export function sectionRelation(
  ids: Int32Array,
  options: Partial<SectionOptions> = {},
): Relation & { readonly kind: 'section' } {
  const o = { ...defaultSectionOptions, ...options };
  const size = ids.length;
  if (o.decay !== null) {
    if (!(o.decay > 0 && o.decay <= 1)) {
      throw new Error(`FragRel: the section decay must lie in (0, 1], got ${o.decay}.`);
    }
    const inner = contextRelation(sectionSegments(ids), o.decay);
    return {
      kind: 'section',
      size,
      environmentScores: (independent, out) => inner.environmentScores(independent, out),
      contributions: (i, independent, limit) => inner.contributions(i, independent, limit),
    };
  }
  // Members of each section, for the sums and the explanations.
  let sections = 0;
  for (let i = 0; i < size; i++) if (ids[i] + 1 > sections) sections = ids[i] + 1;
  const count = new Uint32Array(sections);
  for (let i = 0; i < size; i++) if (ids[i] >= 0) count[ids[i]]++;
  const check = (independent: Float64Array) => {
    if (independent.length !== size) {
      throw new Error(`FragRel: ${independent.length} scores for a section relation of ${size}.`);
    }
  };
  return {
    kind: 'section',
    size,
    environmentScores(independent, out = new Float64Array(size)) {
      check(independent);
      const sum = new Float64Array(sections);
      for (let i = 0; i < size; i++) if (ids[i] >= 0) sum[ids[i]] += independent[i];
      for (let i = 0; i < size; i++) {
        const k = ids[i];
        out[i] = k >= 0 && count[k] > 1 ? (sum[k] - independent[i]) / (count[k] - 1) : 0;
      }
      return out;
    },
    contributions(i, independent, limit): Contribution[] {
      check(independent);
      const k = ids[i];
      if (k < 0 || count[k] < 2) return [];
      // A section is a run of consecutive fragments: walk out from i both ways.
      let first = i;
      while (first > 0 && ids[first - 1] === k) first--;
      const all: Contribution[] = [];
      let env = 0;
      for (let j = first; j < size && ids[j] === k; j++) {
        if (j === i) continue;
        const amount = independent[j] / (count[k] - 1);
        env += amount;
        all.push({ index: j, weight: 1, amount, share: 0 });
      }
      for (const c of all) c.share = env !== 0 ? c.amount / env : 0;
      all.sort((a, b) => b.amount - a.amount || a.index - b.index);
      return all.slice(0, Math.max(0, Math.floor(limit)));
    },
  };
}
