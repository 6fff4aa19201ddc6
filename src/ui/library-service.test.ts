import 'fake-indexeddb/auto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { IDBFactory } from 'fake-indexeddb';
import { strToU8, zipSync } from 'fflate';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STATIC_EMBEDDER_ID, type StaticModel } from '../core/embed/static';
import { ingestFiles } from '../ingest/ingest';
import { staticEmbedder, type EmbedderSpec } from '../models/embedder';
import { nodeGrammarSource } from '../models/tree-sitter-node';
import { openLibrary, type Library } from '../store';
import { createIndexHandlers, type IndexApi } from '../indexing';
import { InProcessClient } from '../workers/in-process';
import { isAbortError } from '../workers/protocol';
import { codeRelationParams } from '../workers/retrieval-types';
import { loadGloveFromDisk, sharedDatasetPath } from '../../test/glove';
import {
  HANDOVER_SLICE,
  LibraryService,
  defaultIndexSettings,
  repositoryFiles,
  type IndexSettings,
} from './library-service';

/**
 * The library service with the real indexing handlers run in-process and a real (fake-indexeddb)
 * library: which work runs when a setting changes, and that bad input and cancels store nothing.
 */

// A second, real embedder: the same vectors without SIF's common-component removal.
const PLAIN_ID = 'static-glove-100d-plain';

let model: StaticModel;
let library: Library;
let indexer: InProcessClient<IndexApi>;
let service: LibraryService;

const alice = () =>
  new File([readFileSync(sharedDatasetPath('gutenberg/pg11.txt'))], 'alice.txt', {
    type: 'text/plain',
  });
const job = (signal = new AbortController().signal) => ({ signal, onProgress: () => {} });

beforeEach(async () => {
  model ??= loadGloveFromDisk();
  library = await openLibrary('test-library', { factory: new IDBFactory() });
  indexer = new InProcessClient<IndexApi>(
    createIndexHandlers({
      ingest: (files, options) => ingestFiles(files, options),
      loadEmbedder: async (spec: EmbedderSpec) =>
        spec.id === PLAIN_ID
          ? staticEmbedder(model, PLAIN_ID, { removeCommonComponent: false })
          : staticEmbedder(model),
      grammars: nodeGrammarSource(path.resolve('node_modules')),
      library: async () => library,
    }),
  );
  service = new LibraryService(library, indexer, 'http://127.0.0.1/');
});

afterEach(() => library.close());

describe('LibraryService', () => {
  it('adds a book: one stored document with fragments, vectors and its semantic relation', async () => {
    const doc = await service.addFile(alice(), defaultIndexSettings, job());
    expect(doc.name).toBe('alice.txt');
    expect(doc.fragmentCount).toBeGreaterThan(40);
    expect(doc.embedderId).toBe(STATIC_EMBEDDER_ID);
    const index = await library.loadDocumentIndex(doc.id, STATIC_EMBEDDER_ID);
    expect(index!.vectors!.count).toBe(doc.fragmentCount);
    expect(index!.relations.map((r) => r.kind)).toEqual(['semantic']);
    // Chapter titles label the fragments.
    expect(index!.fragments.labels.some((l) => /CHAPTER/.test(l))).toBe(true);
    expect(service.stats.embeddedFragments).toBe(doc.fragmentCount);
    expect(await service.staleness(doc, defaultIndexSettings)).toBe('fresh');
  });

  it('recomputes exactly what a changed setting invalidates', async () => {
    const doc = await service.addFile(alice(), defaultIndexSettings, job());
    // The book was indexed in the worker and stored from there.
    expect(indexer.calls).toEqual({ indexHeld: 1, storeHeld: 1 });
    for (const kind of Object.keys(indexer.calls)) delete indexer.calls[kind];

    // Nothing changed: nothing runs.
    expect(await service.refresh(doc, defaultIndexSettings, job())).toBe(false);
    expect(indexer.calls).toEqual({});

    // k changed: only the semantic relation is rebuilt, from the stored vectors.
    const k8: IndexSettings = { ...defaultIndexSettings, semanticK: 8 };
    expect(await service.staleness(doc, k8)).toBe('relation');
    expect(await service.refresh(doc, k8, job())).toBe(true);
    expect(indexer.calls).toEqual({ relate: 1 });
    expect(service.stats.embeddedFragments).toBe(doc.fragmentCount);
    const parts = await library.listIndexParts(doc.id);
    expect(parts.relations).toHaveLength(2);

    // The embedder changed: vectors and relation for it, the fragments kept.
    const plain: IndexSettings = { ...defaultIndexSettings, embedderId: PLAIN_ID };
    expect(await service.staleness(doc, plain)).toBe('vectors');
    expect(await service.refresh(doc, plain, job())).toBe(true);
    expect(indexer.calls).toEqual({ relate: 1, embed: 1 });
    expect((await library.listIndexParts(doc.id)).embedderIds.sort()).toEqual(
      [PLAIN_ID, STATIC_EMBEDDER_ID].sort(),
    );
    expect((await library.getDocument(doc.id))!.fragmentCount).toBe(doc.fragmentCount);
    // Switching back finds the first embedder's vectors still there: nothing to do.
    const again = (await library.getDocument(doc.id))!;
    expect(await service.staleness(again, defaultIndexSettings)).toBe('fresh');

    // The fragment size changed: everything is recomputed, old vectors go with the old fragments.
    // (The default is 100 words, so five times larger fragments leave well under half as many.)
    const large: IndexSettings = {
      ...defaultIndexSettings,
      wordsPerFragment: 5 * defaultIndexSettings.wordsPerFragment,
    };
    expect(await service.staleness(again, large)).toBe('fragments');
    expect(await service.refresh(again, large, job())).toBe(true);
    expect(indexer.calls).toEqual({ relate: 1, embed: 1, indexHeld: 1, storeHeld: 1 });
    const redone = (await library.getDocument(doc.id))!;
    expect(2 * redone.fragmentCount).toBeLessThan(doc.fragmentCount);
    expect((await library.listIndexParts(doc.id)).embedderIds).toEqual([STATIC_EMBEDDER_ID]);
    expect(await service.staleness(redone, large)).toBe('fresh');
  });

  it('refuses a file already in the library, and a bad file, leaving the library as it was', async () => {
    const doc = await service.addFile(alice(), defaultIndexSettings, job());
    await expect(service.addFile(alice(), defaultIndexSettings, job())).rejects.toThrow(
      /already in the library/,
    );
    // The second index was computed, then dropped in the worker rather than stored.
    expect(indexer.calls).toMatchObject({ indexHeld: 2, storeHeld: 1, dropHeld: 1 });
    await expect(
      service.addFile(new File([new Uint8Array(0)], 'empty.txt'), defaultIndexSettings, job()),
    ).rejects.toThrow(/empty\.txt/);
    expect((await library.listDocuments()).map((d) => d.id)).toEqual([doc.id]);
  });

  it('stores nothing when cancelled', async () => {
    const controller = new AbortController();
    const adding = service.addFile(alice(), defaultIndexSettings, {
      signal: controller.signal,
      onProgress: (p) => {
        if (p.stage === 'split') controller.abort();
      },
    });
    const error = await adding.catch((e: unknown) => e);
    expect(isAbortError(error)).toBe(true);
    expect(await library.listDocuments()).toEqual([]);
  });

  it('stores nothing when cancelled as the save begins, and the worker lets the index go', async () => {
    const controller = new AbortController();
    const adding = service.addFile(alice(), defaultIndexSettings, {
      signal: controller.signal,
      onProgress: (p) => {
        if (p.stage === 'save') controller.abort();
      },
    });
    const error = await adding.catch((e: unknown) => e);
    expect(isAbortError(error)).toBe(true);
    expect(indexer.calls).toMatchObject({ indexHeld: 1, dropHeld: 1 });
    expect(await library.listDocuments()).toEqual([]);
  });
});

/**
 * A real package's source as a zipped repository: picomatch's lib/ (seven CommonJS files that
 * require and call each other), plus what a repository also holds and indexing must leave out.
 */
function picomatchZip(): File {
  const dir = path.resolve('node_modules/picomatch');
  const entries: Record<string, Uint8Array> = {};
  for (const name of readdirSync(path.join(dir, 'lib'))) {
    entries[`picomatch/lib/${name}`] = readFileSync(path.join(dir, 'lib', name));
  }
  entries['picomatch/index.js'] = readFileSync(path.join(dir, 'index.js'));
  entries['picomatch/.gitignore'] = strToU8('secrets.js\n');
  entries['picomatch/secrets.js'] = strToU8('module.exports = "hunter2";\n');
  entries['picomatch/node_modules/dep/index.js'] = strToU8('module.exports = 1;\n');
  entries['picomatch/logo.png'] = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0);
  return new File([zipSync(entries)], 'picomatch.zip', { type: 'application/zip' });
}

describe('LibraryService with repositories', () => {
  it('adds a zipped repository: windows labelled by file and line, the code relation, the skip report', async () => {
    const progress: string[] = [];
    const outcome = await service.addRepository({ zip: picomatchZip() }, defaultIndexSettings, {
      signal: new AbortController().signal,
      onProgress: (p) => {
        if (progress[progress.length - 1] !== p.stage) progress.push(p.stage);
      },
    });
    expect(outcome.error).toBeNull();
    const doc = outcome.document!;
    expect(doc.kind).toBe('code');
    expect(doc.format).toBe('zip');
    // The stages in order (the embedder reports 'embed'; 'save' is the store's).
    expect(progress.filter((s) => s !== 'download')).toEqual([
      'read',
      'parse',
      'split',
      'embed',
      'graph',
      'relate',
      'save',
    ]);
    // One section per file, the single top folder removed.
    expect(repositoryFiles(doc).map((f) => f.path)).toEqual([
      '.gitignore',
      'index.js',
      'lib/constants.js',
      'lib/parse.js',
      'lib/picomatch.js',
      'lib/scan.js',
      'lib/utils.js',
    ]);
    const reasons = Object.fromEntries(outcome.report.skipped.map((s) => [s.path, s.reason]));
    expect(reasons).toMatchObject({
      'secrets.js': 'gitignored',
      'node_modules/': 'vendored',
      'logo.png': 'binary',
    });
    expect(outcome.report.graph!.resolvedCalls).toBeGreaterThan(10);
    expect(outcome.report.problems).toEqual([]);

    const index = (await library.loadDocumentIndex(doc.id, STATIC_EMBEDDER_ID))!;
    expect(index.fragments.labels).toContain('lib/picomatch.js:1-20');
    expect(index.fragments.labels.every((l) => /^[\w./]+:\d+-\d+$/.test(l))).toBe(true);
    expect(index.vectors!.count).toBe(doc.fragmentCount);
    expect(index.relations.map((r) => r.kind).sort()).toEqual(['code', 'semantic']);
    const code = index.relations.find((r) => r.kind === 'code')!;
    expect(code.params).toEqual(codeRelationParams());
    // A window of picomatch.js that calls parse() relates to the windows of parse.js.
    const m = code.matrix!;
    const labels = index.fragments.labels;
    const source = index.source;
    const caller = labels.findIndex(
      (l, i) =>
        l.startsWith('lib/picomatch.js:') &&
        /\bparse\(/.test(source.slice(index.fragments.starts[i], index.fragments.ends[i])),
    );
    expect(caller).toBeGreaterThanOrEqual(0);
    const related = [...m.col.subarray(m.rowPtr[caller], m.rowPtr[caller + 1])].map(
      (j) => labels[j],
    );
    expect(related.some((l) => l.startsWith('lib/parse.js:'))).toBe(true);
    expect(m.rowPtr[caller + 1] - m.rowPtr[caller]).toBeLessThanOrEqual(256);
    // Each window's scope names are stored beside the relation (core/code/scopes.ts): a window
    // deep inside parse() (lines 356-1338 of picomatch 4's lib/parse.js) is named by it.
    expect(code.scopes).toHaveLength(doc.fragmentCount);
    const inParse = labels.indexOf('lib/parse.js:601-620');
    expect(code.scopes![inParse].split(' ')).toContain('parse');

    // The fragment size does not apply to repositories; a missing code relation is rebuilt alone.
    const small: IndexSettings = { ...defaultIndexSettings, wordsPerFragment: 200 };
    expect(await service.staleness(doc, small)).toBe('fresh');
    await library.saveIndexedDocument({
      document: doc,
      source: index.source,
      fragments: index.fragments,
      vectors: [{ embedderId: STATIC_EMBEDDER_ID, vectors: index.vectors! }],
      relations: index.relations.filter((r) => r.kind !== 'code'),
    });
    expect(await service.staleness(doc, defaultIndexSettings)).toBe('code');
    indexer.calls.relateCode = 0;
    expect(await service.refresh(doc, defaultIndexSettings, job())).toBe(true);
    expect(indexer.calls.relateCode).toBe(1);
    const rebuilt = (await library.loadDocumentIndex(doc.id, STATIC_EMBEDDER_ID))!;
    const again = rebuilt.relations.find((r) => r.kind === 'code')!.matrix!;
    expect([...again.col]).toEqual([...m.col]);
    // Rebuilt with the relation, the same scope names.
    expect(rebuilt.relations.find((r) => r.kind === 'code')!.scopes).toEqual(code.scopes);
    expect(await service.staleness(doc, defaultIndexSettings)).toBe('fresh');

    // The same repository again is refused, with its report.
    const twice = await service.addRepository({ zip: picomatchZip() }, defaultIndexSettings, job());
    expect(twice.document).toBeNull();
    expect(twice.error).toMatch(/already in the library/);
    expect(await library.listDocuments()).toHaveLength(1);
  });

  it('refuses a broken zip with a message and stores nothing', async () => {
    const bytes = zipSync({ 'a.js': strToU8('function a() { return 1; }\n'.repeat(50)) });
    const broken = new File([bytes.slice(0, bytes.length - 30)], 'broken.zip');
    const outcome = await service.addRepository({ zip: broken }, defaultIndexSettings, job());
    expect(outcome.document).toBeNull();
    expect(outcome.error).toMatch(/broken\.zip.*could not be read as a ZIP archive/);
    expect(await library.listDocuments()).toEqual([]);
  });

  it('stops the code relation build when the cancel flag is set (no message can arrive then)', async () => {
    const flag = new Int32Array(new SharedArrayBuffer(4));
    const stages: string[] = [];
    const call = indexer.call(
      'indexRepository',
      {
        docId: 'x',
        source: { zip: picomatchZip() },
        semanticK: 16,
        embedder: { id: STATIC_EMBEDDER_ID, url: 'unused' },
        cancelFlag: flag,
      },
      {
        onProgress: (p) => {
          stages.push(p.stage);
          if (p.stage === 'relate') Atomics.store(flag, 0, 1);
        },
      },
    );
    expect(isAbortError(await call.catch((e: unknown) => e))).toBe(true);
    expect(stages).toContain('graph');
  });

  it('adds a folder, and stores nothing when cancelled while parsing', async () => {
    const entries = ['constants.js', 'parse.js', 'utils.js'].map((name) => ({
      path: `lib/${name}`,
      file: new Blob([readFileSync(path.resolve('node_modules/picomatch/lib', name))]),
    }));
    const controller = new AbortController();
    const cancelled = service.addRepository(
      { folder: { name: 'lib', entries } },
      defaultIndexSettings,
      {
        signal: controller.signal,
        onProgress: (p) => {
          if (p.stage === 'parse') controller.abort();
        },
      },
    );
    expect(isAbortError(await cancelled.catch((e: unknown) => e))).toBe(true);
    expect(await library.listDocuments()).toEqual([]);

    const outcome = await service.addRepository(
      { folder: { name: 'lib', entries } },
      defaultIndexSettings,
      job(),
    );
    expect(outcome.document!.format).toBe('folder');
    expect(outcome.document!.name).toBe('lib');
    expect(outcome.report.files).toBe(3);
  });

  it('hands a large folder to the worker in slices, with the same index as in one message', async () => {
    // Real source files, each under its own directory: more entries than one slice.
    const lib = path.resolve('node_modules/picomatch/lib');
    const names = readdirSync(lib);
    const count = 2 * HANDOVER_SLICE + 17;
    const entries = Array.from({ length: count }, (_, i) => ({
      path: `big/d${i}/${names[i % names.length]}`,
      file: new Blob([readFileSync(path.join(lib, names[i % names.length]))]),
    }));
    const whole = await indexer.call('indexRepository', {
      docId: 'whole',
      source: { folder: { name: 'big', entries } },
      semanticK: 16,
      embedder: { id: STATIC_EMBEDDER_ID, url: 'unused' },
    });

    // Cancelled during the hand-over: nothing stored, and the staged entries let go.
    const controller = new AbortController();
    const stages: string[] = [];
    const cancelled = service.addRepository(
      { folder: { name: 'big', entries } },
      defaultIndexSettings,
      {
        signal: controller.signal,
        onProgress: (p) => {
          stages.push(p.stage);
          if (p.stage === 'handover' && p.done > 0) controller.abort();
        },
      },
    );
    expect(isAbortError(await cancelled.catch((e: unknown) => e))).toBe(true);
    expect(stages.every((s) => s === 'handover')).toBe(true);
    expect(indexer.calls).toMatchObject({ stageFolder: 1, dropStaged: 1 });
    expect(await library.listDocuments()).toEqual([]);

    const outcome = await service.addRepository(
      { folder: { name: 'big', entries } },
      defaultIndexSettings,
      job(),
    );
    expect(indexer.calls.stageFolder).toBe(1 + 3);
    expect(outcome.report.files).toBe(count);
    const stored = (await library.loadDocumentIndex(outcome.document!.id, STATIC_EMBEDDER_ID))!;
    if (!whole.ok) throw new Error(whole.error.message);
    expect(stored.source).toBe(whole.text);
    expect(stored.fragments.labels).toEqual(whole.fragments.labels);
    const code = stored.relations.find((r) => r.kind === 'code')!.matrix!;
    expect([...code.col]).toEqual([...whole.code.col]);

    // A newer version of the folder (one file changed): staged as before, and re-indexed in
    // place from the stored version, which the worker reads itself.
    const newer = entries.map((e, i) =>
      i === 5
        ? {
            ...e,
            file: new Blob([
              readFileSync(path.join(lib, names[5 % names.length])),
              '\n// changed\n',
            ]),
          }
        : e,
    );
    const again = await service.addRepository(
      { folder: { name: 'big', entries: newer } },
      defaultIndexSettings,
      job(),
    );
    expect(again.error).toBeNull();
    expect(again.document!.id).toBe(outcome.document!.id);
    expect(again.report.files).toBe(count);
    expect(again.report.reuse).toMatchObject({ filesParsed: 1, filesReused: count - 1 });
  });
});
