/**
 * @file The multi-hop relation's graph and contributions as first written (a Map per row; every
 * row scanned for a fragment's incoming edges), kept as the reference the tests hold ppr.ts to:
 * the faster builds must give the same bits. Not used by the app.
 */
import type { Contribution, CsrMatrix } from '../types';

export function pprGraphReference(
  segments: ArrayLike<number>,
  sparse: readonly CsrMatrix[],
  options: { radius: number; wRel: number; contextIn?: readonly boolean[] },
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

/**
 * The walk and contributions as first written, for a graph, scores and options: what
 * `pprRelation(graph).environmentScores` and `.contributions` gave.
 */
export function pprReference(
  graph: CsrMatrix,
  independent: Float64Array,
  o: { damping: number; seeds: number; iterations: number },
): {
  environment: Float64Array;
  contributions: (i: number, limit: number) => Contribution[];
} {
  const { size, rowPtr, col, weight } = graph;
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
  const scale = maxE > 0 ? maxS / maxE : 0;
  const environment = new Float64Array(size);
  for (let i = 0; i < size; i++) environment[i] = arrived[i] * scale;
  return {
    environment,
    contributions(i, limit) {
      const all: Contribution[] = [];
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
