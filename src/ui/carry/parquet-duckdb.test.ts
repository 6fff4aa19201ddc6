import 'fake-indexeddb/auto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { IDBFactory } from 'fake-indexeddb';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATIC_EMBEDDER_ID, type StaticModel } from '../../core/embed/static';
import {
  buildRun,
  rankRun,
  runIndependentScores,
  type RankOptions,
  type RunDocumentIndex,
  type RunRelationKind,
} from '../../core/run';
import { tokenize } from '../../core/tokenize';
import { ingestFiles } from '../../ingest/ingest';
import { staticEmbedder } from '../../models/embedder';
import { nodeGrammarSource } from '../../models/tree-sitter-node';
import { LibraryService, defaultIndexSettings } from '../../ui/library-service';
import { createIndexHandlers, type IndexApi } from '../../indexing';
import { InProcessClient } from '../../workers/in-process';
import { semanticParams } from '../../workers/retrieval-params';
import { codeRelationParams } from '../../workers/retrieval-types';
import { loadGloveFromDisk, sharedDatasetPath } from '../../../test/glove';
import { sourceFiles } from '../../../test/code-repository';
import { relationParamsKey } from '../../store/codec';
import { openLibrary, type Library } from '../../store/index';
import { writeParquetExport } from '../../store/parquet/export';
import { sqlBlocks } from '../../../test/storage-sql';

/**
 * The Parquet export read by a real engine: a real book (Pride and Prejudice, GloVe vectors) and
 * a real repository (this project's core, parsed with tree-sitter) indexed as the app indexes
 * them, exported, read by DuckDB, and scored by the SQL of docs/storage.md (read from the page):
 * the core's scores, ranking and selection, exactly.
 */

let model: StaticModel;
let library: Library;
let dir: string;
let instance: DuckDBInstance;
let db: DuckDBConnection;
let bookId: string;
let repoId: string;
const k = defaultIndexSettings.semanticK;
const semanticKey = relationParamsKey(semanticParams(STATIC_EMBEDDER_ID, k));
const codeKey = relationParamsKey(codeRelationParams());

const job = () => ({ signal: new AbortController().signal, onProgress: () => {} });

beforeAll(async () => {
  model = loadGloveFromDisk();
  library = await openLibrary('parquet-duckdb', { factory: new IDBFactory() });
  const indexer = new InProcessClient<IndexApi>(
    createIndexHandlers({
      ingest: (files, options) => ingestFiles(files, options),
      loadEmbedder: async () => staticEmbedder(model),
      grammars: nodeGrammarSource(path.resolve('node_modules')),
      library: async () => library,
    }),
  );
  const service = new LibraryService(library, indexer, 'http://127.0.0.1/');
  const book = await service.addFile(
    new File([readFileSync(sharedDatasetPath('gutenberg/pg1342.txt'))], 'pride.txt'),
    defaultIndexSettings,
    job(),
  );
  bookId = book.id;
  const files = sourceFiles(['src/core', 'src/core/relations', 'src/core/code']);
  const repo = await service.addRepository(
    {
      folder: {
        name: 'core',
        entries: files.map((f) => ({ path: f.path, file: new Blob([f.text]) })),
      },
    },
    defaultIndexSettings,
    job(),
  );
  repoId = repo.document!.id;

  const chunks: Uint8Array[] = [];
  await writeParquetExport(
    { documents: await library.listDocuments(), load: (id) => library.exportRecords([id]) },
    (bytes) => chunks.push(bytes),
    // Small groups, so the test reads files of several row groups.
    { rowGroupRows: 1000, rowGroupValues: 20_000 },
  );
  const zip = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    zip.set(c, at);
    at += c.length;
  }
  dir = mkdtempSync(path.join(os.tmpdir(), 'fragrel-parquet-'));
  for (const [name, bytes] of Object.entries(unzipSync(zip))) {
    writeFileSync(path.join(dir, name), bytes);
  }
  instance = await DuckDBInstance.create(':memory:');
  db = await instance.connect();
  await db.run(`SET file_search_path = '${dir.replaceAll("'", "''")}'`);
  for (const block of ['tables', 'question', 'scoring', 'selection']) {
    await db.run(sqlBlocks()[block]);
  }
}, 240_000);

afterAll(async () => {
  db?.closeSync();
  instance?.closeSync();
  await library?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** What the retrieval worker builds a run from (retrieval.worker.ts, loadDocument). */
async function runDocument(docId: string): Promise<RunDocumentIndex> {
  const index = (await library.loadDocumentIndex(docId, STATIC_EMBEDDER_ID))!;
  const codeRelation = index.relations.find((r) => r.kind === 'code' && r.paramsKey === codeKey);
  return {
    docId,
    name: index.document.name,
    source: index.source,
    starts: index.fragments.starts,
    ends: index.fragments.ends,
    words: index.fragments.words!,
    labels: index.fragments.labels,
    vectors: index.vectors,
    semantic: index.relations.find((r) => r.kind === 'semantic' && r.paramsKey === semanticKey)
      ?.matrix,
    code: codeRelation?.matrix,
    ...(codeRelation?.references ? { codeReferences: codeRelation.references } : {}),
  };
}

interface Case {
  docIds: () => string[];
  question: string;
  mode?: 'dense' | 'bm25';
  options: Partial<RankOptions> & { relations: RunRelationKind[] };
}

/** The core's ranking and selection against the SQL's for one question. */
async function compare({ docIds, question, options, mode = 'dense' }: Case) {
  const ids = docIds();
  const run = buildRun(await Promise.all(ids.map(runDocument)));
  const [vector] = [await staticEmbedder(model).embed([question], { kind: 'query' })];
  const independent = runIndependentScores(run, { tokens: tokenize(question), vector }, mode);
  const o = { alpha: 0.5, wRel: 0.3, budget: 2000, maxSelected: Infinity, ...options };
  const ranked = rankRun(run, independent, { ...o, listed: run.size });

  // The question's inputs, as a person would register them.
  await db.run(
    'DELETE FROM run_documents; DELETE FROM scores; DELETE FROM kinds; DELETE FROM settings;',
  );
  const docs = await db.createAppender('run_documents');
  ids.forEach((id, p) => {
    docs.appendVarchar(id);
    docs.appendInteger(p);
    docs.endRow();
  });
  docs.closeSync();
  const scores = await db.createAppender('scores');
  run.documents.forEach((d) => {
    for (let i = 0; i < d.count; i++) {
      scores.appendVarchar(d.docId);
      scores.appendInteger(i);
      scores.appendDouble(independent[d.offset + i]);
      scores.endRow();
    }
  });
  scores.closeSync();
  const kinds = await db.createAppender('kinds');
  for (const kind of o.relations) {
    kinds.appendVarchar(kind);
    if (kind === 'context') kinds.appendNull();
    else kinds.appendVarchar(kind === 'semantic' ? semanticKey : codeKey);
    kinds.appendDouble(1);
    kinds.endRow();
  }
  kinds.closeSync();
  await db.run(
    `INSERT INTO settings VALUES (${o.alpha}, ${o.wRel}, ${o.budget}, ${
      Number.isFinite(o.maxSelected) ? o.maxSelected : 'NULL'
    })`,
  );

  const offset = new Map(run.documents.map((d) => [d.docId, d.offset]));
  const at = (row: Record<string, unknown>) => offset.get(String(row.document))! + Number(row.idx);
  const sqlRanked = (
    await db.runAndReadAll('SELECT * FROM fragrel_scores ORDER BY rank')
  ).getRowObjects();
  const selected = (
    await db.runAndReadAll('SELECT * FROM fragrel_selection ORDER BY rank')
  ).getRowObjects();

  expect(sqlRanked).toHaveLength(run.size);
  let worst = 0;
  for (const row of sqlRanked) {
    const i = at(row);
    for (const [col, core] of [
      ['independent', ranked.scores.independent],
      ['environment', ranked.scores.environment],
      ['final', ranked.scores.final],
    ] as const) {
      worst = Math.max(worst, Math.abs(Number(row[col]) - core[i]));
    }
  }
  expect(worst).toBeLessThan(1e-12);

  // The whole ranking, in order. Where two fragments' final scores agree to 1e-12 the order
  // rests on rounding, so such pairs are counted: none occur on these questions, and a tie of
  // exactly equal scores is broken alike on both sides (document order, then index).
  const sqlOrder = sqlRanked.map(at);
  const coreOrder = Array.from(ranked.top);
  let nearTies = 0;
  for (let r = 1; r < coreOrder.length; r++) {
    const a = ranked.scores.final[coreOrder[r - 1]];
    const b = ranked.scores.final[coreOrder[r]];
    if (a - b < 1e-12 && a !== b) nearTies++;
  }
  expect(nearTies).toBe(0);
  expect(sqlOrder).toEqual(coreOrder);

  // The selection: the same fragments, in the same rank order, with the same words used.
  expect(selected.map(at)).toEqual(Array.from(ranked.selection.ranked));
  expect(selected.map((r) => Number(r.rank) - 1)).toEqual(Array.from(ranked.selection.ranks!));
  const used = selected.length ? Number(selected[selected.length - 1].used_after) : 0;
  expect(used).toBe(ranked.selection.used);
  return { ranked, selected };
}

describe('the Parquet export read by DuckDB and scored by the documented SQL', () => {
  it('has every fragment, vector and edge of the library, as stored', async () => {
    const count = async (sql: string) => Number((await db.runAndReadAll(sql)).getRowObjects()[0].n);
    const docs = await library.listDocuments();
    const total = docs.reduce((n, d) => n + d.fragmentCount, 0);
    expect(await count('SELECT count(*) AS n FROM fragments')).toBe(total);
    expect(await count('SELECT count(*) AS n FROM vectors')).toBe(total);
    // The fragment text is the source's span; vectors are the stored float32 rows.
    const book = (await library.loadDocumentIndex(bookId, STATIC_EMBEDDER_ID))!;
    const row = (
      await db.runAndReadAll(
        `SELECT f.text, f.start, f."end", f.words, v.vector::DOUBLE[] AS vector
         FROM fragments f JOIN vectors v USING (document, idx)
         WHERE f.document = '${bookId}' AND f.idx = 7`,
      )
    ).getRowObjects()[0];
    expect(row.text).toBe(book.source.slice(book.fragments.starts[7], book.fragments.ends[7]));
    expect(Number(row.words)).toBe(book.fragments.words![7]);
    const v = (row.vector as { items: number[] }).items;
    expect(v).toEqual(Array.from(book.vectors!.data.subarray(7 * model.dim, 8 * model.dim)));
    // Edges: each stored relation's non-zeros, and the relations table says how many.
    for (const id of [bookId, repoId]) {
      const index = (await library.loadDocumentIndex(id, STATIC_EMBEDDER_ID))!;
      for (const rel of index.relations) {
        expect(
          await count(
            `SELECT count(*) AS n FROM edges WHERE document = '${id}' AND kind = '${rel.kind}' AND params = '${rel.paramsKey}'`,
          ),
        ).toBe(rel.matrix!.col.length);
      }
    }
    expect(
      await count(
        `SELECT count(*) AS n FROM relations WHERE document = '${repoId}' AND kind = 'code'`,
      ),
    ).toBe(1);
  });

  it('a real book: the core ranking and selection, context and semantic relations', async () => {
    const { selected } = await compare({
      docIds: () => [bookId],
      question: 'Why does Elizabeth refuse Mr Darcy when he first proposes to her?',
      options: { relations: ['context', 'semantic'] },
    });
    expect(selected.length).toBeGreaterThan(5);
  });

  it('a real book: the context relation alone, and a small budget that skips long fragments', async () => {
    const { ranked } = await compare({
      docIds: () => [bookId],
      question: 'Mr Collins proposes marriage to Elizabeth and she refuses him',
      options: { relations: ['context'], budget: 450, alpha: 0.8, wRel: 0.5 },
    });
    // A fragment that did not fit was skipped and a later one taken: ranks are not 0, 1, 2, ...
    const ranks = Array.from(ranked.selection.ranks!);
    expect(ranks).not.toEqual(ranks.map((_, r) => r));
  });

  it('a real repository: context, semantic and code relations, the top 10 windows', async () => {
    const { selected } = await compare({
      docIds: () => [repoId],
      question: 'select fragments by score within the budget using a heap',
      options: { relations: ['context', 'semantic', 'code'], maxSelected: 10 },
    });
    expect(selected).toHaveLength(10);
  });

  it('the book and the repository together: the book has empty code rows (0 in the mean)', async () => {
    await compare({
      docIds: () => [repoId, bookId],
      question: 'how is the environment score of a fragment computed from its neighbours',
      options: { relations: ['context', 'code'] },
    });
  });

  it('exact ties (BM25 scores of 0, no relation) rank by document order, then index', async () => {
    const { ranked } = await compare({
      docIds: () => [repoId, bookId],
      question: 'Netherfield ball',
      mode: 'bm25',
      options: { relations: [] },
    });
    const zeros = Array.from(ranked.top).filter((i) => ranked.scores.final[i] === 0);
    expect(zeros.length).toBeGreaterThan(1000);
    // The repository's windows (laid out first) before the book's fragments, each in order.
    expect(zeros).toEqual([...zeros].sort((a, b) => a - b));
  });

  it('no relation on: the environment is 0 and the final score the independent one', async () => {
    const { ranked } = await compare({
      docIds: () => [bookId],
      question: 'a ball at Netherfield',
      options: { relations: [] },
    });
    expect(ranked.scores.environment.every((e) => e === 0)).toBe(true);
  });
});
