/**
 * @file The indexing work, as plain handlers: read a dropped file, split it into fragments,
 * embed them, relate them. The index worker serves them (index.worker.ts); tests run the same
 * handlers in-process (in-process.ts) with an embedder loader of their own.
 */
import { splitProse } from '../core/fragment';
import { labelFragments } from '../core/sections';
import { semanticNeighbours } from '../core/relations/semantic';
import { singleDocument } from '../core/relations/segments';
import type { CsrMatrix, VectorSet } from '../core/types';
import type { IngestProgress, IngestResult, IngestedDocument } from '../ingest/types';
import type { EmbedderSpec, TextEmbedder } from '../models/embedder';
import type { HandlerContext } from './host';
import { AbortError, buffersOf, type Progress } from './protocol';

export interface IndexDependencies {
  ingest: (
    files: File[],
    options: { signal?: AbortSignal; onProgress?: (p: IngestProgress) => void },
  ) => Promise<IngestResult>;
  loadEmbedder: (
    spec: EmbedderSpec,
    options: { signal?: AbortSignal; onProgress?: (p: Progress) => void },
  ) => Promise<TextEmbedder>;
}

/** Where the text comes from: a dropped file (read here, off the UI thread) or stored text. */
export type IndexSource =
  { file: File } | { text: string; sections: { title: string; start: number; end: number }[] };

export interface IndexRequest {
  docId: string;
  source: IndexSource;
  wordsPerFragment: number;
  semanticK: number;
  embedder: EmbedderSpec;
}

/** The document as read from its file; absent when the text came from the store. */
export type ReadDocument = IngestedDocument;

export interface IndexedFragments {
  starts: Uint32Array;
  ends: Uint32Array;
  words: Uint32Array;
  labels: string[];
}

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

export interface IndexApi {
  [kind: string]: { payload: unknown; result: unknown };
  index: { payload: IndexRequest; result: IndexResult };
  embed: { payload: EmbedRequest; result: EmbedResult };
  relate: { payload: RelateRequest; result: { semantic: CsrMatrix; relateMs: number } };
}

/** An unreadable file: the message names it and says what to do. */
export class IngestFailure extends Error {
  override name = 'IngestError';
}

async function read(deps: IndexDependencies, source: IndexSource, ctx: HandlerContext) {
  if (!('file' in source))
    return { text: source.text, sections: source.sections, document: undefined };
  const { documents, errors } = await deps.ingest([source.file], {
    signal: ctx.signal,
    onProgress: (p) =>
      ctx.progress(
        p.pages ? { stage: 'read', ...p.pages } : { stage: 'read', done: p.done, total: p.total },
      ),
  });
  if (errors.length) throw new IngestFailure(errors[0].message);
  const document = documents[0];
  return { text: document.text, sections: document.sections, document };
}

function relate(vectors: VectorSet, k: number, ctx: HandlerContext): CsrMatrix {
  const n = vectors.count;
  const semantic = semanticNeighbours(vectors, singleDocument(n), k, {
    onProgress: (done, total) => {
      if (ctx.signal.aborted) throw new AbortError();
      ctx.progress({ stage: 'relate', done, total });
    },
  });
  ctx.progress({ stage: 'relate', done: n, total: n });
  return semantic;
}

async function embedAndRelate(
  deps: IndexDependencies,
  text: string,
  starts: Uint32Array,
  ends: Uint32Array,
  req: { semanticK: number; embedder: EmbedderSpec },
  ctx: HandlerContext,
): Promise<EmbedResult> {
  const { signal, progress } = ctx;
  const n = starts.length;
  const t0 = performance.now();
  const embedder = await deps.loadEmbedder(req.embedder, { signal, onProgress: progress });
  const texts = Array.from(starts, (s, i) => text.slice(s, ends[i]));
  const data = await embedder.embed(texts, { kind: 'passage', signal, onProgress: progress });
  const vectors: VectorSet = { dim: embedder.dim, count: n, data };
  const t1 = performance.now();
  const semantic = relate(vectors, req.semanticK, ctx);
  return {
    vectors,
    semantic,
    embedderId: embedder.id,
    timings: { embedMs: t1 - t0, relateMs: performance.now() - t1 },
  };
}

async function index(
  deps: IndexDependencies,
  req: IndexRequest,
  ctx: HandlerContext,
): Promise<IndexResult> {
  const t0 = performance.now();
  const { text, sections, document } = await read(deps, req.source, ctx);
  const t1 = performance.now();
  ctx.progress({ stage: 'split', done: 0, total: 1 });
  const fragments = splitProse(req.docId, text, { wordsPerFragment: req.wordsPerFragment });
  const starts = Uint32Array.from(fragments, (f) => f.start);
  const ends = Uint32Array.from(fragments, (f) => f.end);
  const words = Uint32Array.from(fragments, (f) => f.words ?? 0);
  const labels = labelFragments(starts, sections);
  ctx.progress({ stage: 'split', done: 1, total: 1 });
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

/** The handlers of the index worker, bound to their dependencies. */
export function createIndexHandlers(deps: IndexDependencies) {
  return {
    index: (req: IndexRequest, ctx: HandlerContext) => index(deps, req, ctx),
    embed: (req: EmbedRequest, ctx: HandlerContext) => embed(deps, req, ctx),
    relate: (req: RelateRequest, ctx: HandlerContext) => {
      const t0 = performance.now();
      const semantic = relate(req.vectors, req.semanticK, ctx);
      ctx.transfer(buffersOf(semantic.rowPtr, semantic.col, semantic.weight));
      return { semantic, relateMs: performance.now() - t0 };
    },
  };
}
