/// <reference lib="webworker" />
/**
 * @file The index worker: serves the indexing handlers (index-handlers.ts) off the UI thread.
 * Results cross as transferred buffers; the UI thread stores them in one transaction, so a
 * cancelled or failed index leaves nothing behind.
 */
import { ingestFiles } from '../ingest';
import { loadEmbedder } from '../models/embedder';
import { browserGrammarSource } from '../models/tree-sitter-browser';
import { serveWorker, type Handler } from './host';
import { createIndexHandlers } from './index-handlers';
import { webSemanticPool } from './semantic-pool-web';

export type { IndexApi } from './index-handlers';

serveWorker(
  self as unknown as Parameters<typeof serveWorker>[0],
  createIndexHandlers({
    ingest: ingestFiles,
    loadEmbedder,
    grammars: browserGrammarSource,
    semanticPool: webSemanticPool,
  }) as unknown as Record<string, Handler>,
);
