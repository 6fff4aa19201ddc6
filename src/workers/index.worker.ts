/// <reference lib="webworker" />
/**
 * @file The index worker: serves the indexing handlers (src/indexing) off the UI thread.
 * An index is kept here and stored from here, in one transaction, once the page has settled its
 * record (src/indexing/held.ts): the page never holds or encodes the arrays, and a cancelled or failed
 * index leaves nothing behind. The parallel parts of an index (parsing, the code relation's rows,
 * a large document's semantic relation) go to one pool of workers, one per core (pool.ts,
 * semantic-shares.ts).
 */
import { ingestFiles } from '../ingest';
import { loadEmbedder } from '../models/embedder';
import { browserGrammarSource } from '../models/tree-sitter-browser';
import { serveWorker } from './host';
import { createIndexHandlers, libraryOpener, type IndexApi, type PoolApi } from '../indexing';
import { WorkerClient } from './client';
import { WorkerPool } from './pool';
import { semanticSharesOn } from './semantic-shares';
import { openLibrary } from '../store';

export type { IndexApi } from '../indexing';

const pool = new WorkerPool<PoolApi>(
  () =>
    new WorkerClient<PoolApi>(
      new Worker(new URL('./pool.worker.ts', import.meta.url), { type: 'module' }),
    ),
);

serveWorker<IndexApi>(
  self as unknown as Parameters<typeof serveWorker>[0],
  createIndexHandlers({
    ingest: ingestFiles,
    loadEmbedder,
    grammars: browserGrammarSource,
    // The same pool builds a large document's semantic relation (where workers can start).
    semanticPool: () => (typeof Worker === 'undefined' ? null : semanticSharesOn(pool)),
    pool,
    library: libraryOpener((name) => openLibrary(name)),
  }),
);
