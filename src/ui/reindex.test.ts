import 'fake-indexeddb/auto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { IDBFactory } from 'fake-indexeddb';
import { beforeAll, describe, expect, it } from 'vitest';
import { STATIC_EMBEDDER_ID, type StaticModel } from '../core/embed/static';
import { staticEmbedder } from '../models/embedder';
import { nodeGrammarSource } from '../models/tree-sitter-node';
import { openLibrary, type Library } from '../store';
import { LibraryService, defaultIndexSettings } from './library-service';
import { createIndexHandlers, type IndexApi } from '../indexing';
import { InProcessClient } from '../workers/in-process';
import type { Progress } from '../core/types';
import { loadGloveFromDisk } from '../../test/glove';
import { ingestFiles } from '../ingest/ingest';
import {
  assembleVectors,
  parseChangedFiles,
  reusableRows,
  sameRepository,
} from '../ingest/reindex';

/**
 * Incremental re-index on a real repository (picomatch's sources from node_modules), copied and
 * edited here: the result stored after a re-index of the edited version must equal, exactly, a
 * full index of the edited version in a fresh library.
 */

let model: StaticModel;
beforeAll(() => {
  model = loadGloveFromDisk();
});

const PICOMATCH = path.resolve('node_modules/picomatch');

/** picomatch's JavaScript files as a dropped folder's entries, path → text. */
function picomatchFiles(): Map<string, string> {
  const files = new Map<string, string>();
  files.set('index.js', readFileSync(path.join(PICOMATCH, 'index.js'), 'utf8'));
  for (const name of readdirSync(path.join(PICOMATCH, 'lib'))) {
    files.set(`lib/${name}`, readFileSync(path.join(PICOMATCH, 'lib', name), 'utf8'));
  }
  return files;
}

/** The next version: one file edited (a new function calling into utils.js), one removed, one added. */
function editedFiles(): Map<string, string> {
  const files = picomatchFiles();
  const parse = files.get('lib/parse.js')!;
  const at = parse.indexOf('\nmodule.exports');
  files.set(
    'lib/parse.js',
    `${parse.slice(0, at)}\nfunction describeGlob(input) {\n  return utils.removePrefix(input, {}) + ' (described)';\n}\nparse.describeGlob = describeGlob;\n${parse.slice(at)}`,
  );
  files.delete('lib/constants.js');
  files.set(
    'lib/escape.js',
    "'use strict';\n\nconst utils = require('./utils');\n\nfunction escapeGlob(input) {\n  return utils.escapeRegex(input);\n}\n\nmodule.exports = { escapeGlob };\n",
  );
  return files;
}

function folder(files: Map<string, string>) {
  const entries = [...files].map(([p, text]) => ({
    path: `picomatch/${p}`,
    file: new Blob([text]),
  }));
  return { folder: { name: 'picomatch', entries } };
}

async function setup(): Promise<{ library: Library; service: LibraryService }> {
  const library = await openLibrary('reindex', { factory: new IDBFactory() });
  const indexer = new InProcessClient<IndexApi>(
    createIndexHandlers({
      ingest: (files, options) => ingestFiles(files, options),
      loadEmbedder: async () => staticEmbedder(model),
      grammars: nodeGrammarSource(path.resolve('node_modules')),
      library: async () => library,
    }),
  );
  return { library, service: new LibraryService(library, indexer, 'http://127.0.0.1/') };
}

function recording(stages: Progress[]) {
  return { signal: new AbortController().signal, onProgress: (p: Progress) => stages.push(p) };
}

async function stored(library: Library, docId: string) {
  const index = (await library.loadDocumentIndex(docId, STATIC_EMBEDDER_ID))!;
  const relations = index.relations
    .map((r) => ({
      kind: r.kind,
      paramsKey: r.paramsKey,
      rowPtr: [...r.matrix!.rowPtr],
      col: [...r.matrix!.col],
      weight: [...r.matrix!.weight],
    }))
    .sort((a, b) => (a.kind < b.kind ? -1 : 1));
  return {
    source: index.source,
    sections: index.document.sections,
    sha256: index.document.sha256,
    fragmentCount: index.document.fragmentCount,
    starts: [...index.fragments.starts],
    ends: [...index.fragments.ends],
    words: [...(index.fragments.words ?? [])],
    labels: index.fragments.labels,
    vectors: index.vectors!.data,
    relations,
    parses: await library.getCodeSyntax(docId),
  };
}

describe('incremental re-index of a repository', () => {
  it('re-parses only changed files, re-embeds only new windows, and equals a full re-index', async () => {
    const a = await setup();
    const first = await a.service.addRepository(
      folder(picomatchFiles()),
      defaultIndexSettings,
      recording([]),
    );
    expect(first.error).toBeNull();
    expect(first.report.reuse).toBeUndefined();
    const firstId = first.document!.id;
    // Every file's parse is kept with the index.
    expect((await a.library.getCodeSyntax(firstId)).map((p) => p.path)).toEqual([
      'index.js',
      'lib/constants.js',
      'lib/parse.js',
      'lib/picomatch.js',
      'lib/scan.js',
      'lib/utils.js',
    ]);

    const stages: Progress[] = [];
    const second = await a.service.addRepository(
      folder(editedFiles()),
      defaultIndexSettings,
      recording(stages),
    );
    expect(second.error).toBeNull();
    // Replaced in place: one document, the same id.
    expect((await a.library.listDocuments()).map((d) => d.id)).toEqual([firstId]);
    // parse.js (edited) and escape.js (new) are parsed; the 4 others come from the store.
    const reuse = second.report.reuse!;
    expect({ parsed: reuse.filesParsed, reused: reuse.filesReused }).toEqual({
      parsed: 2,
      reused: 4,
    });
    expect(Math.max(...stages.filter((p) => p.stage === 'parse').map((p) => p.total))).toBe(2);
    // Windows of unchanged files keep their vectors; only the edited and new ones are embedded.
    expect(reuse.windowsReused).toBeGreaterThan(150);
    expect(reuse.windowsEmbedded).toBeGreaterThan(0);
    expect(reuse.windowsEmbedded).toBeLessThan(20);
    expect(reuse.windowsReused + reuse.windowsEmbedded).toBe(second.report.windows);

    // A full index of the edited version in a fresh library.
    const b = await setup();
    const full = await b.service.addRepository(
      folder(editedFiles()),
      defaultIndexSettings,
      recording([]),
    );
    const incremental = await stored(a.library, firstId);
    const fresh = await stored(b.library, full.document!.id);
    expect(incremental.relations.map((r) => r.kind)).toEqual(['code', 'semantic']);
    expect(incremental.relations[0].col.length).toBeGreaterThan(1000);
    expect(incremental).toEqual(fresh);
    expect(second.report.graph).toEqual(full.report.graph);
    expect(second.report.problems).toEqual(full.report.problems);
    a.library.close();
    b.library.close();
  }, 120_000);
});

describe('a repository that only shares the name', () => {
  it('is added beside the one in the library, which stays as it was', async () => {
    const a = await setup();
    const first = await a.service.addRepository(
      folder(picomatchFiles()),
      defaultIndexSettings,
      recording([]),
    );
    const before = await stored(a.library, first.document!.id);
    const other = new Map([
      ['app/main.py', 'def main():\n    return helper()\n'],
      ['app/helper.py', 'def helper():\n    return 42\n'],
    ]);
    const second = await a.service.addRepository(
      folder(other),
      defaultIndexSettings,
      recording([]),
    );
    expect(second.error).toBeNull();
    expect(second.report.reuse).toBeUndefined();
    const docs = await a.library.listDocuments();
    expect(docs.map((d) => d.name)).toEqual(['picomatch', 'picomatch']);
    expect(second.document!.id).not.toBe(first.document!.id);
    expect(await stored(a.library, first.document!.id)).toEqual(before);
    a.library.close();
  }, 60_000);
});

describe('reuse helpers', () => {
  it('tells a new version of a repository from another one with the same name', () => {
    const paths = (...p: string[]) => p.map((path) => ({ path }));
    expect(sameRepository(paths('a.js', 'b.js', 'c.js'), paths('a.js', 'b.js', 'd.js'))).toBe(true);
    expect(sameRepository(paths('a.js', 'b.js'), paths('a.js', 'x.js', 'y.js', 'z.js'))).toBe(true);
    expect(sameRepository(paths('a.js', 'b.js', 'c.js'), paths('x.js', 'y.js', 'c.js'))).toBe(
      false,
    );
    expect(sameRepository([], paths('a.js'))).toBe(false);
  });

  it('takes stored parses only for the same path and the same content', async () => {
    const files = [
      { path: 'a.py', text: 'def f():\n    return 1\n' },
      { path: 'b.py', text: 'def g():\n    return 2\n' },
    ];
    const first = await parseChangedFiles(files, [], async (some) => ({
      syntax: some.map(() => null),
      problems: some.map((f) => ({ path: f.path, message: `no ${f.path}` })),
    }));
    expect(first.filesParsed).toBe(2);
    expect(first.problems.map((p) => p.message)).toEqual(['no a.py', 'no b.py']);
    const parsedAgain: string[] = [];
    const next = [
      files[0],
      { path: 'b.py', text: 'def g():\n    return 3\n' },
      { ...files[0], path: 'c.py' },
    ];
    const second = await parseChangedFiles(next, first.parses, async (some) => {
      parsedAgain.push(...some.map((f) => f.path));
      return { syntax: some.map(() => null), problems: [] };
    });
    // Same content under another path is parsed too: the grammar goes by the path.
    expect(parsedAgain).toEqual(['b.py', 'c.py']);
    expect({ parsed: second.filesParsed, reused: second.filesReused }).toEqual({
      parsed: 2,
      reused: 1,
    });
    // The reused file keeps its problem, the re-parsed one's is gone.
    expect(second.problems).toEqual([{ path: 'a.py', message: 'no a.py' }]);
  });

  it('reuses a vector row only for the same text and the same embedder', () => {
    const previous = {
      text: 'aaabbbccc',
      starts: Uint32Array.of(0, 3, 6),
      ends: Uint32Array.of(3, 6, 9),
      vectors: { dim: 2, count: 3, data: Float32Array.of(1, 0, 0, 1, 1, 1) },
      embedderId: 'e',
      parses: [],
    };
    const rows = reusableRows(previous, 'e', ['ccc', 'ddd', 'aaa']);
    expect([...rows]).toEqual([2, -1, 0]);
    expect([...reusableRows(previous, 'other', ['ccc'])]).toEqual([-1]);
    const embedded = { dim: 2, count: 1, data: Float32Array.of(9, 9) };
    expect([...assembleVectors(rows, previous.vectors, embedded).data]).toEqual([1, 1, 9, 9, 1, 0]);
  });
});
