/**
 * @file What Compare puts side by side: one column per pipeline run of the
 * same question. The pipelines are the product's (src/core/pipelines/registry.ts) plus "plain
 * retrieval", FragRel's answer path with the relations off (alpha = 0, so s_rel = s_ind in
 * Eq. 10): the baseline that shows what the environment score adds.
 */
import { PIPELINE_IDS, PIPELINES, type PipelineId } from '../pipelines/registry';

export type ComparePipelineId = PipelineId | 'plain';

/** The baseline column: it runs as FragRel, on the plain-retrieval library (plain.ts). */
export const PLAIN_RETRIEVAL = {
  name: 'Plain retrieval',
  compareSummary:
    'The baseline: the same one call, on the fragments selected by the independent score alone (alpha = 0).',
  runsAs: 'fragrel',
} as const satisfies { name: string; compareSummary: string; runsAs: PipelineId };

/** The registry's pipeline a column runs (and whose settings form it shows). */
export const runsAs = (p: ComparePipelineId): PipelineId =>
  p === 'plain' ? PLAIN_RETRIEVAL.runsAs : p;

/** The columns in the order Compare offers them: plain retrieval right after FragRel. */
export const COMPARE_PIPELINES: readonly ComparePipelineId[] = PIPELINE_IDS.flatMap(
  (id): ComparePipelineId[] => (id === PLAIN_RETRIEVAL.runsAs ? [id, 'plain'] : [id]),
);

const entryOf = (p: ComparePipelineId) => (p === 'plain' ? PLAIN_RETRIEVAL : PIPELINES[p]);

export const COMPARE_PIPELINE_NAMES = Object.fromEntries(
  COMPARE_PIPELINES.map((p) => [p, entryOf(p).name]),
) as Readonly<Record<ComparePipelineId, string>>;

export const COMPARE_SUMMARIES = Object.fromEntries(
  COMPARE_PIPELINES.map((p) => [p, entryOf(p).compareSummary]),
) as Readonly<Record<ComparePipelineId, string>>;
