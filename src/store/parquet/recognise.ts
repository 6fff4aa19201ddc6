/**
 * @file What a dropped Parquet file is, for **Import library…**, which reads `.fragrel.zip` files
 * only: a Parquet file (or a zip of them) is read back with hyparquet (its footer, and the first
 * rows of every column, so a damaged file is told from a whole one) and refused with a message
 * that says what it is and what to import instead. Nothing is stored either way.
 *
 * This app's own Parquet export is refused too, with its own message: it is made for other
 * engines and leaves out what a library needs to work (the source texts, the settings).
 */
import { unzipSync } from 'fflate';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { PARQUET_EXPORT_EXTENSION, PARQUET_KV_KEY } from './tables';

const MAGIC = [0x50, 0x41, 0x52, 0x31]; // "PAR1"
const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04];

const startsWith = (bytes: Uint8Array, magic: number[], at = 0) =>
  bytes.length >= at + magic.length && magic.every((b, k) => bytes[at + k] === b);

/** Whether the bytes look like a Parquet file (its magic number at the start). */
export function looksLikeParquet(bytes: Uint8Array): boolean {
  return startsWith(bytes, MAGIC);
}

type ParquetKind =
  { kind: 'damaged' } | { kind: 'ours' } | { kind: 'foreign'; columns: string[]; rows: number };

/** Read one Parquet file back: damaged, this app's export, or another tool's table. */
async function readBack(bytes: Uint8Array): Promise<ParquetKind> {
  if (!looksLikeParquet(bytes) || !startsWith(bytes, MAGIC, bytes.length - 4)) {
    return { kind: 'damaged' };
  }
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  try {
    const metadata = parquetMetadata(buffer as ArrayBuffer);
    const rows = Number(metadata.num_rows);
    // Decode the first rows of every column: a footer can be whole over damaged pages.
    await parquetReadObjects({ file: buffer as ArrayBuffer, metadata, rowEnd: Math.min(rows, 64) });
    if (metadata.key_value_metadata?.some((kv) => kv.key === PARQUET_KV_KEY)) {
      return { kind: 'ours' };
    }
    const columns = metadata.schema.slice(1).flatMap((e) => (e.type ? [e.name] : []));
    return { kind: 'foreign', columns, rows };
  } catch {
    return { kind: 'damaged' };
  }
}

const IMPORT_READS = 'Import library… reads the .fragrel.zip files that Export library writes.';

function describe(name: string, read: ParquetKind): string {
  switch (read.kind) {
    case 'damaged':
      return `${name} is a damaged or cut-short Parquet file: it cannot be read. ${IMPORT_READS}`;
    case 'ours':
      return `${name} is FragRel Lens's Parquet export (${PARQUET_EXPORT_EXTENSION}), made for other engines such as DuckDB or Spark; it does not carry the source texts a library needs. Import the .fragrel.zip from Export library instead.`;
    case 'foreign': {
      const shown = read.columns.slice(0, 6).join(', ');
      const more = read.columns.length > 6 ? `, … (${read.columns.length} columns)` : '';
      return `${name} is a Parquet table from another tool (${read.rows} rows; columns ${shown}${more}), not a FragRel Lens library. ${IMPORT_READS}`;
    }
  }
}

/**
 * Why the bytes of a dropped library file are Parquet rather than a library, in words a person
 * can act on; null when they are not Parquet (a zip without .parquet entries, anything else),
 * which the library file reader then judges.
 */
export async function parquetImportProblem(bytes: Uint8Array): Promise<string | null> {
  if (looksLikeParquet(bytes)) return describe('The file', await readBack(bytes));
  if (!startsWith(bytes, ZIP_MAGIC)) return null;
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(bytes, { filter: (f) => f.name.toLowerCase().endsWith('.parquet') });
  } catch {
    return null;
  }
  const names = Object.keys(files).sort();
  if (names.length === 0) return null;
  const reads = await Promise.all(names.map((n) => readBack(files[n])));
  const damaged = names.filter((_, k) => reads[k].kind === 'damaged');
  if (damaged.length) {
    const list = damaged.slice(0, 3).join(', ') + (damaged.length > 3 ? ', …' : '');
    return `The zip's ${list} ${
      damaged.length > 1
        ? 'are damaged or cut-short Parquet files'
        : 'is a damaged or cut-short Parquet file'
    }: it cannot be read. ${IMPORT_READS}`;
  }
  if (reads.some((r) => r.kind === 'ours')) return describe('The zip', { kind: 'ours' });
  const first = reads[0] as Extract<ParquetKind, { kind: 'foreign' }>;
  return `The zip holds Parquet tables from another tool (${names.slice(0, 4).join(', ')}${
    names.length > 4 ? ', …' : ''
  }; the first has columns ${first.columns.slice(0, 6).join(', ')}), not a FragRel Lens library. ${IMPORT_READS}`;
}
