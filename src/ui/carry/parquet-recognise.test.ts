import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { parquetReadObjects } from 'hyparquet';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importFromFile } from './carry';
import { LibraryFileError } from '../../store/carry';
import { openLibrary, type Library } from '../../store/library';
import { sampleDocument } from '../../store/testing';
import { writeParquetExport } from '../../store/parquet/export';
import { parquetImportProblem } from '../../store/parquet/recognise';
import { COLUMNS, TABLES, tableFile } from '../../store/parquet/tables';

let library: Library;
let n = 0;
beforeEach(async () => {
  library = await openLibrary(`recognise-${n++}`, { factory: new IDBFactory() });
  await library.saveIndexedDocument(sampleDocument('kept', { count: 9, dim: 4 }));
  await library.saveIndexedDocument(sampleDocument('other', { count: 30, dim: 4, seed: 3 }));
});
afterEach(() => library.close());

const foreign = () =>
  new Uint8Array(
    parquetWriteBuffer({
      columnData: [
        { name: 'city', data: ['Lyon', 'Oslo', 'Quito'], type: 'STRING' },
        { name: 'population', data: [522_000, 709_000, 2_800_000], type: 'INT32' },
      ],
    }),
  );

async function ourExport(rowGroupRows = 4): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  await writeParquetExport(
    { documents: await library.listDocuments(), load: (id) => library.exportRecords([id]) },
    (b) => chunks.push(b),
    { rowGroupRows, rowGroupValues: 16 },
  );
  const out = new Uint8Array(chunks.reduce((s, c) => s + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** Import must refuse with `message` and leave the library exactly as it was. */
async function refused(bytes: Uint8Array, message: RegExp) {
  const before = await library.exportRecords();
  const error = await importFromFile(library, new Blob([bytes as BlobPart])).catch((e) => e);
  expect(error).toBeInstanceOf(LibraryFileError);
  expect((error as Error).message).toMatch(message);
  expect(await library.exportRecords()).toEqual(before);
}

describe('the Parquet export read back with hyparquet', () => {
  it('holds every table with its columns, every fragment and edge, in several row groups', async () => {
    const files = unzipSync(await ourExport());
    expect(Object.keys(files).sort()).toEqual([...TABLES.map(tableFile), 'manifest.json'].sort());
    const manifest = JSON.parse(new TextDecoder().decode(files['manifest.json']));
    expect(manifest.tables.fragments.rows).toBe(39);
    const read = async (table: (typeof TABLES)[number]) => {
      const bytes = files[tableFile(table)];
      return parquetReadObjects({
        file: bytes.buffer.slice(
          bytes.byteOffset,
          bytes.byteOffset + bytes.byteLength,
        ) as ArrayBuffer,
      });
    };
    const fragments = await read('fragments');
    expect(Object.keys(fragments[0])).toEqual(COLUMNS.fragments.map((c) => c.name));
    const kept = sampleDocument('kept', { count: 9, dim: 4 });
    const rows = fragments.filter((r) => r.document === 'kept');
    expect(rows.map((r) => r.text)).toEqual(
      Array.from(kept.fragments.starts, (s, i) => kept.source.slice(s, kept.fragments.ends[i])),
    );
    expect(rows.map((r) => r.label)).toEqual(
      Array.from({ length: 9 }, (_, i) => kept.fragments.labels?.[i] || null),
    );
    const vectors = (await read('vectors')).filter((r) => r.document === 'kept');
    expect(vectors.map((r) => r.vector).flat()).toEqual(Array.from(kept.vectors![0].vectors.data));
    const edges = (await read('edges')).filter((r) => r.document === 'kept');
    const csr = kept.relations![0].matrix!;
    expect(edges.map((r) => [r.i, r.j, r.weight])).toEqual(
      Array.from(csr.col, (j, p) => [
        csr.rowPtr.findLastIndex((start) => start <= p),
        j,
        csr.weight[p],
      ]),
    );
  });

  it('stops when cancelled, between row groups', async () => {
    const controller = new AbortController();
    const stages: string[] = [];
    const writing = writeParquetExport(
      { documents: await library.listDocuments(), load: (id) => library.exportRecords([id]) },
      () => {},
      {
        rowGroupRows: 2,
        signal: controller.signal,
        onProgress: (p) => {
          stages.push(p.stage);
          if (p.stage === 'vectors') controller.abort();
        },
      },
    );
    await expect(writing).rejects.toThrow(/cancelled/);
    expect(stages).toContain('fragments');
    expect(stages).not.toContain('edges');
  });
});

describe('Import library… given Parquet', () => {
  it('refuses a foreign Parquet table, saying what it is, and changes nothing', async () => {
    await refused(
      foreign(),
      /Parquet table from another tool \(3 rows; columns city, population\)/,
    );
    expect(await parquetImportProblem(foreign())).toMatch(/\.fragrel\.zip/);
  });

  it('refuses a cut-short or garbled Parquet file as damaged', async () => {
    const whole = foreign();
    await refused(whole.slice(0, whole.length - 40), /damaged or cut-short Parquet file/);
    const garbled = whole.slice();
    garbled.fill(0x41, 4, garbled.length - 8);
    await refused(garbled, /damaged or cut-short Parquet file/);
  });

  it('refuses a zip of Parquet files, naming a damaged one', async () => {
    await refused(
      zipSync({ 'a.parquet': foreign(), 'b.parquet': foreign() }),
      /zip holds Parquet tables from another tool \(a\.parquet, b\.parquet/,
    );
    await refused(
      zipSync({ 'a.parquet': foreign(), 'b.parquet': strToU8('PAR1 not really PAR1') }),
      /zip's b\.parquet is a damaged or cut-short Parquet file/,
    );
  });

  it('refuses its own Parquet export, pointing at the library export', async () => {
    await refused(await ourExport(), /FragRel Lens's Parquet export .*Import the \.fragrel\.zip/);
    const fragments = unzipSync(await ourExport())[tableFile('fragments')];
    await refused(fragments, /FragRel Lens's Parquet export/);
  });

  it('leaves other files to the library reader', async () => {
    expect(await parquetImportProblem(zipSync({ 'notes.txt': strToU8('hi') }))).toBeNull();
    expect(await parquetImportProblem(strToU8('hello'))).toBeNull();
    await refused(zipSync({ 'notes.txt': strToU8('hi') }), /no manifest\.json/);
  });
});
