/**
 * @file FragRel scoring and selection: environment scores (Eq. 9) per relation kind and
 * combined, relation-aware scores (Eq. 10), selection under a budget (Eq. 11), and the
 * explanations the UI shows. Independent scores (Eq. 4) come in from bm25.ts, vectors.ts or
 * hybrid.ts; relations from relations/.
 */
import { RankHeap } from './heap';
import { defaultFragRelOptions, withDefaults, type FragRelOptions } from './options';
import type { Explanation, Relation, Retrieval, ScoreSet, Selection } from './types';

export interface EnvironmentScores {
  /** Eq. 9 per relation kind. */
  byKind: Record<string, Float64Array>;
  /** The combined s_env used in Eq. 10 (its own array, never one of `byKind`'s). */
  combined: Float64Array;
}

/**
 * Eq. 9 for every relation, and their combination
 *
 *   s_env[i] = sum_k beta_k s_env_k[i] / sum_k beta_k   over kinds with beta_k > 0,
 *
 * a weighted mean (beta_k = `relationWeights[kind]`, default 1). A mean rather than a sum keeps
 * s_env on the scale of s_ind however many kinds are on, so alpha in Eq. 10 keeps its meaning
 * when a kind is switched on or off; with one kind it is exactly that kind's Eq. 9. With no
 * active kind s_env is 0 and Eq. 10 gives plain retrieval.
 *
 * `into`: arrays of an earlier call over the same N to overwrite instead of allocating (a
 * worker re-ranking as the user drags a slider); arrays of the wrong length are replaced.
 */
export function environmentScores(
  relations: readonly Relation[],
  independent: Float64Array,
  relationWeights: Readonly<Record<string, number>> = {},
  into?: EnvironmentScores,
): EnvironmentScores {
  const n = independent.length;
  const reuse = (a: unknown) =>
    a instanceof Float64Array && a.length === n ? a : new Float64Array(n);
  const byKind: Record<string, Float64Array> = {};
  // Own keys only: a kind named like an Object.prototype member ("constructor") must not
  // pick up inherited values.
  const own = <T>(record: Readonly<Record<string, T>> | undefined, key: string) =>
    record && Object.hasOwn(record, key) ? record[key] : undefined;
  const combined = reuse(into?.combined);
  const active: { env: Float64Array; beta: number }[] = [];
  let weightSum = 0;
  for (const relation of relations) {
    if (Object.hasOwn(byKind, relation.kind)) {
      throw new Error(
        `FragRel: two relations of kind "${relation.kind}"; give each kind one relation.`,
      );
    }
    const beta = own(relationWeights, relation.kind) ?? 1;
    if (!(beta >= 0 && beta < Infinity)) {
      throw new Error(
        `FragRel: the weight of relation "${relation.kind}" must be a finite number >= 0, got ${beta}.`,
      );
    }
    const env = relation.environmentScores(independent, reuse(own(into?.byKind, relation.kind)));
    byKind[relation.kind] = env;
    if (beta > 0) {
      active.push({ env, beta });
      weightSum += beta;
    }
  }
  if (active.length === 0) {
    combined.fill(0);
  } else if (active.length === 1) {
    // The weighted mean of one kind is that kind, bit for bit.
    combined.set(active[0].env);
  } else {
    combined.fill(0);
    for (const { env, beta } of active) {
      const f = beta / weightSum;
      for (let i = 0; i < n; i++) combined[i] += f * env[i];
    }
  }
  return { byKind, combined };
}

/** Eq. 10: s_rel[i] = s_ind[i] + alpha s_env[i]. alpha = 0 leaves s_ind exactly. */
export function relationAwareScores(
  independent: Float64Array,
  environment: Float64Array,
  alpha: number,
  out: Float64Array = new Float64Array(independent.length),
): Float64Array {
  if (!(alpha >= 0 && alpha < Infinity)) {
    throw new Error(`FragRel: alpha must be a finite number >= 0, got ${alpha}.`);
  }
  if (environment.length !== independent.length) {
    throw new Error(
      `FragRel: ${independent.length} independent but ${environment.length} environment scores.`,
    );
  }
  for (let i = 0; i < independent.length; i++) out[i] = independent[i] + alpha * environment[i];
  return out;
}

export type SelectionOptions = Pick<FragRelOptions, 'overflow' | 'maxSelected'>;

/**
 * Eq. 11: take fragments in descending final score (ties to the lower index) while they fit
 * in `budget`, measured in the caller's cost unit (words or tokens per fragment).
 *
 * A fragment that does not fit the remaining budget is skipped and the next ones are tried
 * (`overflow: 'skip'`, default): with fragments of unequal size (a chapter's short last
 * fragment, code windows, chat turns) it fills the budget the paper means to fill, and it never
 * lets a lower-scored fragment in ahead of a higher one that fits. `overflow: 'stop'` ends at
 * the first misfit instead, so the selection is always a prefix of the ranking.
 *
 * O(N) heapify plus O(log N) per fragment looked at; the search ends as soon as the rest of
 * the budget is below the cheapest fragment. Returns the set in document order and by rank.
 */
export function selectByBudget(
  final: Float64Array,
  costs: ArrayLike<number>,
  budget: number,
  options?: Partial<SelectionOptions>,
): Selection {
  const { overflow, maxSelected } = withDefaults(
    { overflow: defaultFragRelOptions.overflow, maxSelected: defaultFragRelOptions.maxSelected },
    options,
    'selection',
  );
  const n = final.length;
  if (costs.length !== n) {
    throw new Error(`FragRel: ${n} scores but ${costs.length} fragment costs.`);
  }
  if (!(budget >= 0)) {
    throw new Error(`FragRel: the budget must be a number >= 0, got ${budget}.`);
  }
  if (!(maxSelected >= 0)) {
    throw new Error(`FragRel: maxSelected must be a number >= 0, got ${maxSelected}.`);
  }
  let cheapest = Infinity;
  for (let i = 0; i < n; i++) {
    const c = costs[i];
    if (!(c >= 0 && c < Infinity)) {
      throw new Error(`FragRel: fragment ${i} has cost ${c}; costs must be finite and >= 0.`);
    }
    if (c < cheapest) cheapest = c;
  }

  const heap = new RankHeap(final);
  const picked: number[] = [];
  const pickedRanks: number[] = [];
  let used = 0;
  for (let rank = 0; heap.size > 0 && picked.length < maxSelected; rank++) {
    // Same expression as the fit test below, so rounding cannot end the search early.
    if (used + cheapest > budget) break;
    const i = heap.pop();
    if (used + costs[i] <= budget) {
      picked.push(i);
      pickedRanks.push(rank);
      used += costs[i];
    } else if (overflow === 'stop') {
      break;
    }
  }
  const ranked = Uint32Array.from(picked);
  return {
    indices: ranked.slice().sort(),
    ranked,
    used,
    budget,
    ranks: Uint32Array.from(pickedRanks),
  };
}

/** Why fragment i scores as it does: its three scores and, per kind, its top contributors. */
export function explain(
  i: number,
  rank: number,
  scores: ScoreSet,
  relations: readonly Relation[],
  contributorsPerKind: number = defaultFragRelOptions.contributorsPerKind,
): Explanation {
  const byKind: Explanation['byKind'] = {};
  for (const relation of relations) {
    byKind[relation.kind] = {
      environment: Object.hasOwn(scores.environmentByKind, relation.kind)
        ? scores.environmentByKind[relation.kind][i]
        : 0,
      contributions: relation.contributions(i, scores.independent, contributorsPerKind),
    };
  }
  return {
    index: i,
    rank,
    independent: scores.independent[i],
    environment: scores.environment[i],
    final: scores.final[i],
    byKind,
  };
}

/** Explanations of the selected fragments, in rank order. */
export function explainSelection(
  selection: Selection,
  scores: ScoreSet,
  relations: readonly Relation[],
  contributorsPerKind: number = defaultFragRelOptions.contributorsPerKind,
): Explanation[] {
  return Array.from(selection.ranked, (i, r) =>
    explain(i, selection.ranks?.[r] ?? r, scores, relations, contributorsPerKind),
  );
}

/**
 * Scores of one run: Eq. 9 (per kind and combined) and Eq. 10 from given Eq. 4 scores.
 * `into`: a previous ScoreSet over the same N whose arrays are overwritten (not `independent`).
 */
export function fragRelScores(
  independent: Float64Array,
  relations: readonly Relation[],
  options?: Partial<Pick<FragRelOptions, 'alpha' | 'relationWeights'>>,
  into?: ScoreSet,
): ScoreSet {
  const { alpha, relationWeights } = withDefaults(
    { alpha: defaultFragRelOptions.alpha, relationWeights: defaultFragRelOptions.relationWeights },
    options,
    'scoring',
  );
  for (const relation of relations) {
    if (relation.size !== independent.length) {
      throw new Error(
        `FragRel: the ${relation.kind} relation covers ${relation.size} fragments, the scores ${independent.length}; rebuild the relation for this document set.`,
      );
    }
  }
  const env = environmentScores(
    relations,
    independent,
    relationWeights,
    into && { byKind: into.environmentByKind, combined: into.environment },
  );
  const final = into?.final.length === independent.length ? into.final : undefined;
  return {
    independent,
    environmentByKind: env.byKind,
    environment: env.combined,
    final: relationAwareScores(independent, env.combined, alpha, final),
  };
}

export interface RetrievalInput {
  /** Eq. 4 scores, one per fragment of the run. */
  independent: Float64Array;
  /** Active relation kinds, each over the same N fragments. */
  relations: readonly Relation[];
  /** Eq. 11 cost of each fragment, in the unit of `budget`. */
  costs: ArrayLike<number>;
  /** Optional: the scores of an earlier run over the same fragments, overwritten in place. */
  reuse?: ScoreSet;
}

/**
 * The whole method from given independent scores: Eq. 9, 10, 11 and explanations. Uses the
 * options alpha, relationWeights, budget, overflow, maxSelected and contributorsPerKind
 * (wRel and semanticK are for building the relations).
 */
export function retrieve(input: RetrievalInput, options?: Partial<FragRelOptions>): Retrieval {
  const opts = withDefaults(defaultFragRelOptions, options, 'FragRel');
  const scores = fragRelScores(
    input.independent,
    input.relations,
    { alpha: opts.alpha, relationWeights: opts.relationWeights },
    input.reuse,
  );
  const selection = selectByBudget(scores.final, input.costs, opts.budget, {
    overflow: opts.overflow,
    maxSelected: opts.maxSelected,
  });
  const explanations = explainSelection(
    selection,
    scores,
    input.relations,
    opts.contributorsPerKind,
  );
  return { scores, selection, explanations };
}
