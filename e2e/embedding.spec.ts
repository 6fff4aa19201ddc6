/**
 * @file The transformers.js embedding path, for real, in Chromium: models.html loads the tiny
 * random-weight BERT from ../shared/models through a local hub mirror, in the embed worker, on
 * wasm and on WebGPU (SwiftShader), and embeds a few sentences.
 *
 * Proves loading, batching, pooling and normalisation (never meaning: the weights are random),
 * that ONNX Runtime's wasm comes from our own build, and that no request leaves 127.0.0.1.
 */
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { chromiumArgs } from '../playwright.config';
import { startHubMirror, type HubMirror } from './support/hub-mirror';
import { isLocal } from './support/local-page';

const MODEL = 'tribuo-tinybert';
const DIM = 50;

let mirror: HubMirror;

test.beforeAll(async () => {
  mirror = await startHubMirror();
});

test.afterAll(async () => {
  await mirror?.close();
});

interface CheckJson {
  load: {
    id: string;
    dim: number;
    device: string;
    dtype: string;
    host: string;
    webgpuDeviceCreated: boolean;
    wasmThreads: number;
    setup: { numThreads: number; wasmPaths: { wasm: string; mjs: string } };
  };
  count: number;
  progress: { stage: string; done: number; total: number }[];
  batch: number[][];
  single: number[][];
  query: number[];
  texts: string[];
}

interface Watch {
  urls: string[];
  problems: string[];
}

/** Record every URL the page and its workers ask for, block any that would leave 127.0.0.1. */
async function watch(page: Page): Promise<Watch> {
  const w: Watch = { urls: [], problems: [] };
  const context = page.context();
  context.on('request', (r) => w.urls.push(r.url()));
  await context.route(
    (url) => !isLocal(url.href),
    (route) => route.abort('blockedbyclient'),
  );
  page.on('pageerror', (e) => w.problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') w.problems.push(`console: ${m.text()}`);
  });
  page.on('worker', (worker) =>
    worker.on('console', (m) => {
      if (m.type() === 'error') w.problems.push(`worker console: ${m.text()}`);
    }),
  );
  return w;
}

function checkUrl(params: Record<string, string>): string {
  return `models.html?${new URLSearchParams({ host: mirror.url, ...params })}`;
}

async function runCheck(page: Page, params: Record<string, string>): Promise<CheckJson> {
  await page.goto(checkUrl(params));
  await expect(page.getByTestId('capabilities')).toBeVisible();
  await page.getByRole('button', { name: 'Load and check' }).click();
  const main = page.locator('main');
  await expect(main).toHaveAttribute('data-state', /^(done|error)$/, { timeout: 90_000 });
  const state = await main.getAttribute('data-state');
  if (state === 'error')
    throw new Error(`Model check failed: ${await page.getByTestId('error').textContent()}`);
  return JSON.parse((await page.getByTestId('result').textContent()) ?? '') as CheckJson;
}

const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
const maxDiff = (a: number[], b: number[]) => Math.max(...a.map((x, i) => Math.abs(x - b[i])));

/** What every successful run must show, on any device. */
function expectGoodVectors(r: CheckJson, batchTolerance: number) {
  expect(r.load.id).toBe(MODEL);
  expect(r.load.dim).toBe(DIM);
  expect(r.load.dtype).toBe('fp32');
  expect(r.count).toBe(r.texts.length);
  expect(r.batch).toHaveLength(r.texts.length);
  expect(r.single).toHaveLength(r.texts.length);
  for (const rows of [r.batch, r.single, [r.query]]) {
    for (const row of rows) {
      expect(row).toHaveLength(DIM);
      expect(row.every(Number.isFinite)).toBe(true);
      expect(Math.abs(norm(row) - 1)).toBeLessThan(1e-4);
    }
  }
  // Equal text, equal vector: the samples repeat one sentence.
  const first = r.texts.findIndex((t, i) => r.texts.indexOf(t) !== i);
  expect(first).toBeGreaterThan(0);
  expect(maxDiff(r.batch[first], r.batch[r.texts.indexOf(r.texts[first])])).toBeLessThan(1e-6);
  // Batched (padded, reordered by length) equals one-by-one.
  r.batch.forEach((row, i) => expect(maxDiff(row, r.single[i])).toBeLessThan(batchTolerance));
  // Different texts give different vectors (the model is random, not constant).
  expect(maxDiff(r.batch[0], r.batch[2])).toBeGreaterThan(1e-3);
  // Download progress in bytes never goes back.
  expect(r.progress.length).toBeGreaterThan(0);
  for (let i = 1; i < r.progress.length; i++) {
    expect(r.progress[i].done).toBeGreaterThanOrEqual(r.progress[i - 1].done);
  }
  const last = r.progress[r.progress.length - 1];
  expect(last.done).toBe(last.total);
}

function expectAllLocal(w: Watch) {
  const outside = w.urls.filter((u) => !isLocal(u));
  expect(outside).toEqual([]);
  // The listener sees the worker's fetches: the model files came from the mirror...
  const fromMirror = w.urls.filter((u) => u.startsWith(mirror.url));
  for (const file of [
    'config.json',
    'tokenizer.json',
    'tokenizer_config.json',
    'onnx/model.onnx',
  ]) {
    expect(fromMirror).toContain(`${mirror.url}${MODEL}/resolve/main/${file}`);
  }
  // ...and ONNX Runtime's wasm from our own build, not a CDN.
  expect(
    w.urls.some((u) => /\/assets\/ort-wasm-simd-threaded\.asyncify-[\w-]+\.wasm$/.test(u)),
  ).toBe(true);
}

test.describe('hub mirror', () => {
  test('serves ../shared/models in the hub layout, with CORS and CORP', async () => {
    const since = mirror.requests.length;
    const base = `${mirror.url}${MODEL}/resolve/main/`;
    const config = await fetch(`${base}config.json`);
    expect(config.status).toBe(200);
    expect(config.headers.get('access-control-allow-origin')).toBe('*');
    expect(config.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(((await config.json()) as { hidden_size: number }).hidden_size).toBe(DIM);

    const ranged = await fetch(`${base}onnx/model.onnx`, { headers: { Range: 'bytes=0-0' } });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-range')).toBe('bytes 0-0/492994');
    expect((await ranged.arrayBuffer()).byteLength).toBe(1);

    const org = await fetch(`${mirror.url}some-org/${MODEL}/resolve/main/config.json`);
    expect(org.status).toBe(200);
    await org.body?.cancel();

    for (const missing of [
      `${base}nope.json`,
      `${mirror.url}no-such-model/resolve/main/config.json`,
      `${mirror.url}${MODEL}/resolve/main/..%2F..%2FPLATFORM.md`,
      `${mirror.url}README.md`,
    ]) {
      const r = await fetch(missing);
      expect(r.status, missing).toBe(404);
      await r.body?.cancel();
    }
    expect(mirror.requests.slice(since).map((r) => r.status)).toEqual([
      200, 206, 200, 404, 404, 404, 404,
    ]);
  });
});

test.describe('wasm', () => {
  test('tribuo-tinybert loads from the mirror and embeds batched = one by one', async ({
    page,
  }) => {
    const w = await watch(page);
    const since = mirror.requests.length;
    const r = await runCheck(page, { model: MODEL, device: 'wasm', dtype: 'fp32', batch: '2' });
    expect(r.load.device).toBe('wasm');
    expect(r.load.webgpuDeviceCreated).toBe(false);
    // ONNX Runtime kept the threads we chose (it drops to 1 where threads cannot work).
    expect(r.load.wasmThreads).toBe(r.load.setup.numThreads);
    expect(r.load.setup.wasmPaths.wasm).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/assets\//);
    await expect(page.getByTestId('device-used')).toHaveText('wasm');
    await expect(page.getByTestId('dim')).toHaveText(String(DIM));
    expectGoodVectors(r, 1e-5);
    expectAllLocal(w);
    expect(mirror.requests.slice(since).filter((q) => q.status >= 400)).toEqual([]);
    expect(w.problems).toEqual([]);
    // The diagnostics page is part of the product: no accessibility violations, results shown.
    const axe = await new AxeBuilder({ page }).analyze();
    expect(axe.violations.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
  });

  test('an unknown model id gives a readable error naming model, host and what to do', async ({
    page,
  }) => {
    const w = await watch(page);
    const model = 'no-such-embedder';
    await page.goto(checkUrl({ model, device: 'wasm' }));
    await expect(page.getByLabel('Hub id')).toHaveValue(model);
    await page.getByRole('button', { name: 'Load and check' }).click();
    const alert = page.getByTestId('error');
    await expect(alert).toBeVisible();
    await expect(page.locator('main')).toHaveAttribute('data-state', 'error');
    const text = (await alert.textContent()) ?? '';
    expect(text).toContain(`"${model}"`);
    expect(text).toContain(mirror.url);
    expect(text).toContain('config.json');
    expect(text).toMatch(/check the model id/i);
    expect(text).toMatch(/hub host/i);
    expect(text).toMatch(/offline static embedder/i);
    expect(mirror.requests).toContainEqual(
      expect.objectContaining({ path: `/${model}/resolve/main/config.json`, status: 404 }),
    );
    expect(w.urls.filter((u) => !isLocal(u))).toEqual([]);
    // A 404 is logged by Chromium as a failed resource load; nothing else may be.
    expect(w.problems.filter((p) => !/404/.test(p))).toEqual([]);
  });
});

test.describe('cancel', () => {
  test('cancel stops a slow model download; loading again then works', async ({ page }) => {
    const w = await watch(page);
    const since = mirror.requests.length;
    const modelGet = () =>
      mirror.requests
        .slice(since)
        .find((q) => q.path === `/${MODEL}/resolve/main/onnx/model.onnx` && !q.range);
    // About 10 s for the 0.49 MB model: long enough to press Cancel in the middle.
    mirror.throttle = { match: /\/onnx\/model\.onnx$/, bytesPerSecond: 50_000 };
    try {
      await page.goto(checkUrl({ model: MODEL, device: 'wasm', dtype: 'fp32' }));
      await page.getByRole('button', { name: 'Load and check' }).click();
      await expect.poll(() => modelGet()?.status).toBe(200);
      await expect(page.getByTestId('status')).toContainText('Downloading');
      await expect(page.getByRole('progressbar', { name: 'Progress' })).toBeVisible();
      await page.getByRole('button', { name: 'Cancel' }).click();
      await expect(page.locator('main')).toHaveAttribute('data-state', 'cancelled');
      await expect(page.getByTestId('status')).toHaveText('Cancelled.');
      await expect(page.getByRole('progressbar')).toHaveCount(0);
      // The download really stopped: the browser closed the connection before the end.
      await expect.poll(() => modelGet()?.aborted).toBe(true);
      expect(modelGet()?.finished).toBe(false);
    } finally {
      mirror.throttle = null;
    }
    await page.getByRole('button', { name: 'Load and check' }).click();
    await expect(page.locator('main')).toHaveAttribute('data-state', 'done');
    await expect(page.getByTestId('dim')).toHaveText(String(DIM));
    expect(w.urls.filter((u) => !isLocal(u))).toEqual([]);
    expect(w.problems).toEqual([]);
  });
});

test.describe('webgpu', () => {
  // SwiftShader's WebGPU adapter appears only with --enable-unsafe-webgpu (../shared/PLATFORM.md),
  // so this test launches its own Chromium. WebGPU on SwiftShader is about 60x slower than wasm
  // here: the page embeds only five short sentences.
  test('tribuo-tinybert runs on the WebGPU device', async ({ playwright, baseURL }) => {
    const browser = await playwright.chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      headless: true,
      args: [...chromiumArgs, '--enable-unsafe-webgpu'],
    });
    try {
      const page = await (await browser.newContext({ baseURL })).newPage();
      const w = await watch(page);
      const r = await runCheck(page, { model: MODEL, device: 'webgpu', dtype: 'fp32', batch: '2' });
      await expect(page.getByTestId('auto-device')).toHaveText('webgpu');
      expect(r.load.device).toBe('webgpu');
      expect(r.load.webgpuDeviceCreated).toBe(true);
      await expect(page.getByTestId('device-used')).toHaveText('webgpu');
      expectGoodVectors(r, 1e-5);
      expectAllLocal(w);
      expect(w.problems).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
