/**
 * @file Scale: the semantic relation's inverted file in headless Chromium (the e2e
 * browser), wasm SIMD kernel (i16 and f32 filters) against the JS tiles, on the same 15-word
 * GloVe fragment vectors as bench/scale.ts (the Gutenberg library as one document).
 *
 * The core module is bundled for the page with esbuild (already here as tsx's dependency) and
 * run on the page's main thread (the app runs it in the index worker: same engine and kernel);
 * the vectors cross as base64. Wall times, one page, each build run twice. Not part of
 * `npm run bench` (it is not a BenchSection: Chromium and 100k vectors hold the shared machine
 * for minutes).
 *
 * Run: `nice -n 10 npx tsx bench/scale-chromium.ts` (writes bench/results/scale-chromium.json).
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { chromium } from 'playwright';
import { chromiumArgs } from '../playwright.config';
import { machine, writeResults } from './results-file';
import { libraryVectors } from './scale';

// `simd` filters on i16 rows, `simd-f32` on the f32 rows (the kernel before the i16 filter),
// alternated so that a change of load falls on both.
const RUNS: { fragments: number; kernels: ('simd' | 'simd-f32' | 'js')[] }[] = [
  { fragments: 20_000, kernels: ['simd', 'simd-f32', 'js', 'simd', 'simd-f32'] },
  { fragments: 100_000, kernels: ['simd', 'simd-f32', 'simd'] },
];

const entry = `
import { semanticNeighbours } from ${JSON.stringify(fileURLToPath(new URL('../src/core/relations/semantic.ts', import.meta.url)))};
globalThis.runKnn = (b64, n, kernel) => {
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  const data = new Float32Array(bytes.buffer, 0, n * 100);
  const t0 = performance.now();
  const m = semanticNeighbours({ dim: 100, count: n, data }, [0, n], 16, { method: 'inverted-file', kernel });
  return { ms: Math.round(performance.now() - t0), nnz: m.col.length };
};`;

const bundle = await build({
  stdin: { contents: entry, resolveDir: process.cwd(), loader: 'js' },
  bundle: true,
  format: 'iife',
  write: false,
});
const { vectors } = libraryVectors();
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: chromiumArgs });
const rows: { fragments: number; kernel: string; ms: number; loadAverage: number }[] = [];
try {
  const page = await browser.newPage();
  await page.addScriptTag({ content: bundle.outputFiles[0].text });
  for (const run of RUNS) {
    const bytes = Buffer.from(vectors.data.buffer, vectors.data.byteOffset, run.fragments * 400);
    const b64 = bytes.toString('base64');
    for (const kernel of run.kernels) {
      const r = await page.evaluate(
        ([b, n, k]) =>
          (
            globalThis as unknown as {
              runKnn: (b: string, n: number, k: string) => { ms: number };
            }
          ).runKnn(b, n, k),
        [b64, run.fragments, kernel] as [string, number, string],
      );
      rows.push({ fragments: run.fragments, kernel, ms: r.ms, loadAverage: os.loadavg()[0] });
      console.error(`${run.fragments} ${kernel}: ${r.ms} ms (load ${os.loadavg()[0].toFixed(1)})`);
    }
  }
  const results = { chromium: browser.version(), machine: machine(), rows };
  console.log(`wrote ${writeResults('scale-chromium', results)}`);
} finally {
  await browser.close();
}
