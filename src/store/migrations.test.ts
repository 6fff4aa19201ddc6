import 'fake-indexeddb/auto';
import { forceCloseDatabase, IDBFactory } from 'fake-indexeddb';
import { unwrap } from 'idb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { defaultFragmentOptions } from '../core/options';
import { StoreError } from './errors';
import { deleteLibrary, openLibrary } from './library';
import { LIBRARY_VERSION, MIGRATIONS, SERIALIZATION_VERSION, type Migration } from './schema';
import { sampleCsr, sampleText, sampleVectors } from './testing';
import { packFragments } from './codec';

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

/** Open with the raw IndexedDB API, as code of an older release would have. */
function rawOpen(
  factory: IDBFactory,
  name: string,
  version: number,
  upgrade?: (db: IDBDatabase) => void,
): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = factory.open(name, version);
    request.onupgradeneeded = () => upgrade?.(request.result);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

function rawPut(db: IDBDatabase, storeName: string, values: unknown[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const tx = db.transaction(storeName, 'readwrite');
    for (const value of values) tx.objectStore(storeName).put(value);
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
  });
}

/**
 * Frozen snapshot of schema version 1 as shipped, written by hand (never derived from
 * MIGRATIONS): every store, and no `byDate` index on questions.
 */
function createV1Schema(db: IDBDatabase): void {
  db.createObjectStore('documents', { keyPath: 'id' });
  db.createObjectStore('sources', { keyPath: 'docId' });
  db.createObjectStore('fragments', { keyPath: 'docId' });
  db.createObjectStore('vectors', { keyPath: ['docId', 'embedderId'] });
  db.createObjectStore('relations', { keyPath: ['docId', 'kind', 'paramsKey'] });
  db.createObjectStore('settings', { keyPath: 'key' });
  db.createObjectStore('questions', { keyPath: 'id' });
}

/**
 * Frozen snapshot of schema version 2 as shipped, written by hand: version 1 and the `byDate`
 * index on questions; no `chats` store.
 */
function createV2Schema(db: IDBDatabase): void {
  db.createObjectStore('documents', { keyPath: 'id' });
  db.createObjectStore('sources', { keyPath: 'docId' });
  db.createObjectStore('fragments', { keyPath: 'docId' });
  db.createObjectStore('vectors', { keyPath: ['docId', 'embedderId'] });
  db.createObjectStore('relations', { keyPath: ['docId', 'kind', 'paramsKey'] });
  db.createObjectStore('settings', { keyPath: 'key' });
  db.createObjectStore('questions', { keyPath: 'id' }).createIndex('byDate', 'date');
}

/**
 * A library written by v1 (or v2) code with one indexed book, a setting and three questions
 * stored out of date order.
 */
async function writeV1Library(factory: IDBFactory, name: string, version: 1 | 2 = 1) {
  const db = await rawOpen(factory, name, version, version === 1 ? createV1Schema : createV2Schema);
  const { source, fragments } = sampleText('old', 6);
  const table = packFragments(fragments);
  await rawPut(db, 'documents', [
    {
      id: 'old',
      name: 'Old book.txt',
      format: 'text',
      kind: 'prose',
      bytes: source.length,
      sha256: '00'.repeat(32),
      addedAt: 1_600_000_000_000,
      status: 'indexed',
      fragmentCount: 6,
      fragmentOptions: { ...defaultFragmentOptions },
      embedderId: 'glove-100d',
      sections: [],
      storedBytes: 1234,
    },
  ]);
  await rawPut(db, 'sources', [{ docId: 'old', text: source }]);
  await rawPut(db, 'fragments', [
    {
      docId: 'old',
      serializationVersion: 1,
      count: 6,
      starts: table.starts.buffer,
      ends: table.ends.buffer,
      labels: table.labels,
    },
  ]);
  await rawPut(db, 'vectors', [
    {
      docId: 'old',
      embedderId: 'glove-100d',
      serializationVersion: 1,
      dim: 4,
      count: 6,
      data: sampleVectors(6, 4).data.buffer,
      fragmentOptions: { ...defaultFragmentOptions },
    },
  ]);
  const csr = sampleCsr(6);
  await rawPut(db, 'relations', [
    {
      docId: 'old',
      kind: 'semantic',
      paramsKey: '{"k":2}',
      params: { k: 2 },
      serializationVersion: 1,
      size: 6,
      csr: { rowPtr: csr.rowPtr.buffer, col: csr.col.buffer, weight: csr.weight.buffer },
    },
  ]);
  await rawPut(db, 'settings', [{ key: 'budget', value: 4000 }]);
  await rawPut(db, 'questions', [
    { id: 'b', question: 'Middle?', docIds: ['old'], date: 2000, selected: [] },
    {
      id: 'c',
      question: 'Latest?',
      docIds: ['old'],
      date: 3000,
      selected: [{ docId: 'old', ordinal: 1 }],
    },
    { id: 'a', question: 'Earliest?', docIds: ['old'], date: 1000, selected: [], answer: 'Yes.' },
  ]);
  db.close();
}

/** Stores, key paths and indexes of a database, for comparing layouts. */
function layout(db: IDBDatabase) {
  const names = [...db.objectStoreNames].sort();
  const tx = db.transaction(names, 'readonly');
  return names.map((name) => {
    const store = tx.objectStore(name);
    return {
      name,
      keyPath: store.keyPath,
      autoIncrement: store.autoIncrement,
      indexes: [...store.indexNames].sort().map((indexName) => {
        const index = store.index(indexName);
        return {
          name: indexName,
          keyPath: index.keyPath,
          unique: index.unique,
          multiEntry: index.multiEntry,
        };
      }),
    };
  });
}

describe('schema versions', () => {
  it('are numbered in increasing order with one migration per version', () => {
    // Branches are assigned version numbers ahead of merging, so a number may be skipped.
    const versions = MIGRATIONS.map((m) => m.version);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    expect(new Set(versions).size).toBe(versions.length);
    expect(versions.slice(0, 3)).toEqual([1, 2, 3]);
    expect(versions).toContain(6);
    expect(LIBRARY_VERSION).toBe(versions.at(-1));
  });

  it('creates a fresh library at the current version with every store and index', async () => {
    const library = await openLibrary('fresh', { factory: new IDBFactory() });
    expect(library.version).toBe(LIBRARY_VERSION);
    const stores = layout(unwrap(library.db));
    expect(stores.map((s) => s.name)).toEqual([
      'chats',
      'codeSyntax',
      'documents',
      'evalResults',
      'evalRuns',
      'fragments',
      'pipelineMemory',
      'questions',
      'relations',
      'settings',
      'sources',
      'vectors',
    ]);
    expect(stores.find((s) => s.name === 'questions')!.indexes).toEqual([
      { name: 'byDate', keyPath: 'date', unique: false, multiEntry: false },
    ]);
    expect(stores.find((s) => s.name === 'chats')).toEqual({
      name: 'chats',
      keyPath: 'id',
      autoIncrement: false,
      indexes: [{ name: 'byUpdated', keyPath: 'updatedAt', unique: false, multiEntry: false }],
    });
    library.close();
  });
});

describe('migration from an older version', () => {
  it('upgrades a hand-written v1 library with data to the current version, keeping and indexing it', async () => {
    const factory = new IDBFactory();
    await writeV1Library(factory, 'lib');

    const library = await openLibrary('lib', { factory });
    expect(library.version).toBe(LIBRARY_VERSION);

    // The v2 index exists and was built over the questions written at v1.
    expect([
      ...unwrap(library.db).transaction('questions').objectStore('questions').indexNames,
    ]).toEqual(['byDate']);
    expect((await library.listQuestions()).map((q) => q.id)).toEqual(['c', 'b', 'a']);
    expect((await library.listQuestions({ order: 'oldest' }))[0]).toEqual({
      id: 'a',
      question: 'Earliest?',
      docIds: ['old'],
      date: 1000,
      selected: [],
      answer: 'Yes.',
    });

    // Everything else is untouched and readable by the current code.
    expect((await library.listDocuments()).map((d) => d.name)).toEqual(['Old book.txt']);
    expect(await library.getSetting('budget', 2000)).toBe(4000);
    const index = (await library.loadDocumentIndex('old', 'glove-100d'))!;
    expect(index.source).toBe(sampleText('old', 6).source);
    expect(index.fragments.ends).toEqual(packFragments(sampleText('old', 6).fragments).ends);
    expect(index.vectors!.data).toEqual(sampleVectors(6, 4).data);
    expect(index.relations[0].matrix!.weight).toEqual(sampleCsr(6).weight);
    expect(SERIALIZATION_VERSION).toBe(1);

    // And the migrated layout is exactly that of a library created fresh.
    const fresh = await openLibrary('lib', { factory: new IDBFactory() });
    expect(layout(unwrap(library.db))).toEqual(layout(unwrap(fresh.db)));
    fresh.close();
    library.close();
  });

  it('goes step by step: a library opened by v1 code is taken to v2 by the v2 step alone', async () => {
    const factory = new IDBFactory();
    const v1 = await openLibrary('lib', { factory, migrations: MIGRATIONS.slice(0, 1) });
    expect(v1.version).toBe(1);
    expect(layout(unwrap(v1.db)).find((s) => s.name === 'questions')!.indexes).toEqual([]);
    await v1.db.put('questions', { id: 'q', question: 'Kept?', docIds: [], date: 5, selected: [] });
    v1.close();

    const run = vi.spyOn(MIGRATIONS[1], 'run');
    const first = vi.spyOn(MIGRATIONS[0], 'run');
    const v2 = await openLibrary('lib', { factory });
    expect(first).not.toHaveBeenCalled();
    expect(run).toHaveBeenCalledTimes(1);
    expect((await v2.listQuestions()).map((q) => q.question)).toEqual(['Kept?']);
    v2.close();
  });

  it('runs a step that rewrites data with a cursor inside the upgrade transaction', async () => {
    const factory = new IDBFactory();
    await writeV1Library(factory, 'lib');
    const next: Migration = {
      version: LIBRARY_VERSION + 1,
      description: 'test only: upper-case document names',
      async run(_db, tx) {
        let cursor = await tx.objectStore('documents').openCursor();
        while (cursor) {
          await cursor.update({ ...cursor.value, name: cursor.value.name.toUpperCase() });
          cursor = await cursor.continue();
        }
      },
    };
    const library = await openLibrary('lib', { factory, migrations: [...MIGRATIONS, next] });
    expect(library.version).toBe(LIBRARY_VERSION + 1);
    expect((await library.listDocuments()).map((d) => d.name)).toEqual(['OLD BOOK.TXT']);
    expect((await library.listQuestions()).map((q) => q.id)).toEqual(['c', 'b', 'a']);
    library.close();
  });

  it('keeps the old version and its data when a step fails', async () => {
    const factory = new IDBFactory();
    await writeV1Library(factory, 'lib');
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const broken: Migration = {
      version: LIBRARY_VERSION + 1,
      description: 'test only: fails half way',
      async run(_db, tx) {
        await tx.objectStore('documents').clear();
        throw new Error('step failed');
      },
    };
    const error = await openLibrary('lib', { factory, migrations: [...MIGRATIONS, broken] }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).code).toBe('unavailable');

    // The shipped steps did not commit either (one upgrade transaction): reopening runs them
    // again on intact data.
    const library = await openLibrary('lib', { factory });
    expect(library.version).toBe(LIBRARY_VERSION);
    expect((await library.listDocuments()).map((d) => d.id)).toEqual(['old']);
    library.close();
  });
});

describe('migration from v2 to v3 (chats)', () => {
  it('opens a hand-written v2 library with data at v3, with the data intact and an empty chats store', async () => {
    const factory = new IDBFactory();
    await writeV1Library(factory, 'lib', 2);
    const before = await rawOpen(factory, 'lib', 2);
    expect(before.objectStoreNames.contains('chats')).toBe(false);
    before.close();

    const library = await openLibrary('lib', { factory });
    expect(library.version).toBe(LIBRARY_VERSION);
    expect(await library.listChats()).toEqual([]);

    // Everything written at v2 is there and readable.
    expect((await library.listDocuments()).map((d) => d.name)).toEqual(['Old book.txt']);
    expect(await library.getSetting('budget', 2000)).toBe(4000);
    expect((await library.listQuestions()).map((q) => q.id)).toEqual(['c', 'b', 'a']);
    const index = (await library.loadDocumentIndex('old', 'glove-100d'))!;
    expect(index.source).toBe(sampleText('old', 6).source);
    expect(index.vectors!.data).toEqual(sampleVectors(6, 4).data);
    expect(index.relations[0].matrix!.weight).toEqual(sampleCsr(6).weight);

    // The new store works, and the layout is that of a library created fresh.
    const chat = await library.createChat({ title: 'After the upgrade', docIds: ['old'], now: 10 });
    await library.saveChatRound(chat.id, { user: 'Hello?', assistant: 'Hello.', at: 11 });
    expect((await library.getChat(chat.id))!.rounds).toEqual([
      { user: 'Hello?', assistant: 'Hello.', at: 11 },
    ]);
    const fresh = await openLibrary('lib', { factory: new IDBFactory() });
    expect(layout(unwrap(library.db))).toEqual(layout(unwrap(fresh.db)));
    fresh.close();
    library.close();
  });

  it('runs the v3 step alone on a library opened by v2 code', async () => {
    const factory = new IDBFactory();
    const v2 = await openLibrary('lib', { factory, migrations: MIGRATIONS.slice(0, 2) });
    expect(v2.version).toBe(2);
    await v2.db.put('questions', { id: 'q', question: 'Kept?', docIds: [], date: 5, selected: [] });
    v2.close();

    const steps = MIGRATIONS.map((m) => vi.spyOn(m, 'run'));
    const v3 = await openLibrary('lib', { factory });
    // The v3 step and every later one ran once; v1 and v2 did not run again.
    expect(steps.map((s) => s.mock.calls.length)).toEqual(
      MIGRATIONS.map((m) => (m.version >= 3 ? 1 : 0)),
    );
    expect((await v3.listQuestions()).map((q) => q.question)).toEqual(['Kept?']);
    expect(await v3.listChats()).toEqual([]);
    v3.close();
  });
});

describe('v6: pipelineMemory', () => {
  it('runs the v6 step alone on a library left by v3 code, keeping its data', async () => {
    const factory = new IDBFactory();
    await writeV1Library(factory, 'lib', 2);
    const v3 = await openLibrary('lib', {
      factory,
      migrations: MIGRATIONS.filter((m) => m.version <= 3),
    });
    expect(v3.version).toBe(3);
    expect([...v3.db.objectStoreNames]).not.toContain('pipelineMemory');
    v3.close();

    const steps = MIGRATIONS.map((m) => vi.spyOn(m, 'run'));
    const v6 = await openLibrary('lib', { factory });
    expect(v6.version).toBe(LIBRARY_VERSION);
    expect(steps.map((s) => s.mock.calls.length)).toEqual(
      MIGRATIONS.map((m) => (m.version > 3 ? 1 : 0)),
    );
    expect(await v6.db.count('pipelineMemory')).toBe(0);
    expect((await v6.listDocuments()).map((d) => d.name)).toEqual(['Old book.txt']);
    expect((await v6.loadDocumentIndex('old', 'glove-100d'))!.source).toBe(
      sampleText('old', 6).source,
    );
    const record = { docId: 'old', key: 'qrmem|600|words', createdAt: 1, value: { ner: [] } };
    expect(await v6.putPipelineMemory(record)).toBe(true);
    expect(await v6.getPipelineMemory('old', 'qrmem|600|words')).toEqual(record);
    v6.close();
  });
});

describe('v7: evalRuns and evalResults', () => {
  it('runs the v7 step (and the later ones) on a library left by v6 code, keeping its data', async () => {
    const factory = new IDBFactory();
    await writeV1Library(factory, 'lib', 2);
    const v6 = await openLibrary('lib', {
      factory,
      migrations: MIGRATIONS.filter((m) => m.version <= 6),
    });
    expect(v6.version).toBe(6);
    expect([...v6.db.objectStoreNames]).not.toContain('evalRuns');
    const memory = { docId: 'old', key: 'qrmem|600|words', createdAt: 1, value: { ner: [] } };
    expect(await v6.putPipelineMemory(memory)).toBe(true);
    v6.close();

    const steps = MIGRATIONS.map((m) => vi.spyOn(m, 'run'));
    const v7 = await openLibrary('lib', { factory });
    expect(v7.version).toBe(LIBRARY_VERSION);
    expect(steps.map((s) => s.mock.calls.length)).toEqual(
      MIGRATIONS.map((m) => (m.version >= 7 ? 1 : 0)),
    );
    expect(await v7.db.count('evalRuns')).toBe(0);
    expect(await v7.db.count('evalResults')).toBe(0);
    expect((await v7.listDocuments()).map((d) => d.name)).toEqual(['Old book.txt']);
    expect(await v7.getPipelineMemory('old', 'qrmem|600|words')).toEqual(memory);
    const result = {
      runId: 'r',
      config: 'bm25|plain|f500',
      question: 'q',
      gold: [1],
      answer: [null],
      computedAt: 1,
    };
    await v7.db.put('evalResults', result);
    expect(await v7.db.get('evalResults', ['r', 'bm25|plain|f500', 'q'])).toEqual(result);
    v7.close();
  });
});

describe('v8: codeSyntax', () => {
  it('runs the v8 step alone on a library left by v6 code, keeping its data', async () => {
    const factory = new IDBFactory();
    await writeV1Library(factory, 'lib', 2);
    const v6 = await openLibrary('lib', {
      factory,
      migrations: MIGRATIONS.filter((m) => m.version <= 6),
    });
    expect(v6.version).toBe(6);
    expect([...v6.db.objectStoreNames]).not.toContain('codeSyntax');
    v6.close();

    const steps = MIGRATIONS.map((m) => vi.spyOn(m, 'run'));
    const v8 = await openLibrary('lib', { factory });
    expect(v8.version).toBe(LIBRARY_VERSION);
    expect(steps.map((s) => s.mock.calls.length)).toEqual(
      MIGRATIONS.map((m) => (m.version > 6 ? 1 : 0)),
    );
    expect(await v8.db.count('codeSyntax')).toBe(0);
    expect((await v8.listDocuments()).map((d) => d.name)).toEqual(['Old book.txt']);
    // A document indexed before v8 has no parses: a re-index parses every file.
    expect(await v8.getCodeSyntax('old')).toEqual([]);
    const index = (await v8.loadDocumentIndex('old', 'glove-100d'))!;
    const files = [{ path: 'a.py', sha256: 'ab', syntax: null, problem: 'no grammar' }];
    await v8.saveIndexedDocument({
      document: index.document,
      source: index.source,
      fragments: index.fragments,
      codeSyntax: files,
    });
    expect(await v8.getCodeSyntax('old')).toEqual(files);
    // Saving again without parses drops the old ones; deleting the document drops them too.
    await v8.saveIndexedDocument({
      document: index.document,
      source: index.source,
      fragments: index.fragments,
    });
    expect(await v8.getCodeSyntax('old')).toEqual([]);
    await v8.saveIndexedDocument({
      document: index.document,
      source: index.source,
      fragments: index.fragments,
      codeSyntax: files,
    });
    expect(await v8.deleteDocument('old')).toBe(true);
    expect(await v8.db.count('codeSyntax')).toBe(0);
    v8.close();
  });
});

describe('opening', () => {
  it('fails with code "version" when the stored library is newer than this code', async () => {
    const factory = new IDBFactory();
    (await rawOpen(factory, 'lib', LIBRARY_VERSION + 5)).close();
    const error = await openLibrary('lib', { factory }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).code).toBe('version');
    expect((error as StoreError).message).toMatch(/newer version of the app/);
  });

  it('fails with code "unavailable" when there is no IndexedDB or it refuses', async () => {
    vi.stubGlobal('indexedDB', undefined);
    await expect(openLibrary('lib')).rejects.toMatchObject({
      name: 'StoreError',
      code: 'unavailable',
    });
    const refusing = {
      open() {
        throw new DOMException('Access denied.', 'SecurityError');
      },
    } as unknown as IDBFactory;
    await expect(openLibrary('lib', { factory: refusing })).rejects.toMatchObject({
      code: 'unavailable',
      message: expect.stringMatching(/SecurityError/),
    });
  });

  it('tells the UI when an older connection in another tab blocks the upgrade, then completes', async () => {
    const factory = new IDBFactory();
    // Another tab with older code: v1 open, and it does not close on versionchange.
    const otherTab = await rawOpen(factory, 'lib', 1, createV1Schema);
    const onBlocked = vi.fn();
    let opened = false;
    const opening = openLibrary('lib', { factory, onBlocked }).then((library) => {
      opened = true;
      return library;
    });
    await vi.waitFor(() => expect(onBlocked).toHaveBeenCalledTimes(1));
    const blocked = onBlocked.mock.calls[0][0] as StoreError;
    expect(blocked).toBeInstanceOf(StoreError);
    expect(blocked.code).toBe('blocked');
    expect(blocked.message).toMatch(/another tab/);
    expect(opened).toBe(false);

    otherTab.close();
    const library = await opening;
    expect(library.version).toBe(LIBRARY_VERSION);
    library.close();
  });

  it('closes its connection and tells the UI when another tab upgrades, so that tab is not blocked', async () => {
    const factory = new IDBFactory();
    const onVersionChange = vi.fn();
    const library = await openLibrary('lib', { factory, onVersionChange });
    const onBlocked = vi.fn();
    const newer = await new Promise<IDBDatabase>((resolve, reject) => {
      const request = factory.open('lib', LIBRARY_VERSION + 1);
      request.onblocked = onBlocked;
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
    expect(newer.version).toBe(LIBRARY_VERSION + 1);
    expect(onBlocked).not.toHaveBeenCalled();
    expect(onVersionChange).toHaveBeenCalledTimes(1);
    expect(onVersionChange.mock.calls[0][0]).toMatchObject({ code: 'unavailable' });
    expect(library.closed).toBe(true);
    await expect(library.listDocuments()).rejects.toMatchObject({
      code: 'unavailable',
      message: expect.stringMatching(/Reload/),
    });
    newer.close();
  });

  it('tells the UI when the browser closes the connection abnormally', async () => {
    const onTerminated = vi.fn();
    const library = await openLibrary('lib', { factory: new IDBFactory(), onTerminated });
    // fake-indexeddb types the parameter as the IDBDatabase class; it takes an instance.
    forceCloseDatabase(unwrap(library.db) as unknown as typeof IDBDatabase);
    expect(onTerminated).toHaveBeenCalledTimes(1);
    expect(onTerminated.mock.calls[0][0]).toMatchObject({ code: 'unavailable' });
    await expect(library.getSetting('x', 0)).rejects.toMatchObject({ code: 'unavailable' });
  });

  it('lets the library be deleted while open, closing the connection', async () => {
    const factory = new IDBFactory();
    const onVersionChange = vi.fn();
    const library = await openLibrary('lib', { factory, onVersionChange });
    await library.setSetting('x', 1);
    await deleteLibrary('lib', { factory });
    expect(onVersionChange.mock.calls[0][0].message).toMatch(/deleted in another tab/);
    const again = await openLibrary('lib', { factory });
    expect(await again.getSetting('x', 0)).toBe(0);
    again.close();
  });
});
