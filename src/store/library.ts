/**
 * @file The library: documents and their indexes, settings and question history, in IndexedDB.
 *
 * Every unit of work is one transaction. Writes prepare all their records first (encoding,
 * validation, size estimates), then open the transaction and issue every request at once, awaiting
 * nothing but that transaction's own requests: awaiting anything else lets the transaction
 * auto-commit half done (idb README, "Transaction lifetime"). Any failure aborts the transaction,
 * so the library keeps its previous state.
 *
 * ### Usage
 * ```ts
 * const library = await openLibrary();
 * await library.saveIndexedDocument({ document, source, fragments, vectors, relations });
 * const index = await library.loadDocumentIndex(document.id, 'glove-100d');
 * ```
 */
import type { StoreKey, StoreValue } from 'idb';
import type { FragmentOptions } from '../core/options';
import type { VectorSet } from '../core/types';
import {
  decodeFragments,
  decodeRelation,
  decodeVectors,
  encodeFragments,
  encodeRelation,
  encodeVectors,
  fragmentsBytes,
  relationBytes,
  relationParamsKey,
  textBytes,
  vectorsBytes,
  type FragmentTable,
  type RelationInput,
  type StoredRelation,
} from './codec';
import {
  deleteLibraryDb,
  openLibraryDb,
  type ConnectionState,
  type OpenLibraryOptions,
} from './db';
import {
  isQuotaExceeded,
  quotaMessage,
  StoreError,
  type DeletionCandidate,
  type QuotaDetails,
} from './errors';
import {
  UNTITLED_CHAT,
  chatBytes,
  newChatRecord,
  patchChat,
  readChatRecord,
  withRound,
  type ChatPatch,
  type NewChat,
} from './chats';
import {
  LIBRARY_DB_NAME,
  type ChatRecord,
  type CodeSyntaxFileRecord,
  type PipelineMemoryRecord,
  type ChatRoundRecord,
  type DocumentRecord,
  type FragmentRef,
  type LibraryDb,
  type LibrarySchema,
  type LibraryStoreName,
  type CitationRecord,
  type QuestionRecord,
  type FragmentsRecord,
  type RelationRecord,
  type SettingRecord,
  type SourceRecord,
  type VectorsRecord,
} from './schema';
import { estimateStorage } from './storage';
import {
  MAX_PART_BYTES,
  partOwner,
  readSource,
  sourcePartRange,
  sourceRecords,
} from './source-parts';

/** A document's metadata as the indexer hands it over; the store fills in the rest. */
export type NewDocument = Omit<DocumentRecord, 'fragmentCount' | 'storedBytes'>;

/** Everything of one indexed document, written in one transaction. */
export interface IndexedDocumentInput {
  document: NewDocument;
  source: string;
  fragments: FragmentTable;
  /** Vectors per embedder, each computed for `fragments` (usually one: `document.embedderId`). */
  vectors?: ReadonlyArray<{ embedderId: string; vectors: VectorSet }>;
  relations?: readonly RelationInput[];
  /**
   * A repository's file parses (kind 'code'), kept so a newer drop re-parses only changed files.
   * Absent: any stored parses of the id are removed with the old index.
   */
  codeSyntax?: readonly CodeSyntaxFileRecord[];
  /**
   * The parses' size as JSON in characters, when the caller measured it already: the store then
   * does not stringify them again for its size estimate (tens of MB for a large repository).
   */
  codeSyntaxChars?: number;
}

/** What retrieval needs of one document. */
export interface DocumentIndex {
  document: DocumentRecord;
  source: string;
  fragments: FragmentTable;
  /**
   * The vectors of the requested embedder, or undefined when missing (new embedder) or stale
   * (computed for other fragments): compute them and `putVectors`.
   */
  vectors: VectorSet | undefined;
  /** Every stored relation of the document, for any parameters; pick by kind and paramsKey. */
  relations: StoredRelation[];
}

/** Stored vectors with what they were computed for. */
export interface StoredVectors {
  embedderId: string;
  fragmentOptions: FragmentOptions;
  vectors: VectorSet;
}

/** Which index parts exist for a document (keys only; nothing large is loaded). */
export interface IndexParts {
  embedderIds: string[];
  relations: Array<{ kind: string; paramsKey: string }>;
}

export type DocumentPatch = Partial<
  Pick<DocumentRecord, 'name' | 'status' | 'error' | 'embedderId' | 'sections'>
>;

export interface NewQuestion {
  question: string;
  docIds: string[];
  selected: FragmentRef[];
  answer?: string;
  citations?: CitationRecord[];
  settings?: Record<string, unknown>;
  engine?: string;
  /** Default: now. */
  date?: number;
  /** Default: a random UUID. */
  id?: string;
}

/** A library's stored records as they are in IndexedDB: what an export file carries. */
export interface LibraryRecords {
  documents: DocumentRecord[];
  sources: SourceRecord[];
  fragments: FragmentsRecord[];
  vectors: VectorsRecord[];
  relations: RelationRecord[];
  settings: SettingRecord[];
}

/** The stores one document's index spans. */
const DOCUMENT_STORES = [
  'documents',
  'sources',
  'fragments',
  'vectors',
  'relations',
  'pipelineMemory',
  'codeSyntax',
] as const satisfies readonly LibraryStoreName[];

/**
 * All keys `[docId, ...]` of one document in `vectors` or `relations`. Arrays sort after strings
 * in IndexedDB's key order, so `[docId, []]` is above every `[docId, string, ...]`.
 */
function documentKeyRange(docId: string): IDBKeyRange {
  return IDBKeyRange.bound([docId], [docId, []]);
}

function sameFragmentOptions(a: FragmentOptions, b: FragmentOptions): boolean {
  return relationParamsKey({ ...a }) === relationParamsKey({ ...b });
}

function noop(): void {}

/**
 * Run `body` in a write transaction and resolve once it has committed. On any failure, of a
 * request or of the commit, the transaction is aborted (nothing of it is kept) and the error
 * rethrown.
 */
async function commit<T>(
  tx: { done: Promise<void>; abort(): void; readonly error?: DOMException | null },
  body: () => Promise<T>,
): Promise<T> {
  // `done` rejects when the transaction aborts; we report the first cause ourselves.
  tx.done.catch(noop);
  try {
    const result = await body();
    await tx.done;
    return result;
  } catch (error) {
    try {
      tx.abort();
    } catch {
      // Already aborted or finished.
    }
    // When the browser aborts a transaction (quota, an internal error), its requests fail with
    // an 'AbortError' that reads like a cancellation; the transaction's own error is the cause.
    throw transactionCause(error, tx.error);
  }
}

/** The error to report for a failed transaction: its cause rather than a request's AbortError. */
export function transactionCause(
  error: unknown,
  txError: DOMException | null | undefined,
): unknown {
  if (!(error instanceof Error && error.name === 'AbortError')) return error;
  if (txError && txError.name !== 'AbortError') return txError;
  // Aborted with no cause given: say so, under a name no one takes for a cancel.
  const why = new Error(
    `the browser aborted the write${error.message ? ` (${error.message})` : ''}`,
  );
  why.name = 'TransactionAborted';
  return why;
}

/** Collects request promises issued without awaiting each, so none rejects unhandled. */
class Requests {
  private readonly pending: Promise<unknown>[] = [];
  add(request: Promise<unknown>): void {
    request.catch(noop);
    this.pending.push(request);
  }
  async all(): Promise<void> {
    await Promise.all(this.pending);
  }
}

function closedError(): StoreError {
  return new StoreError('unavailable', 'FragRel store: the library was closed by this app.');
}

export class Library {
  /** The typed idb database, for tools and tests. Prefer the methods. */
  readonly db: LibraryDb;
  readonly name: string;
  private readonly state: ConnectionState;
  /** Bytes one source record may take as stored before the text is cut into parts (tests lower it). */
  sourcePartBytes = MAX_PART_BYTES;

  constructor(db: LibraryDb, name: string, state: ConnectionState = {}) {
    this.db = db;
    this.name = name;
    this.state = state;
  }

  /** Schema version of the open database. */
  get version(): number {
    return this.db.version;
  }

  /** Whether this connection is closed (by `close()`, or for another tab's upgrade). */
  get closed(): boolean {
    return this.state.closed !== undefined;
  }

  close(): void {
    this.state.closed ??= closedError();
    this.db.close();
  }

  private closedReason(): StoreError | undefined {
    return this.state.closed;
  }

  /**
   * Run one store operation, mapping failures to StoreErrors the UI understands: a closed
   * connection to 'unavailable', lack of space to 'quota' (with `quota.neededBytes` in the message).
   */
  private async guard<T>(
    work: () => Promise<T>,
    quota?: { what: string; neededBytes: number; excludeId?: string },
  ): Promise<T> {
    const closedBefore = this.closedReason();
    if (closedBefore) throw closedBefore;
    try {
      return await work();
    } catch (error) {
      // The connection may have been closed while the work ran (another tab's upgrade).
      const closed = this.closedReason();
      if (closed) throw new StoreError(closed.code, closed.message, { cause: error });
      if (isQuotaExceeded(error)) {
        throw await this.quotaError(
          error,
          quota?.what ?? 'this change',
          quota?.neededBytes ?? 0,
          quota?.excludeId,
        );
      }
      throw error;
    }
  }

  private async quotaError(
    cause: unknown,
    what: string,
    neededBytes: number,
    excludeId?: string,
  ): Promise<StoreError> {
    let largest: DeletionCandidate[] = [];
    try {
      const docs = await this.db.getAll('documents');
      largest = docs
        .filter((d) => d.id !== excludeId)
        .sort((a, b) => b.storedBytes - a.storedBytes)
        .slice(0, 3)
        .map((d) => ({ id: d.id, name: d.name, storedBytes: d.storedBytes }));
    } catch {
      // Reading may fail too when the disk is full; the message then names no documents.
    }
    const estimate = await estimateStorage();
    const details: QuotaDetails = { neededBytes, largest, ...estimate };
    return new StoreError('quota', quotaMessage(what, details), { cause, details });
  }

  // Documents -----------------------------------------------------------------------------------

  /** Every document's metadata, in the order added. Loads no sources, fragments or vectors. */
  listDocuments(): Promise<DocumentRecord[]> {
    return this.guard(async () => {
      const docs = await this.db.getAll('documents');
      return docs.sort((a, b) => a.addedAt - b.addedAt || (a.id < b.id ? -1 : 1));
    });
  }

  getDocument(id: string): Promise<DocumentRecord | undefined> {
    return this.guard(() => this.db.get('documents', id));
  }

  /** The whole source text of a document. */
  getSource(id: string): Promise<string | undefined> {
    return this.guard(() => readSource((key) => this.db.get('sources', key), id));
  }

  getFragments(id: string): Promise<FragmentTable | undefined> {
    return this.guard(async () => decodeFragments(await this.db.get('fragments', id)));
  }

  /**
   * Write a document and its whole index (source, fragments, vectors, relations) in ONE
   * transaction over all document stores, replacing any earlier index of the same id: its old
   * vectors and relations are removed, because they were computed for the old fragments. Either
   * everything is written or, on any failure (quota, abort, closed tab), nothing changes.
   * Returns the stored document record.
   *
   * `signal` cancels: before the transaction nothing is written; during it the transaction is
   * aborted (nothing written either) and the call rejects with an 'AbortError' DOMException. A
   * cancel that comes after the commit changes nothing: the document is stored.
   */
  async saveIndexedDocument(
    input: IndexedDocumentInput,
    options: { signal?: AbortSignal } = {},
  ): Promise<DocumentRecord> {
    const { signal } = options;
    const cancelled = () =>
      new DOMException('Saving was cancelled; nothing was stored.', 'AbortError');
    if (signal?.aborted) throw cancelled();
    const { document: meta, source, fragments } = input;
    const id = meta.id;
    const count = fragments.count;

    // Everything that can be prepared is prepared before the transaction opens.
    const fragmentsRecord = encodeFragments(id, fragments);
    const vectorRecords = (input.vectors ?? []).map(({ embedderId, vectors }) => {
      if (vectors.count !== count) {
        throw new Error(
          `FragRel store: vectors "${embedderId}" of "${id}" have ${vectors.count} rows for ${count} fragments.`,
        );
      }
      return encodeVectors(id, embedderId, vectors, meta.fragmentOptions);
    });
    const relationRecords = (input.relations ?? []).map((relation) => {
      const record = encodeRelation(id, { size: count, ...relation });
      if (record.size !== count) {
        throw new Error(
          `FragRel store: relation "${record.kind}" of "${id}" has size ${record.size} for ${count} fragments.`,
        );
      }
      return record;
    });
    let storedBytes = textBytes(source) + fragmentsBytes(fragmentsRecord);
    for (const r of vectorRecords) storedBytes += vectorsBytes(r);
    for (const r of relationRecords) storedBytes += relationBytes(r);
    for (const s of meta.sections) storedBytes += textBytes(s.title);
    const syntaxRecord = input.codeSyntax ? { docId: id, files: [...input.codeSyntax] } : null;
    // The parses' size as JSON, an estimate of what structured clone keeps.
    if (syntaxRecord) {
      storedBytes += input.codeSyntaxChars ?? textBytes(JSON.stringify(syntaxRecord.files));
    }
    const documentRecord: DocumentRecord = { ...meta, fragmentCount: count, storedBytes };

    if (signal?.aborted) throw cancelled();
    return this.guard(
      async () => {
        const tx = this.db.transaction(DOCUMENT_STORES, 'readwrite');
        const abort = () => {
          try {
            tx.abort();
          } catch {
            // Already committed or aborted: the cancel came too late to change anything.
          }
        };
        signal?.addEventListener('abort', abort, { once: true });
        try {
          return await commit(tx, async () => {
            const requests = new Requests();
            const range = documentKeyRange(id);
            requests.add(tx.objectStore('vectors').delete(range));
            requests.add(tx.objectStore('relations').delete(range));
            // New fragments: what a pipeline built from the old ones no longer applies.
            requests.add(tx.objectStore('pipelineMemory').delete(range));
            requests.add(
              syntaxRecord
                ? tx.objectStore('codeSyntax').put(syntaxRecord)
                : tx.objectStore('codeSyntax').delete(id),
            );
            requests.add(tx.objectStore('documents').put(documentRecord));
            // Parts of an earlier, longer text of this id must not outlive it.
            requests.add(tx.objectStore('sources').delete(sourcePartRange(id)));
            for (const record of sourceRecords(id, source, this.sourcePartBytes)) {
              requests.add(tx.objectStore('sources').put(record));
            }
            requests.add(tx.objectStore('fragments').put(fragmentsRecord));
            for (const r of vectorRecords) requests.add(tx.objectStore('vectors').put(r));
            for (const r of relationRecords) requests.add(tx.objectStore('relations').put(r));
            await requests.all();
            return documentRecord;
          });
        } catch (error) {
          // Our own abort reads as the request's AbortError; say it was the cancel.
          if (signal?.aborted) throw cancelled();
          throw error;
        } finally {
          signal?.removeEventListener('abort', abort);
        }
      },
      { what: `saving "${meta.name}"`, neededBytes: storedBytes, excludeId: id },
    );
  }

  /** Change a document's metadata. Returns the updated record, or undefined if it is absent. */
  updateDocument(id: string, patch: DocumentPatch): Promise<DocumentRecord | undefined> {
    return this.guard(() => {
      const tx = this.db.transaction('documents', 'readwrite');
      return commit(tx, async () => {
        const doc = await tx.store.get(id);
        if (!doc) return undefined;
        const next: DocumentRecord = { ...doc, ...patch };
        if (next.status !== 'failed' && patch.error === undefined) delete next.error;
        await tx.store.put(next);
        return next;
      });
    });
  }

  /** The file parses a repository was last indexed with (empty when none are stored). */
  getCodeSyntax(docId: string): Promise<CodeSyntaxFileRecord[]> {
    return this.guard(async () => (await this.db.get('codeSyntax', docId))?.files ?? []);
  }

  /** A pipeline's question-independent memory of a document, if stored. */
  getPipelineMemory(docId: string, key: string): Promise<PipelineMemoryRecord | undefined> {
    return this.guard(() => this.db.get('pipelineMemory', [docId, key]));
  }

  /**
   * Store a pipeline's memory of a document in one transaction, only while the document exists
   * (a memory of a document deleted meanwhile is not written). Returns whether it was written.
   */
  putPipelineMemory(record: PipelineMemoryRecord): Promise<boolean> {
    return this.guard(() => {
      const tx = this.db.transaction(['documents', 'pipelineMemory'], 'readwrite');
      return commit(tx, async () => {
        if ((await tx.objectStore('documents').getKey(record.docId)) === undefined) return false;
        await tx.objectStore('pipelineMemory').put(record);
        return true;
      });
    });
  }

  /** Remove a document and everything of it, in one transaction. Returns whether it existed. */
  deleteDocument(id: string): Promise<boolean> {
    return this.guard(() => {
      const tx = this.db.transaction(DOCUMENT_STORES, 'readwrite');
      return commit(tx, async () => {
        const requests = new Requests();
        const existed = tx.objectStore('documents').getKey(id);
        requests.add(existed);
        requests.add(tx.objectStore('documents').delete(id));
        requests.add(tx.objectStore('sources').delete(id));
        requests.add(tx.objectStore('sources').delete(sourcePartRange(id)));
        requests.add(tx.objectStore('fragments').delete(id));
        requests.add(tx.objectStore('vectors').delete(documentKeyRange(id)));
        requests.add(tx.objectStore('relations').delete(documentKeyRange(id)));
        requests.add(tx.objectStore('pipelineMemory').delete(documentKeyRange(id)));
        requests.add(tx.objectStore('codeSyntax').delete(id));
        await requests.all();
        return (await existed) !== undefined;
      });
    });
  }

  /**
   * Every stored record of the given documents (all when `docIds` is absent), as they are in
   * IndexedDB, with the settings when the whole library is asked for: what an export file
   * carries (carry.ts). One read transaction, so the records agree with each other.
   */
  exportRecords(docIds?: readonly string[]): Promise<LibraryRecords> {
    return this.guard(async () => {
      const tx = this.db.transaction([...DOCUMENT_STORES, 'settings'], 'readonly');
      const all = await tx.objectStore('documents').getAll();
      const documents = docIds ? all.filter((d) => docIds.includes(d.id)) : all;
      const missing = (docIds ?? []).filter((id) => !documents.some((d) => d.id === id));
      if (missing.length) throw new Error(`FragRel store: no document "${missing[0]}" to export.`);
      const out: LibraryRecords = {
        documents,
        sources: [],
        fragments: [],
        vectors: [],
        relations: [],
        settings: docIds ? [] : await tx.objectStore('settings').getAll(),
      };
      for (const doc of documents) {
        const [source, fragments, vectors, relations] = await Promise.all([
          readSource((key) => tx.objectStore('sources').get(key), doc.id),
          tx.objectStore('fragments').get(doc.id),
          tx.objectStore('vectors').getAll(documentKeyRange(doc.id)),
          tx.objectStore('relations').getAll(documentKeyRange(doc.id)),
        ]);
        // The joined text: an export does not depend on how the store cut it.
        if (source !== undefined) out.sources.push({ docId: doc.id, text: source });
        if (fragments) out.fragments.push(fragments);
        out.vectors.push(...vectors);
        out.relations.push(...relations);
      }
      await tx.done;
      return out;
    });
  }

  /**
   * Store the records of an export file, all or nothing, in one transaction. A document already
   * in the library (same id, or same file: name and hash) is left as it is and reported. Settings
   * are replaced only when the file carries them and brings a document the library lacks (or is a
   * file of settings alone): re-importing a library whose documents are all here leaves the
   * person's settings as they are. `settings` says whether they were replaced. Nothing is
   * recomputed.
   */
  importRecords(
    records: LibraryRecords,
  ): Promise<{ added: string[]; skipped: string[]; settings: boolean }> {
    const neededBytes =
      records.sources.reduce((n, r) => n + textBytes(r.text), 0) +
      records.fragments.reduce((n, r) => n + fragmentsBytes(r), 0) +
      records.vectors.reduce((n, r) => n + vectorsBytes(r), 0) +
      records.relations.reduce((n, r) => n + relationBytes(r), 0);
    return this.guard(
      () => {
        const tx = this.db.transaction([...DOCUMENT_STORES, 'settings'], 'readwrite');
        return commit(tx, async () => {
          const existing = await tx.objectStore('documents').getAll();
          const added: string[] = [];
          const skipped: string[] = [];
          for (const doc of records.documents) {
            const there = existing.some(
              (d) => d.id === doc.id || (d.sha256 === doc.sha256 && d.name === doc.name),
            );
            (there ? skipped : added).push(doc.id);
          }
          const keep = new Set(added);
          const puts: Promise<unknown>[] = [];
          for (const r of records.documents)
            if (keep.has(r.id)) puts.push(tx.objectStore('documents').put(r));
          for (const r of records.sources) {
            if (!keep.has(r.docId)) continue;
            for (const record of sourceRecords(r.docId, r.text, this.sourcePartBytes)) {
              puts.push(tx.objectStore('sources').put(record));
            }
          }
          for (const r of records.fragments)
            if (keep.has(r.docId)) puts.push(tx.objectStore('fragments').put(r));
          for (const r of records.vectors)
            if (keep.has(r.docId)) puts.push(tx.objectStore('vectors').put(r));
          for (const r of records.relations)
            if (keep.has(r.docId)) puts.push(tx.objectStore('relations').put(r));
          const settings =
            records.settings.length > 0 && (added.length > 0 || records.documents.length === 0);
          if (settings)
            for (const r of records.settings) puts.push(tx.objectStore('settings').put(r));
          await Promise.all(puts);
          return { added, skipped, settings };
        });
      },
      { what: 'the imported library', neededBytes },
    );
  }

  /**
   * Find and delete records that no document references: sources, fragments, vectors and
   * relations whose document is gone (a browser killed while saving left storage that
   * nothing referenced). Every write here is one transaction, so this finds what older versions,
   * other tools or a broken disk left; it is run at startup and its count shown. One transaction.
   */
  reclaimUnreferenced(): Promise<{ records: number; bytes: number }> {
    return this.guard(() => {
      const tx = this.db.transaction(DOCUMENT_STORES, 'readwrite');
      return commit(tx, async () => {
        const docs = new Set(await tx.objectStore('documents').getAllKeys());
        let records = 0;
        let bytes = 0;
        for (const key of await tx.objectStore('sources').getAllKeys()) {
          if (docs.has(partOwner(key) ?? key)) continue;
          const record = await tx.objectStore('sources').get(key);
          bytes += record ? textBytes(record.text) : 0;
          await tx.objectStore('sources').delete(key);
          records++;
        }
        for (const key of await tx.objectStore('fragments').getAllKeys()) {
          if (docs.has(key)) continue;
          const record = await tx.objectStore('fragments').get(key);
          bytes += record ? fragmentsBytes(record) : 0;
          await tx.objectStore('fragments').delete(key);
          records++;
        }
        for (const key of await tx.objectStore('vectors').getAllKeys()) {
          if (docs.has(key[0])) continue;
          bytes += vectorsBytes(await tx.objectStore('vectors').get(key));
          await tx.objectStore('vectors').delete(key);
          records++;
        }
        for (const key of await tx.objectStore('relations').getAllKeys()) {
          if (docs.has(key[0])) continue;
          bytes += relationBytes(await tx.objectStore('relations').get(key));
          await tx.objectStore('relations').delete(key);
          records++;
        }
        for (const key of await tx.objectStore('codeSyntax').getAllKeys()) {
          if (docs.has(key)) continue;
          const record = await tx.objectStore('codeSyntax').get(key);
          bytes += record ? textBytes(JSON.stringify(record.files)) : 0;
          await tx.objectStore('codeSyntax').delete(key);
          records++;
        }
        return { records, bytes };
      });
    });
  }

  /**
   * What retrieval needs of a document: source, fragments, the vectors of `embedderId`, and every
   * stored relation, in one read transaction. Undefined when the document, its source or its
   * fragments are absent or unreadable (not indexed yet, failed, or an older layout): index it.
   */
  loadDocumentIndex(id: string, embedderId: string): Promise<DocumentIndex | undefined> {
    return this.guard(async () => {
      const tx = this.db.transaction(DOCUMENT_STORES, 'readonly');
      const [doc, source, fragmentsRecord, vectorsRecord, relationRecords] = await Promise.all([
        tx.objectStore('documents').get(id),
        readSource((key) => tx.objectStore('sources').get(key), id),
        tx.objectStore('fragments').get(id),
        tx.objectStore('vectors').get([id, embedderId]),
        tx.objectStore('relations').getAll(documentKeyRange(id)),
      ]);
      const fragments = decodeFragments(fragmentsRecord);
      if (!doc || source === undefined || !fragments) return undefined;
      const count = fragments.count;
      let vectors = decodeVectors(vectorsRecord);
      if (
        vectors &&
        (vectors.count !== count ||
          !sameFragmentOptions(vectorsRecord!.fragmentOptions, doc.fragmentOptions))
      ) {
        vectors = undefined;
      }
      const relations: StoredRelation[] = [];
      for (const record of relationRecords) {
        const relation = decodeRelation(record);
        if (relation && relation.size === count) relations.push(relation);
      }
      return { document: doc, source, fragments, vectors, relations };
    });
  }

  /** Which vectors and relations exist for a document, without loading them. */
  listIndexParts(docId: string): Promise<IndexParts> {
    return this.guard(async () => {
      const tx = this.db.transaction(['vectors', 'relations'], 'readonly');
      const [vectorKeys, relationKeys] = await Promise.all([
        tx.objectStore('vectors').getAllKeys(documentKeyRange(docId)),
        tx.objectStore('relations').getAllKeys(documentKeyRange(docId)),
      ]);
      return {
        embedderIds: vectorKeys.map((k) => k[1]),
        relations: relationKeys.map((k) => ({ kind: k[1], paramsKey: k[2] })),
      };
    });
  }

  // Vectors and relations -----------------------------------------------------------------------

  /** The vectors of one document under one embedder, or undefined: compute and `putVectors`. */
  getVectors(docId: string, embedderId: string): Promise<StoredVectors | undefined> {
    return this.guard(async () => {
      const record = await this.db.get('vectors', [docId, embedderId]);
      const vectors = decodeVectors(record);
      if (!record || !vectors) return undefined;
      return { embedderId, fragmentOptions: record.fragmentOptions, vectors };
    });
  }

  /**
   * Store the vectors of a document under an embedder, keeping those of other embedders. They
   * must be computed for the document's current fragments: `fragmentOptions` and the row count
   * are checked against the stored document in the same transaction, so vectors computed before a
   * re-index never land on the new fragments.
   */
  putVectors(input: {
    docId: string;
    embedderId: string;
    vectors: VectorSet;
    fragmentOptions: FragmentOptions;
  }): Promise<void> {
    const { docId, embedderId } = input;
    const record = encodeVectors(docId, embedderId, input.vectors, input.fragmentOptions);
    return this.putOnDocument({
      into: 'vectors',
      docId,
      key: [docId, embedderId],
      record,
      bytes: vectorsBytes,
      carried: 'vectors',
      what: `vectors "${embedderId}"`,
      check: (doc) => {
        if (
          record.count !== doc.fragmentCount ||
          !sameFragmentOptions(record.fragmentOptions, doc.fragmentOptions)
        ) {
          throw new Error(
            `FragRel store: vectors "${embedderId}" (${record.count} rows) were computed for other fragments than the ${doc.fragmentCount} of "${docId}" now stored.`,
          );
        }
      },
      result: () => undefined,
    });
  }

  /** One relation of a document for one parameter set (`relationParamsKey(params)`). */
  getRelation(docId: string, kind: string, paramsKey: string): Promise<StoredRelation | undefined> {
    return this.guard(async () =>
      decodeRelation(await this.db.get('relations', [docId, kind, paramsKey])),
    );
  }

  /**
   * Store one relation of a document under `relationParamsKey(params)`, keeping other kinds and
   * other parameters. Its size must equal the document's fragment count.
   */
  putRelation(input: { docId: string } & RelationInput): Promise<StoredRelation> {
    const { docId, ...relation } = input;
    const record = encodeRelation(docId, relation);
    return this.putOnDocument({
      into: 'relations',
      docId,
      key: [docId, record.kind, record.paramsKey],
      record,
      bytes: relationBytes,
      carried: 'a relation',
      what: `relation "${record.kind}"`,
      check: (doc) => {
        if (record.size !== doc.fragmentCount) {
          throw new Error(
            `FragRel store: relation "${record.kind}" has size ${record.size} but "${docId}" has ${doc.fragmentCount} fragments.`,
          );
        }
      },
      result: () => decodeRelation(record)!,
    });
  }

  /**
   * Put a record that belongs to a stored document (its vectors, a relation) in one transaction
   * with the document: `check` throws when the record does not fit the document as stored now,
   * and the document's storedBytes trade the replaced record's size for the new one's.
   */
  private putOnDocument<S extends 'vectors' | 'relations', T>(put: {
    into: S;
    docId: string;
    key: StoreKey<LibrarySchema, S>;
    record: StoreValue<LibrarySchema, S>;
    bytes: (record: StoreValue<LibrarySchema, S> | undefined) => number;
    /** What a missing document was to carry, and what is put (for messages). */
    carried: string;
    what: string;
    check: (doc: DocumentRecord) => void;
    result: () => T;
  }): Promise<T> {
    const { docId, record, bytes } = put;
    return this.guard(
      () => {
        const tx = this.db.transaction(['documents', put.into], 'readwrite');
        return commit(tx, async () => {
          const docs = tx.objectStore('documents');
          const store = tx.objectStore(put.into);
          const [doc, old] = await Promise.all([docs.get(docId), store.get(put.key)]);
          if (!doc)
            throw new Error(`FragRel store: no document "${docId}" to put ${put.carried} on.`);
          put.check(doc);
          const storedBytes = doc.storedBytes - bytes(old) + bytes(record);
          await Promise.all([store.put(record), docs.put({ ...doc, storedBytes })]);
          return put.result();
        });
      },
      { what: put.what, neededBytes: bytes(record) },
    );
  }

  // Settings ------------------------------------------------------------------------------------

  /**
   * A setting, or `fallback` when it is unset or stored with another type than the fallback's
   * (a stale or hand-edited value never reaches the app with the wrong shape).
   */
  getSetting<T>(key: string, fallback: T): Promise<T> {
    return this.guard(async () => {
      const record = await this.db.get('settings', key);
      return record && sameShape(record.value, fallback) ? (record.value as T) : fallback;
    });
  }

  /** Several settings at once, each defaulting to its value in `defaults`. */
  getSettings<T extends Record<string, unknown>>(defaults: T): Promise<T> {
    return this.guard(async () => {
      const tx = this.db.transaction('settings', 'readonly');
      const keys = Object.keys(defaults);
      const records = await Promise.all(keys.map((key) => tx.store.get(key)));
      const out: Record<string, unknown> = { ...defaults };
      records.forEach((record, i) => {
        if (record && sameShape(record.value, defaults[keys[i]])) out[keys[i]] = record.value;
      });
      return out as T;
    });
  }

  /** Store a setting (any structured-cloneable value). */
  setSetting<T>(key: string, value: T): Promise<void> {
    return this.guard(
      async () => {
        await this.db.put('settings', { key, value });
      },
      { what: `the setting "${key}"`, neededBytes: roughBytes(value) },
    );
  }

  // Questions -----------------------------------------------------------------------------------

  /** Record an asked question; returns the stored record. */
  addQuestion(input: NewQuestion): Promise<QuestionRecord> {
    const record: QuestionRecord = {
      id: input.id ?? crypto.randomUUID(),
      question: input.question,
      docIds: [...input.docIds],
      date: input.date ?? Date.now(),
      selected: input.selected.map(({ docId, ordinal }) => ({ docId, ordinal })),
    };
    if (input.answer !== undefined) record.answer = input.answer;
    if (input.citations) record.citations = input.citations.map((c) => ({ ...c }));
    if (input.settings) record.settings = structuredClone(input.settings);
    if (input.engine !== undefined) record.engine = input.engine;
    return this.guard(
      async () => {
        await this.db.put('questions', record);
        return record;
      },
      {
        what: 'the question history',
        neededBytes: textBytes(record.question) + textBytes(record.answer ?? ''),
      },
    );
  }

  /**
   * Store the answer of a recorded question, with what its citations stand for and the engine
   * that wrote it. Returns false if the question is gone.
   */
  setQuestionAnswer(
    id: string,
    answer: string,
    extra: { citations?: CitationRecord[]; engine?: string } = {},
  ): Promise<boolean> {
    return this.guard(
      () => {
        const tx = this.db.transaction('questions', 'readwrite');
        return commit(tx, async () => {
          const record = await tx.store.get(id);
          if (!record) return false;
          await tx.store.put({
            ...record,
            answer,
            ...(extra.citations && { citations: extra.citations.map((c) => ({ ...c })) }),
            ...(extra.engine !== undefined && { engine: extra.engine }),
          });
          return true;
        });
      },
      { what: 'an answer', neededBytes: textBytes(answer) },
    );
  }

  /** The question history by date, newest first unless `order` is 'oldest'. */
  listQuestions(
    options: { limit?: number; order?: 'newest' | 'oldest' } = {},
  ): Promise<QuestionRecord[]> {
    const { limit = Infinity, order = 'newest' } = options;
    return this.guard(async () => {
      const out: QuestionRecord[] = [];
      if (limit <= 0) return out;
      const index = this.db.transaction('questions', 'readonly').store.index('byDate');
      let cursor = await index.openCursor(null, order === 'newest' ? 'prev' : 'next');
      while (cursor && out.length < limit) {
        out.push(cursor.value);
        cursor = await cursor.continue();
      }
      return out;
    });
  }

  deleteQuestion(id: string): Promise<void> {
    return this.guard(() => this.db.delete('questions', id));
  }

  clearQuestions(): Promise<void> {
    return this.guard(() => this.db.clear('questions'));
  }

  // Chats ---------------------------------------------------------------------------------------

  /** Every conversation with its rounds, the most recently changed first. */
  listChats(): Promise<ChatRecord[]> {
    return this.guard(async () => {
      const out: ChatRecord[] = [];
      const index = this.db.transaction('chats', 'readonly').store.index('byUpdated');
      let cursor = await index.openCursor(null, 'prev');
      while (cursor) {
        const chat = readChatRecord(cursor.value);
        if (chat) out.push(chat);
        cursor = await cursor.continue();
      }
      return out;
    });
  }

  getChat(id: string): Promise<ChatRecord | undefined> {
    return this.guard(async () => readChatRecord(await this.db.get('chats', id)) ?? undefined);
  }

  /** Start a conversation (no rounds yet); returns the stored record. */
  createChat(input: NewChat = {}): Promise<ChatRecord> {
    const record = newChatRecord(input);
    return this.guard(
      async () => {
        await this.db.add('chats', record);
        return record;
      },
      { what: 'a new chat', neededBytes: chatBytes(record) },
    );
  }

  /**
   * Write one round of a conversation in ONE transaction: read the record, put the round at
   * `options.index` (default: after the last; an existing round is replaced), name an untitled
   * conversation `options.title`, and write it back. Returns the stored record, or undefined
   * when the conversation is gone (deleted in another tab).
   */
  saveChatRound(
    id: string,
    round: ChatRoundRecord,
    options: { index?: number; title?: string } = {},
  ): Promise<ChatRecord | undefined> {
    return this.rewriteChat(
      id,
      (stored) => {
        const next = withRound(stored, round, options.index);
        return options.title !== undefined && stored.title === UNTITLED_CHAT
          ? patchChat(next, { title: options.title }, round.at)
          : next;
      },
      { what: 'a chat message', neededBytes: textBytes(round.user) + textBytes(round.assistant) },
    );
  }

  /** Rename, change the settings of, or (un)link documents to a conversation, in one transaction. */
  updateChat(id: string, patch: ChatPatch, now?: number): Promise<ChatRecord | undefined> {
    return this.rewriteChat(id, (stored) => patchChat(stored, patch, now), {
      what: 'a chat',
      neededBytes: roughBytes(patch),
    });
  }

  /**
   * Read a conversation, change it and write it back, in one transaction; undefined when it is
   * gone (deleted in another tab).
   */
  private rewriteChat(
    id: string,
    change: (stored: ChatRecord) => ChatRecord,
    quota: { what: string; neededBytes: number },
  ): Promise<ChatRecord | undefined> {
    return this.guard(() => {
      const tx = this.db.transaction('chats', 'readwrite');
      return commit(tx, async () => {
        const stored = readChatRecord(await tx.store.get(id));
        if (!stored) return undefined;
        const next = change(stored);
        await tx.store.put(next);
        return next;
      });
    }, quota);
  }

  deleteChat(id: string): Promise<void> {
    return this.guard(() => this.db.delete('chats', id));
  }
}

/** Rough stored size of a small plain value, for quota messages only. */
function roughBytes(value: unknown): number {
  try {
    return textBytes(JSON.stringify(value) ?? '');
  } catch {
    return 0;
  }
}

function sameShape(value: unknown, fallback: unknown): boolean {
  if (fallback === null || fallback === undefined) return true;
  if (value === null) return false;
  if (Array.isArray(fallback)) return Array.isArray(value);
  return typeof value === typeof fallback && !Array.isArray(value);
}

/**
 * Open the library, creating or upgrading its database as needed (see `MIGRATIONS`). Rejects
 * with a StoreError ('unavailable', 'version'). While another tab holds an older version open,
 * the promise waits and `options.onBlocked` tells the UI.
 */
export async function openLibrary(
  name: string = LIBRARY_DB_NAME,
  options: OpenLibraryOptions = {},
): Promise<Library> {
  const state: ConnectionState = {};
  const db = await openLibraryDb(name, options, state);
  return new Library(db, name, state);
}

/** Delete the whole library: every document, setting and question. */
export function deleteLibrary(
  name: string = LIBRARY_DB_NAME,
  options: { factory?: IDBFactory } = {},
): Promise<void> {
  return deleteLibraryDb(name, options.factory);
}
