/**
 * @file The tables of the Parquet export (docs/storage.md, "Parquet export"): their names,
 * columns and Parquet schemas, shared by the writer (export.ts), the reader that recognises a
 * dropped file (recognise.ts) and the tests. One Parquet file per table, all in one zip.
 *
 * Why a list of FLOAT for a vector rather than a blob of little-endian float32: DuckDB reads a
 * Parquet LIST as `FLOAT[]` (castable to the fixed-size `FLOAT[384]` its array functions such as
 * `array_cosine_similarity` take) and Spark as `array<float>`, so a vector is usable in SQL as it
 * comes; a blob needs a user-defined function to decode in every engine. The list costs little:
 * its repetition and definition levels are run-length encoded, a few bytes per row.
 */
import type { ParquetWriter } from 'hyparquet-writer';

/** The writer's own schema type (it bundles its own copy of hyparquet's types). */
type SchemaElement = ConstructorParameters<typeof ParquetWriter>[0]['schema'][number];

/** The zip's name ending, and the format named in its manifest.json. */
export const PARQUET_EXPORT_EXTENSION = '.fragrel-parquet.zip';
export const PARQUET_EXPORT_FORMAT = 'fragrel-lens-parquet';
/** Layout version of the Parquet export; bump it when a table or column changes. */
export const PARQUET_EXPORT_VERSION = 1;
/** Key-value metadata key every file of the export carries (value: the layout version). */
export const PARQUET_KV_KEY = 'fragrel-lens-parquet';

export type TableName = 'documents' | 'fragments' | 'vectors' | 'relations' | 'edges';
export const TABLES: readonly TableName[] = [
  'documents',
  'fragments',
  'vectors',
  'relations',
  'edges',
];

type Leaf = 'STRING' | 'INT32' | 'INT64' | 'FLOAT' | 'DOUBLE';
interface ColumnSpec {
  name: string;
  type: Leaf | 'FLOAT_LIST';
  nullable?: boolean;
  /**
   * Written PLAIN, without statistics: numbers that are nearly all distinct (edge ends and
   * weights, spans, vector elements), where trying a dictionary and keeping min/max cost time
   * and gain nothing (Snappy compresses the pages as well): 45 % less time for the edges.
   */
  plain?: boolean;
}

const LEAF: Record<Leaf, Pick<SchemaElement, 'type' | 'converted_type'>> = {
  STRING: { type: 'BYTE_ARRAY', converted_type: 'UTF8' },
  INT32: { type: 'INT32' },
  INT64: { type: 'INT64' },
  FLOAT: { type: 'FLOAT' },
  DOUBLE: { type: 'DOUBLE' },
};

/** Columns of each table, in file order. */
export const COLUMNS: Record<TableName, readonly ColumnSpec[]> = {
  documents: [
    { name: 'document', type: 'STRING' },
    { name: 'name', type: 'STRING' },
    { name: 'kind', type: 'STRING' },
    { name: 'format', type: 'STRING' },
    { name: 'fragment_count', type: 'INT32' },
    { name: 'embedder', type: 'STRING' },
    { name: 'sha256', type: 'STRING' },
  ],
  fragments: [
    { name: 'document', type: 'STRING' },
    { name: 'idx', type: 'INT32' },
    { name: 'start', type: 'INT32', plain: true },
    { name: 'end', type: 'INT32', plain: true },
    { name: 'words', type: 'INT32' },
    { name: 'label', type: 'STRING', nullable: true },
    { name: 'text', type: 'STRING' },
  ],
  vectors: [
    { name: 'document', type: 'STRING' },
    { name: 'idx', type: 'INT32' },
    { name: 'embedder', type: 'STRING' },
    { name: 'vector', type: 'FLOAT_LIST', plain: true },
  ],
  relations: [
    { name: 'document', type: 'STRING' },
    { name: 'kind', type: 'STRING' },
    { name: 'params', type: 'STRING' },
    { name: 'embedder', type: 'STRING', nullable: true },
    { name: 'size', type: 'INT32' },
    { name: 'edges', type: 'INT64' },
  ],
  edges: [
    { name: 'document', type: 'STRING' },
    { name: 'kind', type: 'STRING' },
    { name: 'params', type: 'STRING' },
    { name: 'embedder', type: 'STRING', nullable: true },
    { name: 'i', type: 'INT32', plain: true },
    { name: 'j', type: 'INT32', plain: true },
    { name: 'weight', type: 'FLOAT', plain: true },
  ],
};

/** The Parquet schema of a table: flat columns, and a three-level LIST for a vector. */
export function tableSchema(table: TableName): SchemaElement[] {
  const columns = COLUMNS[table];
  const out: SchemaElement[] = [{ name: 'root', num_children: columns.length }];
  for (const c of columns) {
    if (c.type === 'FLOAT_LIST') {
      out.push(
        { name: c.name, repetition_type: 'REQUIRED', converted_type: 'LIST', num_children: 1 },
        { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
        { name: 'element', type: 'FLOAT', repetition_type: 'REQUIRED' },
      );
    } else {
      out.push({
        name: c.name,
        ...LEAF[c.type],
        repetition_type: c.nullable ? 'OPTIONAL' : 'REQUIRED',
      });
    }
  }
  return out;
}

/** The file of a table inside the zip. */
export const tableFile = (table: TableName): string => `${table}.parquet`;
