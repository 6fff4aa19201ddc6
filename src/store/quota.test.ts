import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { formatBytes, isQuotaExceeded, StoreError } from './errors';
import { openLibrary, type Library } from './library';
import { estimateStorage, requestPersistentStorage } from './storage';
import { sampleDocument, sampleVectors } from './testing';

let library: Library;

beforeEach(async () => {
  library = await openLibrary('quota-test', { factory: new IDBFactory() });
});

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  library.close();
});

function failPutsWithQuota() {
  return vi.spyOn(IDBObjectStore.prototype, 'put').mockImplementation(() => {
    throw new DOMException('Quota exceeded.', 'QuotaExceededError');
  });
}

describe('quota errors', () => {
  it('say what the write needed, what could be deleted, and what the browser reports', async () => {
    const small = await library.saveIndexedDocument(
      sampleDocument('s', { name: 'Small.txt', count: 5 }),
    );
    const big = await library.saveIndexedDocument(
      sampleDocument('b', { name: 'War and Peace.epub', count: 400, dim: 64 }),
    );
    const mid = await library.saveIndexedDocument(
      sampleDocument('m', { name: 'Middle.md', count: 100, dim: 64 }),
    );
    const tiny = await library.saveIndexedDocument(
      sampleDocument('t', { name: 'Tiny.txt', count: 1 }),
    );
    vi.stubGlobal('navigator', {
      storage: { estimate: () => Promise.resolve({ usage: 1_190_000_000, quota: 1_200_000_000 }) },
    });
    failPutsWithQuota();

    const input = sampleDocument('new', { name: 'Moby Dick.txt', count: 300, dim: 32 });
    const v = input.vectors![0].vectors;
    const error = (await library.saveIndexedDocument(input).catch((e: unknown) => e)) as StoreError;

    expect(error).toBeInstanceOf(StoreError);
    expect(error.code).toBe('quota');
    expect((error.cause as DOMException).name).toBe('QuotaExceededError');
    // Needed: text length * 2 plus byteLengths. The vectors alone are 300 * 32 * 4 bytes.
    const needed = error.details!.neededBytes;
    expect(needed).toBeGreaterThan(input.source.length * 2 + v.data.byteLength);
    expect(error.message).toContain('saving "Moby Dick.txt"');
    expect(error.message).toContain(`needed about ${formatBytes(needed)}`);
    expect(error.message).toContain('1.19 GB used of 1.20 GB');
    // The three largest other documents, largest first, with their sizes; not the smallest.
    expect(error.details!.largest.map((d) => d.id)).toEqual(['b', 'm', 's']);
    expect(error.message).toContain(
      `"War and Peace.epub" (${formatBytes(big.storedBytes)}), "Middle.md" (${formatBytes(mid.storedBytes)}), "Small.txt" (${formatBytes(small.storedBytes)})`,
    );
    expect(error.message).not.toContain('Tiny.txt');
    expect(tiny.storedBytes).toBeLessThan(small.storedBytes);
    expect(error.details).toMatchObject({ usage: 1_190_000_000, quota: 1_200_000_000 });

    // The estimate is exactly what the document occupies once space allows the write.
    vi.restoreAllMocks();
    expect((await library.saveIndexedDocument(input)).storedBytes).toBe(needed);
  });

  it('are typed for smaller writes too, and work without navigator.storage', async () => {
    await library.saveIndexedDocument(sampleDocument('a', { name: 'A.txt', count: 10 }));
    failPutsWithQuota();
    const error = (await library
      .putVectors({
        docId: 'a',
        embedderId: 'minilm',
        vectors: sampleVectors(10, 384),
        fragmentOptions: sampleDocument('a').document.fragmentOptions,
      })
      .catch((e: unknown) => e)) as StoreError;
    expect(error.code).toBe('quota');
    expect(error.details!.neededBytes).toBe(10 * 384 * 4);
    expect(error.message).toContain(`vectors "minilm"`);
    expect(error.message).toContain(formatBytes(10 * 384 * 4));
    expect(error.message).toContain('"A.txt"');
    expect(error.details!.usage).toBeUndefined();
    vi.restoreAllMocks();
    expect(await library.getVectors('a', 'minilm')).toBeUndefined();
  });

  it('are recognised by name, whichever browser names them', () => {
    expect(isQuotaExceeded(new DOMException('x', 'QuotaExceededError'))).toBe(true);
    expect(isQuotaExceeded({ name: 'NS_ERROR_DOM_QUOTA_REACHED' })).toBe(true);
    expect(isQuotaExceeded(new DOMException('x', 'AbortError'))).toBe(false);
    expect(isQuotaExceeded(new Error('quota'))).toBe(false);
  });
});

describe('navigator.storage', () => {
  it('reports no support where navigator.storage is absent, without throwing', async () => {
    vi.stubGlobal('navigator', undefined);
    expect(await requestPersistentStorage()).toEqual({ supported: false, persisted: false });
    expect(await estimateStorage()).toBeUndefined();
  });

  it('asks for persistence once, and reports the answer', async () => {
    const persist = vi.fn(() => Promise.resolve(true));
    vi.stubGlobal('navigator', { storage: { persist, persisted: () => Promise.resolve(false) } });
    expect(await requestPersistentStorage()).toEqual({ supported: true, persisted: true });
    expect(persist).toHaveBeenCalledTimes(1);

    const refuse = vi.fn(() => Promise.resolve(false));
    vi.stubGlobal('navigator', { storage: { persist: refuse } });
    expect(await requestPersistentStorage()).toEqual({ supported: true, persisted: false });

    const already = vi.fn(() => Promise.resolve(true));
    vi.stubGlobal('navigator', {
      storage: { persist: already, persisted: () => Promise.resolve(true) },
    });
    expect(await requestPersistentStorage()).toEqual({ supported: true, persisted: true });
    expect(already).not.toHaveBeenCalled();

    vi.stubGlobal('navigator', { storage: { persist: () => Promise.reject(new Error('no')) } });
    expect(await requestPersistentStorage()).toEqual({ supported: true, persisted: false });
  });
});
