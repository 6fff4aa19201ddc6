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

/** The combined graph as CSR transition rows (each row sums to 1, or is empty). */
export function pprGraph(
  segments: ArrayLike<number>,
  sparse: readonly CsrMatrix[],
  options: Pick<PprOptions, 'radius' | 'wRel'> & {
    /** Per document: whether it gets context edges (default: every document). */
    contextIn?: readonly boolean[];
  },
): CsrMatrix {
  const size = segments[segments.length - 1];
  const rows: Map<number, number>[] = Array.from({ length: size }, () => new Map());
  if (options.wRel > 0) {
    for (let d = 0; d + 1 < segments.length; d++) {
      if (options.contextIn && !options.contextIn[d]) continue;
      for (let i = segments[d]; i < segments[d + 1]; i++) {
        for (let r = 1; r <= options.radius; r++) {
          const w = options.wRel ** r;
          for (const j of [i - r, i + r]) {
            if (j >= segments[d] && j < segments[d + 1]) {
              rows[i].set(j, (rows[i].get(j) ?? 0) + w);
            }
          }
        }
      }
    }
  }
  for (const m of sparse) {
    if (m.size !== size) {
      throw new Error(`FragRel: a relation over ${m.size} fragments in a graph of ${size}.`);
    }
    for (let i = 0; i < size; i++) {
      for (let p = m.rowPtr[i]; p < m.rowPtr[i + 1]; p++) {
        const j = m.col[p];
        if (j !== i && m.weight[p] > 0) rows[i].set(j, (rows[i].get(j) ?? 0) + m.weight[p]);
      }
    }
  }
  const rowPtr = new Uint32Array(size + 1);
  for (let i = 0; i < size; i++) rowPtr[i + 1] = rowPtr[i] + rows[i].size;
  const col = new Uint32Array(rowPtr[size]);
  const weight = new Float32Array(rowPtr[size]);
  for (let i = 0; i < size; i++) {
    let sum = 0;
    for (const w of rows[i].values()) sum += w;
    let p = rowPtr[i];
    for (const [j, w] of [...rows[i]].sort((a, b) => a[0] - b[0])) {
      col[p] = j;
      weight[p++] = w / sum;
    }
  }
  return { size, rowPtr, col, weight };
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

  const walk = (independent: Float64Array): Walk => {
    if (independent.length !== size) {
      throw new Error(`FragRel: ${independent.length} scores for a PageRank graph of ${size}.`);
    }
    if (last && last.independent === independent) return last.walk;
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
      for (let j = 0; j < size; j++) {
        const pj = p[j];
        if (pj === 0) continue;
        for (let k = rowPtr[j]; k < rowPtr[j + 1]; k++) next[col[k]] += o.damping * weight[k] * pj;
      }
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
    last = { independent, walk: w };
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
      const all: Contribution[] = [];
      // Incoming edges of i: scan the rows (the graph is stored by source).
      for (let j = 0; j < size; j++) {
        for (let k = rowPtr[j]; k < rowPtr[j + 1]; k++) {
          if (col[k] !== i) continue;
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
      }
      all.sort((a, b) => b.amount - a.amount || a.index - b.index);
      return all.slice(0, Math.max(0, Math.floor(limit)));
    },
  };
}
