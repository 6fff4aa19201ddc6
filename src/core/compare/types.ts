/**
 * @file What Compare puts side by side: one column per pipeline run of the
 * same question. The pipelines are the four of the product plus "plain retrieval", FragRel's
 * answer path with the relations off (alpha = 0, so s_rel = s_ind in Eq. 10): the baseline that
 * shows what the environment score adds.
 */
export type ComparePipelineId = 'fragrel' | 'plain' | 'longrag' | 'segment' | 'qrmem';

export const COMPARE_PIPELINES: readonly ComparePipelineId[] = [
  'fragrel',
  'plain',
  'longrag',
  'segment',
  'qrmem',
];

export const COMPARE_PIPELINE_NAMES: Readonly<Record<ComparePipelineId, string>> = {
  fragrel: 'FragRel',
  plain: 'Plain retrieval',
  longrag: 'LongRAG',
  segment: 'SEGMENT+',
  qrmem: 'QRMeM',
};
