/**
 * @file The library as Parquet, for the engines people run at scale (DuckDB, Spark, Trino): one
 * zip of five Parquet files (tables.ts; layout and the scoring as SQL in docs/storage.md).
 *
 * Written with hyparquet-writer: pure JavaScript (no wasm), small, maintained, the same code in
 * the browser's worker and in Node, with an incremental writer (`ParquetWriter`) that encodes one
 * row group at a time. The zip is fflate's streaming `Zip` with stored entries (Parquet pages are
 * already Snappy-compressed).
 *
 * Streamed, so a large library fits: documents are loaded one at a time (one pass per table,
 * because a zip's entries follow each other), rows are gathered into a row group of bounded size,
 * encoded, handed to `sink` as bytes and let go. What stays in memory is one document's stored
 * records, one row group and whatever the sink keeps (the page folds its chunks into a Blob).
 */
import { Zip, ZipPassThrough, strToU8 } from 'fflate';
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import type { LibraryRecords } from '../library';
import type { DocumentRecord } from '../schema';
import {
  COLUMNS,
  PARQUET_EXPORT_FORMAT,
  PARQUET_EXPORT_VERSION,
  PARQUET_KV_KEY,
  tableFile,
  tableSchema,
  type TableName,
} from './tables';

export interface ParquetExportSource {
  /** The documents to export, in this order (their records, as the library lists them). */
  documents: readonly DocumentRecord[];
  /** One document's stored records, as `Library.exportRecords([docId])` gives them. */
  load(docId: string): Promise<LibraryRecords>;
}

export interface ParquetExportProgress {
  /** The table being written. */
  stage: TableName;
  /** Fragments of the library covered so far in this table, of `total`. */
  done: number;
  total: number;
}

export interface ParquetExportOptions {
  signal?: AbortSignal;
  onProgress?: (p: ParquetExportProgress) => void;
  /**
   * Rows per row group for the flat tables (vectors: scaled down by the dimension so a group
   * holds about `rowGroupValues` floats). Smaller groups: less memory, more groups.
   */
  rowGroupRows?: number;
  rowGroupValues?: number;
  now?: Date;
  /** Written into every file's `created_by`. */
  createdBy?: string;
}

export interface ParquetExportSummary {
  rows: Record<TableName, number>;
  rowGroups: number;
  bytes: number;
}

const DEFAULT_ROW_GROUP_ROWS = 16_384;
const DEFAULT_ROW_GROUP_VALUES = 1 << 19;

class AbortedError extends Error {
  override name = 'AbortError';
  constructor() {
    super('The export was cancelled.');
  }
}

/** Let the event loop run (a cancel message, a progress post) and stop if cancelled. */
async function breathe(signal?: AbortSignal): Promise<void> {
  await new Promise((r) => setTimeout(r, 0));
  if (signal?.aborted) throw new AbortedError();
}

/** Words per fragment as the retrieval worker counts them when the store kept none. */
function wordCounts(records: LibraryRecords): Uint32Array {
  const f = records.fragments[0];
  if (f.words) return new Uint32Array(f.words);
  const starts = new Uint32Array(f.starts);
  const ends = new Uint32Array(f.ends);
  const text = records.sources[0]?.text ?? '';
  return Uint32Array.from(
    starts,
    (s, i) => text.slice(s, ends[i]).split(/\s+/).filter(Boolean).length,
  );
}

/** A ByteWriter whose bytes leave after every row group instead of piling up. */
class DrainingWriter extends ByteWriter {
  constructor(private readonly out: (bytes: Uint8Array) => void) {
    super(1 << 16);
  }
  flush(): void {
    if (this.index === 0) return;
    this.out(new Uint8Array(this.buffer, 0, this.index).slice());
    this.index = 0;
  }
  override finish(): void {
    this.flush();
  }
}

/** One table being written: rows gathered column by column, a row group at a time. */
class TableWriter {
  readonly columns: unknown[][];
  rows = 0;
  total = 0;
  groups = 0;
  private readonly writer: ParquetWriter;
  private readonly entry: ZipPassThrough;

  constructor(
    readonly table: TableName,
    zip: Zip,
    public groupRows: number,
    createdBy: string,
  ) {
    this.entry = new ZipPassThrough(tableFile(table));
    zip.add(this.entry);
    this.columns = COLUMNS[table].map(() => []);
    this.writer = new ParquetWriter({
      writer: new DrainingWriter((bytes) => this.entry.push(bytes, false)),
      schema: tableSchema(table),
      kvMetadata: [{ key: PARQUET_KV_KEY, value: String(PARQUET_EXPORT_VERSION) }],
      createdBy,
    });
  }

  /** Append one row (values in column order); a full group is written out. */
  add(...values: unknown[]): boolean {
    for (let c = 0; c < values.length; c++) this.columns[c].push(values[c]);
    this.rows++;
    return this.rows >= this.groupRows;
  }

  /** Encode the gathered rows as one row group and hand its bytes to the zip. */
  flushGroup(): void {
    if (this.rows === 0) return;
    const specs = COLUMNS[this.table];
    void this.writer.write({
      columnData: specs.map((spec, c) => ({
        name: spec.name,
        data: this.columns[c],
        ...(spec.plain ? { encoding: 'PLAIN' as const, statistics: false } : {}),
        // Statistics of free text help no reader; they cost time.
        ...(spec.name === 'text' ? { statistics: false } : {}),
      })),
      rowGroupSize: this.rows,
    });
    for (const column of this.columns) column.length = 0;
    this.total += this.rows;
    this.rows = 0;
    this.groups++;
  }

  finish(): void {
    this.flushGroup();
    void this.writer.finish();
    this.entry.push(new Uint8Array(0), true);
  }
}

/**
 * Write the documents' fragments, vectors and relations as the Parquet export, streaming the
 * zip's bytes to `sink` (in order; it must keep or write them before returning).
 */
export async function writeParquetExport(
  source: ParquetExportSource,
  sink: (bytes: Uint8Array) => void,
  options: ParquetExportOptions = {},
): Promise<ParquetExportSummary> {
  const { signal, onProgress } = options;
  const groupRows = options.rowGroupRows ?? DEFAULT_ROW_GROUP_ROWS;
  const groupValues = options.rowGroupValues ?? DEFAULT_ROW_GROUP_VALUES;
  const createdBy = options.createdBy ?? 'FragRel Lens (hyparquet-writer)';
  let bytes = 0;
  let zipError: Error | null = null;
  const zip = new Zip((err, data) => {
    if (err) zipError = err;
    else {
      bytes += data.length;
      sink(data);
    }
  });
  const rows = {} as Record<TableName, number>;
  let rowGroups = 0;
  const documents: DocumentRecord[] = [];
  const relationRows: unknown[][] = [];
  let totalFragments = 0;

  const manifest = {
    format: PARQUET_EXPORT_FORMAT,
    version: PARQUET_EXPORT_VERSION,
    exportedAt: (options.now ?? new Date()).toISOString(),
    tables: {} as Record<string, { file: string; rows: number }>,
    documents: [] as { id: string; name: string }[],
  };

  /** One pass over the documents, writing one table. */
  const pass = async (
    table: TableName,
    rowsPerGroup: number,
    each: (
      records: LibraryRecords,
      t: TableWriter,
      step: (fraction: number) => Promise<void>,
    ) => Promise<void>,
  ) => {
    const t = new TableWriter(table, zip, rowsPerGroup, createdBy);
    let before = 0;
    for (const listed of source.documents) {
      if (signal?.aborted) throw new AbortedError();
      const records = await source.load(listed.id);
      const doc = records.documents[0];
      if (!doc || !records.fragments[0]) {
        throw new Error(`“${listed.name}” has no fragments in the library; index it first.`);
      }
      if (table === 'fragments') documents.push(doc);
      const count = doc.fragmentCount;
      await each(records, t, async (fraction) => {
        t.flushGroup();
        if (zipError) throw zipError;
        onProgress?.({ stage: table, done: before + fraction * count, total: totalFragments });
        await breathe(signal);
      });
      before += count;
      onProgress?.({ stage: table, done: before, total: totalFragments });
    }
    t.finish();
    if (zipError) throw zipError;
    rows[table] = t.total;
    rowGroups += t.groups;
    manifest.tables[table] = { file: tableFile(table), rows: t.total };
  };

  for (const doc of source.documents) {
    totalFragments += doc.fragmentCount;
    manifest.documents.push({ id: doc.id, name: doc.name });
  }

  await pass('fragments', groupRows, async (records, t, step) => {
    const f = records.fragments[0];
    const text = records.sources[0]?.text ?? '';
    const starts = new Uint32Array(f.starts);
    const ends = new Uint32Array(f.ends);
    const words = wordCounts(records);
    for (let i = 0; i < f.count; i++) {
      const label = f.labels[i];
      const full = t.add(
        f.docId,
        i,
        starts[i],
        ends[i],
        words[i],
        label ? label : null,
        text.slice(starts[i], ends[i]),
      );
      if (full) await step((i + 1) / f.count);
    }
  });

  {
    const t = new TableWriter('documents', zip, groupRows, createdBy);
    for (const d of documents) {
      t.add(d.id, d.name, d.kind, d.format, d.fragmentCount, d.embedderId, d.sha256);
    }
    t.finish();
    rows.documents = t.total;
    rowGroups += t.groups;
    manifest.tables.documents = { file: tableFile('documents'), rows: t.total };
  }

  // Vectors: a group holds about groupValues floats, whatever the dimension.
  const vectorRows = (dim: number) => Math.max(64, Math.floor(groupValues / Math.max(1, dim)));
  await pass('vectors', vectorRows(1), async (records, t, step) => {
    const sets = records.vectors;
    for (let s = 0; s < sets.length; s++) {
      const v = sets[s];
      const data = new Float32Array(v.data);
      if (t.groupRows !== vectorRows(v.dim)) {
        await step(s / sets.length);
        t.groupRows = vectorRows(v.dim);
      }
      for (let i = 0; i < v.count; i++) {
        const full = t.add(
          v.docId,
          i,
          v.embedderId,
          Array.from(data.subarray(i * v.dim, (i + 1) * v.dim)),
        );
        if (full) await step((s + (i + 1) / v.count) / sets.length);
      }
    }
  });

  await pass('edges', groupRows * 4, async (records, t, step) => {
    const rels = records.relations;
    for (let r = 0; r < rels.length; r++) {
      const rel = rels[r];
      const embedder = typeof rel.params.embedderId === 'string' ? rel.params.embedderId : null;
      let nnz = 0;
      if (rel.csr) {
        const rowPtr = new Uint32Array(rel.csr.rowPtr);
        const col = new Uint32Array(rel.csr.col);
        const weight = new Float32Array(rel.csr.weight);
        nnz = rowPtr[rel.size];
        for (let i = 0; i < rel.size; i++) {
          for (let p = rowPtr[i]; p < rowPtr[i + 1]; p++) {
            const full = t.add(rel.docId, rel.kind, rel.paramsKey, embedder, i, col[p], weight[p]);
            if (full) await step((r + (i + 1) / rel.size) / rels.length);
          }
        }
      }
      relationRows.push([rel.docId, rel.kind, rel.paramsKey, embedder, rel.size, BigInt(nnz)]);
    }
  });

  {
    const t = new TableWriter('relations', zip, groupRows, createdBy);
    for (const row of relationRows) t.add(...row);
    t.finish();
    rows.relations = t.total;
    rowGroups += t.groups;
    manifest.tables.relations = { file: tableFile('relations'), rows: t.total };
  }

  const m = new ZipPassThrough('manifest.json');
  zip.add(m);
  m.push(strToU8(JSON.stringify(manifest, null, 2)), true);
  zip.end();
  if (zipError) throw zipError;
  return { rows, rowGroups, bytes };
}
