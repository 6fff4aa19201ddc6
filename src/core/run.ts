/**
 * @file A retrieval run over the documents a question asks about: their stored indexes laid
 * out one after another (relations never cross a document), independent scores by mode
 * (Eq. 4), then FragRel (Eq. 9-11) with explanations for the fragments the panel lists.
 *
 * Relation kinds: 'context' (Eq. 7, implicit), 'semantic' (Eq. 6, stored kNN), 'code' (Eq. 8,
 * the code-structure relation stored for repositories) and 'ppr' (personalised PageRank over the
 * context edges, relations/ppr.ts, built per query from the segments) and 'section' (fragments
 * under the same heading, from their labels, relations/section.ts). A run may mix books and repositories:
 * the code relation then has empty rows for the books' fragments (Eq. 9 gives them 0), while the
 * semantic relation needs every document to have one.
 *
 * Code completion excludes windows from the ranking (the window holding the cursor, whose text
 * is the query itself): they keep lending their scores to their neighbours in Eq. 9 but are
 * never listed or selected. Code selects by count (`maxSelected`, the paper's top 10 windows).
 *
 * Re-ranking (alpha, w_rel, relation kinds, budget) reuses the independent scores and the
 * stored relations: it is a few linear passes, never a re-embedding.
 */
import { bm25IndexOfPieces, bm25Scores, rescaleByMax, type Bm25Index } from './bm25';
import { walkWeights } from './code/references';
import { selectWindowSpans, type WindowRef, type WindowSpan } from './code/spans';
import { explain, fragRelScores, selectByBudget } from './fragrel';
import { topK } from './heap';
import { hybridScores } from './hybrid';
import { defaultFragRelOptions, type HybridOptions } from './options';
import { contextRelation } from './relations/context';
import { csrRelation } from './relations/csr';
import { pprGraph, pprRelation } from './relations/ppr';
import { sectionIds, sectionRelation } from './relations/section';
import { RELATION_KINDS, type RelationKind } from './relations/kinds';
import { fragmentPieces } from './fragment-tokens';
import { tokenize } from './tokenize';
import type { CsrMatrix, Explanation, Relation, ScoreSet, Selection, VectorSet } from './types';
import { cosineScores } from './vectors';

/** What a run needs of one document's stored index. */
export interface RunDocumentIndex {
  docId: string;
  name: string;
  source: string;
  starts: Uint32Array;
  ends: Uint32Array;
  /** Words per fragment: the budget's cost unit. */
  words: Uint32Array;
  labels: readonly string[];
  /** Fragment vectors of the active embedder (needed for dense and hybrid scoring). */
  vectors?: VectorSet;
  /** The document's semantic kNN relation (Eq. 6), document-local indices. */
  semantic?: CsrMatrix;
  /** A repository's code-structure relation (Eq. 8), document-local indices. */
  code?: CsrMatrix;
  /**
   * refs[j] of each window (code/references.ts), stored beside the code relation; absent for a
   * repository indexed before they were stored (its multi-hop walk is then unweighted).
   */
  codeReferences?: Float32Array;
  /**
   * Each window's scope names (code/scopes.ts), stored beside the code relation and read by BM25
   * with the window's text; absent for a repository indexed before they were stored (BM25 then
   * reads the text alone, as it did).
   */
  codeScopes?: readonly string[];
}

export type ScoringMode = 'dense' | 'bm25' | 'hybrid';
/** The relation kinds a run builds: the table in relations/kinds.ts. */
export type RunRelationKind = RelationKind;

export interface Run {
  documents: {
    docId: string;
    name: string;
    offset: number;
    count: number;
    /** A repository whose multi-hop walk weights edges by reference counts. */
    referenceWeighted?: boolean;
    /** A repository whose windows BM25 reads with their stored scope names (code/scopes.ts). */
    scopeNames?: boolean;
  }[];
  /** Document boundaries: fragments [segments[d], segments[d + 1]) belong to document d. */
  segments: Uint32Array;
  size: number;
  starts: Uint32Array;
  ends: Uint32Array;
  costs: Uint32Array;
  labels: string[];
  /** Concatenated fragment vectors, or null when a document has none. */
  vectors: VectorSet | null;
  /** Concatenated semantic relation, or null when a document has none. */
  semantic: CsrMatrix | null;
  /** Concatenated code relation (empty rows for documents without one), or null when none has. */
  code: CsrMatrix | null;
  /**
   * The code relation as the multi-hop relation walks it: each edge i → j weighted by
   * 1 + γ ln(1 + refs[j]) and squared where the document stored reference counts
   * (code/references.ts, walkWeights), as stored otherwise.
   */
  pprCode: CsrMatrix | null;
  /** BM25 index over the run's fragments, built on first use (IDF spans the whole run). */
  bm25: Bm25Index | null;
  /**
   * Per document: its windows' scope names (code/scopes.ts), which BM25 reads with each window's
   * text, or null (a book, or a repository stored without them).
   */
  scopeNames: (readonly string[] | null)[];
  /** Source text of each document, in run order. */
  sources: readonly string[];
  /**
   * The relations of the last re-rank, one per kind with the w_rel it was built with: a
   * slider move reuses them (the multi-hop graph of a large repository takes seconds to build,
   * and its walk is kept with it for the same independent scores).
   */
  relationCache?: Map<RunRelationKind, { wRel: number; relation: Relation }>;
  /** The fragments as code windows (runWindows), parsed from the labels on the first re-rank. */
  windows?: (WindowRef | null)[];
}

/** Lay the documents out one after another. */
export function buildRun(docs: readonly RunDocumentIndex[]): Run {
  const segments = new Uint32Array(docs.length + 1);
  for (let d = 0; d < docs.length; d++) segments[d + 1] = segments[d] + docs[d].starts.length;
  const size = segments[docs.length];
  const starts = new Uint32Array(size);
  const ends = new Uint32Array(size);
  const costs = new Uint32Array(size);
  const labels: string[] = new Array(size);
  docs.forEach((doc, d) => {
    const at = segments[d];
    starts.set(doc.starts, at);
    ends.set(doc.ends, at);
    costs.set(doc.words, at);
    for (let i = 0; i < doc.labels.length; i++) labels[at + i] = doc.labels[i];
  });
  for (let i = 0; i < size; i++) labels[i] ??= '';
  return {
    documents: docs.map((doc, d) => ({
      docId: doc.docId,
      name: doc.name,
      offset: segments[d],
      count: segments[d + 1] - segments[d],
      ...(doc.code
        ? { referenceWeighted: referenceWeighted(doc), scopeNames: scopeNamesFit(doc) }
        : {}),
    })),
    segments,
    size,
    starts,
    ends,
    costs,
    labels,
    vectors: concatVectors(docs),
    semantic: docs.every((d) => d.semantic) ? concatCsr(docs, segments, (d) => d.semantic) : null,
    code: docs.some((d) => d.code) ? concatCsr(docs, segments, (d) => d.code) : null,
    pprCode: docs.some((d) => d.code)
      ? concatCsr(docs, segments, (d) =>
          d.code && referenceWeighted(d) ? walkWeights(d.code, d.codeReferences!) : d.code,
        )
      : null,
    bm25: null,
    scopeNames: docs.map((d) => (scopeNamesFit(d) ? d.codeScopes! : null)),
    sources: docs.map((d) => d.source),
  };
}

/** Whether a repository's stored scope names fit its windows. */
function scopeNamesFit(doc: RunDocumentIndex): boolean {
  return !!doc.codeScopes && doc.codeScopes.length === doc.starts.length;
}

/** Whether a repository's stored reference counts fit its code relation. */
function referenceWeighted(doc: RunDocumentIndex): boolean {
  return !!doc.code && doc.codeReferences?.length === doc.code.size;
}

function concatVectors(docs: readonly RunDocumentIndex[]): VectorSet | null {
  if (docs.length === 0 || docs.some((d) => !d.vectors)) return null;
  const dim = docs[0].vectors!.dim;
  if (docs.some((d) => d.vectors!.dim !== dim)) return null;
  if (docs.length === 1) {
    const v = docs[0].vectors!;
    return { dim, count: v.count, data: v.data.subarray(0, v.count * dim) };
  }
  const count = docs.reduce((n, d) => n + d.vectors!.count, 0);
  const data = new Float32Array(count * dim);
  let at = 0;
  for (const d of docs) {
    data.set(d.vectors!.data.subarray(0, d.vectors!.count * dim), at);
    at += d.vectors!.count * dim;
  }
  return { dim, count, data };
}

/** One relation over the run: each document's block at its offset; a missing one has empty rows. */
function concatCsr(
  docs: readonly RunDocumentIndex[],
  segments: Uint32Array,
  pick: (doc: RunDocumentIndex) => CsrMatrix | undefined,
): CsrMatrix | null {
  if (docs.length === 0) return null;
  const only = docs.length === 1 ? pick(docs[0]) : undefined;
  if (only && only.size === segments[1]) {
    // One document: its own matrix, not a copy of it (the run never writes into it).
    return { size: only.size, rowPtr: only.rowPtr, col: only.col, weight: only.weight };
  }
  const size = segments[docs.length];
  const nnz = docs.reduce((n, d) => n + (pick(d)?.col.length ?? 0), 0);
  const rowPtr = new Uint32Array(size + 1);
  const col = new Uint32Array(nnz);
  const weight = new Float32Array(nnz);
  let at = 0;
  docs.forEach((doc, d) => {
    const m = pick(doc);
    const offset = segments[d];
    const count = segments[d + 1] - offset;
    if (m && m.size !== count) {
      throw new Error(
        `FragRel: a stored relation of “${doc.name}” covers ${m.size} fragments, the document ${count}; index it again.`,
      );
    }
    for (let i = 0; i < count; i++) rowPtr[offset + i + 1] = at + (m ? m.rowPtr[i + 1] : 0);
    if (!m) return;
    for (let p = 0; p < m.col.length; p++) col[at + p] = m.col[p] + offset;
    weight.set(m.weight, at);
    at += m.col.length;
  });
  return { size, rowPtr, col, weight };
}

/** The BM25 index over every fragment of the run, built on first use (IDF spans the run). */
export function runBm25(run: Run): Bm25Index {
  if (!run.bm25) {
    // Each document's fragments cut into pieces, their overlaps tokenized and looked up once
    // (fragment-tokens.ts): the same index as tokenizing every fragment whole.
    const pieces: (readonly string[])[] = [];
    const pieceStart = new Uint32Array(run.size + 1);
    const pieceIds: number[] = [];
    run.documents.forEach((doc, d) => {
      const from = doc.offset;
      const to = doc.offset + doc.count;
      const own = fragmentPieces(
        run.sources[d],
        run.starts.subarray(from, to),
        run.ends.subarray(from, to),
      );
      const base = pieces.length;
      for (const piece of own.pieces) pieces.push(piece);
      const scopes = run.scopeNames[d] ?? null;
      for (let i = from; i < to; i++) {
        for (let k = own.pieceStart[i - from]; k < own.pieceStart[i - from + 1]; k++) {
          pieceIds.push(base + own.pieceIds[k]);
        }
        // A window's scope names are one more piece of it (BM25 counts a fragment's pieces).
        const names = scopes?.[i - from];
        if (names) {
          pieceIds.push(pieces.length);
          pieces.push(tokenize(names));
        }
        pieceStart[i + 1] = pieceIds.length;
      }
    });
    run.bm25 = bm25IndexOfPieces(pieces, pieceStart, Uint32Array.from(pieceIds));
  }
  return run.bm25;
}

/** Eq. 4 for every fragment of the run. Dense and hybrid need `queryVector`. */
export function runIndependentScores(
  run: Run,
  query: { tokens: readonly string[]; vector?: Float32Array },
  mode: ScoringMode,
  hybrid?: Partial<HybridOptions>,
): Float64Array {
  if (mode === 'bm25') return rescaleByMax(bm25Scores(runBm25(run), query.tokens));
  if (!run.vectors || !query.vector) {
    throw new Error(
      'FragRel: dense scoring needs fragment vectors and a query vector; index the documents with an embedder first, or choose BM25.',
    );
  }
  const cosine = cosineScores(run.vectors, query.vector);
  if (mode === 'dense') return cosine;
  return hybridScores(bm25Scores(runBm25(run), query.tokens), cosine, hybrid);
}

export interface RankOptions {
  alpha: number;
  wRel: number;
  relations: readonly RunRelationKind[];
  budget: number;
  /** How many fragments the ranked list shows (with explanations). */
  listed: number;
  contributorsPerKind: number;
  /** Eq. 11: at most this many fragments (code: the top 10 windows; Infinity: the budget alone). */
  maxSelected: number;
  /**
   * Fragments kept out of the ranking (code completion: the windows holding the cursor). They
   * still count as neighbours in Eq. 9, but are never listed or selected.
   */
  exclude: ArrayLike<number>;
  /**
   * Code: select windows by new lines and merge overlapping ones into spans (code/spans.ts), the
   * budget being `maxSelected` windows of `windowLines` lines. Off: Eq. 11 over whole fragments.
   */
  mergeWindows: boolean;
  windowLines: number;
}

export const defaultRankOptions: Readonly<RankOptions> = Object.freeze({
  alpha: defaultFragRelOptions.alpha,
  wRel: defaultFragRelOptions.wRel,
  relations: Object.freeze(['context'] as RunRelationKind[]),
  budget: defaultFragRelOptions.budget,
  listed: 40,
  contributorsPerKind: defaultFragRelOptions.contributorsPerKind,
  maxSelected: defaultFragRelOptions.maxSelected,
  exclude: Object.freeze([]) as ArrayLike<number>,
  mergeWindows: false,
  windowLines: 20,
});

export interface RankedRun {
  scores: ScoreSet;
  selection: Selection;
  /** The `listed` best fragments by final score, selected or not. */
  top: Uint32Array;
  /** Explanations of every fragment in `top` and every selected fragment. */
  explanations: Map<number, Explanation>;
  /** Final score of the lowest-ranked selected fragment (0 when none). */
  cutoff: number;
  /** With `mergeWindows`: the selected windows merged per file, and the windows left as repeats. */
  spans?: WindowSpan[];
  duplicateOf?: Map<number, number>;
}

/** The run's fragments as code windows (null where a label is not `path:first-last`). */
export function runWindows(run: Pick<Run, 'documents' | 'labels'>): (WindowRef | null)[] {
  const out: (WindowRef | null)[] = new Array(run.labels.length).fill(null);
  for (const d of run.documents) {
    for (let i = d.offset; i < d.offset + d.count; i++) {
      const w = parseWindowLabel(run.labels[i]);
      if (w) out[i] = { file: `${d.docId}\u0000${w.path}`, first: w.first, last: w.last };
    }
  }
  return out;
}

/** The relations a run uses for the given kinds. A kind whose data is missing is left out. */
export function runRelations(
  run: Run,
  kinds: readonly RunRelationKind[],
  wRel: number,
): Relation[] {
  const out: Relation[] = [];
  for (const kind of kinds) {
    const relation = cachedRelation(run, kind, wRel);
    if (relation) out.push(relation);
  }
  return out;
}

/** The run's relation of one kind, built once per w_rel (null when its data is missing). */
function cachedRelation(run: Run, kind: RunRelationKind, wRel: number): Relation | null {
  run.relationCache ??= new Map();
  const hit = run.relationCache.get(kind);
  if (hit && (hit.wRel === wRel || !RELATION_KINDS[kind].usesWRel)) return hit.relation;
  const relation = buildRelation(run, kind, wRel);
  if (relation) run.relationCache.set(kind, { wRel, relation });
  return relation;
}

/**
 * How each kind of the table (relations/kinds.ts) is built for a run, given w_rel; null when the
 * run lacks its data (no stored semantic or code rows). Typed by the table, so a kind without a
 * builder does not compile.
 */
const relationBuilders: { [K in RelationKind]: (run: Run, wRel: number) => Relation | null } = {
  context: (run, wRel) => contextRelation(run.segments, wRel),
  semantic: (run) => (run.semantic ? csrRelation('semantic', run.semantic) : null),
  code: (run) => (run.code ? csrRelation('code', run.code) : null),
  ppr: (run, wRel) => {
    // The multi-hop relation (relations/ppr.ts) over the graph each kind of document was
    // measured best with: books over the context edges (radius 2, the run's w_rel;
    // bench/quality.ts), repositories over the code relation's edges alone ("ppr (code
    // graph)", bench/repoeval.ts), weighted by reference counts where they are stored and
    // squared ("ppr (code graph) refs, walk w^2", code/references.ts). A document with code rows
    // is a repository.
    const code = run.pprCode;
    const contextIn = run.documents.map(
      (d) => !code || code.rowPtr[d.offset + d.count] === code.rowPtr[d.offset],
    );
    const graph = pprGraph(run.segments, code ? [code] : [], { radius: 2, wRel, contextIn });
    return pprRelation(graph, { wRel });
  },
  // Fragments under the same heading or chapter (their labels, core/sections.ts) are related
  // with equal weights (relations/section.ts; uniform measured in bench/quality.ts).
  section: (run) => sectionRelation(sectionIds(run.segments, run.labels)),
};

function buildRelation(run: Run, kind: RunRelationKind, wRel: number): Relation | null {
  return relationBuilders[kind]?.(run, wRel) ?? null;
}

/** The fragments of the run not in `exclude`, ascending (all of them when nothing is excluded). */
function rankable(size: number, exclude: ArrayLike<number>): Uint32Array | null {
  if (exclude.length === 0) return null;
  const out = new Uint8Array(size);
  for (let k = 0; k < exclude.length; k++) {
    const i = exclude[k];
    if (Number.isInteger(i) && i >= 0 && i < size) out[i] = 1;
  }
  const keep: number[] = [];
  for (let i = 0; i < size; i++) if (!out[i]) keep.push(i);
  return Uint32Array.from(keep);
}

/** Eq. 9-11 over the run from given independent scores; cheap enough to run per slider move. */
export function rankRun(
  run: Run,
  independent: Float64Array,
  options: Partial<RankOptions> = {},
  reuse?: ScoreSet,
): RankedRun {
  const o = { ...defaultRankOptions, ...options };
  const relations = runRelations(run, o.relations, o.wRel);
  const scores = fragRelScores(independent, relations, { alpha: o.alpha }, reuse);
  const keep = rankable(run.size, o.exclude);
  let selection: Selection;
  let top: Uint32Array;
  let merged: ReturnType<typeof selectWindowSpans> | undefined;
  if (o.mergeWindows) {
    run.windows ??= runWindows(run);
    merged = selectWindowSpans(scores.final, run.windows, {
      maxWindows: o.maxSelected,
      windowLines: o.windowLines,
      exclude: o.exclude,
    });
    selection = merged.selection;
    top = keep
      ? topK(
          Float64Array.from(keep, (i) => scores.final[i]),
          o.listed,
        ).map((k) => keep[k])
      : topK(scores.final, o.listed);
  } else if (!keep) {
    selection = selectByBudget(scores.final, run.costs, o.budget, { maxSelected: o.maxSelected });
    top = topK(scores.final, o.listed);
  } else {
    // Rank the kept fragments only, then map back (keep is ascending: document order holds).
    const final = Float64Array.from(keep, (i) => scores.final[i]);
    const costs = Uint32Array.from(keep, (i) => run.costs[i]);
    const sub = selectByBudget(final, costs, o.budget, { maxSelected: o.maxSelected });
    selection = {
      ...sub,
      indices: sub.indices.map((k) => keep[k]),
      ranked: sub.ranked.map((k) => keep[k]),
    };
    top = topK(final, o.listed).map((k) => keep[k]);
  }
  const explanations = new Map<number, Explanation>();
  top.forEach((i, rank) =>
    explanations.set(i, explain(i, rank, scores, relations, o.contributorsPerKind)),
  );
  selection.ranked.forEach((i, r) => {
    if (!explanations.has(i)) {
      explanations.set(
        i,
        explain(i, selection.ranks?.[r] ?? r, scores, relations, o.contributorsPerKind),
      );
    }
  });
  const last = selection.ranked[selection.ranked.length - 1];
  return {
    scores,
    selection,
    top,
    explanations,
    cutoff: last === undefined ? 0 : scores.final[last],
    ...(merged && { spans: merged.spans, duplicateOf: merged.duplicateOf }),
  };
}

/** A code window's label `path:first-last` (1-based inclusive lines), or null for other labels. */
export function parseWindowLabel(
  label: string,
): { path: string; first: number; last: number } | null {
  const m = /^(.*):(\d+)-(\d+)$/s.exec(label);
  if (!m || m[1] === '') return null;
  return { path: m[1], first: Number(m[2]), last: Number(m[3]) };
}

/**
 * The run's code windows of file `path` in document `docId` whose lines overlap [first, last]
 * (1-based, inclusive), ascending. Code completion excludes these around the cursor.
 */
export function windowsOverlapping(
  run: Pick<Run, 'documents' | 'labels'>,
  docId: string,
  path: string,
  first: number,
  last: number,
): number[] {
  const doc = run.documents.find((d) => d.docId === docId);
  if (!doc) return [];
  const out: number[] = [];
  for (let i = doc.offset; i < doc.offset + doc.count; i++) {
    const w = parseWindowLabel(run.labels[i]);
    if (w && w.path === path && w.first <= last && w.last >= first) out.push(i);
  }
  return out;
}
