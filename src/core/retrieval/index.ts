/**
 * @file Retrieval ideas measured in bench/quality.ts: query-term handling, rank
 * fusion, adaptive alpha, small-to-big selection, and the presets that make the measured winners
 * the defaults.
 */
export * from './adaptive-alpha';
export * from './expand';
export * from './presets';
export * from './query';
export * from './rrf';
