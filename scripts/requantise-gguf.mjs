/**
 * @file Rewrite a GGUF model's Q4_1 weight tensors as Q8_0 (or Q4_0), everything else byte for
 * byte: used by `npm run models` to derive the SmolLM2 file wllama reads fast.
 *
 * Why: llama.cpp's WebAssembly build has SIMD dot products for Q4_0, Q8_0 and the K-quants but
 * none for Q4_1 (ggml-cpu/arch-fallback.h maps ggml_vec_dot_q4_1_q8_1 to its scalar generic
 * version under __wasm__), while native x86 has AVX2 for all of them. The only SmolLM2 file on
 * the Python package index is Q4_1. A Q4_1 value is d·q + m with q in 0..15; Q8_0 (d·q, q in
 * -127..127 over the same 32 values) holds it within half a Q8_0 step, 1/254 of the block's
 * largest value (on SmolLM2 at most 0.4% of a tensor's largest weight), so the Q8_0 copy answers
 * as the Q4_1 file does. Q4_0 would quantise a second time and lose more.
 *
 * The output is deterministic (same input, same bytes), so its sha256 is pinned in the manifest
 * like any downloaded file. Only what this needs of GGUF v2/v3 is read: the header, the metadata
 * (copied, with general.file_type updated) and the tensor table.
 */
import { readFileSync } from 'node:fs';

const GGML = { F32: 0, F16: 1, Q4_0: 2, Q4_1: 3, Q8_0: 8 };
/** Bytes per block and values per block of each tensor type read here. */
const LAYOUT = {
  [GGML.F32]: { bytes: 4, values: 1 },
  [GGML.F16]: { bytes: 2, values: 1 },
  [GGML.Q4_0]: { bytes: 18, values: 32 },
  [GGML.Q4_1]: { bytes: 20, values: 32 },
  [GGML.Q8_0]: { bytes: 34, values: 32 },
};
/** llama.cpp's `general.file_type` for a model mostly of that type. */
const FILE_TYPE = { Q4_0: 2, Q4_1: 3, Q8_0: 7 };

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** IEEE half → number. */
function halfToFloat(h) {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const f = h & 0x3ff;
  if (e === 0) return s * f * 2 ** -24;
  if (e === 31) return f ? NaN : s * Infinity;
  return s * (1 + f / 1024) * 2 ** (e - 15);
}

/** number → IEEE half, round to nearest even (as ggml's GGML_FP32_TO_FP16 on x86). */
function floatToHalf(x) {
  f32[0] = x;
  const bits = u32[0];
  const sign = (bits >>> 16) & 0x8000;
  const exp = (bits >>> 23) & 0xff;
  let mant = bits & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  let e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let half = mant >>> shift;
    const rem = mant & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    if (rem > mid || (rem === mid && half & 1)) half++;
    return sign | half;
  }
  let half = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && half & 1)) half++;
  return sign | half;
}

class Reader {
  constructor(buf) {
    this.buf = buf;
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    this.at = 0;
  }
  u32() {
    const v = this.view.getUint32(this.at, true);
    this.at += 4;
    return v;
  }
  u64() {
    const v = this.view.getBigUint64(this.at, true);
    this.at += 8;
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error('GGUF value too large');
    return Number(v);
  }
  string() {
    const n = this.u64();
    const s = this.buf.subarray(this.at, this.at + n).toString('utf8');
    this.at += n;
    return s;
  }
  /** Skip (or read, for the few scalars needed) a metadata value of `type`. */
  value(type) {
    const fixed = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 };
    if (type === 8) return this.string();
    if (type === 9) {
      const itemType = this.u32();
      const n = this.u64();
      for (let i = 0; i < n; i++) this.value(itemType);
      return undefined;
    }
    const size = fixed[type];
    if (size === undefined) throw new Error(`unknown GGUF value type ${type}`);
    const v = type === 4 ? this.view.getUint32(this.at, true) : undefined;
    this.at += size;
    return v;
  }
}

function q41ToQ80(src, dst, blocks) {
  const values = new Float64Array(32);
  for (let b = 0; b < blocks; b++) {
    const s = b * 20;
    const d = halfToFloat(src[s] | (src[s + 1] << 8));
    const m = halfToFloat(src[s + 2] | (src[s + 3] << 8));
    let amax = 0;
    for (let j = 0; j < 16; j++) {
      const byte = src[s + 4 + j];
      values[j] = d * (byte & 0x0f) + m;
      values[j + 16] = d * (byte >> 4) + m;
    }
    for (let j = 0; j < 32; j++) amax = Math.max(amax, Math.abs(values[j]));
    const scale = amax / 127;
    const inv = scale ? 1 / scale : 0;
    const o = b * 34;
    const h = floatToHalf(scale);
    dst[o] = h & 0xff;
    dst[o + 1] = h >> 8;
    for (let j = 0; j < 32; j++) {
      const q = Math.round(values[j] * inv);
      dst[o + 2 + j] = Math.max(-127, Math.min(127, q)) & 0xff;
    }
  }
}

function q41ToQ40(src, dst, blocks) {
  const values = new Float64Array(32);
  for (let b = 0; b < blocks; b++) {
    const s = b * 20;
    const d = halfToFloat(src[s] | (src[s + 1] << 8));
    const m = halfToFloat(src[s + 2] | (src[s + 3] << 8));
    for (let j = 0; j < 16; j++) {
      const byte = src[s + 4 + j];
      values[j] = d * (byte & 0x0f) + m;
      values[j + 16] = d * (byte >> 4) + m;
    }
    // ggml's reference: the value of largest magnitude maps to -8.
    let max = 0;
    for (let j = 0; j < 32; j++) if (Math.abs(values[j]) > Math.abs(max)) max = values[j];
    const scale = max / -8;
    const inv = scale ? 1 / scale : 0;
    const o = b * 18;
    const h = floatToHalf(scale);
    dst[o] = h & 0xff;
    dst[o + 1] = h >> 8;
    for (let j = 0; j < 16; j++) {
      const lo = Math.min(15, Math.trunc(values[j] * inv + 8.5));
      const hi = Math.min(15, Math.trunc(values[j + 16] * inv + 8.5));
      dst[o + 2 + j] = lo | (hi << 4);
    }
  }
}

/**
 * The bytes of `path` with its Q4_1 tensors as `target` ('Q8_0' or 'Q4_0').
 * @param {string} path
 * @param {'Q8_0' | 'Q4_0'} target
 * @returns {Buffer}
 */
export function requantiseGguf(path, target) {
  const toType = GGML[target];
  if (toType !== GGML.Q8_0 && toType !== GGML.Q4_0) throw new Error(`cannot write ${target}`);
  const buf = readFileSync(path);
  const r = new Reader(buf);
  if (buf.subarray(0, 4).toString('latin1') !== 'GGUF') throw new Error(`${path} is not GGUF`);
  r.at = 4;
  const version = r.u32();
  if (version < 2) throw new Error(`GGUF version ${version} is not supported`);
  const tensorCount = r.u64();
  const kvCount = r.u64();
  let alignment = 32;
  let fileTypeAt = -1;
  for (let i = 0; i < kvCount; i++) {
    const key = r.string();
    const type = r.u32();
    const at = r.at;
    const v = r.value(type);
    if (key === 'general.alignment' && type === 4) alignment = v;
    if (key === 'general.file_type' && type === 4) fileTypeAt = at;
  }
  const infos = [];
  for (let i = 0; i < tensorCount; i++) {
    const name = r.string();
    const nDims = r.u32();
    let count = 1;
    for (let d = 0; d < nDims; d++) count *= r.u64();
    const typeAt = r.at;
    const type = r.u32();
    const offset = r.u64();
    const layout = LAYOUT[type];
    if (!layout) throw new Error(`tensor ${name} has type ${type}, not handled here`);
    infos.push({ name, count, type, typeAt, offset, layout });
  }
  const headerEnd = r.at;
  const align = (n) => Math.ceil(n / alignment) * alignment;
  const dataStart = align(headerEnd);
  // New types and offsets.
  let next = 0;
  const out = infos.map((t) => {
    const newType = t.type === GGML.Q4_1 ? toType : t.type;
    const layout = LAYOUT[newType];
    const bytes = (t.count / layout.values) * layout.bytes;
    const offset = next;
    next = align(offset + bytes);
    return { ...t, newType, newOffset: offset, bytes };
  });
  const result = Buffer.alloc(dataStart + next);
  buf.copy(result, 0, 0, headerEnd);
  const view = new DataView(result.buffer, result.byteOffset, result.byteLength);
  if (fileTypeAt >= 0) view.setUint32(fileTypeAt, FILE_TYPE[target], true);
  for (const t of out) {
    view.setUint32(t.typeAt, t.newType, true);
    view.setBigUint64(t.typeAt + 4, BigInt(t.newOffset), true);
    const src = buf.subarray(
      dataStart + t.offset,
      dataStart + t.offset + (t.count / t.layout.values) * t.layout.bytes,
    );
    const dst = result.subarray(dataStart + t.newOffset, dataStart + t.newOffset + t.bytes);
    if (t.newType === t.type) src.copy(dst);
    else if (toType === GGML.Q8_0) q41ToQ80(src, dst, t.count / 32);
    else q41ToQ40(src, dst, t.count / 32);
  }
  return result;
}
