/// <reference lib="webworker" />
/**
 * @file A member of the index worker's pool (pool.ts): parses shares of a repository's files
 * and builds ranges of the code relation's rows (pool-handlers.ts). Started by the index worker.
 */
import { browserGrammarSource } from '../models/tree-sitter-browser';
import { serveWorker } from './host';
import { createPoolHandlers, type PoolApi } from './pool-handlers';

serveWorker<PoolApi>(
  self as unknown as Parameters<typeof serveWorker>[0],
  createPoolHandlers(browserGrammarSource),
);
