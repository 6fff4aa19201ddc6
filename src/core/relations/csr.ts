/**
 * @file A relation stored as a sparse matrix (CSR), for every kind whose weights are explicit:
 * the semantic kNN relation (Eq. 6) now, code structure (Eq. 8) and chat relations later.
 * Eq. 9 is then one sparse matrix-vector product, O(nnz).
 */
import type { Contribution, CsrMatrix, Relation } from '../types';
import { checkIndex } from './segments';

export interface CsrRelation extends Relation {
  readonly csr: CsrMatrix;
}

/**
 * Check a CSR matrix against the relation contract: well-formed pointers, columns in range,
 * no diagonal entries (the environment is made of the *other* fragments), finite weights >= 0.
 */
export function validateCsr(csr: CsrMatrix): void {
  const { size, rowPtr, col, weight } = csr;
  const fail = (why: string) => {
    throw new Error(`FragRel: invalid relation matrix: ${why}.`);
  };
  if (rowPtr.length !== size + 1) fail(`rowPtr has ${rowPtr.length} entries, expected ${size + 1}`);
  if (rowPtr[0] !== 0) fail('rowPtr[0] must be 0');
  const nnz = rowPtr[size];
  if (col.length < nnz || weight.length < nnz) fail(`fewer than ${nnz} columns or weights`);
  for (let i = 0; i < size; i++) {
    if (rowPtr[i + 1] < rowPtr[i]) fail(`rowPtr decreases at row ${i}`);
    for (let p = rowPtr[i]; p < rowPtr[i + 1]; p++) {
      const j = col[p];
      if (j >= size) fail(`row ${i} has column ${j}, beyond ${size} fragments`);
      if (j === i) fail(`row ${i} relates the fragment to itself`);
      const w = weight[p];
      if (!(w >= 0 && w < Infinity))
        fail(`row ${i} has weight ${w}; weights must be finite and >= 0`);
    }
  }
}

/**
 * Eq. 9: s_env[i] = sum_j w[i][j] s_ind[j] / sum_j w[i][j], 0 for an empty row. A module-level
 * function over plain arrays: V8 optimises it better than a closure over the relation.
 */
function sparseEnvironment(
  rowPtr: Uint32Array,
  col: Uint32Array,
  weight: Float32Array,
  invRowSum: Float64Array,
  s: Float64Array,
  out: Float64Array,
): void {
  const rows = invRowSum.length;
  for (let i = 0; i < rows; i++) {
    let sum = 0;
    const end = rowPtr[i + 1];
    for (let p = rowPtr[i]; p < end; p++) sum += weight[p] * s[col[p]];
    out[i] = sum * invRowSum[i];
  }
}

/**
 * Implement `Relation` (Eq. 9 and contributions) for any CSR matrix of weights w[i][j].
 * The matrix is validated once here; it must not be changed afterwards.
 */
export function csrRelation(kind: string, csr: CsrMatrix): CsrRelation {
  validateCsr(csr);
  const { size, rowPtr, col, weight } = csr;
  // 1 / sum_j w[i][j] (0 for an empty row): fixed per relation, so not redone per query.
  const invRowSum = new Float64Array(size);
  for (let i = 0; i < size; i++) {
    let sum = 0;
    for (let p = rowPtr[i]; p < rowPtr[i + 1]; p++) sum += weight[p];
    invRowSum[i] = sum > 0 ? 1 / sum : 0;
  }

  const checkLength = (independent: Float64Array) => {
    if (independent.length !== size) {
      throw new Error(
        `FragRel: ${independent.length} independent scores for the ${kind} relation over ${size} fragments.`,
      );
    }
  };

  return {
    kind,
    size,
    csr,

    environmentScores(independent: Float64Array, out = new Float64Array(size)): Float64Array {
      checkLength(independent);
      sparseEnvironment(rowPtr, col, weight, invRowSum, independent, out);
      return out;
    },

    contributions(i: number, independent: Float64Array, limit: number): Contribution[] {
      checkLength(independent);
      checkIndex(i, size);
      const inv = invRowSum[i];
      const all: Contribution[] = [];
      let env = 0;
      for (let p = rowPtr[i]; p < rowPtr[i + 1]; p++) {
        const amount = weight[p] * independent[col[p]] * inv;
        env += amount;
        // A zero amount explains nothing; listing it would only crowd the explanation.
        if (amount > 0) all.push({ index: col[p], weight: weight[p], amount, share: 0 });
      }
      all.sort((a, b) => b.amount - a.amount || a.index - b.index);
      const top = all.slice(0, Math.max(0, Math.floor(limit)));
      for (const c of top) c.share = env > 0 ? c.amount / env : 0;
      return top;
    },
  };
}
