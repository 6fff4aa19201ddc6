import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import { IDBFactory } from 'fake-indexeddb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STATIC_EMBEDDER_ID, type StaticModel } from '../core/embed/static';
import { ingestFiles } from '../ingest/ingest';
import { staticEmbedder, type EmbedderSpec } from '../models/embedder';
import { openLibrary, type Library } from '../store';
import { createIndexHandlers, type IndexApi } from '../workers/index-handlers';
import { InProcessClient } from '../workers/in-process';
import { isAbortError } from '../workers/protocol';
import { loadGloveFromDisk, sharedDatasetPath } from '../../test/glove';
import { LibraryService, defaultIndexSettings, type IndexSettings } from './library-service';

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
    indexer.calls.index = 0;

    // Nothing changed: nothing runs.
    expect(await service.refresh(doc, defaultIndexSettings, job())).toBe(false);
    expect(indexer.calls).toEqual({ index: 0 });

    // k changed: only the semantic relation is rebuilt, from the stored vectors.
    const k8: IndexSettings = { ...defaultIndexSettings, semanticK: 8 };
    expect(await service.staleness(doc, k8)).toBe('relation');
    expect(await service.refresh(doc, k8, job())).toBe(true);
    expect(indexer.calls).toEqual({ index: 0, relate: 1 });
    expect(service.stats.embeddedFragments).toBe(doc.fragmentCount);
    const parts = await library.listIndexParts(doc.id);
    expect(parts.relations).toHaveLength(2);

    // The embedder changed: vectors and relation for it, the fragments kept.
    const plain: IndexSettings = { ...defaultIndexSettings, embedderId: PLAIN_ID };
    expect(await service.staleness(doc, plain)).toBe('vectors');
    expect(await service.refresh(doc, plain, job())).toBe(true);
    expect(indexer.calls).toEqual({ index: 0, relate: 1, embed: 1 });
    expect((await library.listIndexParts(doc.id)).embedderIds.sort()).toEqual(
      [PLAIN_ID, STATIC_EMBEDDER_ID].sort(),
    );
    expect((await library.getDocument(doc.id))!.fragmentCount).toBe(doc.fragmentCount);
    // Switching back finds the first embedder's vectors still there: nothing to do.
    const again = (await library.getDocument(doc.id))!;
    expect(await service.staleness(again, defaultIndexSettings)).toBe('fresh');

    // The fragment size changed: everything is recomputed, old vectors go with the old fragments.
    const small: IndexSettings = { ...defaultIndexSettings, wordsPerFragment: 200 };
    expect(await service.staleness(again, small)).toBe('fragments');
    expect(await service.refresh(again, small, job())).toBe(true);
    expect(indexer.calls.index).toBe(1);
    const redone = (await library.getDocument(doc.id))!;
    expect(redone.fragmentCount).toBeGreaterThan(2 * doc.fragmentCount);
    expect((await library.listIndexParts(doc.id)).embedderIds).toEqual([STATIC_EMBEDDER_ID]);
    expect(await service.staleness(redone, small)).toBe('fresh');
  });

  it('refuses a file already in the library, and a bad file, leaving the library as it was', async () => {
    const doc = await service.addFile(alice(), defaultIndexSettings, job());
    await expect(service.addFile(alice(), defaultIndexSettings, job())).rejects.toThrow(
      /already in the library/,
    );
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
});
