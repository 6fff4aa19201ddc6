/**
 * @file The Parquet export of a large library: the million-line repository of bench/scale-repo.ts,
 * indexed in Node through the app's own indexing handlers and library service (GloVe, k = 16,
 * the code relation) into a fake-indexeddb library, then exported by the same function the export
 * worker runs (store/parquet/export.ts), its bytes written to a file as they come (the page folds
 * them into a Blob, which Chromium keeps outside the worker's heap). Reference in the same run:
 * the `.fragrel.zip` export of the same library (store/carry.ts, `packLibrary`), the app's other
 * export, built whole in memory.
 *
 * Measured per export: wall time and the peak of process memory above the level before it
 * (sampled every 10 ms; RSS, and the JS heap plus array buffers), after a forced GC. The
 * output is read back by DuckDB (row counts must equal the library's).
 *
 *   PARQUET_BENCH_PREPARE=1 npx tsx bench/parquet-export.ts   # index once, kept in the temp dir
 *   flock /tmp/bench.lock node --expose-gc --import tsx bench/run.ts parquet-export
 *
 * The index is cached as a `.fragrel.zip` in the system's temporary directory (FRAGREL_BENCH_CACHE
 * moves it): indexing a million lines in Node takes minutes and is not what is measured.
 */
import 'fake-indexeddb/auto';
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { IDBFactory } from 'fake-indexeddb';
import { ingestFiles } from '../src/ingest/ingest';
import { staticEmbedder } from '../src/models/embedder';
import { nodeGrammarSource } from '../src/models/tree-sitter-node';
import { openLibrary, packLibrary, unpackLibrary, type Library } from '../src/store';
import { writeParquetExport } from '../src/store/parquet/export';
import { LibraryService, defaultIndexSettings } from '../src/ui/library-service';
import { createIndexHandlers, type IndexApi } from '../src/indexing';
import { InProcessClient } from '../src/workers/in-process';
import { semanticSharesOn } from '../src/workers/semantic-shares';
import { loadGloveFromDisk } from '../test/glove';
import { nodePool } from '../test/pool-node';
import type { BenchSection } from './run';
import { millionLines } from './scale-repo';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const CACHE =
  process.env.FRAGREL_BENCH_CACHE ?? path.join(os.tmpdir(), 'fragrel-million.fragrel.zip');
const MB = 2 ** 20;

/** Index the million lines as the app does and keep the library file. */
async function prepare(log: (s: string) => void): Promise<void> {
  const model = loadGloveFromDisk();
  const library = await openLibrary('million-prepare', { factory: new IDBFactory() });
  const pool = nodePool(2);
  const indexer = new InProcessClient<IndexApi>(
    createIndexHandlers({
      ingest: (files, options) => ingestFiles(files, options),
      loadEmbedder: async () => staticEmbedder(model),
      grammars: nodeGrammarSource(path.join(root, 'node_modules')),
      library: async () => library,
      pool,
      semanticPool: () => semanticSharesOn(pool),
    }),
  );
  const service = new LibraryService(library, indexer, 'http://127.0.0.1/');
  const { sources } = millionLines();
  log(`indexing ${sources.length} files (once; cached in ${CACHE})`);
  const t = performance.now();
  const outcome = await service.addRepository(
    {
      folder: {
        name: 'million',
        entries: sources.map((s) => ({
          path: s.zipPath,
          file: new Blob([new Uint8Array(s.bytes)]),
        })),
      },
    },
    defaultIndexSettings,
    { signal: new AbortController().signal, onProgress: () => {} },
  );
  if (!outcome.document) throw new Error(outcome.error ?? 'the repository was not indexed');
  log(
    `indexed in ${((performance.now() - t) / 1000).toFixed(0)} s: ${outcome.document.fragmentCount} windows`,
  );
  const file = packLibrary(await library.exportRecords(), 'library');
  const fd = openSync(CACHE, 'w');
  writeSync(fd, file);
  closeSync(fd);
  pool.terminate();
  library.close();
}

interface Measured {
  ms: number;
  peakRssMiB: number;
  peakHeapAndBuffersMiB: number;
  bytes: number;
}

/** Time `f` and sample memory above the level before it. */
async function measure(f: () => Promise<number>): Promise<Measured> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('Run with node --expose-gc (see the file header).');
  gc();
  const level = () => {
    const m = process.memoryUsage();
    return { rss: m.rss, js: m.heapUsed + m.arrayBuffers };
  };
  const base = level();
  let peak = { ...base };
  const timer = setInterval(() => {
    const now = level();
    peak = { rss: Math.max(peak.rss, now.rss), js: Math.max(peak.js, now.js) };
  }, 10);
  const t = performance.now();
  const bytes = await f();
  const ms = performance.now() - t;
  clearInterval(timer);
  const end = level();
  peak = { rss: Math.max(peak.rss, end.rss), js: Math.max(peak.js, end.js) };
  return {
    ms,
    peakRssMiB: (peak.rss - base.rss) / MB,
    peakHeapAndBuffersMiB: (peak.js - base.js) / MB,
    bytes,
  };
}

async function duckCounts(dir: string): Promise<Record<string, number>> {
  const instance = await DuckDBInstance.create(':memory:');
  const db = await instance.connect();
  const out: Record<string, number> = {};
  for (const table of ['fragments', 'vectors', 'edges']) {
    const rows = await db.runAndReadAll(
      `SELECT count(*) AS n FROM read_parquet('${path.join(dir, `${table}.parquet`)}')`,
    );
    out[table] = Number(rows.getRowObjects()[0].n);
  }
  db.closeSync();
  instance.closeSync();
  return out;
}

async function run(log: (s: string) => void) {
  if (!existsSync(CACHE)) await prepare(log);
  const load = os.loadavg();
  const { records } = unpackLibrary(new Uint8Array(readFileSync(CACHE)));
  const library: Library = await openLibrary('million', { factory: new IDBFactory() });
  await library.importRecords(records);
  const documents = await library.listDocuments();
  const windows = documents.reduce((n, d) => n + d.fragmentCount, 0);
  const nnz = records.relations.map((r) => ({
    kind: r.kind,
    edges: r.csr ? new Uint32Array(r.csr.rowPtr)[r.size] : 0,
  }));
  log(
    `library: ${documents.length} document, ${windows} windows, relations ${JSON.stringify(nnz)}`,
  );
  // The records of the file are let go: only the library holds the index now.
  records.documents.length = 0;

  const dir = mkdtempSync(path.join(os.tmpdir(), 'fragrel-parquet-bench-'));
  const zipPath = path.join(dir, 'million.fragrel-parquet.zip');
  let summary: Awaited<ReturnType<typeof writeParquetExport>> | undefined;
  const parquet = await measure(async () => {
    const fd = openSync(zipPath, 'w');
    summary = await writeParquetExport(
      { documents, load: (id) => library.exportRecords([id]) },
      (bytes) => writeSync(fd, bytes),
    );
    closeSync(fd);
    return statSync(zipPath).size;
  });
  log(
    `parquet: ${(parquet.ms / 1000).toFixed(1)} s, +${parquet.peakRssMiB.toFixed(0)} MiB RSS peak`,
  );
  const carry = await measure(async () => {
    const file = packLibrary(await library.exportRecords(), 'library');
    return file.length;
  });
  log(
    `.fragrel.zip: ${(carry.ms / 1000).toFixed(1)} s, +${carry.peakRssMiB.toFixed(0)} MiB RSS peak`,
  );

  // What the export needs alive, as against garbage V8 has not yet collected: the same export
  // again with a full GC at every row group, the heap read right after it (untimed: the GCs
  // dominate).
  const gc = (globalThis as { gc?: () => void }).gc!;
  gc();
  const live0 = process.memoryUsage();
  let livePeak = 0;
  const sample = () => {
    gc();
    const m = process.memoryUsage();
    livePeak = Math.max(
      livePeak,
      m.heapUsed + m.arrayBuffers - live0.heapUsed - live0.arrayBuffers,
    );
  };
  {
    const fd = openSync(zipPath, 'w');
    await writeParquetExport(
      { documents, load: (id) => library.exportRecords([id]) },
      (bytes) => writeSync(fd, bytes),
      { onProgress: sample },
    );
    closeSync(fd);
  }
  const liveMiB = livePeak / MB;
  const baseHeapMiB = (live0.heapUsed + live0.arrayBuffers) / MB;
  log(
    `parquet, live after a GC at each row group: +${liveMiB.toFixed(0)} MiB (the library itself: ${baseHeapMiB.toFixed(0)} MiB)`,
  );

  // Read back by DuckDB: every row there.
  const { unzipSync } = await import('fflate');
  const unzipped = path.join(dir, 'tables');
  const { mkdirSync, writeFileSync } = await import('node:fs');
  mkdirSync(unzipped);
  for (const [name, bytes] of Object.entries(unzipSync(readFileSync(zipPath)))) {
    writeFileSync(path.join(unzipped, name), bytes);
  }
  const counts = await duckCounts(unzipped);
  const edges = nnz.reduce((n, r) => n + r.edges, 0);
  if (counts.fragments !== windows || counts.vectors !== windows || counts.edges !== edges) {
    throw new Error(
      `DuckDB read ${JSON.stringify(counts)}; the library has ${windows} windows, ${edges} edges`,
    );
  }
  rmSync(dir, { recursive: true, force: true });
  library.close();
  const loadEnd = os.loadavg();
  return {
    windows,
    edges,
    summary: summary!,
    parquet,
    carry,
    liveMiB,
    baseHeapMiB,
    counts,
    load,
    loadEnd,
  };
}

export const parquetExportSection: BenchSection = {
  name: 'parquet-export',
  description:
    'Export as Parquet of the million-line repository (Node, the export worker’s function), against the .fragrel.zip export',
  async run(log) {
    const r = await run(log);
    const row = (name: string, m: Measured) =>
      `| ${name} | ${(m.ms / 1000).toFixed(1)} s | ${m.peakRssMiB.toFixed(0)} MiB | ${m.peakHeapAndBuffersMiB.toFixed(0)} MiB | ${(m.bytes / 1e6).toFixed(1)} MB |`;
    const markdown = [
      `${r.windows.toLocaleString('en')} windows, ${r.edges.toLocaleString('en')} stored edges; load average ${r.load.map((x) => x.toFixed(1)).join(' ')} → ${r.loadEnd.map((x) => x.toFixed(1)).join(' ')}`,
      '',
      '| export | time | peak RSS above start | peak JS heap + buffers above start | file |',
      '| --- | --- | --- | --- | --- |',
      row(`Parquet (${r.summary.rowGroups} row groups)`, r.parquet),
      row('.fragrel.zip (reference)', r.carry),
      '',
      `Parquet export, heap + buffers alive at its peak (a full GC at every row group): ${r.liveMiB.toFixed(0)} MiB above the ${r.baseHeapMiB.toFixed(0)} MiB the in-memory library itself holds.`,
      '',
      `Time ratio Parquet / .fragrel.zip: ${(r.parquet.ms / r.carry.ms).toFixed(2)}; DuckDB read back ${JSON.stringify(r.counts)}.`,
    ].join('\n');
    return { results: r, markdown };
  },
};

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.env.PARQUET_BENCH_PREPARE) {
    prepare((s) => process.stderr.write(`[parquet-export] ${s}\n`)).catch((e) => {
      console.error(e);
      process.exitCode = 1;
    });
  }
}
