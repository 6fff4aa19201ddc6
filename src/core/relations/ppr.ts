/**
 * @file The multi-hop relation: personalised PageRank over the combined relation graph, seeded
 * by the independent scores (as HippoRAG seeds PageRank with the question's entities and Aider
 * ranks a repository map). Where Eq. 9 looks one step away, this lets evidence flow along chains:
 * a fragment two hops from the best ones still gains.
 *
 * Graph: the union of the context kernel within `radius` positions (w_rel^|i-j|, Eq. 7, same
 * document only) and any sparse relation given (semantic kNN, Eq. 6; code, Eq. 8), each row
 * normalised into transition probabilities P[i][j] = w[i][j] / sum_j w[i][j].
 *
 * Seed (the personalisation): q[j] = s_ind[j]^+ over the `seeds` best fragments, normalised to
 * sum 1. PageRank with damping delta (the chance of following an edge):
 *
 *   p = (1 - delta) q + delta P^T p                               (iterated `iterations` times)
 *
 * Environment score: what reached i along edges, without its own restart mass (w[i][i] is not
 * used, as in Eq. 9), put on the scale of s_ind by the best seed's score:
 *
 *   s_env[i] = max_j s_ind[j] * e[i] / max_k e[k],   e[i] = delta sum_j P[j][i] p[j]
 *
 * Contributions are exact at the fixed point: j adds delta P[j][i] p[j] to e[i].
 */
import type { Contribution, CsrMatrix, Relation } from '../types';

export interface PprOptions {
  /** Chance of following an edge rather than restarting at a seed (HippoRAG uses 0.5). */
  damping: number;
  /** Fragments with the best independent scores that seed the walk. */
  seeds: number;
  iterations: number;
  /** Context edges reach this many positions each way. */
  radius: number;
  /** Eq. 7's decay for the context edges (0: no context edges). */
  wRel: number;
}

export const defaultPprOptions: Readonly<PprOptions> = Object.freeze({
  damping: 0.5,
  seeds: 5,
  iterations: 30,
  radius: 2,
  wRel: 0.3,
});

/**
 * The combined graph as CSR transition rows (each row sums to 1, or is empty).
 *
 * Built row by row with a column-to-slot table instead of a Map per row (a million-line
 * repository's code relation is 12M edges: the Maps took most of the first question's time).
 * The weights are the same bits as accumulating in a Map: a column's weight is summed in the
 * order its edges come (context edges, then each sparse relation in turn), the row sum adds the
 * columns in the order they first came, and the row is written in column order.
 */
export function pprGraph(
  segments: ArrayLike<number>,
  sparse: readonly CsrMatrix[],
  options: Pick<PprOptions, 'radius' | 'wRel'> & {
    /** Per document: whether it gets context edges (default: every document). */
    contextIn?: readonly boolean[];
  },
): CsrMatrix {
  const size = segments[segments.length - 1];
  for (const m of sparse) {
    if (m.size !== size) {
      throw new Error(`FragRel: a relation over ${m.size} fragments in a graph of ${size}.`);
    }
  }
  const context = options.wRel > 0 ? Math.max(0, Math.floor(options.radius)) : 0;
  // The document of each fragment, for the context edges (which stay inside it).
  const docOf = context > 0 ? new Uint32Array(size) : null;
  if (docOf) {
    for (let d = 0; d + 1 < segments.length; d++) docOf.fill(d, segments[d], segments[d + 1]);
  }
  const contextWeights = Array.from({ length: context }, (_, r) => options.wRel ** (r + 1));
  let bound = 2 * context * size;
  for (const m of sparse) bound += m.rowPtr[size];
  const rowPtr = new Uint32Array(size + 1);
  let col = new Uint32Array(bound);
  let weight = new Float32Array(bound);
  // slot[j]: j's place in the current row's insertion order, or -1.
  const slot = new Int32Array(size).fill(-1);
  let keys = new Uint32Array(64);
  let values = new Float64Array(64);
  let n = 0;
  const add = (j: number, w: number) => {
    const at = slot[j];
    if (at >= 0) {
      values[at] += w;
      return;
    }
    if (n === keys.length) {
      const k2 = new Uint32Array(n * 2);
      k2.set(keys);
      keys = k2;
      const v2 = new Float64Array(n * 2);
      v2.set(values);
      values = v2;
    }
    slot[j] = n;
    keys[n] = j;
    // 0 + w, as the Map's (get ?? 0) + w.
    values[n++] = 0 + w;
  };
  let out = 0;
  for (let i = 0; i < size; i++) {
    n = 0;
    if (docOf && (!options.contextIn || options.contextIn[docOf[i]])) {
      const d = docOf[i];
      const lo = segments[d];
      const hi = segments[d + 1];
      for (let r = 1; r <= context; r++) {
        const w = contextWeights[r - 1];
        if (i - r >= lo && i - r < hi) add(i - r, w);
        if (i + r >= lo && i + r < hi) add(i + r, w);
      }
    }
    for (const m of sparse) {
      for (let p = m.rowPtr[i]; p < m.rowPtr[i + 1]; p++) {
        const j = m.col[p];
        if (j !== i && m.weight[p] > 0) add(j, m.weight[p]);
      }
    }
    let sum = 0;
    for (let t = 0; t < n; t++) sum += values[t];
    const sorted = keys.subarray(0, n).slice().sort();
    for (let t = 0; t < n; t++) {
      const j = sorted[t];
      col[out] = j;
      weight[out++] = values[slot[j]] / sum;
    }
    for (let t = 0; t < n; t++) slot[keys[t]] = -1;
    rowPtr[i + 1] = out;
  }
  if (out < bound) {
    col = col.slice(0, out);
    weight = weight.slice(0, out);
  }
  return { size, rowPtr, col, weight };
}

/**
 * The graph's edges by target: the edges k into i are `edges[into[i] .. into[i + 1]]`, in the
 * order of their sources (rows ascending), so a fragment's incoming edges are read directly
 * instead of by a scan of every row.
 */
function incomingEdges(graph: CsrMatrix): { into: Uint32Array; edges: Uint32Array } {
  const { size, rowPtr, col } = graph;
  const nnz = rowPtr[size];
  const into = new Uint32Array(size + 1);
  for (let k = 0; k < nnz; k++) into[col[k] + 1]++;
  for (let i = 0; i < size; i++) into[i + 1] += into[i];
  const next = into.slice(0, size);
  const edges = new Uint32Array(nnz);
  for (let k = 0; k < nnz; k++) edges[next[col[k]]++] = k;
  return { into, edges };
}

/** The row holding edge k (rowPtr ascending): the last j with rowPtr[j] <= k. */
function rowOfEdge(rowPtr: Uint32Array, size: number, k: number): number {
  let lo = 0;
  let hi = size - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (rowPtr[mid] <= k) lo = mid;
    else hi = mid - 1;
  }
  // Empty rows share a rowPtr value: the holder is the last of them, whose row is not empty.
  return lo;
}

/**
 * next[i] += delta P[j][i] p[j] over every edge, rows in order: one step of the walk. A
 * module-level function over plain arrays (V8 optimises it better than the closure did); the
 * sums are the same, in the same order.
 */
function pushAlongEdges(
  rowPtr: Uint32Array,
  col: Uint32Array,
  weight: Float32Array,
  damping: number,
  p: Float64Array,
  next: Float64Array,
): void {
  const size = p.length;
  for (let j = 0; j < size; j++) {
    const pj = p[j];
    if (pj === 0) continue;
    const end = rowPtr[j + 1];
    for (let k = rowPtr[j]; k < end; k++) next[col[k]] += damping * weight[k] * pj;
  }
}

function sameScores(a: Float64Array, b: Float64Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}

interface Walk {
  /** p at the last iteration. */
  p: Float64Array;
  /** e[i]: mass arrived along edges. */
  arrived: Float64Array;
  /** max_j s_ind[j] / max_k e[k] (0 when nothing arrived). */
  scale: number;
}

export function pprRelation(graph: CsrMatrix, options: Partial<PprOptions> = {}): Relation {
  const o = { ...defaultPprOptions, ...options };
  if (!(o.damping >= 0 && o.damping < 1)) {
    throw new Error(`FragRel: PageRank damping must lie in [0, 1), got ${o.damping}.`);
  }
  const { size, rowPtr, col, weight } = graph;
  let last: { independent: Float64Array; walk: Walk } | null = null;
  // Built with the relation (one pass over the edges), so explanations read a fragment's
  // incoming edges directly; the relation is kept across re-ranks (core/run.ts).
  const incoming = incomingEdges(graph);

  const walk = (independent: Float64Array): Walk => {
    if (independent.length !== size) {
      throw new Error(`FragRel: ${independent.length} scores for a PageRank graph of ${size}.`);
    }
    // The relation is kept across re-ranks (core/run.ts): the walk is reused only for the same
    // scores, compared by value (a caller may refill one array).
    if (last && sameScores(last.independent, independent)) return last.walk;
    const q = new Float64Array(size);
    const order = Array.from({ length: size }, (_, i) => i).sort(
      (a, b) => independent[b] - independent[a] || a - b,
    );
    let total = 0;
    for (const j of order.slice(0, Math.max(1, o.seeds))) {
      q[j] = Math.max(0, independent[j]);
      total += q[j];
    }
    if (total > 0) for (let j = 0; j < size; j++) q[j] /= total;
    let p = Float64Array.from(q);
    let arrived = new Float64Array(size);
    for (let t = 0; t < o.iterations; t++) {
      const next = new Float64Array(size);
      pushAlongEdges(rowPtr, col, weight, o.damping, p, next);
      arrived = next;
      p = new Float64Array(size);
      for (let i = 0; i < size; i++) p[i] = (1 - o.damping) * q[i] + arrived[i];
    }
    let maxE = 0;
    let maxS = 0;
    for (let i = 0; i < size; i++) {
      if (arrived[i] > maxE) maxE = arrived[i];
      if (independent[i] > maxS) maxS = independent[i];
    }
    const w = { p, arrived, scale: maxE > 0 ? maxS / maxE : 0 };
    last = { independent: independent.slice(), walk: w };
    return w;
  };

  return {
    kind: 'ppr',
    size,
    environmentScores(independent, out = new Float64Array(size)) {
      const { arrived, scale } = walk(independent);
      for (let i = 0; i < size; i++) out[i] = arrived[i] * scale;
      return out;
    },
    contributions(i, independent, limit): Contribution[] {
      const { p, arrived, scale } = walk(independent);
      const { into, edges } = incoming;
      const all: Contribution[] = [];
      // Incoming edges of i, in the order of their sources.
      for (let e = into[i]; e < into[i + 1]; e++) {
        const k = edges[e];
        const j = rowOfEdge(rowPtr, size, k);
        const amount = o.damping * weight[k] * p[j] * scale;
        if (amount > 0) {
          all.push({
            index: j,
            weight: weight[k],
            amount,
            share: arrived[i] > 0 ? amount / (arrived[i] * scale) : 0,
          });
        }
      }
      all.sort((a, b) => b.amount - a.amount || a.index - b.index);
      return all.slice(0, Math.max(0, Math.floor(limit)));
    },
  };
}
