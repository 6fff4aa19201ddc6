/**
 * @file Indexing a repository (`indexRepository`): a dropped .zip or folder is read
 * (src/ingest/repo.ts: the skip report comes back with the result, also when nothing could be
 * read), parsed with tree-sitter, split into 20-line windows sliding by 10 (labels `path:11-30`),
 * embedded with the active embedder (so dense and hybrid scoring work too), then the code graph
 * and the code relation (Eq. 8, CSR, at most `maxPerRow` weights per window) are built, and the
 * semantic kNN relation as for books (book.ts). Progress stages: read, parse, split, embed,
 * graph, relate. `relateCode` rebuilds a stored repository's code relation alone.
 *
 * What is NOT stored: the code graph. Each file's parse is stored (schema v8, `codeSyntax`) only
 * so that a newer drop of the repository re-parses just the changed files (src/ingest/reindex.ts:
 * `previous` in the request). The graph explanation of a window is re-derived where it is asked
 * for (the retrieval worker) from the stored text and file list by parsing again (code-index.ts),
 * so an explanation is always that of the current graph code; the price is one parse of the
 * repository per session, the first time a window is explained (docs/code.md).
 *
 * Cancelling: the parse, read and embed stages stop at their next checkpoint. The relation build
 * is one synchronous loop; it polls `cancelFlag` (a SharedArrayBuffer the UI sets, available
 * when the page is cross-origin isolated) besides the signal, since a cancel message cannot be
 * delivered while the loop runs. Without the flag the UI still drops the result at once.
 */
import { AbortError } from '../core/abort';
import type { CodeGraph } from '../core/code/graph';
import type { WindowCover } from '../core/code/cover';
import { fileText, repositoryWindows } from '../core/code/layout';
import { defaultCodeRelationOptions, type CodeRelationOptions } from '../core/code/options';
import { windowReferenceCounts } from '../core/code/references';
import { windowScopeNames } from '../core/code/scopes';
import {
  summaryCodeRelationMatrix,
  summaryCodeRelationState,
  summaryRowRanges,
} from '../core/code/summary';
import { buffersOf } from '../core/transfer';
import type { CsrMatrix, Progress, VectorSet } from '../core/types';
import {
  ingestRepositoryFolder,
  ingestRepositoryZip,
  type RepoIngestResult,
  type SkippedFile,
} from '../ingest/repo';
import { assembleVectors, parseChangedFiles, parsesToStore, reusableRows } from '../ingest/reindex';
import { fitRelation, fitRowBlocks } from '../ingest/storable';
import type { CodeParser } from '../models/code-syntax';
import { embedTexts, relate } from './book';
import {
  buildCodeIndex,
  graphOf,
  parseFiles,
  parseFilesOnPool,
  repositoryLayout,
} from './code-index';
import {
  POOL_MIN_FILES,
  POOL_MIN_WINDOWS,
  poolFor,
  shareArrays,
  TASKS_PER_MEMBER,
  type IndexPool,
} from './pool';
import type {
  IndexApi,
  IndexContext,
  IndexDependencies,
  IndexRepositoryRequest,
  IndexRepositoryResult,
  RelateCodeRequest,
  RepositoryFileSpan,
  RepositoryReport,
  RepositorySource,
} from './types';

/** The ingest's skip report plus what the drop handler left out itself, in path order. */
function allSkipped(source: RepositorySource, skipped: readonly SkippedFile[]): SkippedFile[] {
  const extra = 'folder' in source ? (source.folder.skipped ?? []) : [];
  if (extra.length === 0) return [...skipped];
  return [...skipped, ...extra].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
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
  ctx: IndexContext,
  cancelFlag: Int32Array | undefined,
  report: (done: number, total: number) => void,
  poolIn?: IndexPool,
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
  ctx: IndexContext,
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

export async function indexRepository(
  deps: IndexDependencies,
  parser: () => CodeParser,
  req: IndexRepositoryRequest,
  ctx: IndexContext,
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
  // Scope names, which BM25 reads with each window (the retrieval worker has no syntax).
  const codeScopes = windowScopeNames(graph, cover);
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
    codeScopes,
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

export async function relateCode(
  deps: IndexDependencies,
  parser: () => CodeParser,
  req: RelateCodeRequest,
  ctx: IndexContext,
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
  const codeScopes = windowScopeNames(index.graph, index.cover);
  ctx.transfer(buffersOf(code.rowPtr, code.col, code.weight, codeReferences));
  return { code, codeParams, codeReferences, codeScopes, relateMs: performance.now() - t0 };
}
