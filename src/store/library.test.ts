import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { relationParamsKey, unpackFragments } from './codec';
import { StoreError } from './errors';
import { openLibrary, type Library } from './library';
import { SERIALIZATION_VERSION } from './schema';
import { sampleCsr, sampleDocument, sampleText, sampleVectors } from './testing';

let library: Library;

beforeEach(async () => {
  // A fresh, empty IndexedDB per test: nothing leaks between tests.
  library = await openLibrary('test-library', { factory: new IDBFactory() });
});

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  library.close();
});

/** Everything stored under a document id, store by store (keys only for the binary stores). */
async function everythingOf(id: string) {
  const range = IDBKeyRange.bound([id], [id, []]);
  return {
    document: await library.db.get('documents', id),
    source: await library.db.get('sources', id),
    fragments: await library.db.get('fragments', id),
    vectorKeys: await library.db.getAllKeys('vectors', range),
    relationKeys: await library.db.getAllKeys('relations', range),
  };
}

function quotaExceeded(): DOMException {
  return new DOMException('The quota has been exceeded.', 'QuotaExceededError');
}

/** Make `put` into `storeName` throw `error` synchronously, as a full disk can. */
function failPutsInto(storeName: string, error: () => unknown) {
  const put = IDBObjectStore.prototype.put;
  return vi.spyOn(IDBObjectStore.prototype, 'put').mockImplementation(function (
    this: IDBObjectStore,
    ...args: Parameters<IDBObjectStore['put']>
  ) {
    if (this.name === storeName) throw error();
    return put.apply(this, args);
  });
}

describe('saveIndexedDocument / loadDocumentIndex', () => {
  it('round-trips a whole document index with equal typed arrays', async () => {
    const input = sampleDocument('a', { count: 20, dim: 6 });
    const saved = await library.saveIndexedDocument(input);
    expect(saved.fragmentCount).toBe(20);

    const index = await library.loadDocumentIndex('a', 'glove-100d');
    expect(index).toBeDefined();
    const { document, source, fragments, vectors, relations } = index!;
    expect(document).toEqual(saved);
    expect(source).toBe(input.source);
    expect(fragments.starts).toEqual(input.fragments.starts);
    expect(fragments.ends).toEqual(input.fragments.ends);
    expect(fragments.labels).toEqual(input.fragments.labels);
    expect(fragments.words).toEqual(input.fragments.words);
    expect(unpackFragments('a', fragments)).toEqual(sampleText('a', 20).fragments);

    const original = input.vectors![0].vectors;
    expect(vectors).toBeDefined();
    expect(vectors!.dim).toBe(6);
    expect(vectors!.count).toBe(20);
    expect(vectors!.data).toBeInstanceOf(Float32Array);
    expect(vectors!.data).toEqual(original.data);

    const semantic = relations.find((r) => r.kind === 'semantic')!;
    const csr = sampleCsr(20);
    expect(semantic.params).toEqual({ embedderId: 'glove-100d', k: 2 });
    expect(semantic.matrix!.size).toBe(20);
    expect(semantic.matrix!.rowPtr).toEqual(csr.rowPtr);
    expect(semantic.matrix!.col).toEqual(csr.col);
    expect(semantic.matrix!.weight).toEqual(csr.weight);
    const context = relations.find((r) => r.kind === 'context')!;
    expect(context).toEqual({
      kind: 'context',
      paramsKey: '{"wRel":0.3}',
      params: { wRel: 0.3 },
      size: 20,
    });
  });

  it('stores binary parts as ArrayBuffers and reads typed arrays back as views over them', async () => {
    await library.saveIndexedDocument(sampleDocument('a'));
    const fragmentsRecord = (await library.db.get('fragments', 'a'))!;
    const vectorsRecord = (await library.db.get('vectors', ['a', 'glove-100d']))!;
    const relationRecord = (await library.db.get('relations', [
      'a',
      'semantic',
      '{"embedderId":"glove-100d","k":2}',
    ]))!;
    expect(fragmentsRecord.starts).toBeInstanceOf(ArrayBuffer);
    expect(fragmentsRecord.ends).toBeInstanceOf(ArrayBuffer);
    expect(vectorsRecord.data).toBeInstanceOf(ArrayBuffer);
    expect(relationRecord.csr!.weight).toBeInstanceOf(ArrayBuffer);
    // Every stored index carries its layout version.
    expect(fragmentsRecord.serializationVersion).toBe(SERIALIZATION_VERSION);
    expect(vectorsRecord.serializationVersion).toBe(SERIALIZATION_VERSION);
    expect(relationRecord.serializationVersion).toBe(SERIALIZATION_VERSION);

    const index = (await library.loadDocumentIndex('a', 'glove-100d'))!;
    const semantic = index.relations.find((r) => r.kind === 'semantic')!;
    const views = [index.fragments.starts, index.vectors!.data, semantic.matrix!.col];
    for (const view of views) {
      expect(view.byteOffset).toBe(0);
      expect(view.buffer.byteLength).toBe(view.byteLength);
    }
  });

  it('stores only the bytes of partial views and of SharedArrayBuffer-backed arrays', async () => {
    const input = sampleDocument('a', { count: 4, dim: 2 });
    const big = sampleVectors(10, 2);
    const shared = new Float32Array(new SharedArrayBuffer(8 * 4));
    shared.set(big.data.subarray(0, 8));
    input.vectors = [
      { embedderId: 'part', vectors: { dim: 2, count: 4, data: big.data.subarray(4, 12) } },
      { embedderId: 'shared', vectors: { dim: 2, count: 4, data: shared } },
    ];
    await library.saveIndexedDocument(input);
    const part = (await library.getVectors('a', 'part'))!;
    expect(part.vectors.data).toEqual(big.data.subarray(4, 12));
    expect(part.vectors.data.buffer.byteLength).toBe(8 * 4);
    const fromShared = (await library.getVectors('a', 'shared'))!;
    expect(fromShared.vectors.data.buffer).toBeInstanceOf(ArrayBuffer);
    expect(Array.from(fromShared.vectors.data)).toEqual(Array.from(big.data.subarray(0, 8)));
  });

  it('estimates stored bytes as buffer byteLengths plus text length * 2', async () => {
    const input = sampleDocument('a', { count: 5, dim: 4 });
    const saved = await library.saveIndexedDocument(input);
    const labels = input.fragments.labels.join('').length * 2;
    const csr = 6 * 4 + 8 * 4 + 8 * 4; // rowPtr (5 + 1), col and weight (8 neighbours)
    const paramsKeys =
      (relationParamsKey({ k: 2, embedderId: 'glove-100d' }).length + '{"wRel":0.3}'.length) * 2;
    const expected =
      input.source.length * 2 +
      5 * 4 * 3 + // starts, ends, words
      labels +
      5 * 4 * 4 +
      csr +
      paramsKeys +
      'Chapter 1'.length * 2;
    expect(saved.storedBytes).toBe(expected);
  });

  it('refuses vectors or relations that do not match the fragments, before writing anything', async () => {
    const input = sampleDocument('a', { count: 5 });
    input.vectors = [{ embedderId: 'x', vectors: sampleVectors(4, 8) }];
    await expect(library.saveIndexedDocument(input)).rejects.toThrow(/4 rows for 5 fragments/);
    const other = sampleDocument('b', { count: 5 });
    other.relations = [{ kind: 'semantic', params: {}, matrix: sampleCsr(6) }];
    await expect(library.saveIndexedDocument(other)).rejects.toThrow(/size/);
    expect(await library.listDocuments()).toEqual([]);
  });

  it('replaces the whole earlier index of the same id, dropping vectors of other embedders', async () => {
    await library.saveIndexedDocument(sampleDocument('a', { count: 10 }));
    await library.putVectors({
      docId: 'a',
      embedderId: 'minilm',
      vectors: sampleVectors(10, 3),
      fragmentOptions: sampleDocument('a').document.fragmentOptions,
    });
    const again = sampleDocument('a', { count: 7 });
    again.relations = [];
    await library.saveIndexedDocument(again);
    expect(await library.listIndexParts('a')).toEqual({
      embedderIds: ['glove-100d'],
      relations: [],
    });
    expect((await library.getFragments('a'))!.count).toBe(7);
  });

  it('returns undefined for a document without an index', async () => {
    expect(await library.loadDocumentIndex('nope', 'glove-100d')).toBeUndefined();
  });
});

describe('listDocuments', () => {
  it('reads only the documents store, never sources, fragments or vectors', async () => {
    await library.saveIndexedDocument(sampleDocument('b', { addedAt: 2000, count: 50 }));
    await library.saveIndexedDocument(sampleDocument('a', { addedAt: 1000, count: 50 }));
    const transaction = vi.spyOn(IDBDatabase.prototype, 'transaction');
    const docs = await library.listDocuments();
    expect(transaction).toHaveBeenCalledTimes(1);
    expect([transaction.mock.calls[0][0]].flat()).toEqual(['documents']);
    // In the order added; records are metadata only.
    expect(docs.map((d) => d.id)).toEqual(['a', 'b']);
    for (const doc of docs) {
      expect(doc).not.toHaveProperty('text');
      expect(doc).not.toHaveProperty('source');
      expect(JSON.stringify(doc).length).toBeLessThan(1000);
    }
  });
});

describe('atomicity', () => {
  it('keeps doc A and leaves no trace of doc B when a put fails with QuotaExceededError', async () => {
    await library.saveIndexedDocument(sampleDocument('a'));
    const before = await everythingOf('a');
    failPutsInto('relations', quotaExceeded);
    const error = await library.saveIndexedDocument(sampleDocument('b')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).code).toBe('quota');
    vi.restoreAllMocks();

    // Document, source, fragments and vectors were put before the failing relation put: all gone.
    expect(await everythingOf('b')).toEqual({
      document: undefined,
      source: undefined,
      fragments: undefined,
      vectorKeys: [],
      relationKeys: [],
    });
    expect(await everythingOf('a')).toEqual(before);
    expect((await library.listDocuments()).map((d) => d.id)).toEqual(['a']);
  });

  it('rolls back the deletes too when re-indexing a document fails', async () => {
    await library.saveIndexedDocument(sampleDocument('a', { count: 10 }));
    await library.putVectors({
      docId: 'a',
      embedderId: 'minilm',
      vectors: sampleVectors(10, 3),
      fragmentOptions: sampleDocument('a').document.fragmentOptions,
    });
    const before = await everythingOf('a');
    const beforeIndex = await library.loadDocumentIndex('a', 'minilm');
    failPutsInto('vectors', quotaExceeded);
    await expect(
      library.saveIndexedDocument(sampleDocument('a', { count: 4 })),
    ).rejects.toMatchObject({
      code: 'quota',
    });
    vi.restoreAllMocks();
    expect(await everythingOf('a')).toEqual(before);
    expect(await library.loadDocumentIndex('a', 'minilm')).toEqual(beforeIndex);
  });

  it('writes nothing when a value cannot be cloned (DataCloneError), and rethrows it as is', async () => {
    await library.saveIndexedDocument(sampleDocument('a'));
    const input = sampleDocument('b');
    input.document.sections = [
      { title: 'x', kind: 'page', start: 0, end: 1, extra: () => 1 } as never,
    ];
    const error = await library.saveIndexedDocument(input).catch((e: unknown) => e);
    expect((error as Error).name).toBe('DataCloneError');
    expect((await everythingOf('b')).document).toBeUndefined();
    expect((await everythingOf('b')).source).toBeUndefined();
    expect((await library.listDocuments()).map((d) => d.id)).toEqual(['a']);
  });

  it('writes nothing when the transaction is aborted after some puts succeeded', async () => {
    await library.saveIndexedDocument(sampleDocument('a'));
    const put = IDBObjectStore.prototype.put;
    vi.spyOn(IDBObjectStore.prototype, 'put').mockImplementation(function (
      this: IDBObjectStore,
      ...args: Parameters<IDBObjectStore['put']>
    ) {
      const request = put.apply(this, args);
      // Once the vectors are written, the transaction aborts, as when the browser gives up
      // mid-write: the puts that succeeded before must be undone too.
      const tx = this.transaction;
      if (this.name === 'vectors') request.addEventListener('success', () => tx.abort());
      return request;
    });
    const error = await library.saveIndexedDocument(sampleDocument('b')).catch((e: unknown) => e);
    vi.restoreAllMocks();
    // Not 'AbortError': that reads as a cancellation (src/store/transaction-abort.test.ts).
    expect((error as Error).name).toBe('TransactionAborted');
    expect(await everythingOf('b')).toMatchObject({
      document: undefined,
      source: undefined,
      fragments: undefined,
    });
    expect((await library.listDocuments()).map((d) => d.id)).toEqual(['a']);
  });
});

describe('deleteDocument', () => {
  it('removes every part of a document and nothing of another, even with a prefix id', async () => {
    await library.saveIndexedDocument(sampleDocument('doc'));
    await library.saveIndexedDocument(sampleDocument('doc-2'));
    const other = await everythingOf('doc-2');
    expect(await library.deleteDocument('doc')).toBe(true);
    expect(await everythingOf('doc')).toEqual({
      document: undefined,
      source: undefined,
      fragments: undefined,
      vectorKeys: [],
      relationKeys: [],
    });
    expect(await everythingOf('doc-2')).toEqual(other);
    expect(await library.deleteDocument('doc')).toBe(false);
  });
});

describe('vectors per embedder', () => {
  const fragmentOptions = sampleDocument('a').document.fragmentOptions;

  it('keeps the vectors of each embedder apart; a new embedder finds its vectors missing', async () => {
    await library.saveIndexedDocument(sampleDocument('a', { count: 10, dim: 8 }));
    expect((await library.loadDocumentIndex('a', 'minilm'))!.vectors).toBeUndefined();
    expect(await library.getVectors('a', 'minilm')).toBeUndefined();

    const minilm = sampleVectors(10, 3, 42);
    await library.putVectors({
      docId: 'a',
      embedderId: 'minilm',
      vectors: minilm,
      fragmentOptions,
    });

    const glove = (await library.getVectors('a', 'glove-100d'))!;
    expect(glove.vectors.dim).toBe(8);
    expect(glove.vectors.data).toEqual(sampleVectors(10, 8).data);
    const got = (await library.getVectors('a', 'minilm'))!;
    expect(got.vectors.dim).toBe(3);
    expect(got.vectors.data).toEqual(minilm.data);
    expect(got.fragmentOptions).toEqual(fragmentOptions);
    expect((await library.loadDocumentIndex('a', 'minilm'))!.vectors!.data).toEqual(minilm.data);
    expect((await library.listIndexParts('a')).embedderIds.sort()).toEqual([
      'glove-100d',
      'minilm',
    ]);
  });

  it('keeps storedBytes in step when vectors are added and replaced', async () => {
    const saved = await library.saveIndexedDocument(sampleDocument('a', { count: 10 }));
    await library.putVectors({
      docId: 'a',
      embedderId: 'm',
      vectors: sampleVectors(10, 3),
      fragmentOptions,
    });
    expect((await library.getDocument('a'))!.storedBytes).toBe(saved.storedBytes + 10 * 3 * 4);
    await library.putVectors({
      docId: 'a',
      embedderId: 'm',
      vectors: sampleVectors(10, 5),
      fragmentOptions,
    });
    expect((await library.getDocument('a'))!.storedBytes).toBe(saved.storedBytes + 10 * 5 * 4);
  });

  it('refuses vectors computed for other fragments and leaves the store unchanged', async () => {
    await library.saveIndexedDocument(sampleDocument('a', { count: 10 }));
    await expect(
      library.putVectors({
        docId: 'a',
        embedderId: 'm',
        vectors: sampleVectors(9, 3),
        fragmentOptions,
      }),
    ).rejects.toThrow(/other fragments/);
    await expect(
      library.putVectors({
        docId: 'a',
        embedderId: 'm',
        vectors: sampleVectors(10, 3),
        fragmentOptions: { ...fragmentOptions, wordsPerFragment: 100 },
      }),
    ).rejects.toThrow(/other fragments/);
    await expect(
      library.putVectors({
        docId: 'gone',
        embedderId: 'm',
        vectors: sampleVectors(10, 3),
        fragmentOptions,
      }),
    ).rejects.toThrow(/no document "gone"/);
    expect(await library.getVectors('a', 'm')).toBeUndefined();
  });

  it('treats vectors stored with another layout version as missing', async () => {
    await library.saveIndexedDocument(sampleDocument('a'));
    const record = (await library.db.get('vectors', ['a', 'glove-100d']))!;
    await library.db.put('vectors', { ...record, serializationVersion: SERIALIZATION_VERSION + 1 });
    expect(await library.getVectors('a', 'glove-100d')).toBeUndefined();
    expect((await library.loadDocumentIndex('a', 'glove-100d'))!.vectors).toBeUndefined();
  });
});

describe('relations by parameters', () => {
  it('stores one relation per parameter set; a changed parameter finds its key missing', async () => {
    await library.saveIndexedDocument(sampleDocument('a', { count: 10 }));
    const k4 = sampleCsr(10);
    await library.putRelation({
      docId: 'a',
      kind: 'semantic',
      params: { k: 4, embedderId: 'glove-100d' },
      matrix: k4,
    });

    // Same params in another key order: the same key.
    const key = relationParamsKey({ embedderId: 'glove-100d', k: 4 });
    const got = (await library.getRelation('a', 'semantic', key))!;
    expect(got.params).toEqual({ k: 4, embedderId: 'glove-100d' });
    expect(got.matrix!.weight).toEqual(k4.weight);
    // The k = 2 relation saved with the document is still there; k = 8 was never computed.
    expect(
      await library.getRelation(
        'a',
        'semantic',
        relationParamsKey({ k: 2, embedderId: 'glove-100d' }),
      ),
    ).toBeDefined();
    expect(
      await library.getRelation(
        'a',
        'semantic',
        relationParamsKey({ k: 8, embedderId: 'glove-100d' }),
      ),
    ).toBeUndefined();
    expect(
      await library.getRelation('a', 'context', relationParamsKey({ wRel: 0.8 })),
    ).toBeUndefined();

    const parts = await library.listIndexParts('a');
    expect(parts.relations).toHaveLength(3);
    expect(parts.relations).toContainEqual({ kind: 'semantic', paramsKey: key });
  });

  it('stores a code relation’s reference counts beside it; a record without them loads without', async () => {
    await library.saveIndexedDocument(sampleDocument('a', { count: 10 }));
    const refs = Float32Array.from({ length: 10 }, (_, j) => (j * 7) % 4);
    const params = { threshold: 0.01 };
    const key = relationParamsKey(params);
    await library.putRelation({
      docId: 'a',
      kind: 'code',
      params,
      matrix: sampleCsr(10),
      references: refs,
    });
    const index = (await library.loadDocumentIndex('a', 'glove-100d'))!;
    const code = index.relations.find((r) => r.kind === 'code')!;
    expect(code.references).toEqual(refs);
    // A record from before reference counts were stored (no counts) or with damaged counts: the relation alone.
    const record = (await library.db.get('relations', ['a', 'code', key]))!;
    expect(record.references!.byteLength).toBe(40);
    await library.db.put('relations', { ...record, references: undefined });
    const old = (await library.getRelation('a', 'code', key))!;
    expect(old.references).toBeUndefined();
    expect(old.matrix!.size).toBe(10);
    await library.db.put('relations', { ...record, references: new ArrayBuffer(12) });
    const damaged = (await library.getRelation('a', 'code', key))!;
    expect(damaged.references).toBeUndefined();
    expect(damaged.matrix!.weight).toEqual(sampleCsr(10).weight);
    // Counts that do not match the fragments are refused before anything is written.
    await expect(
      (async () =>
        library.putRelation({
          docId: 'a',
          kind: 'code',
          params,
          matrix: sampleCsr(10),
          references: new Float32Array(9),
        }))(),
    ).rejects.toThrow(/9 reference counts for 10 fragments/);
    expect((await library.getRelation('a', 'code', key))!.matrix).toBeDefined();
  });

  it('stores a code relation’s scope names beside it; a record without them loads without', async () => {
    await library.saveIndexedDocument(sampleDocument('a', { count: 10 }));
    const scopes = Array.from({ length: 10 }, (_, j) => (j % 3 === 0 ? '' : `Range test${j}`));
    const params = { threshold: 0.01 };
    const key = relationParamsKey(params);
    await library.putRelation({
      docId: 'a',
      kind: 'code',
      params,
      matrix: sampleCsr(10),
      references: new Float32Array(10),
      scopes,
    });
    const index = (await library.loadDocumentIndex('a', 'glove-100d'))!;
    expect(index.relations.find((r) => r.kind === 'code')!.scopes).toEqual(scopes);
    // A record from before scope names were stored, or with names that do not fit: the rest
    // loads (BM25 then reads the windows' text alone, core/run.ts).
    const record = (await library.db.get('relations', ['a', 'code', key]))!;
    await library.db.put('relations', { ...record, scopes: undefined });
    const old = (await library.getRelation('a', 'code', key))!;
    expect(old.scopes).toBeUndefined();
    expect(old.references).toHaveLength(10);
    expect(old.matrix!.size).toBe(10);
    await library.db.put('relations', { ...record, scopes: ['Range'] });
    expect((await library.getRelation('a', 'code', key))!.scopes).toBeUndefined();
    await expect(
      (async () =>
        library.putRelation({
          docId: 'a',
          kind: 'code',
          params,
          matrix: sampleCsr(10),
          scopes: ['Range'],
        }))(),
    ).rejects.toThrow(/1 scope names for 10 fragments/);
  });

  it('stores implicit relations as parameters only', async () => {
    await library.saveIndexedDocument(sampleDocument('a', { count: 10 }));
    const stored = await library.putRelation({
      docId: 'a',
      kind: 'context',
      params: { wRel: 0.8 },
      size: 10,
    });
    expect(stored).toEqual({
      kind: 'context',
      paramsKey: '{"wRel":0.8}',
      params: { wRel: 0.8 },
      size: 10,
    });
    expect(await library.getRelation('a', 'context', '{"wRel":0.8}')).toEqual(stored);
    expect((await library.db.get('relations', ['a', 'context', '{"wRel":0.8}']))!.csr).toBeNull();
  });

  it('refuses a relation whose size differs from the fragment count', async () => {
    await library.saveIndexedDocument(sampleDocument('a', { count: 10 }));
    await expect(
      library.putRelation({
        docId: 'a',
        kind: 'semantic',
        params: { k: 9 },
        matrix: sampleCsr(11),
      }),
    ).rejects.toThrow(/size 11/);
    expect(await library.getRelation('a', 'semantic', '{"k":9}')).toBeUndefined();
  });
});

describe('updateDocument', () => {
  it('changes metadata and clears the error once no longer failed', async () => {
    await library.saveIndexedDocument(sampleDocument('a'));
    await library.updateDocument('a', { status: 'failed', error: 'worker crashed' });
    expect(await library.getDocument('a')).toMatchObject({
      status: 'failed',
      error: 'worker crashed',
    });
    const updated = await library.updateDocument('a', { status: 'indexed', name: 'Renamed' });
    expect(updated).toMatchObject({ status: 'indexed', name: 'Renamed' });
    expect(updated).not.toHaveProperty('error');
    expect(await library.updateDocument('missing', { name: 'x' })).toBeUndefined();
  });
});

describe('settings', () => {
  it('returns the caller default until set, and ignores values of another type', async () => {
    expect(await library.getSetting('budget', 2000)).toBe(2000);
    await library.setSetting('budget', 3000);
    expect(await library.getSetting('budget', 2000)).toBe(3000);
    await library.setSetting('theme', 42);
    expect(await library.getSetting('theme', 'light')).toBe('light');
    await library.setSetting('models', ['a', 'b']);
    expect(
      await library.getSettings({ budget: 1, theme: 'dark', models: [] as string[], alpha: 0.5 }),
    ).toEqual({
      budget: 3000,
      theme: 'dark',
      models: ['a', 'b'],
      alpha: 0.5,
    });
  });
});

describe('question history', () => {
  it('keeps an answer with its citations, settings and engine; older records without them still read', async () => {
    await library.addQuestion({
      id: 'old',
      question: 'Before citations were kept?',
      docIds: ['a'],
      selected: [],
      date: 1,
    });
    await library.addQuestion({
      id: 'qa',
      question: 'Who is the Cheshire Cat?',
      docIds: ['a'],
      selected: [{ docId: 'a', ordinal: 30 }],
      settings: { alpha: 0.5, budget: 2000 },
      date: 2,
    });
    const citations = [{ label: 1, docId: 'a', ordinal: 30, location: 'pg11.txt · fragment 31' }];
    expect(
      await library.setQuestionAnswer('qa', 'A grinning cat [1].', { citations, engine: 'OpenAI' }),
    ).toBe(true);
    expect(await library.setQuestionAnswer('gone', 'x')).toBe(false);
    const [qa, old] = await library.listQuestions();
    expect(qa).toMatchObject({
      answer: 'A grinning cat [1].',
      citations,
      settings: { alpha: 0.5, budget: 2000 },
      engine: 'OpenAI',
    });
    expect(old.citations).toBeUndefined();
    expect(old.answer).toBeUndefined();
  });

  it('lists questions by date, newest first, whatever the insertion order', async () => {
    const ref = [{ docId: 'a', ordinal: 3 }];
    await library.addQuestion({
      id: 'q2',
      question: 'Second?',
      docIds: ['a'],
      selected: ref,
      date: 2000,
    });
    await library.addQuestion({
      id: 'q3',
      question: 'Third?',
      docIds: ['a'],
      selected: ref,
      date: 3000,
    });
    await library.addQuestion({
      id: 'q1',
      question: 'First?',
      docIds: ['a', 'b'],
      selected: [],
      date: 1000,
    });
    const now = await library.addQuestion({ question: 'Now?', docIds: [], selected: [] });
    expect(now.id).toMatch(/^[0-9a-f-]{36}$/);

    expect((await library.listQuestions()).map((q) => q.question)).toEqual([
      'Now?',
      'Third?',
      'Second?',
      'First?',
    ]);
    expect((await library.listQuestions({ order: 'oldest', limit: 2 })).map((q) => q.id)).toEqual([
      'q1',
      'q2',
    ]);

    expect(await library.setQuestionAnswer('q2', 'An answer.')).toBe(true);
    expect(await library.setQuestionAnswer('nope', 'x')).toBe(false);
    const q2 = (await library.listQuestions()).find((q) => q.id === 'q2')!;
    expect(q2).toEqual({
      id: 'q2',
      question: 'Second?',
      docIds: ['a'],
      selected: ref,
      date: 2000,
      answer: 'An answer.',
    });

    await library.deleteQuestion('q3');
    expect((await library.listQuestions()).map((q) => q.id)).not.toContain('q3');
    await library.clearQuestions();
    expect(await library.listQuestions()).toEqual([]);
  });
});

describe('close', () => {
  it('fails later calls with a StoreError "unavailable"', async () => {
    library.close();
    await expect(library.listDocuments()).rejects.toMatchObject({
      name: 'StoreError',
      code: 'unavailable',
    });
    expect(library.closed).toBe(true);
  });
});
