/**
 * @file What 64-bit wasm memory costs in Chromium (`npm run bench -- wasm-memory64`): wllama
 * 3.8.1's wasm is a Memory64 build (`memory i64 shared`), and V8 checks each 64-bit address
 * explicitly where 32-bit memory relies on guard pages. One SIMD int8 dot-product loop (the shape
 * of llama.cpp's Q8_0 kernel: load, widen, multiply-add) is written twice in wasm text, with 32-bit
 * and with 64-bit memory (not shared: wabt's JS build refuses shared memory here), and timed in headless Debian Chromium on 1 MiB vectors (best of
 * 9 rounds of 400 dot products). Reported: GB/s of each and the ratio.
 */
import os from 'node:os';
import { chromium } from '@playwright/test';
import wabtInit from 'wabt';
import { chromiumArgs } from '../playwright.config';
import type { BenchSection } from './run';

function dotWat(bits: 32 | 64): string {
  const t = `i${bits}`;
  return `(module
  (memory (export "mem") ${t} 1024 1024)
  (func (export "dot") (param $a ${t}) (param $b ${t}) (param $n ${t}) (result i32)
    (local $acc v128) (local $i ${t}) (local $x v128) (local $y v128)
    (loop $l
      (local.set $x (v128.load (${t}.add (local.get $a) (local.get $i))))
      (local.set $y (v128.load (${t}.add (local.get $b) (local.get $i))))
      (local.set $acc (i32x4.add (local.get $acc)
        (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $x)) (i16x8.extend_low_i8x16_s (local.get $y)))))
      (local.set $acc (i32x4.add (local.get $acc)
        (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $x)) (i16x8.extend_high_i8x16_s (local.get $y)))))
      (local.set $i (${t}.add (local.get $i) (${t}.const 16)))
      (br_if $l (${t}.lt_u (local.get $i) (local.get $n))))
    (i32.add (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
             (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc))))))`;
}

async function compile(bits: 32 | 64): Promise<number[]> {
  const wabt = await wabtInit();
  const module = wabt.parseWat(`dot${bits}.wat`, dotWat(bits), {
    simd: true,
    threads: true,
    memory64: true,
  });
  module.validate();
  const { buffer } = module.toBinary({});
  module.destroy();
  return [...buffer];
}

export const wasmMemory64Section: BenchSection = {
  name: 'wasm-memory64',
  description: 'A SIMD int8 dot product on 32-bit and 64-bit wasm memory in Chromium.',
  async run(log) {
    const mods = { m32: await compile(32), m64: await compile(64) };
    const load = os.loadavg();
    const browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: chromiumArgs,
    });
    const runs: { m32: number; m64: number }[] = [];
    try {
      const page = await browser.newPage();
      for (let r = 0; r < 3; r++) {
        // Sent as source text: tsx would wrap a function's inner names in a helper the page lacks.
        const gbps = (await page.evaluate(`(async (m) => {
          const out = {};
          for (const [k, bytes] of Object.entries(m)) {
            const { instance } = await WebAssembly.instantiate(new Uint8Array(bytes));
            const big = k === 'm64';
            const mem = new Int8Array(instance.exports.mem.buffer);
            for (let i = 0; i < 2 << 20; i++) mem[i] = ((i * 7) % 13) - 6;
            const n = 1 << 20;
            const a = big ? 0n : 0, b = big ? BigInt(n) : n;
            let best = Infinity;
            for (let rep = 0; rep < 9; rep++) {
              const t = performance.now();
              for (let j = 0; j < 400; j++) instance.exports.dot(a, b, b);
              best = Math.min(best, performance.now() - t);
            }
            out[k] = (400 * 2 * n) / best / 1e6;
          }
          return out;
        })(${JSON.stringify(mods)})`)) as { m32: number; m64: number };
        log(`run ${r + 1}: 32-bit ${gbps.m32.toFixed(1)} GB/s, 64-bit ${gbps.m64.toFixed(1)} GB/s`);
        runs.push(gbps);
      }
    } finally {
      await browser.close();
    }
    const loadAfter = os.loadavg();
    const markdown = [
      `Load average ${load.map((x) => x.toFixed(2)).join(' / ')} before, ${loadAfter.map((x) => x.toFixed(2)).join(' / ')} after.`,
      '',
      '| run | 32-bit memory (GB/s) | 64-bit memory (GB/s) | 64-bit is … slower |',
      '|---:|---:|---:|---:|',
      ...runs.map(
        (r, i) =>
          `| ${i + 1} | ${r.m32.toFixed(1)} | ${r.m64.toFixed(1)} | ${(r.m32 / r.m64).toFixed(2)}x |`,
      ),
    ].join('\n');
    return { results: { loadAverage: { before: load, after: loadAfter }, runs }, markdown };
  },
};
