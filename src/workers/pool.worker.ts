/// <reference lib="webworker" />
/**
 * @file A member of the index worker's pool (pool.ts): parses shares of a repository's files
 * and builds ranges of the code relation's rows (pool-handlers.ts). Started by the index worker.
 */
import { browserGrammarSource } from '../models/tree-sitter-browser';
import { serveWorker, type Handler } from './host';
import { createPoolHandlers } from './pool-handlers';

serveWorker(
  self as unknown as Parameters<typeof serveWorker>[0],
  createPoolHandlers(browserGrammarSource) as unknown as Record<string, Handler>,
);
