/**
 * @file The library's IndexedDB schema: record types, the typed idb `DBSchema`, and the
 * migrations that take a database from any older version to the current one, one step at a time.
 *
 * Layout (DESIGN.md section 4, "Storage"):
 *
 * | store       | key                          | value                                            |
 * |-------------|------------------------------|--------------------------------------------------|
 * | `documents` | `id`                         | {@link DocumentRecord}: metadata only, small     |
 * | `sources`   | `docId`                      | {@link SourceRecord}: the source text (one record, or parts: source-parts.ts) |
 * | `fragments` | `docId`                      | {@link FragmentsRecord}: all fragments, packed   |
 * | `vectors`   | `[docId, embedderId]`        | {@link VectorsRecord}: Float32 rows as a buffer  |
 * | `relations` | `[docId, kind, paramsKey]`   | {@link RelationRecord}: CSR buffers or params    |
 * | `settings`  | `key`                        | {@link SettingRecord}                            |
 * | `questions` | `id`, index `byDate` (`date`)| {@link QuestionRecord}: the question history     |
 * | `chats`     | `id`, index `byUpdated`      | {@link ChatRecord}: a conversation, its rounds   |
 * | `codeSyntax`| `docId`                      | {@link CodeSyntaxRecord}: a repository's parses  |
 * | `evalRuns`  | `id`                         | {@link EvalRunRecord}: an evaluation run (v7)    |
 * | `evalResults` | `[runId, config, question]` | {@link EvalResultRecord}: one grid result (v7)  |
 *
 * Sources live apart from documents so that listing the library never loads a whole book.
 * Vectors and relations are keyed by what they were computed with, so changing the embedder or a
 * relation parameter leaves exactly the affected key missing and everything else in place.
 *
 * Binary data is stored as `ArrayBuffer`s: structured clone copies them as bytes (no JSON, no
 * per-number boxing), and readers make typed-array views over the buffers they get back.
 */
import type { DBSchema, IDBPDatabase, IDBPTransaction, StoreNames } from 'idb';
import type { ChatMemoryOptions } from '../core/chat/options';
import type { AnswerResult } from '../core/eval/answer-run';
import type { FragmentOptions } from '../core/options';
import type { FileSyntax } from '../core/code/syntax';
import type { TextKind } from '../core/types';

/** Default database name. */
export const LIBRARY_DB_NAME = 'fragrel-lens';

/**
 * Version of the binary layout inside `fragments`, `vectors` and `relations` records, stored on
 * every such record. It is independent of the database (schema) version: a layout change bumps
 * this, and readers treat a record of another layout as missing, so the indexer recomputes it.
 */
export const SERIALIZATION_VERSION = 1;

export type DocumentStatus = 'indexed' | 'indexing' | 'failed';

/**
 * A structural part of a document (chapter, page, heading; later a file of a repository): a span
 * of the source text, half-open [start, end). The same shape as ingest's `Section`, so an
 * ingested document's sections are stored as they are.
 */
export interface DocumentSection {
  title: string;
  start: number;
  end: number;
  /** 'chapter' | 'page' | 'heading' for prose; other kinds may follow. */
  kind: string;
}

/** One document of the library. Small: listing the library loads only these. */
export interface DocumentRecord {
  id: string;
  /** Shown to people: usually the file name. */
  name: string;
  /**
   * The book's own title where its file names one (EPUB dc:title, a Gutenberg "Title:" line):
   * shown in the library above the file name. Optional: records written before it read as before.
   */
  title?: string;
  /** Input format as ingest names it: 'txt', 'md', 'html', 'epub', 'pdf', later 'zip', ... */
  format: string;
  /** How the text is fragmented and related. */
  kind: TextKind;
  /** Size of the original file(s) in bytes. */
  bytes: number;
  /** Hex SHA-256 of the original bytes, to recognise a file dropped twice. */
  sha256: string;
  /** How text bytes were decoded ('utf-8', 'windows-1252', ...), when ingest says. */
  encoding?: string;
  /** The encoding was guessed from the bytes, so the reader is shown it and may re-read. */
  encodingGuessed?: boolean;
  /** When the document was added, ms since the epoch. */
  addedAt: number;
  status: DocumentStatus;
  /** Why indexing failed, when `status` is 'failed'. */
  error?: string;
  fragmentCount: number;
  /** The fragment options the stored fragments were made with. */
  fragmentOptions: FragmentOptions;
  /** The embedder the document was indexed with (vectors of other embedders may exist too). */
  embedderId: string;
  sections: DocumentSection[];
  /**
   * Estimated bytes this document occupies in the library (source text as UTF-16 plus every
   * buffer), kept up to date by the store. Used to say what could be deleted when space runs out.
   */
  storedBytes: number;
}

export interface SourceRecord {
  docId: string;
  text: string;
  /**
   * Set on a document's first record when its text is stored in several (source-parts.ts): this
   * many records in all, the others under `sourcePartKey(docId, k)`. Chromium refuses one value
   * over 127 MiB, and a 107 MiB book with curly quotes is 214 MB as stored.
   */
  parts?: number;
}

/**
 * All fragments of one document in ONE record, as parallel arrays, rather than one record per
 * fragment. A book has 10^3 to 10^5 fragments; one record means one request and one structured
 * clone of two flat buffers (a memcpy each) instead of N requests, N key encodings, N B-tree
 * inserts and N clones of small objects, so writing and reopening a document costs about the
 * same as for a single vector set. Fragments are never queried one by one in storage; retrieval
 * always needs all of them at once.
 *
 * Fragment i is `[starts[i], ends[i])` in the source text with `labels[i]` ('' = no label) and,
 * when the fragmenter counted them, `words[i]` words; its ordinal is i.
 */
export interface FragmentsRecord {
  docId: string;
  serializationVersion: number;
  count: number;
  /** Uint32 bytes. */
  starts: ArrayBuffer;
  /** Uint32 bytes. */
  ends: ArrayBuffer;
  labels: string[];
  /** Uint32 bytes: words per fragment, absent when the fragments carried no word counts. */
  words?: ArrayBuffer;
}

/** The fragment vectors of one document under one embedder. */
export interface VectorsRecord {
  docId: string;
  embedderId: string;
  serializationVersion: number;
  dim: number;
  count: number;
  /** Float32 bytes, row-major, `count * dim` values. */
  data: ArrayBuffer;
  /** The fragment options of the fragments these vectors were computed for. */
  fragmentOptions: FragmentOptions;
}

/** JSON-like values a relation parameter may take. */
export type RelationParamValue =
  string | number | boolean | null | RelationParamValue[] | { [key: string]: RelationParamValue };

/**
 * Everything a relation depends on besides the fragments, e.g. `{ k: 16, embedderId: 'glove' }`
 * for the semantic relation or `{ wRel: 0.3 }` for the context relation.
 */
export type RelationParams = { [key: string]: RelationParamValue | undefined };

/** One relation of one document for one set of parameters. */
export interface RelationRecord {
  docId: string;
  kind: string;
  /** `relationParamsKey(params)`: a stable string, part of the key. */
  paramsKey: string;
  params: RelationParams;
  serializationVersion: number;
  /** Number of fragments the relation is defined over. */
  size: number;
  /** CSR buffers (Uint32, Uint32, Float32), or null for an implicit relation (params only). */
  csr: { rowPtr: ArrayBuffer; col: ArrayBuffer; weight: ArrayBuffer } | null;
  /**
   * Float32 bytes, one value per fragment: the code relation's reference counts refs[j]
   * (core/code/references.ts). Optional, so no migration: records written before it
   * lack it and retrieval falls back to the unweighted multi-hop walk.
   */
  references?: ArrayBuffer;
  /**
   * The code relation's scope names, one string per fragment (core/code/scopes.ts), which BM25
   * reads with each window. Optional, so no migration: a record written before them lacks them
   * and BM25 reads the windows' text alone.
   */
  scopes?: string[];
}

export interface SettingRecord {
  key: string;
  value: unknown;
}

/** A fragment chosen as context for an answer. */
export interface FragmentRef {
  docId: string;
  ordinal: number;
}

/** One asked question. */
export interface QuestionRecord {
  id: string;
  question: string;
  docIds: string[];
  /** When it was asked, ms since the epoch (indexed: `byDate`). */
  date: number;
  selected: FragmentRef[];
  answer?: string;
  /**
   * What the answer's citation labels stand for, `[label]` -> a fragment and its place. Optional
   * fields need no migration: records written before them simply lack them.
   */
  citations?: CitationRecord[];
  /** The retrieval settings the question was asked with (alpha, w_rel, budget, ...). */
  settings?: Record<string, unknown>;
  /** The engine that wrote the answer, as shown to the person. */
  engine?: string;
}

/** One citation label of a stored answer. */
export interface CitationRecord {
  label: number;
  docId: string;
  ordinal: number;
  location: string;
}

/** One round of a stored conversation: the person's message and the reply to it. */
export interface ChatRoundRecord {
  user: string;
  /** The reply; what had arrived when it was stopped, if it was. */
  assistant: string;
  /** When the message was sent, ms since the epoch. */
  at: number;
  /** The reply was stopped before its end. */
  stopped?: boolean;
}

/** The chat memory settings a person may change, per conversation; unset ones take the defaults. */
export type ChatSettingsRecord = Partial<
  Pick<
    ChatMemoryOptions,
    | 'memory'
    | 'memoryAfterTokens'
    | 'memoryAfterRounds'
    | 'topTurns'
    | 'recentTurns'
    | 'wRel'
    | 'alpha'
    | 'scoring'
    | 'budgetSplit'
    | 'chatShare'
  >
>;

/**
 * One conversation, whole: its rounds live in the record, oldest first, because chat memory
 * scores every past round for each new message anyway. A round is written in one transaction
 * (read, append, put), so a crash keeps the conversation as it was before or after that round.
 */
export interface ChatRecord {
  id: string;
  title: string;
  /** ms since the epoch. */
  createdAt: number;
  /** Last change (a round, a rename, a setting), ms since the epoch (indexed: `byUpdated`). */
  updatedAt: number;
  rounds: ChatRoundRecord[];
  settings: ChatSettingsRecord;
  /** Library documents the chat draws on; empty for a standalone chat. */
  docIds: string[];
}

/**
 * What a pipeline keeps of a document that does not depend on the question (QRMeM's
 * segments and their named entities), keyed by document and by what it was built with (the
 * segment size and the engine's token counter), so a second question on the same book reuses
 * it. Deleted with the document, and when the document is indexed again.
 */
export interface PipelineMemoryRecord {
  docId: string;
  /** `qrmem|<segment tokens>|<token counter>`: what the value was built with. */
  key: string;
  /** ms since the epoch. */
  createdAt: number;
  /** Plain JSON-able data, owned by the pipeline that wrote it. */
  value: unknown;
}

/**
 * One file's parse as a repository was last indexed with (incremental re-index): the
 * syntax tree-sitter gave for this exact content, or null with the problem (no grammar: null
 * without a problem). Keyed by path and the SHA-256 of the file's text as laid out, so a newer
 * drop of the repository re-parses only files whose content changed.
 */
export interface CodeSyntaxFileRecord {
  path: string;
  /** Hex SHA-256 of the file's text as laid out (UTF-8, '\n' endings, final '\n'). */
  sha256: string;
  syntax: FileSyntax | null;
  /** Why the file could not be parsed, when it could not. */
  problem?: string;
}

/** The parses of a repository's files, written with its index in one transaction. */
export interface CodeSyntaxRecord {
  docId: string;
  files: CodeSyntaxFileRecord[];
}

/**
 * An evaluation run of the evaluation page: the benchmark file's text and the grid
 * that was chosen, so a reload can parse it again and resume. Its results live in `evalResults`.
 * `spec` and `settings` are plain JSON owned by src/ui/eval (the store does not interpret them).
 */
export interface EvalRunRecord {
  id: string;
  /** ms since the epoch. */
  createdAt: number;
  updatedAt: number;
  /** 'running' when a reload should resume it; 'paused', 'done', or 'failed' with `error`. */
  status: 'running' | 'paused' | 'done' | 'failed';
  error?: string;
  /**
   * 'answers': an answer evaluation with an LLM (its `spec` an AnswerRunSpec, its results carry
   * `llm`); absent or 'grid': a retrieval grid. No migration: records from before lack it.
   */
  kind?: 'grid' | 'answers';
  fileName: string;
  /** The benchmark file (and companions) as text, to parse again on resume. */
  files: { name: string; text: string }[];
  spec: unknown;
  settings: unknown;
}

/** One grid result: one configuration on one question, a value per budget (null: not measured). */
export interface EvalResultRecord {
  runId: string;
  config: string;
  question: string;
  gold: (number | null)[];
  answer: (number | null)[];
  /** When it was computed, ms since the epoch: a resumed run keeps the earlier ones as they were. */
  computedAt: number;
  /** An answer run's result (then `config` is the pipeline id, `gold` and `answer` empty). */
  llm?: AnswerResult;
}

/** The typed schema idb checks every `get`/`put` against. */
export interface LibrarySchema extends DBSchema {
  documents: { key: string; value: DocumentRecord };
  sources: { key: string; value: SourceRecord };
  fragments: { key: string; value: FragmentsRecord };
  vectors: { key: [string, string]; value: VectorsRecord };
  relations: { key: [string, string, string]; value: RelationRecord };
  settings: { key: string; value: SettingRecord };
  questions: { key: string; value: QuestionRecord; indexes: { byDate: number } };
  chats: { key: string; value: ChatRecord; indexes: { byUpdated: number } };
  pipelineMemory: { key: [string, string]; value: PipelineMemoryRecord };
  codeSyntax: { key: string; value: CodeSyntaxRecord };
  evalRuns: { key: string; value: EvalRunRecord };
  evalResults: { key: [string, string, string]; value: EvalResultRecord };
}

export type LibraryStoreName = StoreNames<LibrarySchema>;
export type LibraryDb = IDBPDatabase<LibrarySchema>;
export type UpgradeTransaction = IDBPTransaction<
  LibrarySchema,
  LibraryStoreName[],
  'versionchange'
>;

/**
 * One migration: takes the database from `version - 1` to `version`. It runs inside the
 * `versionchange` transaction and must stay synchronous in what it awaits: it may issue requests
 * on `tx` (and chain on their results) but never wait on anything else, or the transaction
 * commits under it.
 */
export interface Migration {
  version: number;
  description: string;
  run(db: LibraryDb, tx: UpgradeTransaction): void | Promise<void>;
}

/** Every migration ever shipped, in order. Never edit a shipped step; add a new one. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'documents, sources, fragments, vectors, relations, settings, questions',
    run(db) {
      db.createObjectStore('documents', { keyPath: 'id' });
      db.createObjectStore('sources', { keyPath: 'docId' });
      db.createObjectStore('fragments', { keyPath: 'docId' });
      db.createObjectStore('vectors', { keyPath: ['docId', 'embedderId'] });
      db.createObjectStore('relations', { keyPath: ['docId', 'kind', 'paramsKey'] });
      db.createObjectStore('settings', { keyPath: 'key' });
      db.createObjectStore('questions', { keyPath: 'id' });
    },
  },
  {
    version: 2,
    description: 'questions: index byDate, so the history lists in date order without a sort',
    run(_db, tx) {
      // Creating an index over existing records indexes them all within this transaction.
      tx.objectStore('questions').createIndex('byDate', 'date');
    },
  },
  {
    version: 3,
    description: 'chats: conversations with their rounds, index byUpdated',
    run(db) {
      db.createObjectStore('chats', { keyPath: 'id' }).createIndex('byUpdated', 'updatedAt');
    },
  },
  // Versions 4 and 5 are assigned to other branches (issues in flight); numbers may skip.
  {
    version: 6,
    description: 'pipelineMemory: question-independent pipeline memory per document',
    run(db) {
      db.createObjectStore('pipelineMemory', { keyPath: ['docId', 'key'] });
    },
  },
  {
    version: 7,
    description: 'evalRuns and evalResults: evaluation runs and their partial results',
    run(db) {
      db.createObjectStore('evalRuns', { keyPath: 'id' });
      db.createObjectStore('evalResults', { keyPath: ['runId', 'config', 'question'] });
    },
  },
  {
    version: 8,
    description: 'codeSyntax: the parse of each repository file, for incremental re-index',
    run(db) {
      db.createObjectStore('codeSyntax', { keyPath: 'docId' });
    },
  },
];

/** The schema version this code creates and expects. */
export const LIBRARY_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;

/**
 * Run the migrations after `oldVersion` up to `newVersion`, in order, in the upgrade
 * transaction. Steps run synchronously one after another; a step that returns a promise (it
 * walks records with a cursor, say) delays the next step until that promise settles, which is
 * safe because it only waits on requests of this same transaction. Returns the promise of the
 * last asynchronous step, if any; the open request itself succeeds only after the transaction
 * commits, so callers need not wait on it.
 */
export function upgradeLibrary(
  db: LibraryDb,
  oldVersion: number,
  newVersion: number,
  tx: UpgradeTransaction,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<void> | undefined {
  const steps = migrations.filter((m) => m.version > oldVersion && m.version <= newVersion);
  let pending: Promise<void> | undefined;
  for (const step of steps) {
    if (pending) {
      pending = pending.then(() => step.run(db, tx));
    } else {
      pending = step.run(db, tx) ?? undefined;
    }
  }
  return pending;
}
