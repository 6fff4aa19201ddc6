/**
 * @file Tuning per document (docs/evaluation.md, ## Tuning): pseudo-questions from the document
 * itself (inverse cloze), their masked independent scores, and the grid search over relations,
 * alpha and w_rel with its confidence.
 */
export * from './grid';
export * from './pseudo';
export * from './questions';
export * from './scores';
export * from './labels';
