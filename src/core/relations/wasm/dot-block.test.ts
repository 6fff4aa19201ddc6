import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: plain ESM script without types.
import { generate } from '../../../../scripts/build-dot-block.mjs';
import { gloveAssetPath, loadGloveFromDisk } from '../../../../test/glove';
import { embedTexts } from '../../embed/static';
import { prng } from '../../prng';
import {
  base64Bytes,
  createDotBlock,
  DOT_BLOCK_TOLERANCE,
  paddedDim,
  paddedDim16,
  quantisation,
  type DotBlock,
} from './dot-block';
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

/**
 * `rows` quantised to i16 by `quantisation` (scale from their largest norm), padded to 8 values,
 * in the kernel's memory.
 */
function loadRows16(kernel: DotBlock, rows: Float32Array[], dim: number) {
  let maxNorm = 0;
  for (const r of rows) maxNorm = Math.max(maxNorm, Math.sqrt(dot(r, r)));
  const quant = quantisation(dim, maxNorm);
  const rowBytes = paddedDim16(dim) * 2;
  const at = kernel.alloc(rows.length * rowBytes);
  const i16 = kernel.i16();
  rows.forEach((r, k) => {
    for (let d = 0; d < dim; d++)
      i16[((at + k * rowBytes) >> 1) + d] = Math.round(r[d] * quant.scale);
  });
  return { at, rowBytes, quant };
}

/**
 * blockFiltered16 against the definition: with the error bound `tolerance`, every product that
 * reaches a floor by more than the bound must be a candidate, and none that misses it by more.
 */
function checkFiltered16(rows: Float32Array[], dim: number, seed: number) {
  const kernel = createDotBlock();
  if (!kernel) throw new Error('wasm SIMD is missing in this Node');
  const nm = rows.length - 8;
  const nq = 8;
  const { at, rowBytes, quant } = loadRows16(kernel, rows, dim);
  expect(quant.tolerance).toBeLessThan(1e-3);
  const offsets = kernel.alloc(nq * 4);
  const qFloors = kernel.alloc(nq * 4);
  const mFloors = kernel.alloc(nm * 4);
  const out = kernel.alloc(nq * nm * 4);
  const random = prng(seed);
  // Floors near the products' own range, so that many pass and many do not.
  for (let q = 0; q < nq; q++) {
    kernel.i32()[(offsets >> 2) + q] = at + (nm + q) * rowBytes;
    kernel.f32()[(qFloors >> 2) + q] = random() * 0.8;
  }
  for (let m = 0; m < nm; m++) kernel.f32()[(mFloors >> 2) + m] = random() * 0.8;
  const count = kernel.blockFiltered16(
    offsets,
    nq,
    at,
    nm,
    rowBytes,
    qFloors,
    mFloors,
    quant.unit,
    out,
  );
  const got = new Set(Array.from(kernel.i32().subarray(out >> 2, (out >> 2) + count)));
  expect(got.size).toBe(count);
  const f32 = kernel.f32();
  let sure = 0;
  let unsure = 0;
  for (let q = 0; q < nq; q++) {
    for (let m = 0; m < nm; m++) {
      const s = dot(rows[nm + q], rows[m]);
      const reach = Math.min(f32[(qFloors >> 2) + q], f32[(mFloors >> 2) + m]);
      // Within the bound of a threshold the quantised sum may fall either side.
      if (Math.abs(s) <= quant.tolerance || Math.abs(s - reach) <= quant.tolerance) {
        unsure++;
        continue;
      }
      const pass = s > 0 && s >= reach;
      if (pass) sure++;
      expect(got.has((q << 16) | m)).toBe(pass);
    }
  }
  expect(sure).toBeGreaterThan(10);
  // Zero rows (a tenth) give products of exactly 0: unsure by construction.
  expect(unsure).toBeLessThan((nq * nm) / 4);
}

describe('wasm dot-block kernel on i16 rows', () => {
  it('blockFiltered16: the candidates of the exact products, within the quantisation bound (random rows)', () => {
    for (const dim of [3, 24, 100, 384]) {
      const random = prng(dim + 1);
      const rows: Float32Array[] = [];
      for (let r = 0; r < 72; r++) {
        const v = new Float32Array(dim);
        // A shared direction makes most products positive and spread across the floors.
        let norm = 0;
        for (let d = 0; d < dim; d++) {
          v[d] = (d % 3 === 0 ? 1 : 0) + random() * 2 - 1;
          norm += v[d] * v[d];
        }
        if (r % 10 !== 3) for (let d = 0; d < dim; d++) v[d] /= Math.sqrt(norm);
        else v.fill(0);
        rows.push(v);
      }
      checkFiltered16(rows, dim, dim);
    }
  });

  it.skipIf(!existsSync(gloveAssetPath))(
    'blockFiltered16: the same on real GloVe fragment vectors',
    () => {
      const words =
        'the house was quiet when she came back from town and the letter lay on the table by the window where her sister had left it that morning before the rain began to fall on the fields beyond the river'.split(
          ' ',
        );
      const texts: string[] = [];
      for (let i = 0; i < 72; i++)
        texts.push(words.slice(i % 20, (i % 20) + 8 + (i % 7)).join(' '));
      const v = embedTexts(loadGloveFromDisk(), texts);
      const rows = texts.map((_, i) => v.data.slice(i * v.dim, (i + 1) * v.dim));
      checkFiltered16(rows, v.dim, 5);
    },
  );
});
