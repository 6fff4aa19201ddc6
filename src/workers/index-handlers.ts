/**
 * @file The indexing work, as plain handlers: read a dropped file, split it into fragments,
 * embed them, relate them. The index worker serves them (index.worker.ts); tests run the same
 * handlers in-process (in-process.ts) with an embedder loader and grammar source of their own.
 *
 * Repositories (`indexRepository`): a dropped .zip or folder is read (src/ingest/repo.ts: the
 * skip report comes back with the result, also when nothing could be read), parsed with
 * tree-sitter, split into 20-line windows sliding by 10 (labels `path:11-30`), embedded with the
 * active embedder (so dense and hybrid scoring work too), then the code graph and the code
 * relation (Eq. 8, CSR, at most `maxPerRow` weights per window) are built, and the semantic kNN
 * relation as for books. Progress stages: read, parse, split, embed, graph, relate.
 *
 * What is NOT stored: the code graph. Each file's parse is stored (schema v8, `codeSyntax`) only
 * so that a newer drop of the repository re-parses just the changed files (src/ingest/reindex.ts:
 * `previous` in the request). The graph explanation of a window is re-derived where it is asked
 * for (the retrieval worker) from the stored text and file list by parsing again (codeIndexOf
 * below), so an explanation is always that of the current graph code; the price is one parse of
 * the repository per session, the first time a window is explained (docs/code.md).
 *
 * Cancelling: the parse, read and embed stages stop at their next checkpoint. The relation build
 * is one synchronous loop; it polls `cancelFlag` (a SharedArrayBuffer the UI sets, available
 * when the page is cross-origin isolated) besides the signal, since a cancel message cannot be
 * delivered while the loop runs. Without the flag the UI still drops the result at once. The
 * semantic relation of a large document (above EXACT_MAX_FRAGMENTS) runs its blocks on a pool of
 * workers (`semanticPool`) while this worker waits, so a cancel arrives there and terminates
 * them; only its clustering, about a fifth of it, is a synchronous loop here.
 */
import { buildCodeGraph, type CodeGraph, type CodeGraphStats } from '../core/code/graph';
import { coverWindows, type WindowCover } from '../core/code/cover';
import {
  fileText,
  repositoryWindows,
  type CodeWindow,
  type RepositoryLayout,
} from '../core/code/layout';
import { defaultCodeRelationOptions, type CodeRelationOptions } from '../core/code/options';
import type { FileSyntax } from '../core/code/syntax';
import { windowReferenceCounts } from '../core/code/references';
import {
  summaryCodeRelationMatrix,
  summaryCodeRelationState,
  summaryRowRanges,
} from '../core/code/summary';
import { ProseSplitStream, type ProseSpans } from '../core/fragment';
import { labelFragments } from '../core/sections';
import { EXACT_MAX_FRAGMENTS, semanticNeighbours } from '../core/relations/semantic';
import { semanticNeighboursParallel, type SemanticPool } from '../core/relations/semantic-parallel';
import { singleDocument } from '../core/relations/segments';
import type { CsrMatrix, Fragment, VectorSet } from '../core/types';
import { createCheckpoint } from '../ingest/abort';
import { fitRelation, fitRowBlocks } from '../ingest/storable';
import {
  ingestRepositoryFolder,
  ingestRepositoryZip,
  type FolderEntry,
  type RepoIngestError,
  type RepoIngestResult,
  type RepositoryDocument,
  type SkippedFile,
} from '../ingest/repo';
import type { IngestProgress, IngestResult, IngestedDocument } from '../ingest/types';
import { CodeParser, parseRepository, type ParseProblem } from '../models/code-syntax';
import type { EmbedderSpec, TextEmbedder } from '../models/embedder';
import type { GrammarSource } from '../models/tree-sitter';
import {
  assembleVectors,
  parseChangedFiles,
  parsesToStore,
  reusableRows,
  type FileParse,
  type PreviousRepositoryIndex,
  type ReindexCounts,
} from '../ingest/reindex';
import type { HandlerContext } from './host';
import {
  HeldIndexes,
  previousIndex,
  storeHeld,
  type IndexedFragments,
  type StoreHeldRequest,
} from './index-store';
import type { DocumentRecord, Library } from '../store';
import { shareArrays, splitRanges, type WorkerPool } from './pool';
import type { PoolApi } from './pool-handlers';
import { AbortError, buffersOf, isAbortError, type Progress } from './protocol';

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
  pool?: WorkerPool<PoolApi>;
  /**
   * The library, by database name, for storing a held index where it was computed
   * (index-store.ts; the index worker opens its own connection). Without it `storeHeld` fails.
   */
  library?: (dbName: string) => Promise<Library>;
}

/** Least files / windows worth a pool's start-up (its members load the grammars first). */
export const POOL_MIN_FILES = 32;
export const POOL_MIN_WINDOWS = 1024;
/** Tasks per pool member: small enough shares that a slow one does not hold the others back. */
const TASKS_PER_MEMBER = 4;

function poolFor(pool: WorkerPool<PoolApi> | undefined, items: number, least: number) {
  return pool && pool.size > 1 && items >= least ? pool : null;
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

export type { IndexedFragments } from './index-store';

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

/** The ingest's skip report plus what the drop handler left out itself, in path order. */
function allSkipped(source: RepositorySource, skipped: readonly SkippedFile[]): SkippedFile[] {
  const extra = 'folder' in source ? (source.folder.skipped ?? []) : [];
  if (extra.length === 0) return [...skipped];
  return [...skipped, ...extra].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

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

/** An index the worker holds (index-store.ts): what the page needs to settle its record. */
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
      relateMs: number;
    };
  };
}

/**
 * An unreadable file, thrown to the page: the message names it and says what to do. (Inside
 * ingestion the same failure is an `IngestFailure` value, src/ingest/errors.ts.)
 */
export class UnreadableFileError extends Error {
  override name = 'UnreadableFileError';
}

async function read(
  deps: IndexDependencies,
  source: IndexSource,
  wordsPerFragment: number,
  ctx: HandlerContext,
): Promise<{
  text: string;
  sections: { title: string; start: number; end: number }[];
  document: IngestedDocument | undefined;
  fragments?: ProseSpans;
}> {
  if (!('file' in source))
    return { text: source.text, sections: source.sections, document: undefined };
  const { documents, errors } = await deps.ingest([source.file], {
    signal: ctx.signal,
    encoding: source.encoding,
    // A book in plain text or Markdown is split as it streams in.
    split: { wordsPerFragment },
    // Pages of a PDF, else bytes of a large file as they stream in, else files.
    onProgress: (p) => {
      const part = p.pages ?? p.bytes;
      ctx.progress(
        part ? { stage: 'read', ...part } : { stage: 'read', done: p.done, total: p.total },
      );
    },
  });
  if (errors.length) throw new UnreadableFileError(errors[0].message);
  // The fragments go back as columns, not with the document (which is stored).
  const { fragments, ...document } = documents[0];
  return { text: document.text, sections: document.sections, document, fragments };
}

/** Characters split between two checks for cancel (and progress reports). */
const SPLIT_SLICE = 1 << 20;

/**
 * splitProse over a whole text in slices (the same fragments: ProseSplitStream), reporting the
 * 'split' stage by characters and giving a cancel its turn between slices.
 */
async function splitText(
  text: string,
  wordsPerFragment: number,
  ctx: HandlerContext,
): Promise<ProseSpans> {
  const checkpoint = createCheckpoint(ctx.signal);
  const splitter = new ProseSplitStream({ wordsPerFragment });
  const total = text.length;
  ctx.progress({ stage: 'split', done: 0, total });
  for (let at = 0; at < total; at += SPLIT_SLICE) {
    await checkpoint();
    splitter.push(text.slice(at, at + SPLIT_SLICE));
    ctx.progress({ stage: 'split', done: Math.min(total, at + SPLIT_SLICE), total });
  }
  return splitter.finish();
}

async function relate(
  deps: IndexDependencies,
  vectors: VectorSet,
  k: number,
  ctx: HandlerContext,
  report: (done: number, total: number) => void = (done, total) =>
    ctx.progress({ stage: 'relate', done, total }),
): Promise<CsrMatrix> {
  const n = vectors.count;
  const options = {
    onProgress: (done: number, total: number) => {
      if (ctx.signal.aborted) throw new AbortError();
      report(done, total);
    },
  };
  // Large documents on the pool (the same relation, bit for bit); the rest, and any engine where
  // the workers cannot start, on this thread.
  let semantic: CsrMatrix | null = null;
  const pool = n > EXACT_MAX_FRAGMENTS ? (deps.semanticPool?.() ?? null) : null;
  if (pool) {
    try {
      semantic = await semanticNeighboursParallel(vectors, singleDocument(n), k, {
        ...options,
        pool,
        signal: ctx.signal,
      });
    } catch (error) {
      if (ctx.signal.aborted || isAbortError(error)) throw new AbortError();
      console.warn('FragRel: the semantic relation workers failed; building on one thread.', error);
    }
  }
  semantic ??= semanticNeighbours(vectors, singleDocument(n), k, options);
  report(n, n);
  return semantic;
}

async function embedTexts(
  deps: IndexDependencies,
  text: string,
  starts: Uint32Array,
  ends: Uint32Array,
  spec: EmbedderSpec,
  ctx: HandlerContext,
): Promise<{ vectors: VectorSet; embedderId: string }> {
  const { signal, progress } = ctx;
  const embedder = await deps.loadEmbedder(spec, { signal, onProgress: progress });
  const texts = Array.from(starts, (s, i) => text.slice(s, ends[i]));
  const data = await embedder.embed(texts, { kind: 'passage', signal, onProgress: progress });
  return { vectors: { dim: embedder.dim, count: starts.length, data }, embedderId: embedder.id };
}

async function embedAndRelate(
  deps: IndexDependencies,
  text: string,
  starts: Uint32Array,
  ends: Uint32Array,
  req: { semanticK: number; embedder: EmbedderSpec },
  ctx: HandlerContext,
): Promise<EmbedResult> {
  const t0 = performance.now();
  const { vectors, embedderId } = await embedTexts(deps, text, starts, ends, req.embedder, ctx);
  const t1 = performance.now();
  const semantic = await relate(deps, vectors, req.semanticK, ctx);
  return {
    vectors,
    semantic,
    embedderId,
    timings: { embedMs: t1 - t0, relateMs: performance.now() - t1 },
  };
}

async function index(
  deps: IndexDependencies,
  req: IndexRequest,
  ctx: HandlerContext,
): Promise<IndexResult> {
  const t0 = performance.now();
  const { text, sections, document, fragments } = await read(
    deps,
    req.source,
    req.wordsPerFragment,
    ctx,
  );
  const t1 = performance.now();
  // Split as the file streamed in (plain text, Markdown), else here (other formats, stored text).
  if (fragments) ctx.progress({ stage: 'split', done: 1, total: 1 });
  const { starts, ends, words } = fragments ?? (await splitText(text, req.wordsPerFragment, ctx));
  const labels = labelFragments(starts, sections);
  if (ctx.signal.aborted) throw new AbortError();
  const t2 = performance.now();
  const embedded = await embedAndRelate(deps, text, starts, ends, req, ctx);
  const { vectors, semantic } = embedded;
  ctx.transfer(
    buffersOf(starts, ends, words, vectors.data, semantic.rowPtr, semantic.col, semantic.weight),
  );
  return {
    ...embedded,
    document,
    fragments: { starts, ends, words, labels },
    timings: { readMs: t1 - t0, splitMs: t2 - t1, ...embedded.timings },
  };
}

async function embed(
  deps: IndexDependencies,
  req: EmbedRequest,
  ctx: HandlerContext,
): Promise<EmbedResult> {
  const result = await embedAndRelate(deps, req.text, req.starts, req.ends, req, ctx);
  const { vectors, semantic } = result;
  ctx.transfer(buffersOf(vectors.data, semantic.rowPtr, semantic.col, semantic.weight));
  return result;
}

// Repositories --------------------------------------------------------------------------------

/** A stored repository's text and files as the code layout (files lie end to end in the text). */
export function repositoryLayout(
  text: string,
  files: readonly RepositoryFileSpan[],
): RepositoryLayout {
  return { text, files: files.map((f) => ({ path: f.path, start: f.start, end: f.end })) };
}

/** Everything of a repository's code structure that the relation and its explanations need. */
export interface CodeIndex {
  layout: RepositoryLayout;
  fragments: Fragment[];
  windows: CodeWindow[];
  graph: CodeGraph;
  cover: WindowCover;
  problems: ParseProblem[];
}

/** Parse every file of the layout (stage 'parse'), giving the event loop a turn between files. */
export async function parseLayout(
  layout: RepositoryLayout,
  parser: CodeParser,
  signal: AbortSignal,
  progress: (p: Progress) => void,
) {
  const files = layout.files.map((f, k) => ({ path: f.path, text: fileText(layout, k) }));
  return { files, ...(await parseFiles(files, parser, signal, progress)) };
}

/**
 * Parse the given files on the pool's members, in shares of about equal text, merged in file
 * order (the same syntax and problems as parseFiles).
 */
export async function parseFilesOnPool(
  files: readonly { path: string; text: string }[],
  pool: WorkerPool<PoolApi>,
  signal: AbortSignal,
  progress: (p: Progress) => void,
) {
  progress({ stage: 'parse', done: 0, total: files.length });
  const shares = splitRanges(
    files.length,
    pool.size * TASKS_PER_MEMBER,
    (i) => files[i].text.length + 256,
  ).map((r) => ({ files: files.slice(r.from, r.to) }));
  const parts = await pool.map('parse', shares, {
    signal,
    onProgress: (done) => progress({ stage: 'parse', done, total: files.length }),
    units: (share) => share.files.length,
  });
  return {
    syntax: parts.flatMap((p) => p.syntax),
    problems: parts.flatMap((p) => p.problems),
  };
}

/** Parse the given files (stage 'parse'), giving the event loop a turn between files. */
async function parseFiles(
  files: readonly { path: string; text: string }[],
  parser: CodeParser,
  signal: AbortSignal,
  progress: (p: Progress) => void,
) {
  const checkpoint = createCheckpoint(signal);
  progress({ stage: 'parse', done: 0, total: files.length });
  const parsed = await parseRepository(files, parser, {
    checkpoint,
    onProgress: (done, total) => progress({ stage: 'parse', done, total }),
  });
  return parsed;
}

/** The code graph and the covering nodes of each window (stage 'graph'). */
export function graphOf(
  files: readonly { path: string; text: string }[],
  syntax: readonly (FileSyntax | null)[],
  windows: readonly CodeWindow[],
  progress: (p: Progress) => void,
): { graph: CodeGraph; cover: WindowCover } {
  progress({ stage: 'graph', done: 0, total: 1 });
  const graph = buildCodeGraph(files.map((f, k) => ({ ...f, syntax: syntax[k] })));
  const cover = coverWindows(
    graph,
    files.map((f) => f.text),
    windows,
  );
  progress({ stage: 'graph', done: 1, total: 1 });
  return { graph, cover };
}

/**
 * Parse, split and graph a stored repository: what the retrieval worker needs to explain a
 * window (the syntax and graph are not stored; see the file comment).
 */
export async function buildCodeIndex(
  docId: string,
  layout: RepositoryLayout,
  parser: CodeParser,
  signal: AbortSignal,
  progress: (p: Progress) => void = () => {},
): Promise<CodeIndex> {
  const { files, syntax, problems } = await parseLayout(layout, parser, signal, progress);
  const { fragments, windows } = repositoryWindows(docId, layout);
  const { graph, cover } = graphOf(files, syntax, windows, progress);
  return { layout, fragments, windows, graph, cover, problems };
}

function codeOptions(code: Partial<CodeRelationOptions> | undefined): CodeRelationOptions {
  return { ...defaultCodeRelationOptions, ...code };
}

/**
 * Eq. 8 over the windows (stage 'relate'), polling the cancel flag as well as the signal: by its
 * summarised form (8b, core/code/summary.ts), since the exact build is quadratic in a repository
 * (a million lines: about 36 minutes; docs/scale.md section 4), cut to what one IndexedDB value
 * holds (src/ingest/storable.ts).
 */
async function buildCodeRelation(
  graph: CodeGraph,
  cover: WindowCover,
  options: CodeRelationOptions,
  ctx: HandlerContext,
  cancelFlag: Int32Array | undefined,
  report: (done: number, total: number) => void,
  poolIn?: WorkerPool<PoolApi>,
): Promise<{ matrix: CsrMatrix; perRow: number | null }> {
  const onProgress = (done: number, total: number) => {
    if (ctx.signal.aborted || (cancelFlag && Atomics.load(cancelFlag, 0) !== 0)) {
      throw new AbortError();
    }
    report(done, total);
  };
  const pool = poolFor(poolIn, cover.windows, POOL_MIN_WINDOWS);
  // Cut to what one IndexedDB value can hold (src/ingest/storable.ts; the 30k-file zip's was 156 MB).
  if (!pool)
    return fitRelation(summaryCodeRelationMatrix(graph, cover, { ...options, onProgress }));
  // The shared part here (U, u, the candidates), then the rows on the pool by window ranges
  // (independent given the state), merged in order: the same matrix (pool.test.ts).
  const state = shareArrays(summaryCodeRelationState(graph, cover, { ...options, onProgress }));
  const n = state.windows;
  const ranges = summaryRowRanges(state, pool.size * TASKS_PER_MEMBER);
  // The members poll the UI's flag and one set here on any stop (their loops are synchronous).
  const stopFlag =
    typeof SharedArrayBuffer === 'function' ? new Int32Array(new SharedArrayBuffer(4)) : null;
  const cancelFlags = [cancelFlag, stopFlag].filter((f): f is Int32Array => f != null);
  const setStop = () => stopFlag && Atomics.store(stopFlag, 0, 1);
  ctx.signal.addEventListener('abort', setStop, { once: true });
  const blocks = await pool
    .map(
      'codeRows',
      ranges.map((r) => ({ state, from: r.from, to: r.to, cancelFlags })),
      {
        signal: ctx.signal,
        onProgress: (done) => onProgress(done, n),
        units: (r) => r.to - r.from,
      },
    )
    .catch((error: unknown) => {
      setStop();
      throw error;
    })
    .finally(() => ctx.signal.removeEventListener('abort', setStop));
  // Merged and cut in one pass (no merged copy of the whole relation).
  return fitRowBlocks(n, blocks);
}

function emptyReport(
  result: Extract<RepoIngestResult, { ok: false }>,
  source: RepositorySource,
): RepositoryReport {
  return {
    name: result.error.file,
    format: 'zip' in source ? 'zip' : 'folder',
    bytes: 'zip' in source ? source.zip.size : 0,
    files: 0,
    skipped: allSkipped(source, result.skipped),
    problems: [],
    graph: null,
    windows: 0,
    relationWeights: 0,
  };
}

/**
 * Embed a repository's windows, taking the vector of a window whose text the previous index
 * embedded with the same embedder from there (src/ingest/reindex.ts).
 */
async function embedNewWindows(
  deps: IndexDependencies,
  text: string,
  starts: Uint32Array,
  ends: Uint32Array,
  req: IndexRepositoryRequest,
  ctx: HandlerContext,
): Promise<{ vectors: VectorSet; embedderId: string; windowsReused: number }> {
  const texts = Array.from(starts, (s, i) => text.slice(s, ends[i]));
  const rows = reusableRows(req.previous, req.embedder.id, texts);
  const missing = texts.flatMap((_, i) => (rows[i] < 0 ? [i] : []));
  const windowsReused = texts.length - missing.length;
  if (missing.length === 0 && req.previous?.vectors && req.previous.embedderId) {
    const vectors = assembleVectors(rows, req.previous.vectors, null);
    return { vectors, embedderId: req.previous.embedderId, windowsReused };
  }
  const embedded = await embedTexts(
    deps,
    text,
    Uint32Array.from(missing, (i) => starts[i]),
    Uint32Array.from(missing, (i) => ends[i]),
    req.embedder,
    ctx,
  );
  const vectors = assembleVectors(rows, req.previous?.vectors, embedded.vectors);
  return { vectors, embedderId: embedded.embedderId, windowsReused };
}

async function indexRepository(
  deps: IndexDependencies,
  parser: () => CodeParser,
  req: IndexRepositoryRequest,
  ctx: HandlerContext,
): Promise<IndexRepositoryResult> {
  const { signal } = ctx;
  const t0 = performance.now();
  const onProgress = (p: Progress) => ctx.progress({ stage: 'read', done: p.done, total: p.total });
  const read =
    'zip' in req.source
      ? await ingestRepositoryZip(req.source.zip, { signal, onProgress })
      : await ingestRepositoryFolder(req.source.folder.name, req.source.folder.entries, {
          signal,
          onProgress,
        });
  if (!read.ok) return { ok: false, error: read.error, report: emptyReport(read, req.source) };
  const { text, files: repoFiles, skipped, ...meta } = read.document;
  const files: RepositoryFileSpan[] = repoFiles.map((f) => ({
    path: f.path,
    start: f.start,
    end: f.end,
  }));
  const layout = repositoryLayout(text, files);
  const t1 = performance.now();

  // Only files without a stored parse of the same content are parsed (src/ingest/reindex.ts).
  const fileTexts = layout.files.map((f, k) => ({ path: f.path, text: fileText(layout, k) }));
  const parsed = await parseChangedFiles(fileTexts, req.previous?.parses ?? [], (changed) => {
    const pool = poolFor(deps.pool, changed.length, POOL_MIN_FILES);
    return pool
      ? parseFilesOnPool(changed, pool, signal, ctx.progress)
      : parseFiles(changed, parser(), signal, ctx.progress);
  });
  const t2 = performance.now();

  ctx.progress({ stage: 'split', done: 0, total: 1 });
  const { fragments, windows } = repositoryWindows(req.docId, layout);
  const starts = Uint32Array.from(fragments, (f) => f.start);
  const ends = Uint32Array.from(fragments, (f) => f.end);
  const words = Uint32Array.from(fragments, (f) => f.words ?? 0);
  const labels = fragments.map((f) => f.label ?? '');
  ctx.progress({ stage: 'split', done: 1, total: 1 });
  if (signal.aborted) throw new AbortError();
  const t3 = performance.now();

  const { vectors, embedderId, windowsReused } = await embedNewWindows(
    deps,
    text,
    starts,
    ends,
    req,
    ctx,
  );
  const t4 = performance.now();

  const { graph, cover } = graphOf(fileTexts, parsed.syntax, windows, ctx.progress);
  // Reference counts for the weighted multi-hop walk.
  const codeReferences = windowReferenceCounts(fileTexts, windows, graph);
  const t5 = performance.now();

  // One 'relate' stage for both relations: the code relation's windows, then the semantic one's.
  const n = windows.length;
  const codeParams = codeOptions(req.code);
  const { matrix: code, perRow: codePerRowCut } = await buildCodeRelation(
    graph,
    cover,
    codeParams,
    ctx,
    req.cancelFlag,
    (done) => ctx.progress({ stage: 'relate', done, total: 2 * n }),
    deps.pool,
  );
  const t5b = performance.now();
  const semantic = await relate(deps, vectors, req.semanticK, ctx, (done) =>
    ctx.progress({ stage: 'relate', done: n + done, total: 2 * n }),
  );
  const t6 = performance.now();

  const report: RepositoryReport = {
    name: meta.name,
    format: meta.format,
    bytes: meta.bytes,
    files: files.length,
    skipped: allSkipped(req.source, skipped),
    problems: parsed.problems,
    graph: { ...graph.stats, nodes: graph.nodes.length },
    windows: n,
    relationWeights: code.col.length,
    ...(codePerRowCut !== null ? { relationCutPerRow: codePerRowCut } : {}),
    ...(req.previous
      ? {
          reuse: {
            filesParsed: parsed.filesParsed,
            filesReused: parsed.filesReused,
            windowsEmbedded: n - windowsReused,
            windowsReused,
          },
        }
      : {}),
  };
  ctx.transfer(
    buffersOf(
      starts,
      ends,
      words,
      vectors.data,
      semantic.rowPtr,
      semantic.col,
      semantic.weight,
      code.rowPtr,
      code.col,
      code.weight,
      codeReferences,
    ),
  );
  return {
    ok: true,
    document: { ...meta, files },
    text,
    fragments: { starts, ends, words, labels },
    vectors,
    semantic,
    embedderId,
    code,
    codeParams,
    codeReferences,
    // Capped so the stored record stays under Chromium's IndexedDB value limit (src/ingest/reindex.ts).
    ...(({ parses, chars }) => ({ parses, parsesChars: chars }))(parsesToStore(parsed.parses)),
    report,
    timings: {
      readMs: t1 - t0,
      parseMs: t2 - t1,
      splitMs: t3 - t2,
      embedMs: t4 - t3,
      graphMs: t5 - t4,
      relateMs: t6 - t5,
      codeRelateMs: t5b - t5,
    },
  };
}

async function relateCode(
  deps: IndexDependencies,
  parser: () => CodeParser,
  req: RelateCodeRequest,
  ctx: HandlerContext,
): Promise<IndexApi['relateCode']['result']> {
  const t0 = performance.now();
  const index = await buildCodeIndex(
    '',
    repositoryLayout(req.text, req.files),
    parser(),
    ctx.signal,
    ctx.progress,
  );
  const codeParams = codeOptions(req.code);
  const { matrix: code } = await buildCodeRelation(
    index.graph,
    index.cover,
    codeParams,
    ctx,
    req.cancelFlag,
    (done, total) => ctx.progress({ stage: 'relate', done, total }),
    deps.pool,
  );
  // The reference counts are stored with the rebuilt relation too.
  const codeReferences = windowReferenceCounts(
    index.layout.files.map((_, k) => ({ text: fileText(index.layout, k) })),
    index.windows,
    index.graph,
  );
  ctx.transfer(buffersOf(code.rowPtr, code.col, code.weight, codeReferences));
  return { code, codeParams, codeReferences, relateMs: performance.now() - t0 };
}

/** The handlers of the index worker, bound to their dependencies. */
export function createIndexHandlers(deps: IndexDependencies) {
  let codeParser: CodeParser | null = null;
  const parser = () => {
    if (!deps.grammars) {
      throw new Error('This build cannot parse code: no tree-sitter grammars were given.');
    }
    codeParser ??= new CodeParser(deps.grammars);
    return codeParser;
  };
  const holding = new HeldIndexes();
  const staged = new Map<number, FolderEntry[]>();
  let nextStaged = 1;
  /** The request with any staged entries of its folder taken in (and released here). */
  const withStaged = (req: IndexRepositoryRequest): IndexRepositoryRequest => {
    if (!('folder' in req.source) || req.source.folder.staged === undefined) return req;
    const { staged: key, ...folder } = req.source.folder;
    const earlier = staged.get(key);
    staged.delete(key);
    if (!earlier) throw new Error('The folder handed to the indexer is gone; add it again.');
    return { ...req, source: { folder: { ...folder, entries: [...earlier, ...folder.entries] } } };
  };
  // What is held is never sent, so nothing may be transferred (that would empty the arrays).
  const keep = (ctx: HandlerContext): HandlerContext => ({ ...ctx, transfer: () => {} });
  return {
    index: (req: IndexRequest, ctx: HandlerContext) => index(deps, req, ctx),
    indexHeld: async (req: IndexRequest, ctx: HandlerContext): Promise<HeldIndexResult> => {
      const r = await index(deps, req, keep(ctx));
      const text = r.document?.text ?? ('text' in req.source ? req.source.text : '');
      let document: Omit<ReadDocument, 'text'> | undefined;
      if (r.document) {
        const { text: _text, ...rest } = r.document;
        document = rest;
      }
      const held = holding.hold({
        text,
        fragments: r.fragments,
        vectors: r.vectors,
        embedderId: r.embedderId,
        semantic: r.semantic,
      });
      return {
        held,
        ...(document ? { document } : {}),
        fragmentCount: r.fragments.starts.length,
        embedderId: r.embedderId,
        timings: r.timings,
      };
    },
    indexRepositoryHeld: async (
      req: IndexRepositoryRequest,
      ctx: HandlerContext,
    ): Promise<HeldRepositoryResult> => {
      let request = withStaged(req);
      if (req.previousFrom && deps.library) {
        const { dbName, docId, embedderId } = req.previousFrom;
        const previous = await previousIndex(await deps.library(dbName), docId, embedderId);
        if (previous) request = { ...request, previous };
      }
      const r = await indexRepository(deps, parser, request, keep(ctx));
      if (!r.ok) return r;
      const held = holding.hold({
        text: r.text,
        fragments: r.fragments,
        vectors: r.vectors,
        embedderId: r.embedderId,
        semantic: r.semantic,
        code: { matrix: r.code, references: r.codeReferences },
        parses: r.parses,
        parsesChars: r.parsesChars,
      });
      return {
        ok: true,
        held,
        document: r.document,
        fragmentCount: r.fragments.starts.length,
        embedderId: r.embedderId,
        codeParams: r.codeParams,
        report: r.report,
        timings: r.timings,
      };
    },
    storeHeld: (req: StoreHeldRequest, ctx: HandlerContext) => {
      if (!deps.library) {
        holding.drop(req.held);
        throw new Error('This indexing worker has no access to the library.');
      }
      return storeHeld(holding, deps.library, req, ctx);
    },
    dropHeld: ({ held }: { held: number }) => {
      holding.drop(held);
      return null;
    },
    stageFolder: (req: { staged?: number; entries: FolderEntry[] }) => {
      if (req.staged !== undefined && !staged.has(req.staged)) {
        throw new Error('The folder handed to the indexer is gone; add it again.');
      }
      const key = req.staged ?? nextStaged++;
      const list = staged.get(key) ?? [];
      for (const e of req.entries) list.push(e);
      staged.set(key, list);
      return { staged: key, count: list.length };
    },
    dropStaged: ({ staged: key }: { staged: number }) => {
      staged.delete(key);
      return null;
    },
    embed: (req: EmbedRequest, ctx: HandlerContext) => embed(deps, req, ctx),
    indexRepository: (req: IndexRepositoryRequest, ctx: HandlerContext) =>
      indexRepository(deps, parser, withStaged(req), ctx),
    relateCode: (req: RelateCodeRequest, ctx: HandlerContext) => relateCode(deps, parser, req, ctx),
    relate: async (req: RelateRequest, ctx: HandlerContext) => {
      const t0 = performance.now();
      const semantic = await relate(deps, req.vectors, req.semanticK, ctx);
      ctx.transfer(buffersOf(semantic.rowPtr, semantic.col, semantic.weight));
      return { semantic, relateMs: performance.now() - t0 };
    },
  };
}
