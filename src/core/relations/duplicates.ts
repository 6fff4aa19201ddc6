/**
 * @file Identical fragment vectors related once (the semantic relation, Eq. 6).
 *
 * Why: a repository of thousands of one-line files of the same shape, or a text that repeats a
 * line, gives many bit-identical vectors. Every pair of them scores the same cosine, so the
 * inverted file puts them all in one cluster and its filter lets every product through (each
 * ties the row's floor): measured on 30,000 copies, all in one list of 30,000, the build spent
 * about 150 s comparing all pairs (docs/scale.md, "Identical vectors"). Here each set of
 * identical rows of a document is relaxed to one representative (its lowest index), the
 * relation is built over the representatives, and each row is then filled from its own group
 * and its representative's neighbour groups.
 *
 * Why the result is the exact search's own: every member of a group scores the same cosine
 * with a fragment (the same bits, summed in the same order), so a row's k best (score, then the
 * lower index) are its own group's lowest other members and the lowest members of the best
 * groups; a group whose member is among them ranks, by its representative (its lowest member),
 * among the k best groups, which the representative's row holds. Under the inverted file the
 * representatives' rows are approximate as before. A document without two identical rows is
 * left to the build untouched, so its result is unchanged bit for bit.
 */
import type { CsrMatrix, VectorSet } from '../types';
import { createRowHeaps, heapsToCsr } from './row-heaps';

/** Identical rows of each document grouped: the representatives and, per row, its group. */
export interface DistinctRows {
  /** The representatives' vectors (each group's lowest row), documents in order. */
  vectors: VectorSet;
  /** Document boundaries over the representatives. */
  segments: Uint32Array;
  /** Row i's representative (an index into `vectors`). */
  groupOf: Uint32Array;
  /** Group g's rows, ascending: members[memberStart[g] .. memberStart[g + 1]). */
  memberStart: Uint32Array;
  members: Uint32Array;
  /** The representative's index in the full rows. */
  repRow: Uint32Array;
}

/** The groups of identical rows, or null where every row of every document is distinct. */
export function distinctRows(vectors: VectorSet, segs: Uint32Array): DistinctRows | null {
  const { dim, data } = vectors;
  const size = segs[segs.length - 1];
  const bits = new Uint32Array(data.buffer, data.byteOffset, size * dim);
  const groupOf = new Uint32Array(size);
  const repRow: number[] = [];
  const repSegs = [0];
  for (let s = 0; s + 1 < segs.length; s++) {
    // Open hashing on the rows' bits; a bucket holds group numbers, compared row by row.
    const seen = new Map<number, number[]>();
    for (let i = segs[s]; i < segs[s + 1]; i++) {
      const o = i * dim;
      let h = 0x811c9dc5;
      for (let d = 0; d < dim; d++) h = Math.imul(h ^ bits[o + d], 0x01000193);
      const bucket = seen.get(h);
      let found = -1;
      if (bucket) {
        for (const g of bucket) {
          const r = repRow[g] * dim;
          let same = true;
          for (let d = 0; d < dim && same; d++) same = bits[r + d] === bits[o + d];
          if (same) {
            found = g;
            break;
          }
        }
      }
      if (found < 0) {
        found = repRow.length;
        repRow.push(i);
        if (bucket) bucket.push(found);
        else seen.set(h, [found]);
      }
      groupOf[i] = found;
    }
    repSegs.push(repRow.length);
  }
  const groups = repRow.length;
  if (groups === size) return null;
  const repData = new Float32Array(groups * dim);
  repRow.forEach((i, g) => repData.set(data.subarray(i * dim, (i + 1) * dim), g * dim));
  const memberStart = new Uint32Array(groups + 1);
  for (let i = 0; i < size; i++) memberStart[groupOf[i] + 1]++;
  for (let g = 0; g < groups; g++) memberStart[g + 1] += memberStart[g];
  const fill = memberStart.slice(0, groups);
  const members = new Uint32Array(size);
  for (let i = 0; i < size; i++) members[fill[groupOf[i]]++] = i;
  return {
    vectors: { dim, count: groups, data: repData },
    segments: Uint32Array.from(repSegs),
    groupOf,
    memberStart,
    members,
    repRow: Uint32Array.from(repRow),
  };
}

/**
 * The relation over all rows from the representatives' (`reps`, over `groups.vectors`): each
 * row offered its own group's other members (at the group's cosine with itself) and the members
 * of its representative's neighbour groups, at most k of each group, lowest first. `work`, when
 * given, counts the offers.
 */
export function expandDistinct(
  reps: CsrMatrix,
  groups: DistinctRows,
  size: number,
  k: number,
  work?: { offers: number },
): CsrMatrix {
  const { dim, data } = groups.vectors;
  const { groupOf, memberStart, members } = groups;
  const heaps = createRowHeaps(size, k);
  const { floor, offer } = heaps;
  // The cosines in the order of the build's own sums (d ascending), so ties stay ties.
  const dotOf = (a: number, b: number) => {
    let sum = 0;
    for (let d = 0; d < dim; d++) sum += data[a * dim + d] * data[b * dim + d];
    return sum;
  };
  const selfScore = new Float64Array(reps.size);
  for (let g = 0; g < reps.size; g++) selfScore[g] = dotOf(g, g);
  let offers = 0;
  for (let i = 0; i < size; i++) {
    const g = groupOf[i];
    const offerGroup = (h: number, score: number) => {
      if (!(score > 0)) return;
      let taken = 0;
      for (let p = memberStart[h]; p < memberStart[h + 1] && taken < k; p++) {
        const j = members[p];
        if (j === i) continue;
        taken++;
        offers++;
        if (score >= floor[i]) offer(i, score, j);
        else break;
      }
    };
    offerGroup(g, selfScore[g]);
    for (let e = reps.rowPtr[g]; e < reps.rowPtr[g + 1]; e++) {
      const h = reps.col[e];
      offerGroup(h, dotOf(g, h));
    }
  }
  if (work) work.offers += offers;
  return heapsToCsr(heaps, size);
}

/** Progress over the representatives, reported over all rows (proportionally). */
export function progressOverGroups(
  onProgress: (rowsDone: number, rowsTotal: number) => void,
  groups: DistinctRows,
  size: number,
): (rowsDone: number) => void {
  const count = Math.max(1, groups.vectors.count);
  return (done) => onProgress(Math.floor((done * size) / count), size);
}
