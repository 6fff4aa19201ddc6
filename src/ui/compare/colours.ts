/**
 * @file One colour per compared pipeline, from the Okabe-Ito palette (told apart with the common
 * colour-vision deficiencies), the same in the columns, the overlay and the agreement.
 */
import type { ComparePipelineId } from '../../core/compare';

export const PIPELINE_COLOURS: Readonly<Record<ComparePipelineId, string>> = {
  fragrel: '#0072B2',
  plain: '#E69F00',
  longrag: '#009E73',
  segment: '#CC79A7',
  qrmem: '#D55E00',
};
