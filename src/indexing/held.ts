/**
 * @file Storing an index where it was computed: in the index worker, not on the page.
 *
 * Why: a million-line repository's index is about 200 MB of text, vectors, relations and
 * parses. Sent to the page, it was cloned once on the way (the page's "receive" task) and
 * encoded and cloned again into IndexedDB on the page's thread (`saveIndexedDocument`): two
 * main-thread tasks of 0.3 s and 1.2 s at the end of indexing (docs/scale.md, section 9). The
 * worker now keeps what it computed ("holds" it under a number), the page receives only what it
 * shows or decides on (the document's name and hash, its files, the skip report, counts), and
 * the page then asks the worker to store the held index under the record it settled (id,
 * whether it replaces an earlier version) or to drop it (a duplicate, a cancel). IndexedDB works
 * in workers; the write is the same one transaction as before (`Library.saveIndexedDocument`),
 * so a crash or a closed tab still leaves the old state or the new one.
 *
 * The page's own decisions (is it already in the library, does it replace an earlier version of
 * the repository) stay on the page, unchanged: only where the arrays live moved.
 */
import type { CsrMatrix, VectorSet } from '../core/types';
import type { FileParse, PreviousRepositoryIndex } from '../ingest/reindex';
import type { DocumentRecord, Library } from '../store';
import type { IndexContext, IndexedFragments, StoreHeldRequest } from './types';

/** What the worker keeps of one index between computing it and storing it. */
export interface HeldParts {
  text: string;
  fragments: IndexedFragments;
  vectors: VectorSet;
  embedderId: string;
  semantic: CsrMatrix;
  code?: { matrix: CsrMatrix; references: Float32Array; scopes: string[] };
  parses?: FileParse[];
  /** The parses' size as JSON, in characters, when known (the store need not measure it). */
  parsesChars?: number;
}

/**
 * Indexes computed and not yet stored or dropped. At most `limit` are kept: a page that never
 * answers (closed mid-way) must not keep several hundred MB alive, so the oldest goes first.
 */
export class HeldIndexes {
  private next = 1;
  private readonly held = new Map<number, HeldParts>();

  constructor(private readonly limit = 2) {}

  hold(parts: HeldParts): number {
    const key = this.next++;
    this.held.set(key, parts);
    for (const old of this.held.keys()) {
      if (this.held.size <= this.limit) break;
      this.held.delete(old);
    }
    return key;
  }

  /** The held index, removed from the holding; an Error a person can act on when it is gone. */
  take(key: number): HeldParts {
    const parts = this.held.get(key);
    if (!parts) {
      throw new Error(
        'The index to store is no longer in the indexing worker (it was restarted or replaced by a newer one). Add the file again.',
      );
    }
    this.held.delete(key);
    return parts;
  }

  drop(key: number): void {
    this.held.delete(key);
  }

  get size(): number {
    return this.held.size;
  }
}

/** Store a held index in one transaction; the parts are released whether or not it succeeds. */
export async function storeHeld(
  holding: HeldIndexes,
  open: (dbName: string) => Promise<Library>,
  req: StoreHeldRequest,
  ctx: IndexContext,
): Promise<DocumentRecord> {
  const parts = holding.take(req.held);
  const library = await open(req.dbName);
  const { fragments, vectors, semantic, code } = parts;
  return library.saveIndexedDocument(
    {
      document: req.document,
      source: parts.text,
      fragments: { count: fragments.starts.length, ...fragments },
      vectors: [{ embedderId: parts.embedderId, vectors }],
      relations: [
        { kind: 'semantic', params: req.semanticParams, matrix: semantic },
        ...(code && req.codeParams
          ? [
              {
                kind: 'code',
                params: req.codeParams,
                matrix: code.matrix,
                references: code.references,
                scopes: code.scopes,
              },
            ]
          : []),
      ],
      ...(parts.parses ? { codeSyntax: parts.parses } : {}),
      ...(parts.parsesChars !== undefined ? { codeSyntaxChars: parts.parsesChars } : {}),
    },
    { signal: ctx.signal },
  );
}

/**
 * A worker's connection to the library, opened on first use and opened again when another tab's
 * upgrade or the browser closed it (the reopen then fails with the store's own clear message if
 * this code is too old for the library).
 */
export function libraryOpener(
  openLibrary: (name: string) => Promise<Library>,
): (name: string) => Promise<Library> {
  const open = new Map<string, Promise<Library>>();
  return async (name) => {
    const current = open.get(name);
    if (current) {
      const library = await current.catch(() => null);
      if (library && !library.closed) return library;
    }
    const next = openLibrary(name);
    open.set(name, next);
    return next;
  };
}

/**
 * A stored repository's text, windows, vectors of `embedderId` and file parses: what a newer
 * drop of it reuses (src/ingest/reindex.ts). Undefined when the text or windows are missing.
 */
export async function previousIndex(
  library: Library,
  docId: string,
  embedderId: string,
): Promise<PreviousRepositoryIndex | undefined> {
  const [text, fragments, stored, parses] = await Promise.all([
    library.getSource(docId),
    library.getFragments(docId),
    library.getVectors(docId, embedderId),
    library.getCodeSyntax(docId),
  ]);
  if (text === undefined || !fragments) return undefined;
  return {
    text,
    starts: fragments.starts,
    ends: fragments.ends,
    parses,
    ...(stored ? { vectors: stored.vectors, embedderId: stored.embedderId } : {}),
  };
}
