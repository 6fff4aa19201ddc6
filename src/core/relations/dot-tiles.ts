/**
 * @file The JS dot-product tiles of the semantic relation's searches (semantic.ts: the exact
 * search and the inverted file's blocks without wasm SIMD) and of the inverted file's centroid
 * search (inverted-lists.ts): one row, or two rows, of `a` against consecutive rows of `b`, four
 * rows of `b` at a time sharing each load of a's rows. Scores go to an output array that the
 * caller reads after the block: one call per block of up to a few hundred products, not one
 * per product. Every sum runs over d in order, the order of the one-at-a-time product, so each
 * score equals it exactly and ties are ties everywhere.
 */

/** out[j - from] = a[ao .. ao + dim) . b[j dim .. (j + 1) dim), for j in [from, to). */
export function rowDots(
  a: Float32Array,
  ao: number,
  b: Float32Array,
  from: number,
  to: number,
  dim: number,
  out: Float64Array,
): void {
  let j = from;
  for (; j + 3 < to; j += 4) {
    const o0 = j * dim;
    const o1 = o0 + dim;
    const o2 = o1 + dim;
    const o3 = o2 + dim;
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    for (let d = 0; d < dim; d++) {
      const x = a[ao + d];
      s0 += x * b[o0 + d];
      s1 += x * b[o1 + d];
      s2 += x * b[o2 + d];
      s3 += x * b[o3 + d];
    }
    const at = j - from;
    out[at] = s0;
    out[at + 1] = s1;
    out[at + 2] = s2;
    out[at + 3] = s3;
  }
  for (; j < to; j++) {
    const o = j * dim;
    let s = 0;
    for (let d = 0; d < dim; d++) s += a[ao + d] * b[o + d];
    out[j - from] = s;
  }
}

/**
 * `rowDots` for the two rows of `a` at ao and ao2 (outS and outT), in 2 x 4 tiles: six loads
 * feed eight products, about twice as fast as one row at a time.
 */
// Deliberate kernel unrolling: written out like rowDots, not built on it, since two calls of
// rowDots would load each row of b twice, which is the cost this tile exists to halve.
export function twoRowDots(
  a: Float32Array,
  ao: number,
  ao2: number,
  b: Float32Array,
  from: number,
  to: number,
  dim: number,
  outS: Float64Array,
  outT: Float64Array,
): void {
  let j = from;
  for (; j + 3 < to; j += 4) {
    const o0 = j * dim;
    const o1 = o0 + dim;
    const o2 = o1 + dim;
    const o3 = o2 + dim;
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let t0 = 0;
    let t1 = 0;
    let t2 = 0;
    let t3 = 0;
    for (let d = 0; d < dim; d++) {
      const x = a[ao + d];
      const y = a[ao2 + d];
      const a0 = b[o0 + d];
      const a1 = b[o1 + d];
      const a2 = b[o2 + d];
      const a3 = b[o3 + d];
      s0 += x * a0;
      s1 += x * a1;
      s2 += x * a2;
      s3 += x * a3;
      t0 += y * a0;
      t1 += y * a1;
      t2 += y * a2;
      t3 += y * a3;
    }
    const at = j - from;
    outS[at] = s0;
    outS[at + 1] = s1;
    outS[at + 2] = s2;
    outS[at + 3] = s3;
    outT[at] = t0;
    outT[at + 1] = t1;
    outT[at + 2] = t2;
    outT[at + 3] = t3;
  }
  for (; j < to; j++) {
    const o = j * dim;
    let s = 0;
    let t = 0;
    for (let d = 0; d < dim; d++) {
      s += a[ao + d] * b[o + d];
      t += a[ao2 + d] * b[o + d];
    }
    outS[j - from] = s;
    outT[j - from] = t;
  }
}
