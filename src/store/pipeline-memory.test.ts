import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { openLibrary } from './library';
import { sampleDocument } from './testing';

const memory = (docId: string, key = 'qrmem|600|words', value: unknown = { ner: [['Alice']] }) => ({
  docId,
  key,
  createdAt: 1,
  value,
});

describe('pipelineMemory (schema v6)', () => {
  it('stores a memory per document and key, only for a document that exists', async () => {
    const library = await openLibrary('m', { factory: new IDBFactory() });
    await library.saveIndexedDocument(sampleDocument('a'));
    expect(await library.putPipelineMemory(memory('a'))).toBe(true);
    expect(await library.putPipelineMemory(memory('a', 'qrmem|300|words', 'other'))).toBe(true);
    expect(await library.putPipelineMemory(memory('ghost'))).toBe(false);
    expect((await library.getPipelineMemory('a', 'qrmem|600|words'))?.value).toEqual({
      ner: [['Alice']],
    });
    expect((await library.getPipelineMemory('a', 'qrmem|300|words'))?.value).toBe('other');
    expect(await library.getPipelineMemory('ghost', 'qrmem|600|words')).toBeUndefined();
    library.close();
  });

  it('deletes the memory with its document, and when the document is indexed again', async () => {
    const library = await openLibrary('d', { factory: new IDBFactory() });
    await library.saveIndexedDocument(sampleDocument('a'));
    await library.saveIndexedDocument(sampleDocument('b'));
    await library.putPipelineMemory(memory('a'));
    await library.putPipelineMemory(memory('b'));
    await library.saveIndexedDocument(sampleDocument('b'));
    expect(await library.getPipelineMemory('b', 'qrmem|600|words')).toBeUndefined();
    expect(await library.getPipelineMemory('a', 'qrmem|600|words')).toBeDefined();
    await library.deleteDocument('a');
    expect(await library.db.count('pipelineMemory')).toBe(0);
    library.close();
  });
});
