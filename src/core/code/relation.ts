/**
 * @file The code-structure relation, Eq. 8:
 *
 *   w[i][j] = sum_{k in C(i), l in C(j)} len_k len_l Dis(k, l)  /  sum_{k, l} len_k len_l
 *
 * over the covering nodes C(i) of window i (cover.ts) and the strongest-path strength Dis
 * (dijkstra.ts). The denominator factors into L_i L_j (L = sum of a window's lengths), so
 *
 *   w[i][j] = sum_k (len_k / L_i) P_k[j],   P_k[j] = sum_{l in C(j)} (len_l / L_j) Dis(k, l),
 *
 * and one row of Dis per covering node k (its "projection" P_k onto the windows) serves every
 * window k covers. Windows are processed in order and P_k is dropped after the last window k
 * covers, so memory stays at the few nodes open at a time. w is symmetric before the per-row cut;
 * w[i][i] is not stored, nor are weights below the threshold, and of the rest only the strongest
 * `maxPerRow` (default 256) per row are kept: in practice Eq. 8 is dense (options.ts says why).
 * Relations stay within the repository document.
 *
 * Speed (all exact; a property test compares with the definition computed the slow way):
 *   - call sites are nodes of degree two (their enclosing node p at w_syntax, their callee d at
 *     w_call), so a strongest path through one is p - c - d: searches run on the graph with call
 *     nodes contracted into p - d edges of weight w_syntax w_call, and Dis to and from call nodes
 *     is read off their two neighbours (CodeStrengths);
 *   - a leaf of the contracted graph (a definition with no children and no calls) takes its
 *     parent's row times the edge weight instead of a search of its own;
 *   - rows are cached (64 MB, least recently used out), since callees and enclosing nodes recur;
 *   - projections that reach most windows are kept dense, so a row is a few dense passes.
 * Cost: about one search per node with children or calls, each over the reachable part of the
 * graph, which with directory edges of 0.3 is most of a repository of a few hundred files:
 * about 0.2 s for a 700-window Python repository and 8-14 s for eslint/lib (10.6k windows) on
 * one core here (bench/repoeval.ts).
 */
import { kthLargestInPlace } from '../heap';
import type { CsrMatrix } from '../types';
import { csrRelation, type CsrRelation } from '../relations/csr';
import type { WindowCover } from './cover';
import { StrongestPaths, type Adjacency } from './dijkstra';
import { EDGE_CALL, EDGE_SYNTAX, type CodeGraph } from './graph';
import {
  defaultCodeRelationOptions,
  type CodeEdgeWeights,
  type CodeRelationOptions,
} from './options';

export interface CodeRelationBuildOptions extends CodeRelationOptions {
  /** Called now and then with windows done; throwing from it (an AbortError) stops the build. */
  onProgress?: (done: number, total: number) => void;
}

/** The search graph: G with call nodes contracted, plus each node's incident call nodes. */
export interface ContractedGraph {
  adjacency: Adjacency;
  /** Call nodes incident to node v: incCall[incPtr[v] .. incPtr[v+1]) with the edge weight. */
  incPtr: Uint32Array;
  incCall: Uint32Array;
  incWeight: Float32Array;
  /** For a call node: its enclosing node and its callee; -1 for other nodes. */
  callParent: Int32Array;
  callTargetNode: Int32Array;
}

export function contractCalls(graph: CodeGraph): ContractedGraph {
  const n = graph.nodes.length;
  const { adjPtr, adjNode, adjWeight, adjKind } = graph;
  const callParent = new Int32Array(n).fill(-1);
  const callTargetNode = new Int32Array(n).fill(-1);
  const callWeightParent = new Float32Array(n);
  const callWeightTarget = new Float32Array(n);
  for (const [c, { target }] of graph.callTarget) {
    callTargetNode[c] = target;
    for (let p = adjPtr[c]; p < adjPtr[c + 1]; p++) {
      if (adjKind[p] === EDGE_SYNTAX) {
        callParent[c] = adjNode[p];
        callWeightParent[c] = adjWeight[p];
      } else if (adjKind[p] === EDGE_CALL) {
        callWeightTarget[c] = adjWeight[p];
      }
    }
  }
  // Edges among non-call nodes, plus p - d for each call (strongest of parallel ones).
  const extra = new Map<number, number>();
  for (const [c] of graph.callTarget) {
    const p = callParent[c];
    const d = callTargetNode[c];
    if (p < 0 || p === d) continue;
    const w = callWeightParent[c] * callWeightTarget[c];
    const key = Math.min(p, d) * n + Math.max(p, d);
    if ((extra.get(key) ?? 0) < w) extra.set(key, w);
  }
  const degree = new Uint32Array(n + 1);
  const incDegree = new Uint32Array(n + 1);
  for (let v = 0; v < n; v++) {
    if (callTargetNode[v] >= 0) continue;
    for (let p = adjPtr[v]; p < adjPtr[v + 1]; p++) {
      if (callTargetNode[adjNode[p]] >= 0) incDegree[v + 1]++;
      else degree[v + 1]++;
    }
  }
  for (const key of extra.keys()) {
    degree[Math.floor(key / n) + 1]++;
    degree[(key % n) + 1]++;
  }
  for (let v = 0; v < n; v++) {
    degree[v + 1] += degree[v];
    incDegree[v + 1] += incDegree[v];
  }
  const ptr = degree;
  const node = new Uint32Array(ptr[n]);
  const weight = new Float32Array(ptr[n]);
  const incPtr = incDegree;
  const incCall = new Uint32Array(incPtr[n]);
  const incWeight = new Float32Array(incPtr[n]);
  const fill = ptr.slice(0, n);
  const incFill = incPtr.slice(0, n);
  for (let v = 0; v < n; v++) {
    if (callTargetNode[v] >= 0) continue;
    for (let p = adjPtr[v]; p < adjPtr[v + 1]; p++) {
      const u = adjNode[p];
      if (callTargetNode[u] >= 0) {
        const q = incFill[v]++;
        incCall[q] = u;
        incWeight[q] = adjWeight[p];
      } else {
        const q = fill[v]++;
        node[q] = u;
        weight[q] = adjWeight[p];
      }
    }
  }
  for (const [key, w] of extra) {
    const a = Math.floor(key / n);
    const b = key % n;
    let q = fill[a]++;
    node[q] = b;
    weight[q] = w;
    q = fill[b]++;
    node[q] = a;
    weight[q] = w;
  }
  return {
    adjacency: { ptr, node, weight },
    incPtr,
    incCall,
    incWeight,
    callParent,
    callTargetNode,
  };
}

/** Dis(x, .) over the contracted graph's nodes, as sparse parallel arrays. */
interface SparseRow {
  index: Uint32Array;
  value: Float64Array;
}

/** Default memory for cached rows of Dis (bytes); rows beyond it are recomputed when needed. */
const ROW_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * Dis(k, .) from any node k of the code graph, exactly, with as few searches as possible:
 *   - a node of the contracted graph searches from itself, except a leaf (one neighbour y, which
 *     has others): every path leaves through y, so Dis(k, .) = w(k, y) Dis(y, .) and Dis(k, k) = 1;
 *   - a call node c merges its two neighbours' rows: max(w_syntax Dis(p, .), w_call Dis(d, .));
 *   - call nodes as targets are read off their neighbours (see the file comment).
 * Rows of contracted nodes are cached (least recently used out first) since callees and
 * enclosing definitions recur.
 */
export class CodeStrengths {
  readonly contracted: ContractedGraph;
  private readonly paths: StrongestPaths;
  private readonly cache = new Map<number, SparseRow>();
  private cachedBytes = 0;
  /** Searches run and rows derived, for benchmarks. */
  searches = 0;
  derived = 0;

  private readonly weights: CodeEdgeWeights;

  constructor(
    /** The graph, or its contracted form already built (summary.ts hands it to pool workers). */
    graph: CodeGraph | { contracted: ContractedGraph; weights: CodeEdgeWeights },
    readonly threshold: number = defaultCodeRelationOptions.threshold,
    private readonly cacheBytes = ROW_CACHE_BYTES,
    /** Most nodes one search settles (the strongest; summary.ts); Infinity: exact. */
    private readonly searchLimit = Infinity,
  ) {
    this.contracted = 'contracted' in graph ? graph.contracted : contractCalls(graph);
    this.weights = graph.weights;
    this.paths = new StrongestPaths(this.contracted.adjacency, threshold);
  }

  private remember(x: number, row: SparseRow): SparseRow {
    const bytes = row.index.byteLength + row.value.byteLength;
    while (this.cache.size > 0 && this.cachedBytes + bytes > this.cacheBytes) {
      const oldest = this.cache.keys().next().value as number;
      const old = this.cache.get(oldest)!;
      this.cachedBytes -= old.index.byteLength + old.value.byteLength;
      this.cache.delete(oldest);
    }
    this.cache.set(x, row);
    this.cachedBytes += bytes;
    return row;
  }

  /** Dis(x, .) over the contracted graph, for a node that is not a call node. */
  private row(x: number): SparseRow {
    const hit = this.cache.get(x);
    if (hit) {
      this.cache.delete(x);
      this.cache.set(x, hit);
      return hit;
    }
    const { ptr, node, weight } = this.contracted.adjacency;
    if (ptr[x + 1] - ptr[x] === 1) {
      const y = node[ptr[x]];
      if (ptr[y + 1] - ptr[y] >= 2) {
        const w = weight[ptr[x]];
        const base = this.row(y);
        const index = new Uint32Array(base.index.length);
        const value = new Float64Array(base.index.length);
        let m = 0;
        for (let t = 0; t < base.index.length; t++) {
          const v = w * base.value[t];
          if (base.index[t] === x || v < this.threshold) continue;
          index[m] = base.index[t];
          value[m++] = v;
        }
        index[m] = x;
        value[m++] = 1;
        this.derived++;
        return this.remember(x, { index: index.slice(0, m), value: value.slice(0, m) });
      }
    }
    this.searches++;
    const reached = this.paths.search([x], [1], false, this.searchLimit);
    return this.remember(x, {
      index: reached.nodes.slice(0, reached.count),
      value: reached.strength.slice(0, reached.count),
    });
  }

  /**
   * Dis(k, .) for every node with strength >= threshold, written into `value` (indexed by node)
   * with the touched nodes listed in `touched`; returns how many. `value` must be zero at every
   * node the call does not list (reset the listed ones after use).
   */
  from(k: number, value: Float64Array, touched: Uint32Array): number {
    const { callParent, callTargetNode, incPtr, incCall, incWeight } = this.contracted;
    const threshold = this.threshold;
    let count = 0;
    const offer = (row: SparseRow, w: number) => {
      for (let t = 0; t < row.index.length; t++) {
        const y = row.index[t];
        const v = w * row.value[t];
        if (v < threshold || v <= value[y]) continue;
        if (value[y] === 0) touched[count++] = y;
        value[y] = v;
      }
    };
    if (callTargetNode[k] >= 0) {
      const w = this.weights;
      offer(this.row(callParent[k]), w.syntax);
      offer(this.row(callTargetNode[k]), w.call);
    } else {
      offer(this.row(k), 1);
    }
    // Call nodes: the stronger of their two neighbours' strengths times the edge weight.
    const reduced = count;
    for (let r = 0; r < reduced; r++) {
      const x = touched[r];
      const s = value[x];
      for (let q = incPtr[x]; q < incPtr[x + 1]; q++) {
        const c = incCall[q];
        const v = s * incWeight[q];
        if (v < threshold || v <= value[c]) continue;
        if (value[c] === 0) touched[count++] = c;
        value[c] = v;
      }
    }
    if (value[k] === 0) touched[count++] = k;
    value[k] = 1;
    return count;
  }
}

/** Positions a packed sort key of RowStore.push can hold (2^21). */
const POSITIONS = 2 ** 21;

/**
 * The rows of a code relation as they are built, in CSR order: `push` keeps a row's strongest
 * `maxPerRow` (keepStrongest), writes them in column order and grows the arrays by doubling.
 * Shared by Eq. 8 (codeRelationMatrix) and its summary (summary.ts).
 */
export class RowStore {
  col = new Uint32Array(1024);
  weight = new Float32Array(1024);
  nnz = 0;

  /** Sort keys of one row: column x 2^21 + position, so a native numeric sort orders a row. */
  private keys = new Float64Array(256);

  push(rowCols: Uint32Array, rowVals: Float32Array | Float64Array, kept: number): void {
    if (this.nnz + kept > this.col.length) {
      const size = Math.max(this.col.length * 2, this.nnz + kept);
      const c2 = new Uint32Array(size);
      c2.set(this.col.subarray(0, this.nnz));
      const w2 = new Float32Array(size);
      w2.set(this.weight.subarray(0, this.nnz));
      this.col = c2;
      this.weight = w2;
    }
    if (kept >= POSITIONS) {
      const order = Array.from({ length: kept }, (_, t) => t).sort(
        (a, b) => rowCols[a] - rowCols[b],
      );
      for (const t of order) {
        this.col[this.nnz] = rowCols[t];
        this.weight[this.nnz++] = rowVals[t];
      }
      return;
    }
    // A row's columns are distinct, so ordering (column, position) pairs orders the row. Packed in
    // one float64 each (column < 2^32, position < 2^21: exact below 2^53) they sort natively: the
    // comparator sort was most of the rows' time on the 30k-file zip (docs/scale.md section 12).
    if (this.keys.length < kept) this.keys = new Float64Array(Math.max(kept, 2 * this.keys.length));
    const keys = this.keys.subarray(0, kept);
    for (let t = 0; t < kept; t++) keys[t] = rowCols[t] * POSITIONS + t;
    keys.sort();
    for (let s = 0; s < kept; s++) {
      const key = keys[s];
      const t = key % POSITIONS;
      this.col[this.nnz] = rowCols[t];
      this.weight[this.nnz++] = rowVals[t];
    }
  }

  /** `push` of the row's strongest `maxPerRow` (keepStrongest; `scratch` holds a row). */
  pushStrongest(
    rowCols: Uint32Array,
    rowVals: Float64Array,
    kept: number,
    maxPerRow: number,
    scratch: Float64Array,
  ): void {
    this.push(rowCols, rowVals, keepStrongest(rowCols, rowVals, kept, maxPerRow, scratch));
  }
}

/**
 * The threshold and maxPerRow of a build, defaults filled in (Eq. 8 and its summary take the
 * same options); throws a readable error for a maxPerRow below 1.
 */
export function codeRelationLimits(options: Partial<CodeRelationBuildOptions>): {
  threshold: number;
  maxPerRow: number;
} {
  const threshold = options.threshold ?? defaultCodeRelationOptions.threshold;
  const maxPerRow = options.maxPerRow ?? defaultCodeRelationOptions.maxPerRow;
  if (!(maxPerRow >= 1)) {
    throw new Error(`FragRel: maxPerRow must be at least 1 (or Infinity), got ${maxPerRow}.`);
  }
  return { threshold, maxPerRow };
}

/**
 * The rows of [from, to) are built in order and a node's projection serves the windows that
 * cover it: `lastUse[k]` is the last of those rows whose window covers node k (-1: none), after
 * which `dropProjections` lets its projection go.
 */
export function lastUses(
  cover: Pick<WindowCover, 'windowPtr' | 'windowNode'>,
  nodes: number,
  from: number,
  to: number,
): Int32Array {
  const { windowPtr, windowNode } = cover;
  const lastUse = new Int32Array(nodes).fill(-1);
  for (let i = from; i < to; i++) {
    for (let p = windowPtr[i]; p < windowPtr[i + 1]; p++) lastUse[windowNode[p]] = i;
  }
  return lastUse;
}

/** After row i: forget the projections of the nodes whose last use (`lastUses`) it was. */
export function dropProjections(
  projections: Map<number, unknown>,
  cover: Pick<WindowCover, 'windowPtr' | 'windowNode'>,
  lastUse: Int32Array,
  i: number,
): void {
  const { windowPtr, windowNode } = cover;
  for (let p = windowPtr[i]; p < windowPtr[i + 1]; p++) {
    const k = windowNode[p];
    if (lastUse[k] === i) projections.delete(k);
  }
}

/** The m touched entries of a sparse accumulator as (index, value), the accumulator zeroed. */
export function takeSparse(
  acc: Float64Array,
  touched: Uint32Array,
  m: number,
): { index: Uint32Array; value: Float64Array } {
  const index = touched.slice(0, m);
  const value = new Float64Array(m);
  for (let t = 0; t < m; t++) {
    value[t] = acc[index[t]];
    acc[index[t]] = 0;
  }
  return { index, value };
}

/** Keep the `keep` largest of vals[0..m) (ties: lower column first); returns the new count. */
export function keepStrongest(
  cols: Uint32Array,
  vals: Float64Array,
  m: number,
  keep: number,
  scratch: Float64Array,
): number {
  if (m <= keep) return m;
  // The keep-th largest value by quickselect on a copy.
  const a = scratch.subarray(0, m);
  a.set(vals.subarray(0, m));
  const kth = kthLargestInPlace(a, keep);
  let above = 0;
  for (let t = 0; t < m; t++) if (vals[t] > kth) above++;
  let ties = keep - above;
  let out = 0;
  for (let t = 0; t < m; t++) {
    const v = vals[t];
    if (v > kth || (v === kth && ties-- > 0)) {
      cols[out] = cols[t];
      vals[out++] = v;
    }
  }
  return out;
}

/** Eq. 8 over the windows of one repository, as a CSR matrix (columns ascending in each row). */
export function codeRelationMatrix(
  graph: CodeGraph,
  cover: WindowCover,
  options: Partial<CodeRelationBuildOptions> = {},
): CsrMatrix {
  const { threshold, maxPerRow } = codeRelationLimits(options);
  const strengths = new CodeStrengths(graph, threshold);
  const n = cover.windows;
  const nodes = graph.nodes.length;
  const { windowPtr, windowNode, windowLength, total, nodePtr, nodeWindow, nodeLength } = cover;

  // The last window each node covers: its projection is dropped after it.
  const lastUse = lastUses(cover, nodes, 0, n);
  const invTotal = new Float64Array(n);
  for (let j = 0; j < n; j++) invTotal[j] = total[j] > 0 ? 1 / total[j] : 0;

  const value = new Float64Array(nodes);
  const touchedNodes = new Uint32Array(nodes);
  // Accumulators over windows: one for projections, one for the row being built.
  const projAcc = new Float64Array(n);
  const projTouched = new Uint32Array(n);
  const acc = new Float64Array(n);
  const accTouched = new Uint32Array(n);
  const rowCols = new Uint32Array(n);
  const rowVals = new Float64Array(n);
  const scratch = new Float64Array(n);
  /** Projections in use: sparse (index, value) or dense (index null, value over all windows). */
  const projections = new Map<number, { index: Uint32Array | null; value: Float64Array }>();

  // P_k[j] = sum_{l in C(j)} (len_l / L_j) Dis(k, l).
  const project = (k: number) => {
    const count = strengths.from(k, value, touchedNodes);
    let m = 0;
    for (let t = 0; t < count; t++) {
      const l = touchedNodes[t];
      const d = value[l];
      value[l] = 0;
      for (let q = nodePtr[l]; q < nodePtr[l + 1]; q++) {
        const j = nodeWindow[q];
        if (projAcc[j] === 0) projTouched[m++] = j;
        projAcc[j] += nodeLength[q] * invTotal[j] * d;
      }
    }
    // Most projections reach most windows (see maxPerRow): those are kept dense.
    if (m * 4 > n) {
      const dense = projAcc.slice();
      for (let t = 0; t < m; t++) projAcc[projTouched[t]] = 0;
      return { index: null, value: dense };
    }
    return takeSparse(projAcc, projTouched, m);
  };

  const rowPtr = new Uint32Array(n + 1);
  const rows = new RowStore();
  for (let i = 0; i < n; i++) {
    if (options.onProgress && (i & 63) === 0) options.onProgress(i, n);
    let m = 0;
    let dense = false;
    if (total[i] > 0) {
      for (let p = windowPtr[i]; p < windowPtr[i + 1]; p++) {
        const k = windowNode[p];
        let pk = projections.get(k);
        if (!pk) projections.set(k, (pk = project(k)));
        const share = windowLength[p] * invTotal[i];
        const pv = pk.value;
        if (pk.index === null) {
          dense = true;
          for (let j = 0; j < n; j++) acc[j] += share * pv[j];
          continue;
        }
        const pi = pk.index;
        for (let t = 0; t < pi.length; t++) {
          const j = pi[t];
          if (acc[j] === 0) accTouched[m++] = j;
          acc[j] += share * pv[t];
        }
      }
    }
    if (dense) {
      m = 0;
      for (let j = 0; j < n; j++) if (acc[j] !== 0) accTouched[m++] = j;
    }
    // w[i][j] for j != i above the threshold, then the strongest maxPerRow, by column.
    let kept = 0;
    for (let t = 0; t < m; t++) {
      const j = accTouched[t];
      const w = acc[j];
      acc[j] = 0;
      if (j === i || w < threshold) continue;
      rowCols[kept] = j;
      rowVals[kept++] = w;
    }
    rows.pushStrongest(rowCols, rowVals, kept, maxPerRow, scratch);
    rowPtr[i + 1] = rows.nnz;
    dropProjections(projections, cover, lastUse, i);
  }
  options.onProgress?.(n, n);
  return {
    size: n,
    rowPtr,
    col: rows.col.slice(0, rows.nnz),
    weight: rows.weight.slice(0, rows.nnz),
  };
}

/** The code-structure relation (kind 'code') over a repository's windows: Eq. 8, then Eq. 9. */
export function codeRelation(
  graph: CodeGraph,
  cover: WindowCover,
  options: Partial<CodeRelationBuildOptions> = {},
): CsrRelation {
  return csrRelation('code', codeRelationMatrix(graph, cover, options));
}
