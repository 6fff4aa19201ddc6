/**
 * @file The wasm SIMD block kernel (dot-block.wat) behind a small bump allocator, for the
 * inverted file of the semantic relation (Eq. 6): scores of a block of query rows against a
 * block of member rows, f32x4 four lanes at a time. Plain JS tops out near 1 GMAC/s here; the
 * kernel is several times that (bench/scale.ts). Its f32 sums differ from the JS f64 sums by
 * rounding, so callers use them as a filter and recompute the weights they keep (semantic.ts).
 *
 * Core stays free of the DOM: only the `WebAssembly` global (Node, workers and pages all have
 * it). Where wasm SIMD is missing, `createDotBlock` returns null and callers use the JS tiles.
 */
import { dotBlockWasmBase64 } from './dot-block-wasm';

/** Rows are padded with zeros to a multiple of this many floats (one f32x4). */
export const LANES = 4;

/**
 * Upper bound on |f32 SIMD sum - exact sum| for unit-or-zero rows of up to 1,024 dimensions:
 * a recursive f32 sum of n terms errs by at most about n * 2^-24 * sum |x_d y_d| <= n * 6e-8,
 * which is 6e-5 at n = 1,024. A candidate within this of a row's floor is rescored exactly.
 */
export const DOT_BLOCK_TOLERANCE = 1e-4;

export interface DotBlock {
  /** Reserve `bytes` (rounded up to 16) and return their byte offset. */
  alloc(bytes: number): number;
  /** Current views of the kernel's memory (renewed when it grows). */
  f32(): Float32Array;
  i32(): Int32Array;
  /**
   * out[q * nm + m] = <row at queryOffsets[q], row m of members> for q < nq (even), m < nm (a
   * multiple of 4); all arguments are byte offsets, rows of `rowBytes` (a multiple of 16).
   */
  block(
    queryOffsets: number,
    nq: number,
    members: number,
    nm: number,
    rowBytes: number,
    out: number,
  ): void;
  /**
   * The same products, but writes only the candidates, (q << 16 | m) for each product that is
   * positive and at least queryFloors[q] or memberFloors[m] (f32 arrays at those byte offsets),
   * into the i32 array at `out` (room for nq * nm); returns their count.
   */
  blockFiltered(
    queryOffsets: number,
    nq: number,
    members: number,
    nm: number,
    rowBytes: number,
    queryFloors: number,
    memberFloors: number,
    out: number,
  ): number;
  /**
   * For `count` candidates of `blockFiltered` (at `candidates`, with the same queries and
   * members), the exact dot products as f64 at `dst`: summed in the order and precision of the
   * JS `dotOf` in semantic.ts, so bit for bit the same number.
   */
  rescore(
    queryOffsets: number,
    members: number,
    rowBytes: number,
    candidates: number,
    count: number,
    dst: number,
  ): void;
  f64(): Float64Array;
  i16(): Int16Array;
  /**
   * `blockFiltered` on rows quantised to i16 (see `quantisation`): rows of `rowBytes` (a multiple
   * of 16, i.e. padded to 8 dimensions), each integer sum times `unit` (1 / scale^2) compared
   * with the f32 floors. Same candidate codes, so `rescore` (on the f32 rows) follows it.
   */
  blockFiltered16(
    queryOffsets: number,
    nq: number,
    members: number,
    nm: number,
    rowBytes: number,
    queryFloors: number,
    memberFloors: number,
    unit: number,
    out: number,
  ): number;
}

/** i16 values per padded quantised row: one v128 holds 8. */
export const LANES16 = 8;

/** i16 values per quantised row of `dim` dimensions. */
export const paddedDim16 = (dim: number) => Math.ceil(dim / LANES16) * LANES16;

/**
 * Largest quantised row norm: |q|_2 <= 32,000 + 0.5 sqrt(dim), so every partial sum of
 * |q_d q'_d| stays under 1.1e9 and every pair that i32x4.dot_i16x8_s adds under 2^31.
 */
const QUANT_NORM = 32_000;

export interface Quantisation {
  /** q_d = round(x_d * scale). */
  scale: number;
  /** 1 / scale^2: an integer dot product times this is the quantised cosine. */
  unit: number;
  /**
   * Bound on |quantised dot - exact dot| for rows of norm <= maxNorm, plus the f32 rounding of
   * the conversion and of the floors: with q = x s + e, |e_d| <= 1/2,
   * |q.q'/s^2 - x.y| <= (|x|_1 + |y|_1) / (2 s) + dim / (4 s^2) <= sqrt(dim) maxNorm / s + dim / (4 s^2).
   */
  tolerance: number;
}

/** Scale and error bound for i16 rows of `dim` dimensions whose largest norm is `maxNorm`. */
export function quantisation(dim: number, maxNorm: number): Quantisation {
  const scale = maxNorm > 0 ? QUANT_NORM / maxNorm : 1;
  const tolerance =
    (Math.sqrt(dim) * maxNorm) / scale + dim / (4 * scale * scale) + DOT_BLOCK_TOLERANCE / 100;
  return { scale, unit: 1 / (scale * scale), tolerance };
}

// Core compiles without the DOM or Node libraries, so the little of the WebAssembly API used here
// is declared here (the global exists in Node, workers and pages alike).
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
type WasmModule = object;
declare const WebAssembly:
  | {
      validate(bytes: Uint8Array): boolean;
      Module: new (bytes: Uint8Array) => WasmModule;
      Instance: new (module: WasmModule, imports: object) => { exports: Record<string, unknown> };
    }
  | undefined;

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Standard base64 (with `=` padding) to bytes; atob is not in every core environment's types. */
export function base64Bytes(text: string): Uint8Array {
  const clean = text.replace(/=+$/, '');
  const bytes = new Uint8Array(Math.floor((clean.length * 3) / 4));
  let bits = 0;
  let value = 0;
  let at = 0;
  for (let i = 0; i < clean.length; i++) {
    const v = BASE64.indexOf(clean[i]);
    if (v < 0) throw new Error(`FragRel: invalid base64 character ${JSON.stringify(clean[i])}.`);
    value = (value << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes[at++] = (value >> bits) & 0xff;
    }
  }
  return bytes;
}

let compiled: WasmModule | null | undefined;

function wasmModule(): WasmModule | null {
  if (compiled !== undefined) return compiled;
  compiled = null;
  try {
    const bytes = base64Bytes(dotBlockWasmBase64);
    // Validation fails where the engine lacks SIMD: the JS tiles are used there.
    if (typeof WebAssembly === 'object' && WebAssembly.validate(bytes)) {
      compiled = new WebAssembly.Module(bytes);
    }
  } catch {
    compiled = null;
  }
  return compiled;
}

/** A fresh kernel with its own memory, or null where wasm SIMD is not available. */
export function createDotBlock(): DotBlock | null {
  const module = wasmModule();
  if (!module || WebAssembly === undefined) return null;
  const instance = new WebAssembly.Instance(module, {});
  const memory = instance.exports.memory as WasmMemory;
  const block = instance.exports.block as DotBlock['block'];
  const blockFiltered = instance.exports.blockFiltered as DotBlock['blockFiltered'];
  const rescore = instance.exports.rescore as DotBlock['rescore'];
  const blockFiltered16 = instance.exports.blockFiltered16 as DotBlock['blockFiltered16'];
  let top = 0;
  let f32 = new Float32Array(memory.buffer);
  let i32 = new Int32Array(memory.buffer);
  let f64 = new Float64Array(memory.buffer);
  let i16 = new Int16Array(memory.buffer);
  const views = () => {
    if (f32.buffer !== memory.buffer) {
      f32 = new Float32Array(memory.buffer);
      i32 = new Int32Array(memory.buffer);
      f64 = new Float64Array(memory.buffer);
      i16 = new Int16Array(memory.buffer);
    }
  };
  return {
    alloc(bytes) {
      const at = top;
      top += Math.ceil(bytes / 16) * 16;
      const pages = Math.ceil(top / 65_536);
      const have = memory.buffer.byteLength / 65_536;
      if (pages > have) memory.grow(pages - have);
      return at;
    },
    f32() {
      views();
      return f32;
    },
    i32() {
      views();
      return i32;
    },
    f64() {
      views();
      return f64;
    },
    i16() {
      views();
      return i16;
    },
    block,
    blockFiltered,
    blockFiltered16,
    rescore,
  };
}

/** Floats per padded row of `dim` dimensions. */
export const paddedDim = (dim: number) => Math.ceil(dim / LANES) * LANES;
