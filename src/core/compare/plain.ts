/**
 * @file "Plain retrieval", Compare's baseline: FragRel's answer path with the relations off.
 * With alpha = 0, Eq. 10 gives s_rel = s_ind, so Eq. 11 selects by the independent score alone
 * within the same budget; the rest (prompt, fitting, the one call) is FragRel's pipeline as is.
 */
import { selectByBudget } from '../fragrel';
import type { PipelineLibrary } from '../pipelines/types';

export interface PlainSelectionInput {
  /** Each fragment's cost in the budget's unit (the run's word counts). */
  costs: ArrayLike<number>;
  budget: number;
  /** Eq. 11 by count, when the run had one. */
  maxSelected?: number;
}

/** The same library with FragRel's selection redone at alpha = 0 (final = independent). */
export function plainRetrievalLibrary(
  library: PipelineLibrary,
  input: PlainSelectionInput,
): PipelineLibrary {
  const independent = library.independent;
  const selection = selectByBudget(independent, input.costs, input.budget, {
    ...(input.maxSelected !== undefined ? { maxSelected: input.maxSelected } : {}),
  });
  return {
    ...library,
    final: independent,
    scorer: `${library.scorer}, relations off (alpha = 0)`,
    selection: { indices: [...selection.indices], ranked: [...selection.ranked] },
  };
}
