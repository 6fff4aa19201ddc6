/**
 * @file Which fragments a pipeline's answer was built from, read from its output and trace.
 *
 * "Used" means: the fragment's text reached the final answer call, directly or through a model
 * output that did (a LongRAG extraction, a SEGMENT+ note). Each pipeline records this
 * differently in its trace (src/core/pipelines/<name>/index.ts), so each has its rule, `used` in
 * its entry of src/core/pipelines/registry.ts:
 *
 * - FragRel and plain retrieval: the selected fragments the prompt kept (`fragment:*` items kept
 *   after fitting; fragments left out to fit the window are not used).
 * - LongRAG: the passages given to the generator (its citations; in R&L mode each citation
 *   stands for its paragraph, item `map:<hit>`), plus the paragraphs mapped for the extractor
 *   when it ran (its output I_g is in the generator's prompt). The trace does not say which of
 *   those paragraphs the extractor's input budget cut, so they all count (an overcount only when
 *   the step notes "paragraphs left out").
 * - SEGMENT+: the segments behind the notes given to the answer (the merge tree's edges into
 *   `answer`, whose items carry the fragments).
 * - QRMeM: the segments of the answer's context (`answer-segment:*` items).
 *
 * - Every pipeline: what the answer cites was in its context (but in LongRAG's R&L mode a citation
 *   is a paragraph, counted above).
 *
 * A run that did not reach its answer (stopped, failed) used nothing: its answer does not exist.
 */
import { PIPELINES, type UsageOutput } from '../pipelines/registry';
import { runsAs, type ComparePipelineId } from './types';

/** The fragment indices (run indices) a finished run's answer was built from, ascending. */
export function fragmentsUsed(pipeline: ComparePipelineId, output: UsageOutput): number[] {
  if (output.status !== 'done') return [];
  return [...new Set(PIPELINES[runsAs(pipeline)].used(output))].sort((a, b) => a - b);
}
