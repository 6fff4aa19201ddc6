/**
 * @file Scale: the semantic relation in headless Chromium (the e2e browser) on one
 * thread and on a pool of 1 and 2 Web Workers (core/relations/semantic-parallel.ts on the
 * app's pool, src/workers/pool.ts and semantic-shares.ts), on the vectors of bench/scale.ts: 100k x 100 and the
 * first 25k projected to 384-d.
 *
 * The page and the worker script are bundled with esbuild and served by Playwright's router at
 * http://localhost:4193/ with the app's cross-origin isolation headers (vite.config.ts), so the
 * page has SharedArrayBuffer as the app does: the rows and the shared floors are shared with the
 * workers, not copied. The page's thread plays the index worker's part (it waits while the
 * workers run; on one thread it builds itself). Wall time on the page; each pool result is
 * compared with the one-thread result, bit for bit, on the page. Runs alternated.
 *
 * Run: `npx tsx bench/scale-chromium-pool.ts` (writes bench/results/scale-chromium-pool.json).
 * SCALE_CHROMIUM_ORDER (default `1t,2w,1w,2w,1t`).
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { chromium } from 'playwright';
import { chromiumArgs } from '../playwright.config';
import { machine, writeResults } from './results-file';
import { head, libraryVectors, project } from './scale';

const ORIGIN = 'http://localhost:4193';
const ORDER = (process.env.SCALE_CHROMIUM_ORDER ?? '1t,2w,1w,2w,1t').split(',');
const src = (path: string) => JSON.stringify(fileURLToPath(new URL(path, import.meta.url)));

const pageEntry = `
import { semanticNeighbours } from ${src('../src/core/relations/semantic.ts')};
import { semanticNeighboursParallel } from ${src('../src/core/relations/semantic-parallel.ts')};
import { WorkerClient } from ${src('../src/workers/client.ts')};
import { WorkerPool } from ${src('../src/workers/pool.ts')};
import { semanticSharesOn } from ${src('../src/workers/semantic-shares.ts')};
const pools = {};
const members = {};
const poolOf = (size) => {
  members[size] ??= new WorkerPool(() => new WorkerClient(new Worker('/share.js')), size);
  return (pools[size] ??= semanticSharesOn(members[size]));
};
let reference = null;
const same = (a, b) =>
  a.col.length === b.col.length &&
  a.col.every((c, i) => c === b.col[i]) &&
  a.rowPtr.every((c, i) => c === b.rowPtr[i]) &&
  new Uint32Array(a.weight.buffer).every((w, i) => w === new Uint32Array(b.weight.buffer)[i]);
globalThis.setVectors = async (dim, n) => {
  const bytes = new Uint8Array(await (await fetch('/vectors.bin')).arrayBuffer());
  globalThis.vectors = { dim, count: n, data: new Float32Array(bytes.buffer, 0, n * dim) };
  reference = null;
  return { isolated: globalThis.crossOriginIsolated === true };
};
globalThis.runKnn = async (config) => {
  const v = globalThis.vectors;
  const t0 = performance.now();
  const m =
    config === '1t'
      ? semanticNeighbours(v, [0, v.count], 16)
      : await semanticNeighboursParallel(v, [0, v.count], 16, { pool: poolOf(config === '2w' ? 2 : 1) });
  const ms = Math.round(performance.now() - t0);
  reference ??= m;
  return { ms, identical: same(reference, m) };
};`;

const bundle = async (contents: string) =>
  (
    await build({
      stdin: { contents, resolveDir: process.cwd(), loader: 'js' },
      bundle: true,
      format: 'iife',
      write: false,
    })
  ).outputFiles[0].text;

const pageJs = await bundle(pageEntry);
// The app's pool members serve parsing and the code relation's rows too; the bench's serve only
// the semantic relation's shares (the same handler), so the bundle needs no tree-sitter.
const workerJs = await bundle(`
import { serveWorker } from ${src('../src/workers/host.ts')};
import { createShareHandler } from ${src('../src/workers/semantic-shares.ts')};
serveWorker(self, { share: createShareHandler() });`);

const { vectors } = libraryVectors();
// SCALE_CHROMIUM_FRAGMENTS: a smaller 100-d run only (a smoke test of the bench itself).
const smoke = Number(process.env.SCALE_CHROMIUM_FRAGMENTS ?? 0);
const sets = smoke
  ? [{ name: `${smoke} x 100`, v: head(vectors, smoke) }]
  : [
      { name: '100000 x 100', v: vectors },
      { name: '25000 x 384', v: project(head(vectors, 25_000), 384) },
    ];

const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: chromiumArgs });
const rows: {
  vectors: string;
  config: string;
  ms: number;
  identical: boolean;
  loadAverage: number;
}[] = [];
let isolated = false;
try {
  const page = await browser.newPage();
  let current: Buffer = Buffer.alloc(0);
  await page.route(`${ORIGIN}/**`, (route) => {
    const path = new URL(route.request().url()).pathname;
    const body =
      path === '/share.js'
        ? workerJs
        : path === '/page.js'
          ? pageJs
          : path === '/vectors.bin'
            ? current
            : '<!doctype html><script src="/page.js"></script>';
    const type = path.endsWith('.js')
      ? 'text/javascript'
      : path.endsWith('.bin')
        ? 'application/octet-stream'
        : 'text/html';
    return route.fulfill({ status: 200, headers: { ...isolation, 'Content-Type': type }, body });
  });
  await page.goto(`${ORIGIN}/`);
  await page.waitForFunction(() => 'runKnn' in globalThis);
  for (const { name, v } of sets) {
    current = Buffer.from(v.data.buffer, v.data.byteOffset, v.count * v.dim * 4);
    const info = await page.evaluate(
      ([dim, n]) =>
        (
          globalThis as unknown as {
            setVectors: (dim: number, n: number) => Promise<{ isolated: boolean }>;
          }
        ).setVectors(dim, n),
      [v.dim, v.count] as [number, number],
    );
    isolated = info.isolated;
    for (const config of ORDER) {
      const r = await page.evaluate(
        (c) =>
          (
            globalThis as unknown as {
              runKnn: (c: string) => Promise<{ ms: number; identical: boolean }>;
            }
          ).runKnn(c),
        config,
      );
      const loadAverage = +os.loadavg()[0].toFixed(2);
      rows.push({ vectors: name, config, ms: r.ms, identical: r.identical, loadAverage });
      console.error(
        `${name} ${config}: ${r.ms} ms, identical ${r.identical} (load ${loadAverage})`,
      );
    }
  }
  const results = {
    chromium: browser.version(),
    crossOriginIsolated: isolated,
    machine: machine(),
    rows,
  };
  console.log(`wrote ${writeResults('scale-chromium-pool', results)}`);
} finally {
  await browser.close();
}
