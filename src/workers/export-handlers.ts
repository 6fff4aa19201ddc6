/**
 * @file The export worker's handler: the library as Parquet (store/parquet/export.ts), written
 * off the UI thread over the worker's own connection to the library, with progress and cancel.
 * The zip's bytes are folded into a Blob as they come, so the worker's heap holds at most one
 * document's index, one row group and a few MB of output; the Blob's storage is the browser's
 * (Chromium moves large Blobs to disk).
 */
import type { Library } from '../store';
import { writeParquetExport, type ParquetExportSummary } from '../store/parquet/export';
import type { HandlerContext } from './host';

export interface ExportParquetRequest {
  /** The library database to read (Library.name). */
  dbName: string;
  /** The documents to export (all indexed ones when absent). */
  docIds?: string[];
}

export interface ExportParquetResult extends ParquetExportSummary {
  blob: Blob;
  documents: number;
}

export interface ExportApi {
  exportParquet: { payload: ExportParquetRequest; result: ExportParquetResult };
}

/** Output gathered before it is folded into the Blob. */
const FOLD_BYTES = 16 << 20;

export function createExportHandlers(deps: { library: (name: string) => Promise<Library> }) {
  return {
    async exportParquet(
      req: ExportParquetRequest,
      ctx: HandlerContext,
    ): Promise<ExportParquetResult> {
      const library = await deps.library(req.dbName);
      const documents = (await library.listDocuments()).filter(
        (d) =>
          d.status === 'indexed' &&
          d.fragmentCount > 0 &&
          (!req.docIds || req.docIds.includes(d.id)),
      );
      if (documents.length === 0) throw new Error('The library has no indexed document to export.');
      let blob = new Blob([]);
      let pending: Uint8Array[] = [];
      let pendingBytes = 0;
      const fold = () => {
        blob = new Blob([blob, ...(pending as BlobPart[])], { type: 'application/zip' });
        pending = [];
        pendingBytes = 0;
      };
      const summary = await writeParquetExport(
        { documents, load: (id) => library.exportRecords([id]) },
        (bytes) => {
          pending.push(bytes);
          pendingBytes += bytes.length;
          if (pendingBytes >= FOLD_BYTES) fold();
        },
        { signal: ctx.signal, onProgress: (p) => ctx.progress(p) },
      );
      fold();
      return { ...summary, blob, documents: documents.length };
    },
  };
}
