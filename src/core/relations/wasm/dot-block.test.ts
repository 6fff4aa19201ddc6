import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: plain ESM script without types.
import { generate } from '../../../../scripts/build-dot-block.mjs';
import { prng } from '../../prng';
import { base64Bytes, createDotBlock, DOT_BLOCK_TOLERANCE, paddedDim } from './dot-block';
import { dotBlockWasmBase64 } from './dot-block-wasm';

/** Rows of random unit vectors (some zero), padded to 4 floats, in the kernel's memory. */
function loadRows(count: number, dim: number, seed: number) {
  const kernel = createDotBlock();
  if (!kernel) throw new Error('wasm SIMD is missing in this Node');
  const random = prng(seed);
  const rows: Float32Array[] = [];
  for (let r = 0; r < count; r++) {
    const v = new Float32Array(dim);
    if (random() > 0.1) {
      let norm = 0;
      for (let d = 0; d < dim; d++) {
        v[d] = random() * 2 - 1;
        norm += v[d] * v[d];
      }
      for (let d = 0; d < dim; d++) v[d] /= Math.sqrt(norm);
    }
    rows.push(v);
  }
  const rowBytes = paddedDim(dim) * 4;
  const at = kernel.alloc(count * rowBytes);
  for (let r = 0; r < count; r++) kernel.f32().set(rows[r], (at + r * rowBytes) >> 2);
  return { kernel, rows, at, rowBytes };
}

const dot = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let d = 0; d < a.length; d++) s += a[d] * b[d];
  return s;
};

describe('wasm dot-block kernel', () => {
  it('is the assembled form of dot-block.wat (run scripts/build-dot-block.mjs after editing)', async () => {
    const wat = readFileSync(new URL('./dot-block.wat', import.meta.url), 'utf8');
    const ts = readFileSync(new URL('./dot-block-wasm.ts', import.meta.url), 'utf8');
    expect(await (generate as (wat: string) => Promise<string>)(wat)).toBe(ts);
  });

  it('decodes base64 as Node does', () => {
    expect(base64Bytes(dotBlockWasmBase64)).toEqual(
      new Uint8Array(Buffer.from(dotBlockWasmBase64, 'base64')),
    );
    for (const text of ['', 'a', 'ab', 'abc', 'abcd', '\u00ff\u0000x']) {
      const b64 = Buffer.from(text, 'latin1').toString('base64');
      expect(Array.from(base64Bytes(b64))).toEqual(Array.from(Buffer.from(text, 'latin1')));
    }
    expect(() => base64Bytes('ab$d')).toThrow(/base64/);
  });

  it('block: every product within the tolerance of the exact dot (odd dims, queries anywhere)', () => {
    for (const dim of [3, 16, 100, 384]) {
      const { kernel, rows, at, rowBytes } = loadRows(40, dim, dim);
      // Queries: rows 5, 17, 3, 3 (out of order, repeated); members: rows 8 .. 8 + 12.
      const qs = [5, 17, 3, 3];
      const offsets = kernel.alloc(qs.length * 4);
      qs.forEach((r, q) => (kernel.i32()[(offsets >> 2) + q] = at + r * rowBytes));
      const out = kernel.alloc(qs.length * 12 * 4);
      kernel.block(offsets, qs.length, at + 8 * rowBytes, 12, rowBytes, out);
      const f32 = kernel.f32();
      for (let q = 0; q < qs.length; q++) {
        for (let m = 0; m < 12; m++) {
          const exact = dot(rows[qs[q]], rows[8 + m]);
          const got = f32[(out >> 2) + q * 12 + m];
          expect(Math.abs(got - exact)).toBeLessThan(DOT_BLOCK_TOLERANCE / 10);
        }
      }
    }
  });

  it('blockFiltered: exactly the positive products that reach the query or the member floor; rescore: their exact sums', () => {
    const dim = 24;
    const { kernel, rows, at, rowBytes } = loadRows(70, dim, 7);
    const random = prng(11);
    const nq = 6;
    const nm = 64;
    const offsets = kernel.alloc(nq * 4);
    const qFloors = kernel.alloc(nq * 4);
    const mFloors = kernel.alloc(nm * 4);
    const out = kernel.alloc(nq * nm * 4);
    for (let q = 0; q < nq; q++) {
      kernel.i32()[(offsets >> 2) + q] = at + (64 + q) * rowBytes;
      kernel.f32()[(qFloors >> 2) + q] = random() * 0.6 - 0.1;
    }
    for (let m = 0; m < nm; m++) kernel.f32()[(mFloors >> 2) + m] = random() * 0.6 - 0.1;
    const count = kernel.blockFiltered(offsets, nq, at, nm, rowBytes, qFloors, mFloors, out);
    const got = new Set(Array.from(kernel.i32().subarray(out >> 2, (out >> 2) + count)));
    expect(got.size).toBe(count);
    const f32 = kernel.f32();
    let expected = 0;
    for (let q = 0; q < nq; q++) {
      for (let m = 0; m < nm; m++) {
        const s = dot(rows[64 + q], rows[m]);
        const fq = f32[(qFloors >> 2) + q];
        const fm = f32[(mFloors >> 2) + m];
        // Products within rounding of a threshold may go either way; all others must agree.
        const near = [0, fq, fm].some((t) => Math.abs(s - t) < 1e-5);
        const pass = s > 0 && (s >= fq || s >= fm);
        if (near) continue;
        if (pass) expected++;
        expect(got.has((q << 16) | m)).toBe(pass);
      }
    }
    expect(expected).toBeGreaterThan(20);
    expect(expected).toBeLessThan(nq * nm - 20);

    // rescore: each candidate's dot product in f64, the same bits as the JS sum in order.
    const exact = kernel.alloc(count * 8);
    kernel.rescore(offsets, at, rowBytes, out, count, exact);
    const f64 = kernel.f64();
    const i32 = kernel.i32();
    for (let e = 0; e < count; e++) {
      const code = i32[(out >> 2) + e];
      expect(f64[(exact >> 3) + e]).toBe(dot(rows[64 + (code >>> 16)], rows[code & 0xffff]));
    }
  });
});
