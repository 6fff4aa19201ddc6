import 'fake-indexeddb/auto';
import path from 'node:path';
import { IDBFactory } from 'fake-indexeddb';
import iconv from 'iconv-lite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadGloveFromDisk } from '../../../test/glove';
import { JA_BOOK } from '../../../test/scripts/samples';
import { ingestFiles } from '../../ingest/ingest';
import { staticEmbedder } from '../../models/embedder';
import { nodeGrammarSource } from '../../models/tree-sitter-node';
import { openLibrary, type Library } from '../../store';
import { createIndexHandlers, type IndexApi } from '../../indexing';
import { InProcessClient } from '../../workers/in-process';
import { defaultIndexSettings, LibraryService } from '../library-service';

/**
 * A Shift_JIS book through the real index handlers and a (fake-indexeddb) library: the guessed
 * encoding is stored with the document, and a re-read in another encoding replaces the record
 * only once the new one is stored.
 */
let library: Library;
let service: LibraryService;
const job = () => ({ signal: new AbortController().signal, onProgress: () => {} });
const sjisBook = () =>
  new File([new Uint8Array(iconv.encode(JA_BOOK, 'Shift_JIS'))], '町の人々.txt', {
    type: 'text/plain',
  });

beforeEach(async () => {
  const model = loadGloveFromDisk();
  library = await openLibrary('reread', { factory: new IDBFactory() });
  const indexer = new InProcessClient<IndexApi>(
    createIndexHandlers({
      ingest: (files, options) => ingestFiles(files, options),
      loadEmbedder: async () => staticEmbedder(model),
      grammars: nodeGrammarSource(path.resolve('node_modules')),
      library: async () => library,
    }),
  );
  service = new LibraryService(library, indexer, 'http://127.0.0.1/');
});
afterEach(() => library.close());

describe('a document in a guessed encoding', () => {
  it('is stored with the encoding detected, and re-read in a chosen one replaces it', async () => {
    const doc = await service.addFile(sjisBook(), defaultIndexSettings, job());
    expect(doc.encoding).toBe('shift_jis');
    expect(doc.encodingGuessed).toBe(true);
    expect(await library.getSource(doc.id)).toBe(JA_BOOK);
    expect(service.canReread(doc.id)).toBe(true);

    // The reader says it is EUC-JP (wrong, but theirs to choose): garbled, and not "guessed".
    const wrong = await service.reread(doc, 'euc-jp', defaultIndexSettings, job());
    expect(wrong.id).not.toBe(doc.id);
    expect(wrong.encoding).toBe('euc-jp');
    expect(wrong.encodingGuessed).toBeUndefined();
    expect(await library.getSource(wrong.id)).not.toBe(JA_BOOK);
    expect((await library.listDocuments()).map((d) => d.id)).toEqual([wrong.id]);

    // And back: the text is the book again, one document in the library.
    const right = await service.reread(wrong, 'shift_jis', defaultIndexSettings, job());
    expect(await library.getSource(right.id)).toBe(JA_BOOK);
    expect((await library.listDocuments()).map((d) => d.id)).toEqual([right.id]);
  });

  it('keeps the old record when the re-read fails', async () => {
    const doc = await service.addFile(sjisBook(), defaultIndexSettings, job());
    await expect(service.reread(doc, 'klingon-8', defaultIndexSettings, job())).rejects.toThrow(
      /not an encoding/,
    );
    expect((await library.listDocuments()).map((d) => d.id)).toEqual([doc.id]);
    expect(await library.getSource(doc.id)).toBe(JA_BOOK);
  });
});
