/**
 * @file Dense independent score (Eq. 4): s_ind[i] = cos(e_x, e_i) over L2-normalised,
 * row-major Float32 vectors (the `VectorSet` contract), so cosine is a dot product.
 */
import type { VectorSet } from './types';

/** Dot product of a[aOffset ..+dim) and b[bOffset ..+dim), accumulated in double. */
export function dot(
  a: Float32Array,
  aOffset: number,
  b: Float32Array,
  bOffset: number,
  dim: number,
): number {
  let sum = 0;
  for (let d = 0; d < dim; d++) sum += a[aOffset + d] * b[bOffset + d];
  return sum;
}

/**
 * Scale every row to unit length, in place, and return the same set. An all-zero row (a
 * fragment with no known words) stays zero: it has no direction, and a zero vector gives
 * cosine 0 with everything, which is what "no evidence" should score.
 */
export function normalizeRows(vectors: VectorSet): VectorSet {
  const { dim, count, data } = vectors;
  if (data.length < dim * count) {
    throw new Error(
      `FragRel: vector data holds ${data.length} numbers, fewer than ${count} rows of ${dim}.`,
    );
  }
  for (let r = 0, o = 0; r < count; r++, o += dim) {
    const norm = Math.sqrt(dot(data, o, data, o, dim));
    if (norm > 0) {
      const inv = 1 / norm;
      for (let d = 0; d < dim; d++) data[o + d] *= inv;
    }
  }
  return vectors;
}

/**
 * cos(query, row i) for every row. Rows must already be normalised (VectorSet contract); the
 * query need not be: it is normalised here, and a zero query scores 0 everywhere.
 */
export function cosineScores(
  vectors: VectorSet,
  query: Float32Array,
  out: Float64Array = new Float64Array(vectors.count),
): Float64Array {
  const { dim, count, data } = vectors;
  if (query.length !== dim) {
    throw new Error(
      `FragRel: the query vector has ${query.length} dimensions, the fragment vectors ${dim}. Re-embed with the same model.`,
    );
  }
  const queryNorm = Math.sqrt(dot(query, 0, query, 0, dim));
  if (queryNorm === 0) return out.fill(0);
  const inv = 1 / queryNorm;
  for (let r = 0, o = 0; r < count; r++, o += dim) out[r] = dot(data, o, query, 0, dim) * inv;
  return out;
}
