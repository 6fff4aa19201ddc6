import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { unzipSync } from 'fflate';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openLibrary, type Library } from '../store';
import { sampleDocument } from '../store/testing';
import { createExportHandlers } from './export-handlers';
import type { Progress } from './protocol';

let library: Library;
beforeEach(async () => {
  library = await openLibrary('export-worker', { factory: new IDBFactory() });
  await library.saveIndexedDocument(sampleDocument('a', { count: 40, dim: 8 }));
  await library.saveIndexedDocument(sampleDocument('b', { count: 25, dim: 8, seed: 5 }));
});
afterEach(() => library.close());

const handlers = () => createExportHandlers({ library: async () => library });

describe('exportParquet (the export worker)', () => {
  it('gives the zip as a Blob, with progress through every large table', async () => {
    const seen: Progress[] = [];
    const result = await handlers().exportParquet(
      { dbName: library.name },
      { signal: new AbortController().signal, progress: (p) => seen.push(p), transfer: () => {} },
    );
    expect(result.documents).toBe(2);
    expect(result.rows.fragments).toBe(65);
    expect(result.blob.size).toBe(result.bytes);
    const files = unzipSync(new Uint8Array(await result.blob.arrayBuffer()));
    expect(JSON.parse(new TextDecoder().decode(files['manifest.json'])).tables.vectors.rows).toBe(
      65,
    );
    expect(new Set(seen.map((p) => p.stage))).toEqual(new Set(['fragments', 'vectors', 'edges']));
    expect(seen.at(-1)).toMatchObject({ done: 65, total: 65 });
  });

  it('exports only the documents asked for, and refuses an empty choice', async () => {
    const ctx = { signal: new AbortController().signal, progress: () => {}, transfer: () => {} };
    const one = await handlers().exportParquet({ dbName: library.name, docIds: ['b'] }, ctx);
    expect(one.rows.fragments).toBe(25);
    await expect(
      handlers().exportParquet({ dbName: library.name, docIds: ['none'] }, ctx),
    ).rejects.toThrow(/no indexed document/);
  });

  it('stops when cancelled', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      handlers().exportParquet(
        { dbName: library.name },
        { signal: controller.signal, progress: () => {}, transfer: () => {} },
      ),
    ).rejects.toThrow(/cancelled/);
  });
});
