/**
 * @file Public API of the FragRel core: fragmenting, independent scores (Eq. 4), relations
 * (Eq. 5-7), environment and relation-aware scores (Eq. 9, 10), selection (Eq. 11).
 */
export type * from './types';
export * from './options';
export { tokenize, defaultTokenizeOptions, type TokenizeOptions } from './tokenize';
export {
  countWords,
  isSentenceEnd,
  joinChatTurns,
  splitChat,
  splitCode,
  splitProse,
  type ChatTurns,
} from './fragment';
export {
  bm25Idf,
  bm25IndependentScores,
  bm25Scores,
  buildBm25Index,
  calcBm25Score,
  rescaleByMax,
  type Bm25Index,
} from './bm25';
export { cosineScores, dot, normalizeRows } from './vectors';
export { hybridScores } from './hybrid';
export { RankHeap, ranksBefore, topK } from './heap';
export { segmentOf, segmentsFromFragments, singleDocument, toSegments } from './relations/segments';
export { contextRelation, type ContextRelation } from './relations/context';
export { csrRelation, validateCsr, type CsrRelation } from './relations/csr';
export {
  semanticNeighbours,
  semanticRelation,
  type SemanticBuildOptions,
} from './relations/semantic';
export {
  semanticNeighboursParallel,
  type ParallelSemanticOptions,
  type SemanticPool,
} from './relations/semantic-parallel';
export {
  environmentScores,
  explain,
  explainSelection,
  fragRelScores,
  relationAwareScores,
  retrieve,
  selectByBudget,
  type EnvironmentScores,
  type RetrievalInput,
  type SelectionOptions,
} from './fragrel';
export * from './chat';
export * from './code';
