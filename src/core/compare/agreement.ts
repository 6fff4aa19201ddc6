/**
 * @file Agreement at a glance: which fragments every compared pipeline used, which only one did,
 * and how much each pair's sets overlap (Jaccard: |A ∩ B| / |A ∪ B|).
 */

export interface Agreement<K extends string> {
  /** Columns that took part (the finished ones given). */
  columns: K[];
  /** Fragments every column used (empty with fewer than two columns), ascending. */
  byAll: number[];
  /** Fragments exactly one column used, per column, ascending. */
  byOnly: Record<string, number[]>;
  /** How many columns used each fragment that any column used. */
  count: Map<number, number>;
  /** Jaccard overlap of every pair of columns, in column order (i < j). */
  pairs: Array<{ a: K; b: K; jaccard: number; shared: number }>;
}

/**
 * `used`: per column, the fragments it used (fragmentsUsed). Give only the columns that finished:
 * a failed or stopped run used nothing and would empty `byAll`.
 */
export function agreementOf<K extends string>(
  used: ReadonlyArray<{ column: K; fragments: readonly number[] }>,
): Agreement<K> {
  const count = new Map<number, number>();
  const owner = new Map<number, K>();
  const sets = used.map((u) => new Set(u.fragments));
  used.forEach((u, k) => {
    for (const f of sets[k]) {
      count.set(f, (count.get(f) ?? 0) + 1);
      owner.set(f, u.column);
    }
  });
  const byOnly: Record<string, number[]> = {};
  for (const u of used) byOnly[u.column] = [];
  const byAll: number[] = [];
  for (const [f, n] of [...count].sort((a, b) => a[0] - b[0])) {
    if (n === 1) byOnly[owner.get(f)!].push(f);
    if (used.length >= 2 && n === used.length) byAll.push(f);
  }
  const pairs: Agreement<K>['pairs'] = [];
  for (let i = 0; i < used.length; i++)
    for (let j = i + 1; j < used.length; j++) {
      let shared = 0;
      for (const f of sets[i]) if (sets[j].has(f)) shared++;
      const union = sets[i].size + sets[j].size - shared;
      pairs.push({
        a: used[i].column,
        b: used[j].column,
        shared,
        jaccard: union ? shared / union : 1,
      });
    }
  return { columns: used.map((u) => u.column), byAll, byOnly, count, pairs };
}
