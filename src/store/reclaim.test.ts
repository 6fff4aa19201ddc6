import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { openLibrary } from './library';
import { sampleDocument } from './testing';

/** Put raw records the way a killed save or an older version may have left them. */
async function leaveOrphans(factory: IDBFactory, name: string): Promise<void> {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const r = factory.open(name);
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
  const tx = db.transaction(['sources', 'vectors', 'relations', 'codeSyntax'], 'readwrite');
  tx.objectStore('sources').put({ docId: 'ghost', text: 'x'.repeat(1000) });
  tx.objectStore('vectors').put({
    docId: 'ghost',
    embedderId: 'glove-100d',
    dim: 4,
    count: 2,
    data: new Float32Array(8).buffer,
  });
  tx.objectStore('relations').put({ docId: 'gone', kind: 'semantic', paramsKey: 'k=16' });
  // A repository's file parses (schema v8) whose document is gone.
  tx.objectStore('codeSyntax').put({
    docId: 'ghost',
    files: [{ path: 'a.py', sha256: 'ab', syntax: null }],
  });
  await new Promise((resolve, reject) => {
    tx.oncomplete = resolve;
    tx.onerror = () => reject(tx.error);
  });
  db.close();
}

describe('reclaimUnreferenced', () => {
  it('deletes what no document references, counts it, and leaves every document whole', async () => {
    const factory = new IDBFactory();
    let library = await openLibrary('reclaim', { factory });
    const kept = await library.saveIndexedDocument(sampleDocument('kept'));
    await library.saveIndexedDocument(sampleDocument('removed'));
    await library.deleteDocument('removed');
    const before = await library.loadDocumentIndex(kept.id, 'glove-100d');
    library.close();

    await leaveOrphans(factory, 'reclaim');
    library = await openLibrary('reclaim', { factory });
    const found = await library.reclaimUnreferenced();
    expect(found.records).toBe(4);
    expect(found.bytes).toBeGreaterThanOrEqual(1000 + 32);
    // Nothing left the second time; the kept document loads exactly as before.
    expect(await library.reclaimUnreferenced()).toEqual({ records: 0, bytes: 0 });
    expect(await library.loadDocumentIndex(kept.id, 'glove-100d')).toEqual(before);
    expect((await library.listDocuments()).map((d) => d.id)).toEqual([kept.id]);
    library.close();
  });
});
