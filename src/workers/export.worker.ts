/// <reference lib="webworker" />
/**
 * @file The export worker: writes the library as Parquet (export-handlers.ts) off the UI thread.
 * Started for one export and ended after it, so its memory goes back at once.
 */
import { openLibrary } from '../store';
import { createExportHandlers, type ExportApi } from './export-handlers';
import { serveWorker } from './host';
import { libraryOpener } from '../indexing/held';

export type { ExportApi } from './export-handlers';

serveWorker<ExportApi>(
  self as unknown as Parameters<typeof serveWorker>[0],
  createExportHandlers({
    library: libraryOpener((name) => openLibrary(name)),
  }),
);
