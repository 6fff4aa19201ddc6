/**
 * @file The grid form's choices (text fields of numbers, ticked scorers and relation sets) into
 * a {@link GridSpec}, with messages for what cannot be read. Kept apart from React so it is tested.
 */
import {
  expandGrid,
  gridProblems,
  type GridBudget,
  type GridRelation,
  type GridScorer,
  type GridSpec,
} from '../../core/eval/grid';

export interface GridChoice {
  scorers: GridScorer[];
  /** Relation sets by name: 'plain', 'context', 'semantic', 'context+semantic', 'ppr'. */
  relationSets: string[];
  alphas: string;
  wRels: string;
  fragmentWords: string;
  budgets: string;
  units: ('words' | 'tokens')[];
}

export const RELATION_SETS: ReadonlyArray<{
  id: string;
  label: string;
  relations: GridRelation[];
}> = [
  { id: 'plain', label: 'none (plain retrieval)', relations: [] },
  { id: 'context', label: 'context structure (Eq. 7)', relations: ['context'] },
  { id: 'semantic', label: 'semantic kNN (Eq. 6)', relations: ['semantic'] },
  { id: 'context+semantic', label: 'context + semantic', relations: ['context', 'semantic'] },
  { id: 'ppr', label: 'multi-hop PageRank over context', relations: ['ppr'] },
];

export const defaultGridChoice: Readonly<GridChoice> = Object.freeze<GridChoice>({
  scorers: ['bm25'],
  relationSets: ['plain', 'context'],
  alphas: '0.5',
  wRels: '0.3',
  fragmentWords: '500',
  budgets: '1000, 2000, 4000',
  units: ['words'],
});

function numbers(text: string, what: string, problems: string[]): number[] {
  const parts = text
    .split(/[\s,;]+/)
    .map((p) => p.trim())
    .filter(Boolean);
  const out: number[] = [];
  for (const p of parts) {
    const x = Number(p);
    if (!Number.isFinite(x)) problems.push(`${what}: "${p}" is not a number.`);
    else if (!out.includes(x)) out.push(x);
  }
  if (parts.length === 0) problems.push(`${what}: give at least one value.`);
  return out;
}

export function gridFromChoice(choice: GridChoice): { spec: GridSpec | null; problems: string[] } {
  const problems: string[] = [];
  const alphas = numbers(choice.alphas, 'alpha', problems);
  const wRels = numbers(choice.wRels, 'w_rel', problems);
  const fragmentWords = numbers(choice.fragmentWords, 'Fragment sizes', problems);
  const budgets = numbers(choice.budgets, 'Budgets', problems);
  if (choice.scorers.length === 0) problems.push('Tick at least one scorer.');
  if (choice.relationSets.length === 0) problems.push('Tick at least one relation setting.');
  if (choice.units.length === 0) problems.push('Tick words, tokens or both for the budgets.');
  if (problems.length) return { spec: null, problems };
  const spec: GridSpec = {
    configs: expandGrid({
      scorers: choice.scorers,
      relationSets: RELATION_SETS.filter((r) => choice.relationSets.includes(r.id)).map(
        (r) => r.relations,
      ),
      alphas,
      wRels,
      fragmentWords,
    }),
    budgets: choice.units.flatMap((unit) =>
      budgets.sort((a, b) => a - b).map((budget): GridBudget => ({ budget, unit })),
    ),
  };
  const more = gridProblems(spec);
  return more.length ? { spec: null, problems: more } : { spec, problems: [] };
}
