/**
 * @file "Export as Parquet": the library's fragments, vectors and relations as Parquet files for
 * other engines (docs/storage.md), written in a worker started for the export, with a progress
 * bar and Cancel (which ends the worker, so nothing half-written is kept or offered).
 */
import { useRef, useState } from 'react';
import type { Library } from '../../store';
import { PARQUET_EXPORT_EXTENSION } from '../../store/parquet/tables';
import { WorkerClient } from '../../workers/client';
import type { ExportApi } from '../../workers/export-handlers';
import { isAbortError } from '../../workers/protocol';
import { downloadBlob } from './carry';

const STAGE: Record<string, string> = {
  fragments: 'fragments',
  vectors: 'vectors',
  edges: 'relations',
};

export function ParquetExport({
  library,
  notify,
}: {
  library: Library;
  notify: (kind: 'info' | 'error', text: string) => void;
}) {
  const [progress, setProgress] = useState<{ stage: string; done: number; total: number } | null>(
    null,
  );
  const running = useRef<{ controller: AbortController; client: WorkerClient<ExportApi> } | null>(
    null,
  );

  const start = () => {
    if (running.current) return;
    const controller = new AbortController();
    const client = new WorkerClient<ExportApi>(
      new Worker(new URL('../../workers/export.worker.ts', import.meta.url), { type: 'module' }),
    );
    running.current = { controller, client };
    setProgress({ stage: 'fragments', done: 0, total: 1 });
    client
      .call(
        'exportParquet',
        { dbName: library.name },
        { signal: controller.signal, onProgress: (p) => setProgress(p) },
      )
      .then(
        (result) => {
          const stamp = new Date().toISOString().slice(0, 10);
          downloadBlob(result.blob, `fragrel-library-${stamp}${PARQUET_EXPORT_EXTENSION}`);
          notify(
            'info',
            `Exported ${result.documents} document${result.documents === 1 ? '' : 's'} as Parquet: ${result.rows.fragments.toLocaleString('en')} fragments, ${result.rows.edges.toLocaleString('en')} relation edges (${(result.bytes / 1e6).toFixed(1)} MB).`,
          );
        },
        (e: Error) => {
          if (isAbortError(e)) notify('info', 'Export as Parquet cancelled; nothing was saved.');
          else notify('error', `The library could not be exported as Parquet: ${e.message}`);
        },
      )
      .finally(() => {
        client.terminate();
        running.current = null;
        setProgress(null);
      });
  };

  if (!progress) {
    return (
      <button
        type="button"
        onClick={start}
        title="Fragments, vectors and relations as Parquet files, for DuckDB, Spark or Trino"
      >
        Export as Parquet
      </button>
    );
  }
  const share = progress.total > 0 ? progress.done / progress.total : 0;
  return (
    <span className="carry__parquet" role="status">
      Writing {STAGE[progress.stage] ?? progress.stage} as Parquet…{' '}
      <progress aria-label="Parquet export" max={1} value={share} />{' '}
      <button type="button" onClick={() => running.current?.controller.abort()}>
        Cancel export
      </button>
    </span>
  );
}
