import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openLibrary, type Library } from '../store';
import { sampleDocument } from '../store/testing';
import { HeldIndexes, libraryOpener, storeHeld, type HeldParts } from './held';

/** An index as the worker holds it, from the store's own sample document. */
function heldOf(id: string, count = 6): HeldParts {
  const sample = sampleDocument(id, { count });
  const relation = sample.relations![0];
  return {
    text: sample.source,
    fragments: {
      starts: sample.fragments.starts,
      ends: sample.fragments.ends,
      words: sample.fragments.words ?? new Uint32Array(count),
      labels: sample.fragments.labels ?? [],
    },
    vectors: sample.vectors![0].vectors,
    embedderId: sample.vectors![0].embedderId,
    semantic: relation.matrix!,
  };
}

const ctx = (signal = new AbortController().signal) => ({
  signal,
  progress: () => {},
  transfer: () => {},
});

let library: Library;
beforeEach(async () => {
  library = await openLibrary('held', { factory: new IDBFactory() });
});
afterEach(() => library.close());

describe('HeldIndexes', () => {
  it('gives each index its own number, hands it out once, and keeps at most `limit`', () => {
    const holding = new HeldIndexes(2);
    const a = holding.hold(heldOf('a'));
    const b = holding.hold(heldOf('b'));
    expect(a).not.toBe(b);
    expect(holding.take(a).text).toBe(heldOf('a').text);
    expect(() => holding.take(a)).toThrow(/no longer in the indexing worker/);
    const c = holding.hold(heldOf('c'));
    holding.hold(heldOf('d'));
    // The oldest went first: b.
    expect(holding.size).toBe(2);
    expect(() => holding.take(b)).toThrow(/Add the file again/);
    holding.drop(c);
    expect(holding.size).toBe(1);
  });
});

/** Store a held index under the store's sample record of `id`. */
const store = (
  holding: HeldIndexes,
  held: number,
  id: string,
  count: number,
  signal?: AbortSignal,
) => {
  const sample = sampleDocument(id, { count });
  return storeHeld(
    holding,
    async () => library,
    {
      held,
      dbName: 'held',
      document: sample.document,
      semanticParams: sample.relations![0].params,
    },
    ctx(signal),
  );
};

describe('storeHeld', () => {
  it('stores the held index in the library under the record the page settled, and releases it', async () => {
    const holding = new HeldIndexes();
    const parts = heldOf('x', 7);
    const held = holding.hold(parts);
    const saved = await store(holding, held, 'x', 7);
    expect(saved.fragmentCount).toBe(7);
    expect(holding.size).toBe(0);
    const index = (await library.loadDocumentIndex('x', parts.embedderId))!;
    expect(index.source).toBe(parts.text);
    expect([...index.fragments.starts]).toEqual([...parts.fragments.starts]);
    expect([...index.vectors!.data]).toEqual([...parts.vectors.data]);
    expect([...index.relations[0].matrix!.col]).toEqual([...parts.semantic.col]);
  });

  it('stores nothing when cancelled, and the index is released all the same', async () => {
    const holding = new HeldIndexes();
    const held = holding.hold(heldOf('y'));
    const controller = new AbortController();
    const storing = store(holding, held, 'y', 6, controller.signal);
    controller.abort();
    await expect(storing).rejects.toMatchObject({ name: 'AbortError' });
    expect(holding.size).toBe(0);
    expect(await library.listDocuments()).toEqual([]);
  });
});

describe('libraryOpener', () => {
  it('opens once per name, and again after the connection was closed', async () => {
    let opened = 0;
    const factory = new IDBFactory();
    const open = libraryOpener((name) => {
      opened++;
      return openLibrary(name, { factory });
    });
    const first = await open('lib');
    expect(await open('lib')).toBe(first);
    first.close();
    const second = await open('lib');
    expect(second).not.toBe(first);
    expect(second.closed).toBe(false);
    expect(opened).toBe(2);
    second.close();
  });
});
