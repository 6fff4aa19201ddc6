import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import fc from 'fast-check';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { LibraryFileError, packLibrary, unpackLibrary } from './carry';
import { openLibrary, type Library } from './library';
import { sampleDocument } from './testing';

let n = 0;
const fresh = () => openLibrary(`carry-${n++}`, { factory: new IDBFactory() });

async function filled(docs: { count: number; dim: number; seed: number }[]): Promise<Library> {
  const library = await fresh();
  for (const [i, d] of docs.entries()) {
    await library.saveIndexedDocument(
      sampleDocument(`doc${i}`, { ...d, name: `book ${i} <b>é</b>.txt`, addedAt: 1000 + i }),
    );
  }
  await library.setSetting('retrieval', { alpha: 0.7, scoring: 'bm25' });
  return library;
}

/** Rewrite one entry of a zip. */
function withEntry(bytes: Uint8Array, path: string, edit: (b: Uint8Array) => Uint8Array) {
  const files: Record<string, Uint8Array> = unzipSync(bytes);
  files[path] = edit(files[path]);
  return zipSync(files);
}

describe('library export and import', () => {
  it('round-trips every record exactly, with nothing recomputed (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            count: fc.integer({ min: 1, max: 30 }),
            dim: fc.integer({ min: 1, max: 12 }),
            seed: fc.integer({ min: 1, max: 1000 }),
          }),
          { minLength: 1, maxLength: 4 },
        ),
        async (docs) => {
          const from = await filled(docs);
          const exported = await from.exportRecords();
          const to = await fresh();
          const { records, manifest } = unpackLibrary(packLibrary(exported, 'library'));
          expect(manifest.documents).toHaveLength(docs.length);
          expect(await to.importRecords(records)).toEqual({
            added: exported.documents.map((d) => d.id),
            skipped: [],
            settings: exported.settings.length > 0,
          });
          expect(await to.exportRecords()).toEqual(exported);
          for (const d of exported.documents) {
            expect(await to.loadDocumentIndex(d.id, 'glove-100d')).toEqual(
              await from.loadDocumentIndex(d.id, 'glove-100d'),
            );
          }
          from.close();
          to.close();
        },
      ),
      { numRuns: 12 },
    );
  });

  it('exports one document without the settings, and skips a document already there', async () => {
    const from = await filled([
      { count: 5, dim: 3, seed: 1 },
      { count: 7, dim: 3, seed: 2 },
    ]);
    const one = await from.exportRecords(['doc1']);
    expect(one.documents.map((d) => d.id)).toEqual(['doc1']);
    expect(one.settings).toEqual([]);
    expect(one.vectors.every((v) => v.docId === 'doc1')).toBe(true);
    const { records } = unpackLibrary(packLibrary(one, 'documents'));
    expect(await from.importRecords(records)).toEqual({
      added: [],
      skipped: ['doc1'],
      settings: false,
    });
    await expect(from.exportRecords(['nope'])).rejects.toThrow(/no document "nope"/);
    from.close();
  });

  it('leaves the settings as they are when every document of the file is already here', async () => {
    const lib = await filled([{ count: 5, dim: 3, seed: 1 }]);
    await lib.setSetting('retrieval', { alpha: 0.5, scoring: 'bm25' });
    const file = packLibrary(await lib.exportRecords(), 'library');
    // The person moves a knob after exporting, then imports the same library again.
    await lib.setSetting('retrieval', { alpha: 1.25, scoring: 'dense' });
    expect(await lib.importRecords(unpackLibrary(file).records)).toEqual({
      added: [],
      skipped: ['doc0'],
      settings: false,
    });
    expect(await lib.getSetting('retrieval', null)).toEqual({ alpha: 1.25, scoring: 'dense' });
    // Into a library that lacks the document, the settings come with it.
    const to = await fresh();
    expect((await to.importRecords(unpackLibrary(file).records)).settings).toBe(true);
    expect(await to.getSetting('retrieval', null)).toEqual({ alpha: 0.5, scoring: 'bm25' });
    lib.close();
    to.close();
  });

  it('refuses a newer, an unknown or a corrupt file with a message, and changes nothing', async () => {
    const from = await filled([{ count: 6, dim: 4, seed: 3 }]);
    const file = packLibrary(await from.exportRecords(), 'library');
    const to = await filled([{ count: 4, dim: 2, seed: 9 }]);
    const before = await to.exportRecords();
    const manifest = (m: Record<string, unknown>) =>
      withEntry(file, 'manifest.json', (b) =>
        strToU8(JSON.stringify({ ...JSON.parse(new TextDecoder().decode(b)), ...m })),
      );
    const bad: [Uint8Array, RegExp][] = [
      [manifest({ version: 2 }), /newer FragRel Lens \(layout version 2/],
      [manifest({ version: 0 }), /unknown layout version/],
      [manifest({ format: 'something-else' }), /not a FragRel Lens library/],
      [manifest({ serializationVersion: 99 }), /binary layout 99/],
      [file.subarray(0, file.length >> 1), /not a readable zip/],
      [withEntry(file, 'bin/0.bin', (b) => b.subarray(1)), /wrong size/],
      [withEntry(file, 'records.json', (b) => b.subarray(0, 20)), /damaged \(not valid JSON\)/],
      [zipSync({ 'notes.txt': strToU8('hi') }), /no manifest\.json/],
    ];
    for (const [bytes, message] of bad) {
      let error: unknown;
      try {
        await to.importRecords(unpackLibrary(bytes).records);
      } catch (e) {
        error = e;
      }
      expect(error, String(message)).toBeInstanceOf(LibraryFileError);
      expect((error as Error).message).toMatch(message);
    }
    expect(await to.exportRecords()).toEqual(before);
    from.close();
    to.close();
  });
});
