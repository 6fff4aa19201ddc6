import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import { IDBFactory } from 'fake-indexeddb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sharedDatasetPath } from '../../test/glove';
import { openLibrary, type Library } from './library';
import { partOwner, readSource, sourcePartKey, sourceRecords } from './source-parts';
import { sampleDocument } from './testing';

const alice = readFileSync(sharedDatasetPath('gutenberg/pg11.txt'), 'utf8').replace(/\r\n/g, '\n');

describe('sourceRecords', () => {
  it('keeps a text that fits in one record, and cuts a longer one by its bytes as stored', () => {
    expect(sourceRecords('d', 'short', 100)).toEqual([{ docId: 'd', text: 'short' }]);
    // Latin-1: one byte a character, so 100 characters a part.
    const narrow = 'é'.repeat(250);
    expect(sourceRecords('d', narrow, 100).map((r) => r.text.length)).toEqual([100, 100, 50]);
    // One character above U+00FF: two bytes a character, so 50 a part.
    const wide = narrow + '\u201d';
    const parts = sourceRecords('d', wide, 100);
    expect(parts.map((r) => r.text.length)).toEqual([50, 50, 50, 50, 50, 1]);
    expect(parts[0]).toMatchObject({ docId: 'd', parts: 6 });
    expect(parts[3].docId).toBe(sourcePartKey('d', 3));
    expect(parts.map((r) => r.text).join('')).toBe(wide);
  });

  it('never cuts a surrogate pair in two, and reads back every text as it was', async () => {
    const emoji = 'ab' + '\u{1F600}'.repeat(40) + 'z';
    for (const max of [6, 8, 10, 14]) {
      const records = sourceRecords('e', emoji, max);
      for (const r of records) {
        const last = r.text.charCodeAt(r.text.length - 1);
        expect(last >= 0xd800 && last <= 0xdbff).toBe(false);
      }
      const byKey = new Map(records.map((r) => [r.docId, r]));
      expect(await readSource(async (k) => byKey.get(k), 'e')).toBe(emoji);
    }
  });

  it('says which document a part belongs to; a document key is no part', () => {
    expect(partOwner(sourcePartKey('doc-1', 4))).toBe('doc-1');
    expect(partOwner('doc-1')).toBeUndefined();
  });
});

describe('a library whose source texts are stored in parts', () => {
  let library: Library;
  beforeEach(async () => {
    library = await openLibrary('parts', { factory: new IDBFactory() });
    // Parts of 40 KB: Alice (about 150,000 characters) takes several.
    library.sourcePartBytes = 40_000;
  });
  afterEach(() => library.close());

  const book = (id: string, text: string) => ({
    ...sampleDocument(id, { count: 5 }),
    source: text,
  });

  it('saves, reads, replaces, exports, imports, reclaims and deletes the text whole', async () => {
    await library.saveIndexedDocument(book('a', alice));
    const records = await library.db.getAll('sources');
    expect(records.length).toBeGreaterThan(2);
    expect(records[0]).toMatchObject({ docId: 'a', parts: records.length });
    expect(await library.getSource('a')).toBe(alice);
    expect((await library.loadDocumentIndex('a', 'glove-100d'))!.source).toBe(alice);

    // A shorter text under the same id leaves no part of the longer one behind.
    await library.saveIndexedDocument(book('a', 'A short text.'));
    expect(await library.db.getAll('sources')).toEqual([{ docId: 'a', text: 'A short text.' }]);
    await library.saveIndexedDocument(book('a', alice));

    // Exported joined, imported into another library cut again.
    const exported = await library.exportRecords();
    expect(exported.sources).toEqual([{ docId: 'a', text: alice }]);
    const other = await openLibrary('parts-2', { factory: new IDBFactory() });
    other.sourcePartBytes = 40_000;
    await other.importRecords(exported);
    expect(await other.getSource('a')).toBe(alice);
    expect((await other.db.getAll('sources')).length).toBe(records.length);
    other.close();

    // Parts of a stored document are referenced; parts of none are reclaimed.
    expect((await library.reclaimUnreferenced()).records).toBe(0);
    await library.db.put('sources', { docId: sourcePartKey('gone', 1), text: 'x' });
    expect((await library.reclaimUnreferenced()).records).toBe(1);
    expect(await library.getSource('a')).toBe(alice);

    await library.deleteDocument('a');
    expect(await library.db.getAll('sources')).toEqual([]);
  });
});
