/// <reference lib="webworker" />
/**
 * @file The retrieval worker: answers a question over documents of the library. It reads the
 * stored indexes from IndexedDB itself (no large copies through the UI thread) and keeps them,
 * and the last question's independent scores, so moving alpha, w_rel, the relation kinds or the
 * budget re-ranks without re-embedding or re-reading anything.
 *
 * Repositories: the stored code relation (Eq. 8) is one more relation kind; a completion's
 * cursor keeps the windows around it out of the ranking; code selects by count (top 10). The
 * graph neighbourhood of a window (`explainWindow`) needs the code graph, which is not stored:
 * it is rebuilt here from the stored text by parsing the repository again, once per session
 * and repository (src/indexing/repo.ts says why).
 */
import {
  explainCodeWindow,
  type CodeNodeSummary,
  type WindowNeighbourhood,
} from '../core/code/explain';
import {
  rankRun,
  buildRun,
  runBm25,
  runRelations,
  runIndependentScores,
  windowsOverlapping,
  type Run,
  type RunDocumentIndex,
} from '../core/run';
import { chooseScoring, zeroRowShare, type ScoringChoice } from '../core/script/fallback';
import { STOP_WORDS } from '../core/stopwords';
import { queryTerms } from '../core/retrieval/query';
import { tokenize } from '../core/tokenize';
import { CodeParser } from '../models/code-syntax';
import { loadEmbedder, type EmbedderSpec } from '../models/embedder';
import { browserGrammarSource } from '../models/tree-sitter-browser';
import { openLibrary, relationParamsKey, type Library } from '../store';
import { serveWorker, type HandlerContext } from './host';
import { buildCodeIndex, repositoryLayout, type CodeIndex } from '../indexing/code-index';
import { buffersOf } from './protocol';
import { semanticParams } from './retrieval-params';
import { SingleFlight } from './single-flight';
import {
  COMPLETION_QUERY_LINES,
  codeRelationParams,
  documentOf,
  type CompletionCursor,
  type RetrievalResult,
  type RetrievalSettings,
} from './retrieval-types';
import { tuneDocument, type TuneRequest, type TuneResult } from './tune-handler';

export interface QueryRequest {
  question: string;
  docIds: string[];
  embedder: EmbedderSpec;
  /** Neighbours per fragment the semantic relation was built with. */
  semanticK: number;
  settings: RetrievalSettings;
  /** Fragments the ranked list shows. */
  listed?: number;
  /** Eq. 11 by count (code: the top 10 windows); the budget alone when absent. */
  maxSelected?: number;
  /** A code completion's cursor: the windows around it are kept out of the ranking. */
  cursor?: CompletionCursor;
  /** Code: select by new lines and merge overlapping windows into spans (core/code/spans.ts). */
  mergeWindows?: boolean;
  /**
   * The `layout` of a result the caller keeps: when it is still the run's, the labels are left
   * out of the answer (`labelsOmitted`), as they are the same (94,378 strings per slider move on
   * a million-line repository).
   */
  layout?: string;
}

/**
 * Get a question's documents ready before it is asked: read their indexes, build the run, its
 * BM25 index and the relations of `settings` (the multi-hop graph of a large repository), so
 * the first question only scores and walks. A question asked meanwhile waits for the same work.
 */
export type PrepareRequest = Pick<QueryRequest, 'docIds' | 'embedder' | 'semanticK' | 'settings'>;

export interface PrepareResult {
  /** Time spent here (0 when everything was already prepared). */
  ms: number;
  loadMs: number;
  bm25Ms: number;
  relationsMs: number;
}

export interface ExplainWindowRequest {
  docId: string;
  /** The window's index in its document (not in the run). */
  window: number;
  /** Most neighbours listed. */
  limit?: number;
}

export interface ExplainWindowResult {
  neighbourhood: WindowNeighbourhood;
  /** Every node on the neighbours' paths, for naming the steps. */
  nodes: CodeNodeSummary[];
  /** Time to parse and graph the repository (0 when it was already built this session). */
  buildMs: number;
}

export interface RetrievalApi {
  ping: { payload: null; result: { pong: true; crossOriginIsolated: boolean } };
  query: { payload: QueryRequest; result: RetrievalResult };
  /** Read and build what a first question over these documents needs (PrepareRequest). */
  prepare: { payload: PrepareRequest; result: PrepareResult };
  /** The graph neighbourhood behind a code window's relations (Eq. 8). */
  explainWindow: { payload: ExplainWindowRequest; result: ExplainWindowResult };
  /** Tune relations, alpha and w_rel for one document on pseudo-questions or labels (tune-handler.ts). */
  tune: { payload: TuneRequest; result: TuneResult };
  /** Drop cached indexes (after a document is re-indexed or deleted). */
  forget: { payload: { docIds?: string[] }; result: null };
}

let library: Promise<Library> | null = null;
const docs = new Map<string, Promise<RunDocumentIndex>>();
/** The run of the last question; its key ends with a serial, new for every run built. */
let lastRun: { key: string; run: Run } | null = null;
let runSerial = 0;
/** Runs being built, by generation and key: concurrent callers (prepare, a question) share one. */
const runsInFlight = new SingleFlight<{ key: string; run: Run }>();
/** Bumped by `forget`: a run built from what was forgotten is not kept. */
let runGeneration = 0;
let lastScores: { key: string; independent: Float64Array; choice: ScoringChoice } | null = null;

function openStore(): Promise<Library> {
  library ??= openLibrary();
  return library;
}

async function loadDocument(
  docId: string,
  embedderId: string,
  k: number,
): Promise<RunDocumentIndex> {
  const lib = await openStore();
  const index = await lib.loadDocumentIndex(docId, embedderId);
  if (!index)
    throw new Error('A document of this question is no longer in the library. Reload the page.');
  const key = relationParamsKey(semanticParams(embedderId, k));
  const semantic = index.relations.find(
    (r) => r.kind === 'semantic' && r.paramsKey === key,
  )?.matrix;
  const codeKey = relationParamsKey(codeRelationParams());
  const codeRelation = index.relations.find((r) => r.kind === 'code' && r.paramsKey === codeKey);
  const code = codeRelation?.matrix;
  const { fragments, source } = index;
  const words =
    fragments.words ??
    Uint32Array.from(
      fragments.starts,
      (s, i) => source.slice(s, fragments.ends[i]).split(/\s+/).filter(Boolean).length,
    );
  return {
    docId,
    name: index.document.name,
    source,
    starts: fragments.starts,
    ends: fragments.ends,
    words,
    labels: fragments.labels,
    vectors: index.vectors,
    semantic,
    code,
    // Reference counts: absent for repositories indexed before they were stored.
    ...(codeRelation?.references ? { codeReferences: codeRelation.references } : {}),
    // Scope names: absent for repositories indexed before they were stored.
    ...(codeRelation?.scopes ? { codeScopes: codeRelation.scopes } : {}),
  };
}

async function getRun(
  req: Pick<QueryRequest, 'docIds' | 'embedder' | 'semanticK'>,
): Promise<{ key: string; run: Run }> {
  const key = JSON.stringify([req.docIds, req.embedder.id, req.semanticK]);
  if (lastRun?.key.startsWith(`${key}#`)) return lastRun;
  // A question asked while `prepare` still reads the documents waits for the same run: two runs
  // built side by side each built BM25 and the multi-hop graph (the first question, asked the
  // moment a million-line repository was listed, paid for both).
  const generation = runGeneration;
  return runsInFlight.run(`${generation}\u0000${key}`, async () => {
    const loaded = await Promise.all(
      req.docIds.map((id) => {
        const cacheKey = `${id}\u0000${req.embedder.id}\u0000${req.semanticK}`;
        let p = docs.get(cacheKey);
        if (!p) {
          p = loadDocument(id, req.embedder.id, req.semanticK);
          docs.set(cacheKey, p);
          p.catch(() => docs.delete(cacheKey));
        }
        return p;
      }),
    );
    const built = { key: `${key}#${++runSerial}`, run: buildRun(loaded) };
    if (generation === runGeneration) {
      lastRun = built;
      lastScores = null;
    }
    return built;
  });
}

async function query(req: QueryRequest, ctx: HandlerContext): Promise<RetrievalResult> {
  if (req.docIds.length === 0) throw new Error('Tick at least one document to ask.');
  const { key: runKey, run } = await getRun(req);
  const { settings } = req;
  const contentOnly = settings.queryWords === 'content';
  const tokens = contentOnly ? queryTerms(req.question) : tokenize(req.question);

  const t0 = performance.now();
  const scoreKey = JSON.stringify([runKey, req.question, settings.scoring, contentOnly]);
  if (lastScores?.key !== scoreKey) {
    let vector: Float32Array | undefined;
    if (settings.scoring !== 'bm25') {
      const embedder = await loadEmbedder(req.embedder, { signal: ctx.signal });
      const text = contentOnly ? tokens.join(' ') : req.question;
      vector = await embedder.embed([text], { kind: 'query', signal: ctx.signal });
    }
    // An embedder without vectors for the text's language scores nothing: BM25 instead, said.
    const choice = chooseScoring(
      settings.scoring,
      'modelId' in req.embedder ? req.embedder.modelId : 'GloVe word vectors (static)',
      run.vectors ? zeroRowShare(run.vectors.data, run.vectors.dim) : 0,
      vector,
    );
    lastScores = {
      key: scoreKey,
      independent: runIndependentScores(run, { tokens, vector }, choice.scoring),
      choice,
    };
  }
  const { independent, choice } = lastScores;

  const t1 = performance.now();
  const cursor = req.cursor;
  const excluded = cursor
    ? windowsOverlapping(
        run,
        cursor.docId,
        cursor.path,
        cursor.line - COMPLETION_QUERY_LINES,
        cursor.line,
      )
    : [];
  const ranked = rankRun(run, independent, {
    alpha: settings.alpha,
    wRel: settings.wRel,
    relations: settings.relations,
    budget: settings.budget,
    listed: req.listed ?? 40,
    maxSelected: req.maxSelected ?? Infinity,
    exclude: excluded,
    mergeWindows: req.mergeWindows ?? false,
  });
  const t2 = performance.now();

  // Copies: the worker keeps its own arrays for the next re-rank, the copies are transferred.
  const result: RetrievalResult = {
    question: req.question,
    queryTerms: [...new Set(tokens.filter((t) => !STOP_WORDS.has(t)))],
    documents: run.documents,
    starts: run.starts.slice(),
    ends: run.ends.slice(),
    costs: run.costs.slice(),
    labels: req.layout === runKey ? [] : run.labels,
    layout: runKey,
    independent: independent.slice(),
    environmentByKind: ranked.scores.environmentByKind,
    environment: ranked.scores.environment,
    final: ranked.scores.final,
    selected: ranked.selection.indices,
    selectedRanked: ranked.selection.ranked,
    top: ranked.top,
    explanations: Object.fromEntries(ranked.explanations),
    cutoff: ranked.cutoff,
    used: ranked.selection.used,
    budget: ranked.selection.budget,
    settings,
    timings: { independentMs: t1 - t0, rerankMs: t2 - t1 },
    scoredBy: choice.scoring,
  };
  if (choice.notice) result.scoringNotice = choice.notice;
  if (req.layout === runKey) result.labelsOmitted = true;
  if (req.maxSelected !== undefined) result.maxSelected = req.maxSelected;
  if (cursor) result.excluded = Uint32Array.from(excluded);
  if (ranked.spans) {
    result.spans = ranked.spans.map((span) => {
      const doc = documentOf(run, span.best)!;
      let start = Infinity;
      let end = 0;
      for (const w of span.windows) {
        start = Math.min(start, run.starts[w]);
        end = Math.max(end, run.ends[w]);
      }
      const path = span.file.slice(span.file.indexOf('\u0000') + 1);
      return {
        docId: doc.docId,
        path,
        first: span.first,
        last: span.last,
        start,
        end,
        windows: span.windows,
        rank: span.rank,
        best: span.best,
      };
    });
    result.repeats = Object.fromEntries(ranked.duplicateOf ?? []);
  }
  ctx.transfer(
    buffersOf(
      result.starts,
      result.ends,
      result.costs,
      result.independent,
      result.environment,
      result.final,
      result.selected,
      result.selectedRanked,
      result.top,
      ...Object.values(result.environmentByKind),
    ),
  );
  return result;
}

async function prepare(req: PrepareRequest): Promise<PrepareResult> {
  const t0 = performance.now();
  const { run } = await getRun(req);
  const t1 = performance.now();
  const { settings } = req;
  if (settings.scoring !== 'dense' && run.bm25 === null) runBm25(run);
  const t2 = performance.now();
  runRelations(run, settings.relations, settings.wRel);
  const t3 = performance.now();
  return { ms: t3 - t0, loadMs: t1 - t0, bm25Ms: t2 - t1, relationsMs: t3 - t2 };
}

let parser: CodeParser | null = null;
const codeIndexes = new Map<string, Promise<CodeIndex>>();

/** The repository's code graph and window cover, parsed again from the stored text. */
async function codeIndexOf(docId: string, ctx: HandlerContext): Promise<CodeIndex> {
  let pending = codeIndexes.get(docId);
  if (!pending) {
    pending = (async () => {
      const lib = await openStore();
      const [doc, source, fragments] = await Promise.all([
        lib.getDocument(docId),
        lib.getSource(docId),
        lib.getFragments(docId),
      ]);
      if (!doc || source === undefined || !fragments) {
        throw new Error('This repository is no longer in the library. Reload the page.');
      }
      if (doc.kind !== 'code') throw new Error(`“${doc.name}” is not a code repository.`);
      const files = doc.sections
        .filter((s) => s.kind === 'file')
        .map((s) => ({ path: s.title, start: s.start, end: s.end }));
      parser ??= new CodeParser(browserGrammarSource);
      // Not cancellable by the caller: other callers may wait on the same build.
      const index = await buildCodeIndex(
        docId,
        repositoryLayout(source, files),
        parser,
        new AbortController().signal,
        ctx.progress,
      );
      if (index.windows.length !== fragments.count) {
        throw new Error(
          `The stored windows of “${doc.name}” do not match its files (${fragments.count} stored, ${index.windows.length} now). Remove the repository and add it again.`,
        );
      }
      return index;
    })();
    codeIndexes.set(docId, pending);
    pending.catch(() => codeIndexes.delete(docId));
  }
  return pending;
}

async function explainWindow(
  req: ExplainWindowRequest,
  ctx: HandlerContext,
): Promise<ExplainWindowResult> {
  const t0 = performance.now();
  const built = codeIndexes.has(req.docId);
  const index = await codeIndexOf(req.docId, ctx);
  const buildMs = built ? 0 : performance.now() - t0;
  const neighbourhood = explainCodeWindow(index.graph, index.cover, req.window, {
    limit: req.limit ?? 12,
    threshold: codeRelationParams().threshold,
  });
  const ids = new Set<number>();
  for (const n of neighbourhood.neighbours) {
    ids.add(n.from);
    for (const step of n.steps) ids.add(step.node);
  }
  const { nodes, files } = index.graph;
  return {
    neighbourhood,
    nodes: [...ids].map((id) => ({
      node: id,
      kind: nodes[id].kind,
      name: nodes[id].name,
      path: nodes[id].file >= 0 ? files[nodes[id].file].path : '',
      startLine: nodes[id].startLine,
      endLine: nodes[id].endLine,
    })),
    buildMs,
  };
}

serveWorker<RetrievalApi>(self as unknown as Parameters<typeof serveWorker>[0], {
  ping: () => ({ pong: true, crossOriginIsolated: self.crossOriginIsolated }),
  query,
  prepare,
  explainWindow,
  tune: async (req: TuneRequest, ctx: HandlerContext) =>
    tuneDocument(
      req,
      (await getRun({ docIds: [req.docId], embedder: req.embedder, semanticK: req.semanticK })).run,
      ctx,
    ),
  forget: ({ docIds }: { docIds?: string[] }) => {
    if (!docIds) {
      docs.clear();
      codeIndexes.clear();
    } else {
      for (const key of [...docs.keys()])
        if (docIds.some((id) => key.startsWith(`${id}\u0000`))) docs.delete(key);
      for (const id of docIds) codeIndexes.delete(id);
    }
    lastRun = null;
    lastScores = null;
    runGeneration++;
    runsInFlight.clear();
    return null;
  },
});
