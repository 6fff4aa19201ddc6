/**
 * @file The per-document tuner: which relations, alpha (Eq. 10) and w_rel (Eq. 7) retrieve the
 * questions' gold fragments best within the budget (Eq. 11), over a small grid, and how sure
 * that choice is. The questions are pseudo-questions (pseudo.ts) or labelled ones; the tuner only
 * sees their independent scores (Eq. 4) and their gold.
 *
 * Score of a configuration on a question: the share of its gold items selected, averaged over the
 * budgets (an item is selected when every fragment it covers is, as goldRecall counts a span).
 * Environment scores (Eq. 9) do not depend on alpha, so each (relations, w_rel) pair costs one
 * Eq. 9 pass per question and each alpha one Eq. 10 pass and one selection.
 *
 * The choice: the highest mean score; ties go to the current configuration, then to plain
 * retrieval, then to the earlier grid entry (smaller alpha, smaller w_rel), so tuning moves
 * nothing it cannot show a gain for. How sure: paired bootstrap 95% intervals of the chosen
 * against the current and against plain (eval/bootstrap.ts), and the share of bootstrap
 * resamples of the questions in which the chosen configuration is (one of) the best.
 */
import { AbortError, type AbortSignalLike } from '../abort';
import { pairedBootstrap, type PairedDelta } from '../eval/bootstrap';
import { environmentScores, relationAwareScores, selectByBudget } from '../fragrel';
import { prng } from '../prng';
import { usesWRel } from '../relations/kinds';
import { runRelations, type Run, type RunRelationKind } from '../run';
import type { Relation } from '../types';

export interface TuneConfig {
  /** Active relation kinds; empty: plain retrieval. */
  relations: RunRelationKind[];
  alpha: number;
  wRel: number;
}

export interface TuneGrid {
  relationSets: RunRelationKind[][];
  alphas: number[];
  wRels: number[];
}

/**
 * The relation kinds the product's panel offers for books (context, semantic, multi-hop) and the
 * one combination worth a pass of its own; alpha from a light to a heavy environment; w_rel from
 * a short to a long reach. 79 configurations with plain.
 */
export const defaultTuneGrid: Readonly<TuneGrid> = Object.freeze({
  relationSets: [
    ['context'],
    ['semantic'],
    ['ppr'],
    ['context', 'semantic'],
  ] as RunRelationKind[][],
  alphas: [0.1, 0.25, 0.5, 0.75, 1, 1.5],
  wRels: [0.1, 0.3, 0.5, 0.8],
});

export interface TuneQuestion {
  /** Eq. 4 scores over the run. */
  independent: Float64Array;
  /** Gold items, each the run indices of the fragments it covers (all must be selected). */
  gold: number[][];
}

export interface TuneOptions {
  grid: TuneGrid;
  /** Eq. 11 budgets in the run's cost unit (words); a question's score is the mean over them. */
  budgets: number[];
  /** The configuration in use now (compared against; evaluated even when off the grid). */
  current: TuneConfig;
  resamples: number;
  seed: number;
  signal?: AbortSignalLike;
  /** Called after each question with (done, total). */
  onProgress?: (done: number, total: number) => void;
  /**
   * Awaited after each question: a worker passes a macrotask (setTimeout 0) so a Cancel message
   * gets through; core itself has no timers.
   */
  pause?: () => Promise<void>;
}

export interface TunedConfig extends TuneConfig {
  /** Mean score over the questions. */
  score: number;
}

/** One curve of the report: score against alpha for a relation set at its best w_rel. */
export interface TuneCurve {
  relations: RunRelationKind[];
  label: string;
  wRel: number;
  /** alpha 0 (plain) first, then the grid's alphas. */
  points: { alpha: number; score: number }[];
}

export interface TuneReport {
  questions: number;
  budgets: number[];
  configs: TunedConfig[];
  chosen: TunedConfig;
  current: TunedConfig;
  plain: TunedConfig;
  curves: TuneCurve[];
  vsCurrent: PairedDelta;
  vsPlain: PairedDelta;
  /** Share of bootstrap resamples of the questions in which `chosen` has the best mean. */
  probabilityBest: number;
  /**
   * 'chosen' when its interval against the current configuration lies above 0, else 'current':
   * with a few dozen questions and ~80 configurations the best one is often best by chance
   * (BENCHMARKS.md, tuning per document), so only a sure gain is recommended.
   */
  recommendation: 'chosen' | 'current';
  /** Per question scores of chosen, current and plain (for a reader's own checks). */
  perQuestion: { chosen: number[]; current: number[]; plain: number[] };
}

export const relationsLabel = (relations: readonly RunRelationKind[]) =>
  relations.length === 0 ? 'plain' : relations.join('+');

const configKey = (c: TuneConfig) =>
  c.relations.length === 0 || c.alpha === 0
    ? 'plain'
    : `${[...c.relations].sort().join('+')}|${c.alpha}|${usesWRel(c.relations) ? c.wRel : '-'}`;

const sameConfig = (a: TuneConfig, b: TuneConfig) => configKey(a) === configKey(b);

/** The grid's configurations (plain first), without repeats, and `current` if it is off the grid. */
export function gridConfigs(grid: TuneGrid, current?: TuneConfig): TuneConfig[] {
  const out: TuneConfig[] = [{ relations: [], alpha: 0, wRel: 0 }];
  for (const relations of grid.relationSets) {
    for (const wRel of usesWRel(relations) ? grid.wRels : [grid.wRels[0] ?? 0]) {
      for (const alpha of grid.alphas) out.push({ relations: [...relations], alpha, wRel });
    }
  }
  const seen = new Set<string>();
  const unique = out.filter((c) => !seen.has(configKey(c)) && seen.add(configKey(c)));
  if (current && !seen.has(configKey(current))) unique.push({ ...current });
  return unique;
}

/** Run indices of the fragments a span [start, end) of the run's concatenated order touches. */
export function fragmentsCovering(
  starts: ArrayLike<number>,
  ends: ArrayLike<number>,
  offset: number,
  count: number,
  span: { start: number; end: number },
): number[] {
  const out: number[] = [];
  for (let i = offset; i < offset + count; i++) {
    if (starts[i] < span.end && ends[i] > span.start) out.push(i);
  }
  return out;
}

/** Share of gold items whose fragments are all selected. */
function goldShare(gold: readonly number[][], selected: Uint8Array): number {
  if (gold.length === 0) return 0;
  let hit = 0;
  for (const item of gold) if (item.length > 0 && item.every((i) => selected[i])) hit++;
  return hit / gold.length;
}

/**
 * Score every configuration on every question: scores[c][q]. Relations are built once per
 * (relation set, w_rel) and reused across questions.
 */
export async function scoreConfigs(
  run: Run,
  questions: readonly TuneQuestion[],
  configs: readonly TuneConfig[],
  options: Pick<TuneOptions, 'budgets' | 'signal' | 'onProgress' | 'pause'>,
): Promise<number[][]> {
  const { budgets } = options;
  if (budgets.length === 0) throw new Error('Tuning: give at least one budget.');
  // Group the configurations by their relations (and w_rel where it matters).
  const groups = new Map<string, { relations: Relation[]; members: number[] }>();
  configs.forEach((c, k) => {
    const plain = c.relations.length === 0 || c.alpha === 0;
    const key = plain
      ? 'plain'
      : `${c.relations.join('+')}|${usesWRel(c.relations) ? c.wRel : '-'}`;
    let g = groups.get(key);
    if (!g) {
      g = { relations: plain ? [] : runRelations(run, c.relations, c.wRel), members: [] };
      groups.set(key, g);
    }
    g.members.push(k);
  });
  const scores = configs.map(() => new Array<number>(questions.length).fill(0));
  const selected = new Uint8Array(run.size);
  const final = new Float64Array(run.size);
  for (let qi = 0; qi < questions.length; qi++) {
    if (options.signal?.aborted) throw new AbortError('Tuning cancelled.');
    const q = questions[qi];
    if (q.independent.length !== run.size) {
      throw new Error(
        `Tuning: question ${qi} has ${q.independent.length} scores for ${run.size} fragments.`,
      );
    }
    for (const g of groups.values()) {
      const env =
        g.relations.length > 0 ? environmentScores(g.relations, q.independent).combined : null;
      for (const k of g.members) {
        const scored = env
          ? relationAwareScores(q.independent, env, configs[k].alpha, final)
          : q.independent;
        let sum = 0;
        for (const budget of budgets) {
          const sel = selectByBudget(scored, run.costs, budget);
          selected.fill(0);
          for (const i of sel.indices) selected[i] = 1;
          sum += goldShare(q.gold, selected);
        }
        scores[k][qi] = sum / budgets.length;
      }
    }
    options.onProgress?.(qi + 1, questions.length);
    if (options.pause) await options.pause();
  }
  return scores;
}

const meanOf = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);

/** Search the grid for the configuration that retrieves the questions' gold best. */
export async function tune(
  run: Run,
  questions: readonly TuneQuestion[],
  options: Partial<TuneOptions> & Pick<TuneOptions, 'current' | 'budgets'>,
): Promise<TuneReport> {
  const grid = options.grid ?? defaultTuneGrid;
  const resamples = options.resamples ?? 1000;
  const seed = options.seed ?? 20240601;
  if (questions.length === 0) {
    throw new Error(
      'Tuning: no question to tune on. The document may be too short for pseudo-questions (each needs a fragment of a few sentences).',
    );
  }
  // Without a stored semantic relation the semantic kind would silently be plain: leave it out.
  const relationSets = grid.relationSets.filter((r) => !r.includes('semantic') || run.semantic);
  const configs = gridConfigs({ ...grid, relationSets }, options.current);
  const scores = await scoreConfigs(run, questions, configs, options);
  const means = scores.map(meanOf);
  const find = (c: TuneConfig) => configs.findIndex((x) => sameConfig(x, c));
  const iPlain = 0;
  const iCurrent = find(options.current);

  // Highest mean; ties: current, then plain, then grid order.
  let best = iCurrent;
  const EPS = 1e-12;
  for (let k = 0; k < configs.length; k++) {
    if (means[k] > means[best] + EPS) best = k;
  }
  if (best !== iCurrent && Math.abs(means[iPlain] - means[best]) <= EPS) best = iPlain;

  const tuned = (k: number): TunedConfig => ({
    relations: [...configs[k].relations],
    alpha: configs[k].alpha,
    wRel: configs[k].wRel,
    score: means[k],
  });

  // Curves: per relation set, score against alpha at the set's best w_rel.
  const curves: TuneCurve[] = [];
  for (const relations of relationSets) {
    const members = configs
      .map((c, k) => ({ c, k }))
      .filter(({ c, k }) => k !== iPlain && c.relations.join('+') === relations.join('+'));
    const onGrid = members.filter(({ c }) => grid.alphas.includes(c.alpha));
    if (onGrid.length === 0) continue;
    const top = onGrid.reduce((a, b) => (means[b.k] > means[a.k] + EPS ? b : a));
    const wRel = top.c.wRel;
    const points = [{ alpha: 0, score: means[iPlain] }];
    for (const { c, k } of onGrid)
      if (c.wRel === wRel) points.push({ alpha: c.alpha, score: means[k] });
    points.sort((a, b) => a.alpha - b.alpha);
    curves.push({ relations: [...relations], label: relationsLabel(relations), wRel, points });
  }

  // How often the chosen one is (one of) the best when the questions are resampled.
  const rng = prng(seed ^ 0x5eed);
  const n = questions.length;
  const draw = new Uint32Array(n);
  let wins = 0;
  for (let b = 0; b < resamples; b++) {
    for (let i = 0; i < n; i++) draw[i] = Math.min(n - 1, Math.floor(rng() * n));
    let top = -Infinity;
    let chosen = 0;
    for (let k = 0; k < configs.length; k++) {
      let s = 0;
      for (let i = 0; i < n; i++) s += scores[k][draw[i]];
      if (k === best) chosen = s;
      if (s > top) top = s;
    }
    if (chosen >= top - 1e-9) wins++;
  }

  const vsCurrent = pairedBootstrap(scores[best], scores[iCurrent], { resamples, seed });
  return {
    questions: n,
    budgets: [...options.budgets],
    configs: configs.map((_, k) => tuned(k)),
    chosen: tuned(best),
    current: tuned(iCurrent),
    plain: tuned(iPlain),
    curves,
    vsCurrent,
    vsPlain: pairedBootstrap(scores[best], scores[iPlain], { resamples, seed }),
    probabilityBest: wins / resamples,
    recommendation: best !== iCurrent && vsCurrent.ci95[0] > 0 ? 'chosen' : 'current',
    perQuestion: { chosen: scores[best], current: scores[iCurrent], plain: scores[iPlain] },
  };
}
