import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openLibrary, transactionCause, type Library } from './library';
import { sampleDocument } from './testing';

let library: Library;

beforeEach(async () => {
  library = await openLibrary('abort-test', { factory: new IDBFactory() });
});

afterEach(() => {
  vi.restoreAllMocks();
  library.close();
});

describe('a transaction the browser aborts', () => {
  it('fails the save with a message that is no cancellation, and leaves the library as it was', async () => {
    await library.saveIndexedDocument(sampleDocument('a', { name: 'Kept.txt', count: 5 }));
    // The browser aborting mid-write (as Chromium does on an internal error): the transaction's
    // requests then fail with an 'AbortError', which the UI used to show as "Cancelled".
    const put = IDBObjectStore.prototype.put;
    vi.spyOn(IDBObjectStore.prototype, 'put').mockImplementation(function (
      this: IDBObjectStore,
      ...args: Parameters<IDBObjectStore['put']>
    ) {
      const request = put.apply(this, args);
      const tx = this.transaction;
      if (this.name === 'sources') queueMicrotask(() => tx.abort());
      return request;
    });
    const failure = library.saveIndexedDocument(
      sampleDocument('b', { name: 'Lost.txt', count: 5 }),
    );
    await expect(failure).rejects.toThrow(/the browser aborted the write/);
    await expect(failure).rejects.not.toMatchObject({ name: 'AbortError' });
    vi.restoreAllMocks();
    expect((await library.listDocuments()).map((d) => d.name)).toEqual(['Kept.txt']);
  });
});

describe('transactionCause', () => {
  const abort = new DOMException('The transaction was aborted.', 'AbortError');

  it("prefers the transaction's own error to a request's AbortError", () => {
    const quota = new DOMException('Quota exceeded.', 'QuotaExceededError');
    expect(transactionCause(abort, quota)).toBe(quota);
  });

  it('leaves other errors as they are', () => {
    const data = new DOMException('too large', 'DataError');
    expect(transactionCause(data, null)).toBe(data);
  });
});

describe('a save the person cancels', () => {
  it('writes nothing when cancelled before it starts or while the transaction runs', async () => {
    await library.saveIndexedDocument(sampleDocument('a', { name: 'Kept.txt', count: 5 }));
    const before = new AbortController();
    before.abort();
    const early = library.saveIndexedDocument(sampleDocument('b', { count: 5 }), {
      signal: before.signal,
    });
    await expect(early).rejects.toMatchObject({ name: 'AbortError' });

    // The transaction is open and its requests issued when the call returns; a cancel then
    // aborts it, and none of its records land.
    const during = new AbortController();
    const midway = library.saveIndexedDocument(sampleDocument('c', { count: 5 }), {
      signal: during.signal,
    });
    during.abort();
    await expect(midway).rejects.toMatchObject({ name: 'AbortError' });
    expect((await library.listDocuments()).map((d) => d.name)).toEqual(['Kept.txt']);
    expect(await library.getSource('c')).toBeUndefined();
    expect(await library.getFragments('c')).toBeUndefined();
  });

  it('changes nothing once the write has committed', async () => {
    const late = new AbortController();
    const saved = await library.saveIndexedDocument(sampleDocument('d', { count: 5 }), {
      signal: late.signal,
    });
    late.abort();
    expect((await library.getDocument('d'))?.fragmentCount).toBe(saved.fragmentCount);
  });
});
