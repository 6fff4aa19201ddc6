/**
 * @file Eq. 8 at scale: the directory and file levels summarised once, shared by every window
 * below them; per-window searches only inside files and along calls (docs/method.md, "The code
 * relation at scale"; docs/scale.md section 4).
 *
 * Why: the exact build (relation.ts) runs one strongest-path search per covering node over the
 * whole graph, and with directory edges of 0.3 every search reaches most of a repository: O(nodes
 * x graph). A million lines took about 36 minutes that way.
 *
 * The decomposition. Let S(k, l) be Dis on the LOCAL graph (every edge but the directory ones:
 * syntax, file-root and call edges), U(k) = S(k, F_k) the strength from k up to its own file node,
 * and D(F, F') the directory-tree strength between two file nodes (w_dir^(tree hops); 1 for
 * F = F'; taken as 0 below the threshold, as Dis is). A path that uses directory edges leaves k's
 * file at F_k and enters l's at F_l, so its strength is U(k) D(F_k, F_l) U(l), and
 *
 *   Dis~(k, l) = max( S(k, l), U(k) D(F_k, F_l) U(l) ).                                   (8a)
 *
 * Putting (8a) into Eq. 8 with a_k = len_k / L_i, b_l = len_l / L_j and max(x, y) = y + max(0, x - y):
 *
 *   w~[i][j] = u_i D(F_i, F_j) u_j + sum_k a_k P_k[j],                                     (8b)
 *   u_i = sum_k a_k U(k),   P_k[j] = sum_{l in C(j)} b_l max(0, S(k, l) - U(k) D(F_k, F_l) U(l)).
 *
 * The first term is rank one per pair of files, the second is sparse (only nodes the local search
 * reaches). What (8a) leaves out, against Dis: paths whose directory walk starts or ends at a file
 * node other than k's or l's own (k calls into file G, then walks G's directory to l's file), and
 * paths with more than one directory walk; so Dis~ <= Dis there. And the threshold: Dis drops a
 * pair whose strength is below it, (8b) drops U(k) D U(l) only when D itself is below it, so each
 * weight can exceed Eq. 8's by less than the threshold. On a call-free repository (the graph is
 * then a tree) Dis~ = Dis and w~ equals Eq. 8 within the threshold (summary.test.ts asserts both).
 *
 * The strongest `maxPerRow` of a row, exactly for w~: the candidates are the windows the local
 * searches reach, every window of the row's own file, and, per ancestor directory d of F_i at h
 * hops and per depth t below it with w_dir^(h+t) >= threshold, the maxPerRow + 1 windows under d
 * at depth t with the largest u (best lists, merged bottom-up once per directory). A window in none
 * of them has only the rank-one term, and maxPerRow + 1 candidates at its ancestor and depth
 * (themselves at least as strong, their true D being at least that) beat or tie it.
 *
 * Cost: one local search per covering node (cached as in relation.ts) plus one per file for U, each
 * over a file and what its calls reach; per window O(candidates). Memory: the best lists (a few
 * per directory, maxPerRow + 1 entries each) and u.
 */
import type { CsrMatrix } from '../types';
import type { WindowCover } from './cover';
import { EDGE_DIRECTORY, type CodeGraph } from './graph';

export interface SummaryCodeRelationOptions extends CodeRelationBuildOptions {
  /**
   * Most nodes one local search settles, the strongest first (Infinity: all above the threshold).
   * Calls join most of a large repository into one component through widely called definitions
   * (a million lines of node_modules: median search 3 nodes, 90th percentile 47,000), so searches
   * are cut: a node left out has S at most the strength of the last one settled, so each weight
   * loses less than that (a weighted mean of the missed S). Default 128: on RepoEval the same
   * top 10 as Eq. 8 in all 118 tasks (as 1024 and uncut), and 8x faster than 1024 at a million
   * lines (docs/scale.md section 4).
   */
  searchLimit: number;
}

export const DEFAULT_SEARCH_LIMIT = 128;
import type { CodeEdgeWeights } from './options';
import {
  codeRelationLimits,
  CodeStrengths,
  contractCalls,
  dropProjections,
  keepStrongest,
  lastUses,
  RowStore,
  takeSparse,
  type CodeRelationBuildOptions,
  type ContractedGraph,
} from './relation';

/** The code graph without its directory edges (the local graph of (8a)). */
export function localGraph(graph: CodeGraph): CodeGraph {
  const n = graph.nodes.length;
  const { adjPtr, adjNode, adjWeight, adjKind } = graph;
  const ptr = new Uint32Array(n + 1);
  for (let v = 0; v < n; v++) {
    let d = 0;
    for (let p = adjPtr[v]; p < adjPtr[v + 1]; p++) if (adjKind[p] !== EDGE_DIRECTORY) d++;
    ptr[v + 1] = ptr[v] + d;
  }
  const node = new Uint32Array(ptr[n]);
  const weight = new Float32Array(ptr[n]);
  const kind = new Uint8Array(ptr[n]);
  let q = 0;
  for (let v = 0; v < n; v++) {
    for (let p = adjPtr[v]; p < adjPtr[v + 1]; p++) {
      if (adjKind[p] === EDGE_DIRECTORY) continue;
      node[q] = adjNode[p];
      weight[q] = adjWeight[p];
      kind[q++] = adjKind[p];
    }
  }
  return { ...graph, adjPtr: ptr, adjNode: node, adjWeight: weight, adjKind: kind };
}

/**
 * D(F, F') between file nodes through the directory tree, taken as 0 below the threshold; cached
 * per "current" file (rows are built file by file). Reads the tree from typed arrays only (each
 * node's parent, each file's node), so a pool worker can build it from a SummaryState.
 */
class DirectoryStrength {
  private readonly upStamp: Uint32Array;
  private readonly upHops: Int32Array;
  private readonly fileStamp: Uint32Array;
  private readonly fileValue: Float64Array;
  private generation = 0;
  /** Most hops a directory path may have before its strength falls below the threshold. */
  readonly maxHops: number;

  constructor(
    private readonly nodeParent: Int32Array,
    private readonly fileNode: Int32Array,
    private readonly directoryWeight: number,
    threshold: number,
  ) {
    const w = directoryWeight;
    this.maxHops = w >= 1 ? Infinity : Math.floor(Math.log(threshold) / Math.log(w) + 1e-9);
    this.upStamp = new Uint32Array(nodeParent.length);
    this.upHops = new Int32Array(nodeParent.length);
    this.fileStamp = new Uint32Array(fileNode.length);
    this.fileValue = new Float64Array(fileNode.length);
  }

  private current = -1;

  /** Make `file` the one distances are measured from. */
  from(file: number): void {
    if (file === this.current) return;
    this.current = file;
    this.generation++;
    const g = this.generation;
    const parent = this.nodeParent;
    let d = parent[this.fileNode[file]];
    for (let h = 1; d >= 0 && h <= this.maxHops; h++, d = parent[d]) {
      this.upStamp[d] = g;
      this.upHops[d] = h;
    }
  }

  /** D(current, other). */
  to(other: number): number {
    if (other === this.current) return 1;
    const g = this.generation;
    if (this.fileStamp[other] === g) return this.fileValue[other];
    const parent = this.nodeParent;
    let value = 0;
    let d = parent[this.fileNode[other]];
    for (let t = 1; d >= 0 && t < this.maxHops; t++, d = parent[d]) {
      if (this.upStamp[d] === g) {
        const hops = t + this.upHops[d];
        if (hops <= this.maxHops) value = Math.pow(this.directoryWeight, hops);
        break;
      }
    }
    this.fileStamp[other] = g;
    this.fileValue[other] = value;
    return value;
  }
}

/** A best list: windows and their u, strongest first. */
interface Best {
  window: Uint32Array;
  u: Float64Array;
}

const EMPTY_BEST: Best = { window: new Uint32Array(0), u: new Float64Array(0) };

/** The `keep` windows of largest u among the given lists (ties: lower window first). */
function mergeBest(lists: Best[], keep: number): Best {
  let m = 0;
  for (const l of lists) m += l.window.length;
  if (m === 0) return EMPTY_BEST;
  const cols = new Uint32Array(m);
  const vals = new Float64Array(m);
  let at = 0;
  for (const l of lists) {
    cols.set(l.window, at);
    vals.set(l.u, at);
    at += l.window.length;
  }
  const kept = keepStrongest(cols, vals, m, keep, new Float64Array(m));
  const order = Array.from({ length: kept }, (_, t) => t).sort(
    (a, b) => vals[b] - vals[a] || cols[a] - cols[b],
  );
  return {
    window: Uint32Array.from(order, (t) => cols[t]),
    u: Float64Array.from(order, (t) => vals[t]),
  };
}

/**
 * Everything a row of (8b) reads once the shared part is built: typed arrays and numbers only,
 * so it crosses to pool workers as is. Rows are independent given it, so any split of the
 * windows into ranges, each built by summaryCodeRelationRows and merged in order
 * (mergeRowBlocks), gives exactly summaryCodeRelationMatrix's result.
 */
export interface SummaryState {
  windows: number;
  threshold: number;
  maxPerRow: number;
  searchLimit: number;
  weights: CodeEdgeWeights;
  /** The local graph (no directory edges) with call nodes contracted (relation.ts). */
  contracted: ContractedGraph;
  nodeParent: Int32Array;
  nodeFile: Int32Array;
  fileNode: Int32Array;
  /** U(x) for every node. */
  up: Float64Array;
  /** u_j, each window's file (-1: no covering nodes), 1 / L_j. */
  u: Float64Array;
  windowFile: Int32Array;
  invTotal: Float64Array;
  cover: Omit<WindowCover, 'total'>;
  /** The rank-one candidates of each file's rows: candidates[candidatePtr[f] .. [f + 1]). */
  candidatePtr: Uint32Array;
  candidates: Uint32Array;
}

/** The buffers of a state, for a transfer list (each worker needs its own copy, or shared ones). */
export function summaryStateBuffers(state: SummaryState): ArrayBufferLike[] {
  const c = state.contracted;
  const v = state.cover;
  return [
    c.adjacency.ptr,
    c.adjacency.node,
    c.adjacency.weight,
    c.incPtr,
    c.incCall,
    c.incWeight,
    c.callParent,
    c.callTargetNode,
    state.nodeParent,
    state.nodeFile,
    state.fileNode,
    state.up,
    state.u,
    state.windowFile,
    state.invTotal,
    v.windowPtr,
    v.windowNode,
    v.windowLength,
    v.nodePtr,
    v.nodeWindow,
    v.nodeLength,
    state.candidatePtr,
    state.candidates,
  ].map((a) => a.buffer);
}

/**
 * The shared part of (8b): U (one local search per file), u, and each file's rank-one candidates
 * (from the directories' best lists). Progress is reported as (0, windows) now and then.
 */
export function summaryCodeRelationState(
  graph: CodeGraph,
  cover: WindowCover,
  options: Partial<SummaryCodeRelationOptions> = {},
): SummaryState {
  const { threshold, maxPerRow } = codeRelationLimits(options);
  const n = cover.windows;
  const nodes = graph.nodes;
  const nodeCount = nodes.length;
  const fileCount = graph.files.length;
  const { windowPtr, windowNode, windowLength, total } = cover;
  const progress = options.onProgress;

  const searchLimit = options.searchLimit ?? DEFAULT_SEARCH_LIMIT;
  const contracted = contractCalls(localGraph(graph));
  const strengths = new CodeStrengths(
    { contracted, weights: graph.weights },
    threshold,
    undefined,
    searchLimit,
  );
  const value = new Float64Array(nodeCount);
  const touchedNodes = new Uint32Array(nodeCount);
  const nodeParent = Int32Array.from(nodes, (x) => x.parent);
  const nodeFile = Int32Array.from(nodes, (x) => x.file);
  const fileNode = Int32Array.from(graph.files, (f) => f.node);

  // U(x) = S(x, F_x): the tree path up to the file (parents have lower ids: graph.ts), raised by
  // one local search from each file node where a call path is stronger (read at the file's own
  // nodes; a cut search leaves the rest at the tree path, a lower bound like the cut itself).
  const up = new Float64Array(nodeCount);
  const w = graph.weights;
  for (let x = 0; x < nodeCount; x++) {
    const node = nodes[x];
    if (node.kind === 'file') up[x] = 1;
    else if (node.kind === 'root') up[x] = w.fileRoot;
    else if (node.kind !== 'directory' && node.parent >= 0) up[x] = up[node.parent] * w.syntax;
  }
  for (let f = 0; f < fileCount; f++) {
    if (progress && (f & 63) === 0) progress(0, n);
    const count = strengths.from(fileNode[f], value, touchedNodes);
    for (let t = 0; t < count; t++) {
      const x = touchedNodes[t];
      if (nodeFile[x] === f && value[x] > up[x]) up[x] = value[x];
      value[x] = 0;
    }
  }

  // u_j, and each window's file (-1: no covering nodes, so no relations).
  const u = new Float64Array(n);
  const windowFile = new Int32Array(n).fill(-1);
  const invTotal = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    if (!(total[j] > 0)) continue;
    invTotal[j] = 1 / total[j];
    let s = 0;
    for (let p = windowPtr[j]; p < windowPtr[j + 1]; p++) s += windowLength[p] * up[windowNode[p]];
    u[j] = s * invTotal[j];
    windowFile[j] = nodeFile[windowNode[windowPtr[j]]];
  }
  const fileWindows: number[][] = Array.from({ length: fileCount }, () => []);
  for (let j = 0; j < n; j++) if (windowFile[j] >= 0) fileWindows[windowFile[j]].push(j);

  // Best lists per directory and depth below it (1 .. maxHops - 1), children before parents.
  const dirs = new DirectoryStrength(nodeParent, fileNode, w.directory, threshold);
  const maxDepth = Math.max(0, Math.min(dirs.maxHops - 1, 64));
  const keep = Number.isFinite(maxPerRow) ? maxPerRow + 1 : Infinity;
  const best = new Map<number, Best[]>();
  const filesIn = new Map<number, number[]>();
  const childDirs = new Map<number, number[]>();
  for (let f = 0; f < fileCount; f++) {
    const d = nodeParent[fileNode[f]];
    if (d < 0) continue;
    if (!filesIn.has(d)) filesIn.set(d, []);
    filesIn.get(d)!.push(f);
  }
  const directories: number[] = [];
  for (let v = 0; v < nodeCount; v++) {
    if (nodes[v].kind !== 'directory') continue;
    directories.push(v);
    const p = nodes[v].parent;
    if (p < 0) continue;
    if (!childDirs.has(p)) childDirs.set(p, []);
    childDirs.get(p)!.push(v);
  }
  // Directory ids grow from parent to child (graph.ts creates parents first).
  for (let t = directories.length - 1; t >= 0; t--) {
    const d = directories[t];
    const lists: Best[] = [];
    if (maxDepth >= 1) {
      const own: number[] = [];
      for (const f of filesIn.get(d) ?? []) own.push(...fileWindows[f]);
      lists.push(
        mergeBest(
          [{ window: Uint32Array.from(own), u: Float64Array.from(own, (j) => u[j]) }],
          keep,
        ),
      );
      for (let depth = 2; depth <= maxDepth; depth++) {
        lists.push(
          mergeBest(
            (childDirs.get(d) ?? []).map((c) => best.get(c)![depth - 2] ?? EMPTY_BEST),
            keep,
          ),
        );
      }
    }
    best.set(d, lists);
  }

  // Each file's rank-one candidates: its own windows (D = 1) and its ancestors' best lists at
  // reachable depths; only the strongest maxPerRow + 1 by D u_j can matter to any row of the
  // file (the rank-one term orders them the same way for every window of the file).
  const candidatePtr = new Uint32Array(fileCount + 1);
  const perFile: Uint32Array[] = [];
  const inPool = new Int32Array(n);
  for (let fi = 0; fi < fileCount; fi++) {
    let kept = new Uint32Array(0);
    if (fileWindows[fi].length > 0) {
      dirs.from(fi);
      const pool: number[] = [...fileWindows[fi]];
      for (const j of pool) inPool[j] = fi + 1;
      let d = nodeParent[fileNode[fi]];
      for (let h = 1; d >= 0 && h < dirs.maxHops; h++, d = nodeParent[d]) {
        const lists = best.get(d)!;
        for (let depth = 1; depth <= Math.min(maxDepth, dirs.maxHops - h); depth++) {
          for (const j of lists[depth - 1].window) {
            if (inPool[j] === fi + 1) continue;
            inPool[j] = fi + 1;
            pool.push(j);
          }
        }
      }
      const cols = Uint32Array.from(pool);
      const vals = Float64Array.from(pool, (j) => dirs.to(windowFile[j]) * u[j]);
      kept = cols.slice(
        0,
        keepStrongest(cols, vals, cols.length, keep, new Float64Array(cols.length)),
      );
    }
    perFile.push(kept);
    candidatePtr[fi + 1] = candidatePtr[fi] + kept.length;
  }
  const candidates = new Uint32Array(candidatePtr[fileCount]);
  perFile.forEach((c, f) => candidates.set(c, candidatePtr[f]));

  return {
    windows: n,
    threshold,
    maxPerRow,
    searchLimit,
    weights: { ...graph.weights },
    contracted,
    nodeParent,
    nodeFile,
    fileNode,
    up,
    u,
    windowFile,
    invTotal,
    cover: {
      windows: n,
      windowPtr,
      windowNode,
      windowLength,
      nodePtr: cover.nodePtr,
      nodeWindow: cover.nodeWindow,
      nodeLength: cover.nodeLength,
    },
    candidatePtr,
    candidates,
  };
}

/** Rows [from, to) of a CSR matrix: rowPtr starts at 0 (to - from + 1 entries). */
export interface RowBlock {
  rowPtr: Uint32Array;
  col: Uint32Array;
  weight: Float32Array;
}

/**
 * Rows [from, to) of (8b) from the shared state. Each call keeps its own search cache and
 * projections, so blocks can be built on different threads; a projection of a node whose windows
 * straddle two blocks is computed once in each.
 */
export function summaryCodeRelationRows(
  state: SummaryState,
  from: number,
  to: number,
  onProgress?: (done: number, total: number) => void,
): RowBlock {
  const { threshold, maxPerRow, u, windowFile, invTotal, up, nodeFile } = state;
  const n = state.windows;
  const { windowPtr, windowNode, windowLength, nodePtr, nodeWindow, nodeLength } = state.cover;
  const { candidatePtr, candidates: allCandidates } = state;
  const nodeCount = state.nodeParent.length;
  const strengths = new CodeStrengths(
    { contracted: state.contracted, weights: state.weights },
    threshold,
    undefined,
    state.searchLimit,
  );
  const dirs = new DirectoryStrength(
    state.nodeParent,
    state.fileNode,
    state.weights.directory,
    threshold,
  );
  const value = new Float64Array(nodeCount);
  const touchedNodes = new Uint32Array(nodeCount);

  // Projections of the corrections P_k (sparse), dropped after the last window k covers.
  const lastUse = lastUses(state.cover, nodeCount, from, to);
  const projAcc = new Float64Array(n);
  const projTouched = new Uint32Array(n);
  const projections = new Map<number, { index: Uint32Array; value: Float64Array }>();
  const project = (k: number) => {
    const count = strengths.from(k, value, touchedNodes);
    const uk = up[k];
    let m = 0;
    for (let t = 0; t < count; t++) {
      const l = touchedNodes[t];
      const s = value[l];
      value[l] = 0;
      const c = s - uk * dirs.to(nodeFile[l]) * up[l];
      if (!(c > 0)) continue;
      for (let q = nodePtr[l]; q < nodePtr[l + 1]; q++) {
        const j = nodeWindow[q];
        if (projAcc[j] === 0) projTouched[m++] = j;
        projAcc[j] += nodeLength[q] * invTotal[j] * c;
      }
    }
    return takeSparse(projAcc, projTouched, m);
  };

  const acc = new Float64Array(n);
  const seen = new Uint8Array(n);
  const candidates = new Uint32Array(n);
  const rowCols = new Uint32Array(n);
  const rowVals = new Float64Array(n);
  const scratch = new Float64Array(n);
  const rowPtr = new Uint32Array(to - from + 1);
  const rows = new RowStore();
  let fileCandidates: Uint32Array<ArrayBufferLike> = new Uint32Array(0);
  let currentFile = -1;

  for (let i = from; i < to; i++) {
    if (onProgress && ((i - from) & 63) === 0) onProgress(i - from, to - from);
    const fi = windowFile[i];
    if (fi < 0) {
      rowPtr[i - from + 1] = rows.nnz;
      continue;
    }
    if (fi !== currentFile) {
      currentFile = fi;
      dirs.from(fi);
      fileCandidates = allCandidates.subarray(candidatePtr[fi], candidatePtr[fi + 1]);
    }
    let m = 0;
    for (let p = windowPtr[i]; p < windowPtr[i + 1]; p++) {
      const k = windowNode[p];
      let pk = projections.get(k);
      if (!pk) projections.set(k, (pk = project(k)));
      const share = windowLength[p] * invTotal[i];
      const pi = pk.index;
      const pv = pk.value;
      for (let t = 0; t < pi.length; t++) {
        const j = pi[t];
        if (seen[j] === 0) {
          seen[j] = 1;
          candidates[m++] = j;
        }
        acc[j] += share * pv[t];
      }
    }
    for (let t = 0; t < fileCandidates.length; t++) {
      const j = fileCandidates[t];
      if (seen[j] === 0) {
        seen[j] = 1;
        candidates[m++] = j;
      }
    }
    let kept = 0;
    const ui = u[i];
    for (let t = 0; t < m; t++) {
      const j = candidates[t];
      seen[j] = 0;
      const w = acc[j] + (windowFile[j] >= 0 ? ui * dirs.to(windowFile[j]) * u[j] : 0);
      acc[j] = 0;
      if (j === i || w < threshold) continue;
      rowCols[kept] = j;
      rowVals[kept++] = w;
    }
    rows.pushStrongest(rowCols, rowVals, kept, maxPerRow, scratch);
    rowPtr[i - from + 1] = rows.nnz;
    dropProjections(projections, state.cover, lastUse, i);
  }
  onProgress?.(to - from, to - from);
  return { rowPtr, col: rows.col.slice(0, rows.nnz), weight: rows.weight.slice(0, rows.nnz) };
}

/** The weights in row blocks that must cover exactly [0, n); throws when they do not. */
export function rowBlocksWeights(n: number, blocks: readonly RowBlock[]): number {
  let nnz = 0;
  let rowsSeen = 0;
  for (const b of blocks) {
    nnz += b.col.length;
    rowsSeen += b.rowPtr.length - 1;
  }
  if (rowsSeen !== n) {
    throw new Error(`FragRel: row blocks cover ${rowsSeen} rows, expected ${n}.`);
  }
  return nnz;
}

/** Row blocks covering [0, n) in order, as one CSR matrix. */
export function mergeRowBlocks(n: number, blocks: readonly RowBlock[]): CsrMatrix {
  const nnz = rowBlocksWeights(n, blocks);
  if (blocks.length === 1) return { size: n, ...blocks[0] };
  const rowPtr = new Uint32Array(n + 1);
  const col = new Uint32Array(nnz);
  const weight = new Float32Array(nnz);
  let row = 0;
  let at = 0;
  for (const b of blocks) {
    for (let r = 1; r < b.rowPtr.length; r++) rowPtr[row + r] = at + b.rowPtr[r];
    row += b.rowPtr.length - 1;
    col.set(b.col, at);
    weight.set(b.weight, at);
    at += b.col.length;
  }
  return { size: n, rowPtr, col, weight };
}

/**
 * Window ranges for the row blocks of a pool: about `parts` ranges of equal covering work, cut
 * only at file boundaries (a projection is reused by the windows of one file).
 */
export function summaryRowRanges(
  state: SummaryState,
  parts: number,
): { from: number; to: number }[] {
  const n = state.windows;
  if (n === 0) return [];
  const { windowPtr } = state.cover;
  const total = windowPtr[n] + n;
  const ranges: { from: number; to: number }[] = [];
  let from = 0;
  for (let i = 1; i < n && ranges.length < parts - 1; i++) {
    const goal = (total * (ranges.length + 1)) / parts;
    if (windowPtr[i] + i < goal) continue;
    if (state.windowFile[i] === state.windowFile[i - 1] && state.windowFile[i] >= 0) continue;
    ranges.push({ from, to: i });
    from = i;
  }
  ranges.push({ from, to: n });
  return ranges;
}

/** Eq. 8 by the summary (8b), as a CSR matrix (columns ascending in each row). */
export function summaryCodeRelationMatrix(
  graph: CodeGraph,
  cover: WindowCover,
  options: Partial<SummaryCodeRelationOptions> = {},
): CsrMatrix {
  const progress = options.onProgress;
  const state = summaryCodeRelationState(graph, cover, options);
  const n = state.windows;
  return mergeRowBlocks(n, [summaryCodeRelationRows(state, 0, n, progress)]);
}
