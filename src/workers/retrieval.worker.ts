/// <reference lib="webworker" />
/**
 * @file The retrieval worker: answers a question over documents of the library. It reads the
 * stored indexes from IndexedDB itself (no large copies through the UI thread) and keeps them,
 * and the last question's independent scores, so moving alpha, w_rel, the relation kinds or the
 * budget re-ranks without re-embedding or re-reading anything.
 */
import {
  rankRun,
  buildRun,
  runIndependentScores,
  type Run,
  type RunDocumentIndex,
} from '../core/run';
import { STOP_WORDS } from '../core/stopwords';
import { tokenize } from '../core/tokenize';
import { loadEmbedder, type EmbedderSpec } from '../models/embedder';
import { openLibrary, relationParamsKey, type Library } from '../store';
import { serveWorker, type HandlerContext } from './host';
import { buffersOf } from './protocol';
import { semanticParams } from './retrieval-params';
import type { RetrievalResult, RetrievalSettings } from './retrieval-types';

export interface QueryRequest {
  question: string;
  docIds: string[];
  embedder: EmbedderSpec;
  /** Neighbours per fragment the semantic relation was built with. */
  semanticK: number;
  settings: RetrievalSettings;
  /** Fragments the ranked list shows. */
  listed?: number;
}

export interface RetrievalApi {
  [kind: string]: { payload: unknown; result: unknown };
  ping: { payload: null; result: { pong: true; crossOriginIsolated: boolean } };
  query: { payload: QueryRequest; result: RetrievalResult };
  /** Drop cached indexes (after a document is re-indexed or deleted). */
  forget: { payload: { docIds?: string[] }; result: null };
}

let library: Promise<Library> | null = null;
const docs = new Map<string, Promise<RunDocumentIndex>>();
let lastRun: { key: string; run: Run } | null = null;
let lastScores: { key: string; independent: Float64Array } | null = null;

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
  };
}

async function getRun(req: QueryRequest): Promise<{ key: string; run: Run }> {
  const key = JSON.stringify([req.docIds, req.embedder.id, req.semanticK]);
  if (lastRun?.key === key) return lastRun;
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
  lastRun = { key, run: buildRun(loaded) };
  lastScores = null;
  return lastRun;
}

async function query(req: QueryRequest, ctx: HandlerContext): Promise<RetrievalResult> {
  if (req.docIds.length === 0) throw new Error('Tick at least one document to ask.');
  const { key: runKey, run } = await getRun(req);
  const { settings } = req;
  const tokens = tokenize(req.question);

  const t0 = performance.now();
  const scoreKey = JSON.stringify([runKey, req.question, settings.scoring]);
  if (lastScores?.key !== scoreKey) {
    let vector: Float32Array | undefined;
    if (settings.scoring !== 'bm25') {
      const embedder = await loadEmbedder(req.embedder, { signal: ctx.signal });
      vector = await embedder.embed([req.question], { kind: 'query', signal: ctx.signal });
    }
    lastScores = {
      key: scoreKey,
      independent: runIndependentScores(run, { tokens, vector }, settings.scoring),
    };
  }
  const independent = lastScores.independent;

  const t1 = performance.now();
  const ranked = rankRun(run, independent, {
    alpha: settings.alpha,
    wRel: settings.wRel,
    relations: settings.relations,
    budget: settings.budget,
    listed: req.listed ?? 40,
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
    labels: run.labels,
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
  };
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

serveWorker(self as unknown as Parameters<typeof serveWorker>[0], {
  ping: () => ({ pong: true, crossOriginIsolated: self.crossOriginIsolated }),
  query: query as (payload: never, ctx: HandlerContext) => Promise<RetrievalResult>,
  forget: ({ docIds }: { docIds?: string[] }) => {
    if (!docIds) docs.clear();
    else
      for (const key of [...docs.keys()])
        if (docIds.some((id) => key.startsWith(`${id}\u0000`))) docs.delete(key);
    lastRun = null;
    lastScores = null;
    return null;
  },
});
