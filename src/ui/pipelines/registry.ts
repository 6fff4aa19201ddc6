/**
 * @file The answer pipelines the page offers, their names, defaults and runners, in one place.
 */
import {
  defaultFragRelPipelineSettings,
  fragrelPipeline,
  type FragRelPipelineSettings,
} from '../../core/pipelines/fragrel';
import {
  defaultLongRagSettings,
  longragPipeline,
  type LongRagSettings,
} from '../../core/pipelines/longrag';
import {
  defaultSegmentSettings,
  segmentPipeline,
  type SegmentSettings,
} from '../../core/pipelines/segment';
import { defaultQrmemSettings, type QrmemSettings } from '../../core/pipelines/qrmem/settings';
import type { PipelineInput, PipelineOutput } from '../../core/pipelines/types';

export type PipelineId = 'fragrel' | 'longrag' | 'segment' | 'qrmem';

export interface PipelineSettings {
  fragrel: FragRelPipelineSettings;
  longrag: LongRagSettings;
  segment: SegmentSettings;
  qrmem: QrmemSettings;
}

export const defaultPipelineSettings: PipelineSettings = {
  fragrel: defaultFragRelPipelineSettings,
  longrag: defaultLongRagSettings,
  segment: defaultSegmentSettings,
  qrmem: defaultQrmemSettings,
};

export const PIPELINE_NAMES: Record<PipelineId, string> = {
  fragrel: 'FragRel',
  longrag: 'LongRAG',
  segment: 'SEGMENT+',
  qrmem: 'QRMeM',
};

export const PIPELINE_SUMMARIES: Record<PipelineId, string> = {
  fragrel: 'The fragments FragRel selected, one call.',
  longrag:
    'Retrieve and rerank chunks, map them to their paragraphs, extract global information and filter the chunks with a chain of thought, then answer.',
  segment:
    'A note from every segment, a keep/remove filter, merging in batches until the notes fit, then answer from the notes alone.',
  qrmem:
    "An entity graph of the library built for the question (NER and LLM entities, relations, generated questions), navigated from the question's entities by reflection rounds until the model can answer.",
};

export function runPipeline(
  id: PipelineId,
  input: Omit<PipelineInput<unknown>, 'settings'>,
  settings: PipelineSettings,
): Promise<PipelineOutput> {
  switch (id) {
    case 'fragrel':
      return fragrelPipeline({ ...input, settings: settings.fragrel });
    case 'longrag':
      return longragPipeline({ ...input, settings: settings.longrag });
    case 'segment':
      return segmentPipeline({ ...input, settings: settings.segment });
    case 'qrmem':
      // Loaded on first use: it brings the NER library (compromise), which no other part needs.
      return import('../../core/pipelines/qrmem').then(({ qrmemPipeline }) =>
        qrmemPipeline({ ...input, settings: settings.qrmem }),
      );
  }
}
