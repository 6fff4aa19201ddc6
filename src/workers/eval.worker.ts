/// <reference lib="webworker" />
/**
 * @file The evaluation worker: runs an evaluation run's retrieval grid off the UI thread
 * (eval-handlers.ts). It opens the library database itself and writes each question's results
 * there, so progress survives the page: a reload finds them and the run resumes.
 */
import { loadEmbedder } from '../models/embedder';
import { openLibraryDb } from '../store/db';
import { LIBRARY_DB_NAME } from '../store/schema';
import { createEvalHandlers, type EvalApi } from './eval-handlers';
import { serveWorker } from './host';

export type { EvalApi } from './eval-handlers';

serveWorker<EvalApi>(
  self as unknown as Parameters<typeof serveWorker>[0],
  createEvalHandlers({
    openDb: () => openLibraryDb(LIBRARY_DB_NAME),
    loadEmbedder,
  }),
);
