/**
 * @file Indexing, below the workers: the book and repository pipelines, the held and staged
 * registries and the index worker's API. The index worker (src/workers/index.worker.ts) serves
 * `createIndexHandlers`; the retrieval worker builds a repository's code index from here.
 */
export { createIndexHandlers } from './handlers';
export { UnreadableFileError } from './book';
export { buildCodeIndex, parseFilesOnPool, repositoryLayout, type CodeIndex } from './code-index';
export { libraryOpener } from './held';
export { POOL_MIN_FILES, POOL_MIN_WINDOWS, type IndexPool, type PoolApi } from './pool';
export type * from './types';
