/**
 * @file Identifier weighting of the code relation, as repository maps do (Aider ranks
 * definitions by PageRank over a reference graph whose edges weigh more for rarer, more
 * specific names and for names referenced from many places). Applied to Eq. 8's stored rows
 * afterwards, as a per-edge factor, so the relation's build (relation.ts) is untouched:
 *
 *   w'[i][j] = w[i][j] · (1 + β a[i][j]) · (1 + γ ln(1 + refs[j]))
 *
 *   a[i][j] = Σ_{t ∈ I_i ∩ I_j} idf(t) / Σ_{t ∈ I_i} idf(t)      (shared identifiers, IDF-weighted)
 *   idf(t)  = ln(N / df(t))                                        (df: windows that mention t)
 *   refs[j] = windows other than j that mention a name defined in j (its reference count)
 *
 * I_i: the identifiers of window i (whole names, as written, at least 3 characters, language
 * keywords included but weightless: they are in nearly every window, so idf ≈ 0). β = 0 and
 * γ = 0 give Eq. 8 unchanged. Eq. 9 and the PageRank transition rows normalise each row, so only
 * the relative factors within a row matter.
 */
import type { CsrMatrix } from '../types';

export interface IdentifierWeightOptions {
  /** β: weight of the shared-identifier term. */
  shared: number;
  /** γ: weight of the reference-count term. */
  references: number;
}

export const IDENTIFIER = /[A-Za-z_$][A-Za-z0-9_$]{2,}/g;

/** The identifiers of a window's text (whole names, ≥ 3 characters). */
export function identifiersOf(text: string): Set<string> {
  return new Set(text.match(IDENTIFIER) ?? []);
}

export interface IdentifierStats {
  idf: Map<string, number>;
  /** refs[j]: windows other than j that mention a name defined in window j. */
  refs: Float64Array;
}

/**
 * IDF over the windows and reference counts of each window's definitions. `defined[j]` are the
 * names whose definitions start in window j (from the code graph's definition nodes).
 */
export function identifierStats(
  identifiers: readonly ReadonlySet<string>[],
  defined: readonly ReadonlySet<string>[],
): IdentifierStats {
  const n = identifiers.length;
  if (defined.length !== n) {
    throw new Error(`FragRel: ${defined.length} definition sets for ${n} windows.`);
  }
  const mentions = new Map<string, number[]>();
  identifiers.forEach((ids, i) => {
    for (const t of ids) {
      let list = mentions.get(t);
      if (!list) mentions.set(t, (list = []));
      list.push(i);
    }
  });
  const idf = new Map<string, number>();
  for (const [t, list] of mentions) idf.set(t, Math.log(n / list.length));
  const refs = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    const from = new Set<number>();
    for (const name of defined[j])
      for (const i of mentions.get(name) ?? []) if (i !== j) from.add(i);
    refs[j] = from.size;
  }
  return { idf, refs };
}

/** Eq. 8's rows with each weight multiplied by the identifier factor above (a new matrix). */
export function weightByIdentifiers(
  m: CsrMatrix,
  identifiers: readonly ReadonlySet<string>[],
  stats: IdentifierStats,
  options: IdentifierWeightOptions,
): CsrMatrix {
  if (identifiers.length !== m.size) {
    throw new Error(`FragRel: ${identifiers.length} identifier sets for ${m.size} windows.`);
  }
  const { idf, refs } = stats;
  const mass = identifiers.map((ids) => {
    let s = 0;
    for (const t of ids) s += idf.get(t) ?? 0;
    return s;
  });
  const weight = new Float32Array(m.weight.length);
  for (let i = 0; i < m.size; i++) {
    const mine = identifiers[i];
    for (let p = m.rowPtr[i]; p < m.rowPtr[i + 1]; p++) {
      const j = m.col[p];
      let shared = 0;
      if (options.shared > 0 && mass[i] > 0) {
        // Iterate the smaller set.
        const [a, b] =
          mine.size <= identifiers[j].size ? [mine, identifiers[j]] : [identifiers[j], mine];
        for (const t of a) if (b.has(t)) shared += idf.get(t) ?? 0;
        shared /= mass[i];
      }
      weight[p] =
        m.weight[p] *
        (1 + options.shared * shared) *
        (1 + options.references * Math.log1p(refs[j]));
    }
  }
  return { size: m.size, rowPtr: m.rowPtr, col: m.col, weight };
}
