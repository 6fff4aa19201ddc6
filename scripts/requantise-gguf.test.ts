/**
 * The Q4_1 → Q8_0 / Q4_0 rewrite on a small GGUF built here: every value survives within half a
 * Q8_0 step (1/254 of its block's largest value), other tensors and the metadata are kept byte for byte, the file type
 * follows, and the output is the same bytes every time (its sha256 is pinned in the manifest).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
// @ts-expect-error: plain ESM script without types.
import { requantiseGguf } from './requantise-gguf.mjs';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fragrel-requant-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

class Writer {
  parts: number[] = [];
  u8(v: number) {
    this.parts.push(v & 0xff);
  }
  u32(v: number) {
    for (let i = 0; i < 4; i++) this.u8(v >>> (8 * i));
  }
  u64(v: number) {
    this.u32(v);
    this.u32(0);
  }
  str(s: string) {
    const b = new TextEncoder().encode(s);
    this.u64(b.length);
    for (const x of b) this.u8(x);
  }
  pad(to: number) {
    while (this.parts.length % to) this.u8(0);
  }
}

const half = (x: number) => {
  // Values used here are exact in half precision: 0.5, 0.25, -1, 0.125 ...
  const f = new Float32Array([x]);
  const bits = new Uint32Array(f.buffer)[0];
  const sign = (bits >>> 16) & 0x8000;
  const exp = ((bits >>> 23) & 0xff) - 127 + 15;
  const mant = (bits & 0x7fffff) >>> 13;
  return x === 0 ? 0 : sign | (exp << 10) | mant;
};

/** A GGUF with one Q4_1 tensor (2 blocks) and one F32 tensor (4 values). */
function tinyGguf(): { bytes: Uint8Array; q41: number[]; f32: number[] } {
  const w = new Writer();
  for (const c of 'GGUF') w.u8(c.charCodeAt(0));
  w.u32(3);
  w.u64(2); // tensors
  w.u64(2); // metadata
  w.str('general.architecture');
  w.u32(8);
  w.str('llama');
  w.str('general.file_type');
  w.u32(4);
  w.u32(3);
  w.str('blk.0.attn_q.weight');
  w.u32(1);
  w.u64(64);
  w.u32(3); // Q4_1
  w.u64(0);
  w.str('blk.0.attn_norm.weight');
  w.u32(1);
  w.u64(4);
  w.u32(0); // F32
  w.u64(64); // 2 blocks × 20 bytes = 40, aligned to 32 → 64
  w.pad(32);
  const q41: number[] = [];
  const blocks = [
    { d: 0.5, m: -1 },
    { d: 0.125, m: 0.25 },
  ];
  for (const [b, { d, m }] of blocks.entries()) {
    w.u8(half(d));
    w.u8(half(d) >> 8);
    w.u8(half(m));
    w.u8(half(m) >> 8);
    const qs = Array.from({ length: 32 }, (_, j) => (j * 7 + b) % 16);
    for (let j = 0; j < 16; j++) w.u8(qs[j] | (qs[j + 16] << 4));
    for (const q of qs) q41.push(d * q + m);
  }
  w.pad(32);
  const f32 = [1.5, -2.25, 3, 0.001];
  const fb = new Uint8Array(new Float32Array(f32).buffer);
  for (const x of fb) w.u8(x);
  return { bytes: Uint8Array.from(w.parts), q41, f32 };
}

function halfToFloat(h: number) {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const f = h & 0x3ff;
  return e === 0 ? s * f * 2 ** -24 : s * (1 + f / 1024) * 2 ** (e - 15);
}

describe('requantiseGguf', () => {
  it('rewrites Q4_1 as Q8_0 within half a Q8_0 step, keeping the rest', () => {
    const { bytes, q41, f32 } = tinyGguf();
    const path = join(dir, 'tiny.gguf');
    writeFileSync(path, bytes);
    const out: Buffer = requantiseGguf(path, 'Q8_0');
    expect(out.subarray(0, 4).toString('latin1')).toBe('GGUF');
    // The tensor table: Q8_0 at 0, F32 after 2 × 34 bytes aligned to 32 (= 96).
    const text = out.toString('latin1');
    const qAt = text.indexOf('blk.0.attn_q.weight') + 'blk.0.attn_q.weight'.length + 4 + 8;
    expect(out.readUInt32LE(qAt)).toBe(8);
    const nAt = text.indexOf('blk.0.attn_norm.weight') + 'blk.0.attn_norm.weight'.length + 4 + 8;
    expect(out.readUInt32LE(nAt)).toBe(0);
    expect(Number(out.readBigUInt64LE(nAt + 4))).toBe(96);
    // general.file_type is now 7 (mostly Q8_0).
    const ftAt = text.indexOf('general.file_type') + 'general.file_type'.length + 4;
    expect(out.readUInt32LE(ftAt)).toBe(7);
    const dataStart = Math.ceil((nAt + 12) / 32) * 32;
    for (let b = 0; b < 2; b++) {
      const o = dataStart + b * 34;
      const d = halfToFloat(out.readUInt16LE(o));
      const block = q41.slice(b * 32, b * 32 + 32);
      const amax = Math.max(...block.map(Math.abs));
      for (let j = 0; j < 32; j++) {
        const v = d * out.readInt8(o + 2 + j);
        // Half a Q8_0 step (amax / 127), and the half-precision rounding of the scale.
        expect(Math.abs(v - block[j])).toBeLessThan((amax / 254) * 1.1);
      }
    }
    const kept = new Float32Array(
      out.buffer.slice(out.byteOffset + dataStart + 96, out.byteOffset + dataStart + 112),
    );
    expect([...kept]).toEqual(f32.map((x) => Math.fround(x)));
    // Deterministic: the manifest pins the result's sha256.
    expect(requantiseGguf(path, 'Q8_0').equals(out)).toBe(true);
  });

  it('writes Q4_0 too, and refuses what is not GGUF', () => {
    const { bytes, q41 } = tinyGguf();
    const path = join(dir, 'tiny.gguf');
    writeFileSync(path, bytes);
    const out: Buffer = requantiseGguf(path, 'Q4_0');
    const text = out.toString('latin1');
    const nAt = text.indexOf('blk.0.attn_norm.weight') + 'blk.0.attn_norm.weight'.length + 4 + 8;
    const dataStart = Math.ceil((nAt + 12) / 32) * 32;
    const d = halfToFloat(out.readUInt16LE(dataStart));
    const lo = out[dataStart + 2] & 0x0f;
    // One more 4-bit rounding: within a Q4_0 step of the Q4_1 value.
    expect(Math.abs(d * (lo - 8) - q41[0])).toBeLessThanOrEqual(Math.abs(d));
    writeFileSync(join(dir, 'bad.gguf'), 'not a model');
    expect(() => requantiseGguf(join(dir, 'bad.gguf'), 'Q8_0')).toThrow(/not GGUF/);
  });
});
