/**
 * @file The indexing pipelines' words: what they depend on (`IndexDependencies`), the context a
 * call runs in (`IndexContext`), and the index worker's API (`IndexApi`: every request and result
 * the page and the worker exchange). The pipelines are book.ts (a dropped book or stored text)
 * and repo.ts (a dropped repository); handlers.ts binds them, with the held and staged registries
 * (held.ts, staged.ts), into the handlers the index worker serves (src/workers/index.worker.ts).
 */
import type { CodeGraphStats } from '../core/code/graph';
import type { CodeRelationOptions } from '../core/code/options';
import type { CsrMatrix, Progress, VectorSet } from '../core/types';
import type { SemanticPool } from '../core/relations/semantic-parallel';
import type { FolderEntry, RepoIngestError, RepositoryDocument, SkippedFile } from '../ingest/repo';
import type { FileParse, PreviousRepositoryIndex, ReindexCounts } from '../ingest/reindex';
import type { IngestProgress, IngestResult, IngestedDocument } from '../ingest/types';
import type { ParseProblem } from '../models/code-syntax';
import type { EmbedderSpec, TextEmbedder } from '../models/embedder';
import type { GrammarSource } from '../models/tree-sitter';
import type { DocumentRecord, Library, NewDocument, RelationParams } from '../store';
import type { IndexPool } from './pool';

/**
 * What a pipeline runs with: the call's abort signal, its progress reporter, and where to list
 * the buffers its result hands over (a worker's HandlerContext, src/workers/host.ts, is one).
 */
export interface IndexContext {
  signal: AbortSignal;
  progress: (p: Progress) => void;
  /** Buffers to transfer with the result (never touched again by the worker). */
  transfer: (buffers: Transferable[]) => void;
}

export interface IndexDependencies {
  ingest: (
    files: File[],
    options: {
      signal?: AbortSignal;
      onProgress?: (p: IngestProgress) => void;
      /** The reader's choice of encoding for a text file. */
      encoding?: string;
      /** Split a plain-text or Markdown file as it streams in (IngestedDocument.fragments). */
      split?: { wordsPerFragment: number };
    },
  ) => Promise<IngestResult>;
  loadEmbedder: (
    spec: EmbedderSpec,
    options: { signal?: AbortSignal; onProgress?: (p: Progress) => void },
  ) => Promise<TextEmbedder>;
  /** Where tree-sitter's wasm files come from (browser: our build; Node: node_modules). */
  grammars?: GrammarSource;
  /**
   * Workers for the semantic relation of large documents (core/relations/semantic-parallel.ts;
   * the index worker's: its one pool, through semantic-shares.ts). Absent or null: built on this
   * thread.
   */
  semanticPool?: () => SemanticPool | null;
  /**
   * Workers for the parallel parts of a repository's index (parsing, the code relation's rows);
   * without it (or with one member) they run here, one after another, with the same result.
   */
  pool?: IndexPool;
  /**
   * The library, by database name, for storing a held index where it was computed
   * (held.ts; the index worker opens its own connection). Without it `storeHeld` fails.
   */
  library?: (dbName: string) => Promise<Library>;
}

/** A document's fragments as spans of its text, with their word counts and labels. */
export interface IndexedFragments {
  starts: Uint32Array;
  ends: Uint32Array;
  words: Uint32Array;
  labels: string[];
}

/** How the page asks for a held index to be stored. */
export interface StoreHeldRequest {
  held: number;
  /** The library's database name (the page's connection's), so both write the same library. */
  dbName: string;
  document: NewDocument;
  /** The parameters the semantic relation is stored under (its key in the library). */
  semanticParams: RelationParams;
  /** The code relation's, for a repository. */
  codeParams?: RelationParams;
}

/** Where the text comes from: a dropped file (read here, off the UI thread) or stored text. */
export type IndexSource =
  | { file: File; encoding?: string }
  | { text: string; sections: { title: string; start: number; end: number }[] };

export interface IndexRequest {
  docId: string;
  source: IndexSource;
  wordsPerFragment: number;
  semanticK: number;
  embedder: EmbedderSpec;
}

/** The document as read from its file; absent when the text came from the store. */
export type ReadDocument = IngestedDocument;

export interface EmbedResult {
  vectors: VectorSet;
  semantic: CsrMatrix;
  embedderId: string;
  timings: { embedMs: number; relateMs: number };
}

export interface IndexResult extends EmbedResult {
  document?: ReadDocument;
  fragments: IndexedFragments;
  timings: { readMs: number; splitMs: number; embedMs: number; relateMs: number };
}

/** Re-embed stored fragments (the embedder or k changed; the fragments did not). */
export interface EmbedRequest {
  text: string;
  starts: Uint32Array;
  ends: Uint32Array;
  semanticK: number;
  embedder: EmbedderSpec;
}

/** Rebuild the semantic relation from stored vectors (only k changed). */
export interface RelateRequest {
  vectors: VectorSet;
  semanticK: number;
}

/** A dropped repository: a .zip, or a folder's files with their paths inside it. */
export type RepositorySource =
  | { zip: File }
  | {
      folder: {
        name: string;
        entries: FolderEntry[];
        /**
         * Entries handed over earlier in slices (`stageFolder`), read before `entries`: a large
         * folder's files cross to this worker a few hundred at a time, so the page never spends
         * seconds in one postMessage cloning 100,000 File objects.
         */
        staged?: number;
        /** Directories the drop handler did not walk (node_modules, .git), for the report. */
        skipped?: SkippedFile[];
      };
    };

export interface IndexRepositoryRequest {
  docId: string;
  source: RepositorySource;
  semanticK: number;
  embedder: EmbedderSpec;
  code?: Partial<CodeRelationOptions>;
  /** Int32Array over a SharedArrayBuffer: element 0 set to 1 cancels the relation build. */
  cancelFlag?: Int32Array;
  /** The stored index of an earlier version of this repository: reuse its parses and vectors. */
  previous?: PreviousRepositoryIndex;
  /**
   * Or where to read it: the stored repository of this id in the library of this name, with the
   * vectors of this embedder (read here, so the page never holds the earlier index either).
   */
  previousFrom?: { dbName: string; docId: string; embedderId: string };
}

/** A repository's file as the library keeps it (a section of the stored text). */
export interface RepositoryFileSpan {
  path: string;
  start: number;
  end: number;
}

/** What a person is told about a repository they dropped. */
export interface RepositoryReport {
  name: string;
  format: 'zip' | 'folder';
  bytes: number;
  /** Files kept, and the ones left out with why. */
  files: number;
  skipped: SkippedFile[];
  /** Files that could not be parsed (indexed as line windows related by the directory tree). */
  problems: ParseProblem[];
  graph: (CodeGraphStats & { nodes: number }) | null;
  windows: number;
  /** Weights stored in the code relation. */
  relationWeights: number;
  /** Set when the code relation was cut to this many weights a window to fit the store. */
  relationCutPerRow?: number;
  /** Files parsed and windows embedded, and how many were reused from the previous index. */
  reuse?: ReindexCounts;
}

export interface IndexRepositoryTimings {
  readMs: number;
  parseMs: number;
  splitMs: number;
  embedMs: number;
  graphMs: number;
  relateMs: number;
  /** Of relateMs, the code relation's part (the rest is the semantic relation's). */
  codeRelateMs?: number;
}

export type IndexRepositoryResult =
  | { ok: false; error: RepoIngestError; report: RepositoryReport }
  | (EmbedResult & {
      ok: true;
      document: Omit<RepositoryDocument, 'text' | 'files' | 'skipped'> & {
        files: RepositoryFileSpan[];
      };
      text: string;
      fragments: IndexedFragments;
      code: CsrMatrix;
      codeParams: CodeRelationOptions;
      /** refs[j] per window, stored beside the code relation (core/code/references.ts). */
      codeReferences: Float32Array;
      /** Each window's scope names, stored beside the code relation (core/code/scopes.ts). */
      codeScopes: string[];
      /** Every file's parse, for the library to keep (the next re-index reuses them). */
      parses: FileParse[];
      /** Their size as JSON, in characters (measured while capping them). */
      parsesChars: number;
      report: RepositoryReport;
      timings: IndexRepositoryTimings;
    });

/** Rebuild a stored repository's code relation from its text and files (parse again). */
export interface RelateCodeRequest {
  text: string;
  files: RepositoryFileSpan[];
  code?: Partial<CodeRelationOptions>;
  cancelFlag?: Int32Array;
}

/** An index the worker holds (held.ts): what the page needs to settle its record. */
export interface HeldIndexResult {
  held: number;
  document?: Omit<ReadDocument, 'text'>;
  fragmentCount: number;
  embedderId: string;
  timings: IndexResult['timings'];
}

/** A repository's index the worker holds: its result less the arrays and text. */
export type HeldRepositoryResult =
  | { ok: false; error: RepoIngestError; report: RepositoryReport }
  | {
      ok: true;
      held: number;
      document: Extract<IndexRepositoryResult, { ok: true }>['document'];
      fragmentCount: number;
      embedderId: string;
      codeParams: CodeRelationOptions;
      report: RepositoryReport;
      timings: IndexRepositoryTimings;
    };

export interface IndexApi {
  index: { payload: IndexRequest; result: IndexResult };
  /** `index`, keeping the index in the worker for `storeHeld` (the page gets no arrays). */
  indexHeld: { payload: IndexRequest; result: HeldIndexResult };
  /** `indexRepository`, keeping the index in the worker for `storeHeld`. */
  indexRepositoryHeld: { payload: IndexRepositoryRequest; result: HeldRepositoryResult };
  /** Store a held index in the library, in one transaction; resolves with the stored record. */
  storeHeld: { payload: StoreHeldRequest; result: DocumentRecord };
  /** Forget a held index without storing it (a duplicate, a cancel). */
  dropHeld: { payload: { held: number }; result: null };
  /** Hand over a slice of a folder's entries; the first call (no `staged`) starts a new set. */
  stageFolder: {
    payload: { staged?: number; entries: FolderEntry[] };
    result: { staged: number; count: number };
  };
  /** Forget staged entries (the job was cancelled before indexing began). */
  dropStaged: { payload: { staged: number }; result: null };
  embed: { payload: EmbedRequest; result: EmbedResult };
  relate: { payload: RelateRequest; result: { semantic: CsrMatrix; relateMs: number } };
  indexRepository: { payload: IndexRepositoryRequest; result: IndexRepositoryResult };
  relateCode: {
    payload: RelateCodeRequest;
    result: {
      code: CsrMatrix;
      codeParams: CodeRelationOptions;
      codeReferences: Float32Array;
      codeScopes: string[];
      relateMs: number;
    };
  };
}
