/**
 * @file Indexing a book: read a dropped file (or take stored text), split it into fragments,
 * embed them, relate them (the semantic kNN relation; a large document's on the pool of workers,
 * `semanticPool`). Also re-embedding stored fragments (`embed`) and rebuilding the semantic
 * relation alone (`relate`), which repositories use too.
 *
 * Cancelling: the read and embed stages stop at their next checkpoint, the split between slices.
 * The semantic relation of a large document (above EXACT_MAX_FRAGMENTS) runs its blocks on a pool
 * of workers while this one waits, so a cancel arrives there and terminates them; only its
 * clustering, about a fifth of it, is a synchronous loop here.
 */
import { AbortError, isAbortError } from '../core/abort';
import { ProseSplitStream, type ProseSpans } from '../core/fragment';
import { EXACT_MAX_FRAGMENTS, semanticNeighbours } from '../core/relations/semantic';
import { semanticNeighboursParallel } from '../core/relations/semantic-parallel';
import { singleDocument } from '../core/relations/segments';
import { labelFragments } from '../core/sections';
import { buffersOf } from '../core/transfer';
import type { CsrMatrix, VectorSet } from '../core/types';
import { createCheckpoint } from '../ingest/abort';
import type { IngestedDocument } from '../ingest/types';
import type { EmbedderSpec } from '../models/embedder';
import type {
  EmbedRequest,
  EmbedResult,
  IndexContext,
  IndexDependencies,
  IndexRequest,
  IndexResult,
  IndexSource,
} from './types';

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
  ctx: IndexContext,
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
  ctx: IndexContext,
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

export async function relate(
  deps: IndexDependencies,
  vectors: VectorSet,
  k: number,
  ctx: IndexContext,
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

export async function embedTexts(
  deps: IndexDependencies,
  text: string,
  starts: Uint32Array,
  ends: Uint32Array,
  spec: EmbedderSpec,
  ctx: IndexContext,
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
  ctx: IndexContext,
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

export async function indexBook(
  deps: IndexDependencies,
  req: IndexRequest,
  ctx: IndexContext,
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

export async function embed(
  deps: IndexDependencies,
  req: EmbedRequest,
  ctx: IndexContext,
): Promise<EmbedResult> {
  const result = await embedAndRelate(deps, req.text, req.starts, req.ends, req, ctx);
  const { vectors, semantic } = result;
  ctx.transfer(buffersOf(vectors.data, semantic.rowPtr, semantic.col, semantic.weight));
  return result;
}
