/**
 * @file wllama's WebGPU path, one GGUF file for CPU and GPU: the speed check page (llm.html, the
 * Answer panel's own loader) loads the tiny trained llama base model
 * ../shared/models/stories260K/stories260K.gguf on SwiftShader's WebGPU adapter, which Chromium
 * offers only with --enable-unsafe-webgpu (../shared/PLATFORM.md), and on the CPU.
 *
 * Plumbing only: SwiftShader is a CPU pretending to be a GPU, and it has no 16-bit shaders
 * (shader-f16), which llama.cpp's WebGPU backend needs, so llama.cpp makes no device of it. What
 * this checks is the way there and back: asked to try the adapter anyway ('on'), wllama opens
 * WebGPU, llama.cpp takes none of the layers, and the page says so and answers on the CPU with the
 * same greedy story as a CPU-only load; "automatic" passes a software adapter by and says why;
 * without any adapter the GPU asked for is refused with a notice. A hardware GPU was not available
 * here: the path where WebGPU takes the layers is not exercised. No speed is measured.
 */
import { expect, test, type Browser } from '@playwright/test';
import { chromiumArgs } from '../playwright.config';
import { startHubMirror, type HubMirror } from './support/hub-mirror';

const PROMPT = 'Once upon a time, there was a little girl named Lily.';

interface Result {
  device: 'cpu' | 'gpu';
  gpuLayers?: { offloaded: number; total: number };
  gpuNote?: string;
  generatedTokens: number;
  text: string;
}

let mirror: HubMirror;
let gpuBrowser: Browser;

test.beforeAll(async ({ playwright }) => {
  mirror = await startHubMirror();
  gpuBrowser = await playwright.chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: [...chromiumArgs, '--enable-unsafe-webgpu'],
  });
});

test.afterAll(async () => {
  await gpuBrowser?.close();
  await mirror?.close();
});

async function run(browser: Browser, baseURL: string, gpu: 'off' | 'auto' | 'on'): Promise<Result> {
  const context = await browser.newContext({ baseURL });
  try {
    const page = await context.newPage();
    const params = new URLSearchParams({
      model: `${mirror.url}stories260K/resolve/main/stories260K.gguf`,
      threads: '1',
      max: '24',
      ctx: '512',
      gpu,
    });
    await page.goto(`/llm.html?${params}`);
    await page.locator('#prompt').fill(PROMPT);
    await page.getByRole('button', { name: 'Run' }).click();
    await page.locator('main[data-state="done"], main[data-state="error"]').waitFor({
      timeout: 120_000,
    });
    const status = (await page.getByRole('status').textContent()) ?? '';
    expect(await page.locator('main').getAttribute('data-state'), status).toBe('done');
    return JSON.parse((await page.getByTestId('result').textContent()) ?? '{}') as Result;
  } finally {
    await context.close();
  }
}

test('asked to use an adapter llama.cpp cannot use, the page says so and the CPU writes the same story', async ({
  baseURL,
}) => {
  test.setTimeout(300_000);
  const tried = await run(gpuBrowser, baseURL!, 'on');
  expect(tried.device).toBe('cpu');
  expect(tried.gpuLayers).toBeUndefined();
  expect(tried.gpuNote).toMatch(
    /no shader-f16\) took none of the model's layers; runs on the CPU\.$/,
  );
  expect(tried.generatedTokens).toBeGreaterThan(5);

  const onCpu = await run(gpuBrowser, baseURL!, 'off');
  expect(onCpu.device).toBe('cpu');
  expect(onCpu.gpuNote).toBeUndefined();
  expect(onCpu.text.length).toBeGreaterThan(10);
  // The same file, the same greedy story: the model that answered is the one loaded.
  expect(tried.text).toBe(onCpu.text);
});

test('automatic passes a software adapter by, and says why', async ({ baseURL }) => {
  const auto = await run(gpuBrowser, baseURL!, 'auto');
  expect(auto.device).toBe('cpu');
  expect(auto.gpuNote).toMatch(/^No GPU: only .*slower than the CPU; runs on the CPU\.$/);
  expect(auto.generatedTokens).toBeGreaterThan(5);
});

test('without a WebGPU adapter the GPU asked for is refused with a notice, and the CPU answers', async ({
  browser,
  baseURL,
}) => {
  // The suite's own Chromium: no --enable-unsafe-webgpu, so no adapter.
  const forced = await run(browser, baseURL!, 'on');
  expect(forced.device).toBe('cpu');
  expect(forced.gpuNote).toMatch(/^No GPU: .*; runs on the CPU\.$/);
  expect(forced.generatedTokens).toBeGreaterThan(5);
});
