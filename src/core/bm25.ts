/**
 * @file BM25, the sparse independent score (Eq. 4): s_ind[i] = BM25(x, c_i) / max_j BM25(x, c_j).
 *
 * IDF variant: idf(t) = log(1 + (N - n_t + 0.5) / (n_t + 0.5)) (as in Lucene). The classic
 * Robertson form without the "1 +" goes negative for terms in more than half the fragments,
 * which would make raw scores negative and break the rescaling to [0, 1] that lets BM25 scores
 * be mixed with environment scores in Eq. 10. This variant is always >= 0.
 *
 * A query term that occurs twice counts twice (BM25's query-frequency factor with k3 -> inf,
 * the common convention of rank_bm25 and others).
 */
import { defaultBm25Params, type Bm25Params } from './options';

/** idf(t) for a term in `matchingCount` of `totalCount` fragments; never negative. */
export function bm25Idf(matchingCount: number, totalCount: number): number {
  return Math.log(1 + (totalCount - matchingCount + 0.5) / (matchingCount + 0.5));
}

/**
 * One term's BM25 contribution to one fragment:
 * idf * tf (k1 + 1) / (tf + k1 (1 - b + b |c| / avg|c|)).
 */
export function calcBm25Score(
  termFreq: number,
  matchingCount: number,
  totalCount: number,
  fragmentLength: number,
  avgFragmentLength: number,
  params: Bm25Params = defaultBm25Params,
): number {
  const { k1, b } = params;
  const relLength = avgFragmentLength > 0 ? fragmentLength / avgFragmentLength : 1;
  const tfPart = (termFreq * (k1 + 1)) / (termFreq + k1 * (1 - b + b * relLength));
  return bm25Idf(matchingCount, totalCount) * tfPart;
}

/**
 * An inverted index over the fragments' token lists, built once per document set. Postings are
 * CSR over term ids (fragment ids ascending within a term), so a query touches only the
 * fragments that contain one of its terms.
 */
export interface Bm25Index {
  params: Bm25Params;
  /** N: number of fragments. */
  count: number;
  /** Tokens per fragment, |c_i|. */
  lengths: Uint32Array;
  avgLength: number;
  /** Term strings by id, and the reverse map. */
  vocabulary: string[];
  termIds: Map<string, number>;
  /** Postings of term t: fragments postFragment[termPtr[t] .. termPtr[t+1]] with frequencies. */
  termPtr: Uint32Array;
  postFragment: Uint32Array;
  postFreq: Uint32Array;
  /** k1 (1 - b + b |c_i| / avg|c|) per fragment: the query-independent part of the formula. */
  lengthNorm: Float64Array;
}

/** Build the index over one token list per fragment (fragment order = score order). */
export function buildBm25Index(
  fragmentTokens: readonly (readonly string[])[],
  params: Partial<Bm25Params> = {},
): Bm25Index {
  const p: Bm25Params = { ...defaultBm25Params, ...params };
  const count = fragmentTokens.length;
  const termIds = new Map<string, number>();
  const vocabulary: string[] = [];
  const lengths = new Uint32Array(count);

  // Pass 1: term ids for every token (kept flat so pass 2 skips the string lookups), and n_t.
  let ids = new Uint32Array(1024);
  let total = 0;
  const df: number[] = [];
  const lastSeen: number[] = [];
  for (let f = 0; f < count; f++) {
    const tokens = fragmentTokens[f];
    lengths[f] = tokens.length;
    if (total + tokens.length > ids.length) {
      const grown = new Uint32Array(Math.max(ids.length * 2, total + tokens.length));
      grown.set(ids.subarray(0, total));
      ids = grown;
    }
    for (const token of tokens) {
      let id = termIds.get(token);
      if (id === undefined) {
        id = vocabulary.length;
        termIds.set(token, id);
        vocabulary.push(token);
        df.push(0);
        lastSeen.push(-1);
      }
      ids[total++] = id;
      if (lastSeen[id] !== f) {
        lastSeen[id] = f;
        df[id]++;
      }
    }
  }

  return bm25IndexFromIds(ids, lengths, vocabulary, termIds, df, p);
}

/**
 * The index from every fragment's term ids laid end to end (`lengths[f]` ids each, in order),
 * with the vocabulary and each term's fragment count n_t already known: what both ways of
 * tokenizing (per fragment above; pieces shared by overlapping fragments, bm25IndexOfPieces)
 * end in.
 */
function bm25IndexFromIds(
  ids: Uint32Array,
  lengths: Uint32Array,
  vocabulary: string[],
  termIds: Map<string, number>,
  df: ArrayLike<number>,
  p: Bm25Params,
): Bm25Index {
  const count = lengths.length;
  const terms = vocabulary.length;
  const termPtr = new Uint32Array(terms + 1);
  for (let t = 0; t < terms; t++) termPtr[t + 1] = termPtr[t] + df[t];
  const postings = termPtr[terms];
  const postFragment = new Uint32Array(postings);
  const postFreq = new Uint32Array(postings);

  // Pass 2: fill postings in fragment order, so each term's list comes out sorted.
  const cursor = termPtr.slice(0, terms);
  const open = new Int32Array(terms).fill(-1);
  let at = 0;
  for (let f = 0; f < count; f++) {
    const end = at + lengths[f];
    for (; at < end; at++) {
      const id = ids[at];
      if (open[id] >= 0 && postFragment[open[id]] === f) {
        postFreq[open[id]]++;
      } else {
        const slot = cursor[id]++;
        postFragment[slot] = f;
        postFreq[slot] = 1;
        open[id] = slot;
      }
    }
  }

  let sum = 0;
  for (let f = 0; f < count; f++) sum += lengths[f];
  const avgLength = count > 0 ? sum / count : 0;
  const lengthNorm = new Float64Array(count);
  for (let f = 0; f < count; f++) {
    const relLength = avgLength > 0 ? lengths[f] / avgLength : 1;
    lengthNorm[f] = p.k1 * (1 - p.b + p.b * relLength);
  }
  return {
    params: p,
    count,
    lengths,
    avgLength,
    vocabulary,
    termIds,
    termPtr,
    postFragment,
    postFreq,
    lengthNorm,
  };
}

/**
 * The same index as `buildBm25Index(fragments' tokens)`, from token lists of pieces: fragment f
 * is the pieces `pieceIds[pieceStart[f]] ...` up to `pieceStart[f + 1]`, whose tokens in order
 * are its tokens. Overlapping fragments (code windows) share their pieces, so each piece's
 * terms are looked up once (core/fragment-tokens.ts cuts them).
 */
export function bm25IndexOfPieces(
  pieces: readonly (readonly string[])[],
  pieceStart: Uint32Array,
  pieceIds: Uint32Array,
  params: Partial<Bm25Params> = {},
): Bm25Index {
  const p: Bm25Params = { ...defaultBm25Params, ...params };
  const count = pieceStart.length - 1;
  const termIds = new Map<string, number>();
  const vocabulary: string[] = [];
  const df: number[] = [];
  const lastSeen: number[] = [];
  const pieceTerms: (Uint32Array | undefined)[] = new Array(pieces.length);
  const lengths = new Uint32Array(count);
  let total = 0;
  for (let f = 0; f < count; f++) {
    for (let k = pieceStart[f]; k < pieceStart[f + 1]; k++) {
      const piece = pieceIds[k];
      // Term ids are given in the order terms first occur over the fragments, as above.
      let terms = pieceTerms[piece];
      if (!terms) {
        const tokens = pieces[piece];
        terms = new Uint32Array(tokens.length);
        for (let t = 0; t < tokens.length; t++) {
          let id = termIds.get(tokens[t]);
          if (id === undefined) {
            id = vocabulary.length;
            termIds.set(tokens[t], id);
            vocabulary.push(tokens[t]);
            df.push(0);
            lastSeen.push(-1);
          }
          terms[t] = id;
        }
        pieceTerms[piece] = terms;
      }
      lengths[f] += terms.length;
      for (let t = 0; t < terms.length; t++) {
        const id = terms[t];
        if (lastSeen[id] !== f) {
          lastSeen[id] = f;
          df[id]++;
        }
      }
    }
    total += lengths[f];
  }
  const ids = new Uint32Array(total);
  let at = 0;
  for (let f = 0; f < count; f++) {
    for (let k = pieceStart[f]; k < pieceStart[f + 1]; k++) {
      const terms = pieceTerms[pieceIds[k]]!;
      ids.set(terms, at);
      at += terms.length;
    }
  }
  return bm25IndexFromIds(ids, lengths, vocabulary, termIds, df, p);
}

/** Raw BM25(x, c_i) for every fragment (0 where no query term occurs). */
export function bm25Scores(
  index: Bm25Index,
  queryTokens: readonly string[],
  out: Float64Array = new Float64Array(index.count),
): Float64Array {
  out.fill(0);
  const k1Plus1 = index.params.k1 + 1;
  const { termPtr, postFragment, postFreq, lengthNorm } = index;
  for (const token of queryTokens) {
    const id = index.termIds.get(token);
    if (id === undefined) continue;
    const from = termPtr[id];
    const to = termPtr[id + 1];
    const idf = bm25Idf(to - from, index.count);
    for (let p = from; p < to; p++) {
      const f = postFragment[p];
      const tf = postFreq[p];
      out[f] += (idf * tf * k1Plus1) / (tf + lengthNorm[f]);
    }
  }
  return out;
}

/**
 * Divide by the maximum so the best fragment scores 1 (DESIGN.md: BM25 is rescaled to [0, 1]
 * so it can be added to environment scores). All zeros (no query term occurs) stay zeros.
 */
export function rescaleByMax(
  scores: ArrayLike<number>,
  out: Float64Array = new Float64Array(scores.length),
): Float64Array {
  let max = 0;
  for (let i = 0; i < scores.length; i++) if (scores[i] > max) max = scores[i];
  // Divide (not multiply by 1 / max) so the best fragment gets exactly 1.
  if (max > 0) for (let i = 0; i < scores.length; i++) out[i] = scores[i] / max;
  else out.fill(0);
  return out;
}

/** Eq. 4, sparse: rescaled BM25 of the query against every fragment. */
export function bm25IndependentScores(
  index: Bm25Index,
  queryTokens: readonly string[],
  out?: Float64Array,
): Float64Array {
  const raw = bm25Scores(index, queryTokens, out);
  return rescaleByMax(raw, raw);
}
