/**
 * @file WebLLM where it cannot run, up to its error paths (it fetches its models from the
 * internet, which these machines cannot reach).
 *
 * - Headless Chromium offers no WebGPU adapter: picking WebLLM says so at once, points to the
 *   other engines, and fetches nothing (no model, no library, no request off 127.0.0.1).
 * - With --enable-unsafe-webgpu it offers SwiftShader, without shader-f16: a 16-bit model is
 *   refused with its reason before anything is fetched; a 32-bit model starts loading in
 *   WebLLM's worker and, with requests off 127.0.0.1 blocked, ends in the download message.
 *   Only the model download the person started tries to leave the machine.
 */
import { expect, test, type Page } from '@playwright/test';
import { chromiumArgs } from '../playwright.config';
import { isLocal } from './support/local-page';

test('without WebGPU, WebLLM explains why and points to wllama and the APIs', async ({ page }) => {
  const urls: string[] = [];
  page.context().on('request', (r) => urls.push(r.url()));
  await page.context().route(
    (url) => !isLocal(url.href),
    (route) => route.abort('blockedbyclient'),
  );
  await page.goto('/');
  await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
  expect(
    await page.evaluate(async () => {
      const gpu = (navigator as Navigator & { gpu?: { requestAdapter(): Promise<unknown> } }).gpu;
      return gpu ? (await gpu.requestAdapter()) === null : true;
    }),
  ).toBe(true);

  const panel = page.getByTestId('answer-panel');
  await page.getByLabel('Engine').selectOption('webllm');
  const problem = panel.getByTestId('webllm-unsupported');
  await expect(problem).toContainText('this browser offers no WebGPU adapter');
  await expect(problem).toContainText(/wllama.*CPU.*API engine/s);
  // The catalogue shows download sizes; loading and answering are not offered.
  await expect(page.getByLabel('Model', { exact: true }).locator('option').first()).toContainText(
    /about \d+ MB download/,
  );
  await expect(panel.getByRole('button', { name: 'Load the model' })).toBeDisabled();
  await expect(panel.getByRole('button', { name: 'Answer', exact: true })).toBeDisabled();

  // The pointer works: one click and wllama is the engine.
  await problem.getByRole('button', { name: 'Use wllama' }).click();
  await expect(page.getByLabel('Engine')).toHaveValue('wllama');
  await expect(panel.getByTestId('webllm-unsupported')).toHaveCount(0);
  await page.getByLabel('Engine').selectOption('webllm');
  await panel
    .getByTestId('webllm-unsupported')
    .getByRole('button', { name: 'Use an OpenAI-compatible API' })
    .click();
  await expect(page.getByLabel('Engine')).toHaveValue('openai');

  expect(urls.filter((u) => !isLocal(u))).toEqual([]);
  expect(urls.some((u) => /llm-webllm\.worker/.test(u))).toBe(false);
});

test('on a GPU without shader-f16, 16-bit models are refused and a 32-bit download fails clearly', async ({
  playwright,
  baseURL,
}) => {
  const browser = await playwright.chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: [...chromiumArgs, '--enable-unsafe-webgpu'],
  });
  try {
    const context = await browser.newContext({ baseURL });
    const urls: string[] = [];
    context.on('request', (r) => urls.push(r.url()));
    await context.route(
      (url) => !isLocal(url.href),
      (route) => route.abort('internetdisconnected'),
    );
    const page: Page = await context.newPage();
    await page.goto('/');
    await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
    const adapter = await page.evaluate(async () => {
      type Gpu = { requestAdapter(): Promise<{ features: { has(f: string): boolean } } | null> };
      const a = await (navigator as Navigator & { gpu?: Gpu }).gpu?.requestAdapter();
      return a ? { f16: a.features.has('shader-f16') } : null;
    });
    test.skip(adapter === null, 'This Chromium offers no WebGPU adapter even with the flag.');
    test.skip(adapter!.f16, 'This adapter has shader-f16; the refusal cannot be shown here.');

    const panel = page.getByTestId('answer-panel');
    await page.getByLabel('Engine').selectOption('webllm');
    const model = page.getByLabel('Model', { exact: true });
    await model.selectOption('Llama-3.2-1B-Instruct-q4f16_1-MLC');
    const problem = panel.getByTestId('webllm-unsupported');
    await expect(problem).toContainText('needs the WebGPU feature shader-f16');
    await expect(problem).toContainText('32-bit');
    await expect(panel.getByRole('button', { name: 'Load the model' })).toBeDisabled();
    expect(urls.filter((u) => !isLocal(u))).toEqual([]);

    await model.selectOption('SmolLM2-360M-Instruct-q4f32_1-MLC');
    await expect(problem).toHaveCount(0);
    await panel.getByRole('button', { name: 'Load the model' }).click();
    const error = panel.getByTestId('local-model-error');
    await expect(error).toContainText('Could not download SmolLM2 360M Instruct', {
      timeout: 60_000,
    });
    await expect(error).toContainText(/wllama/);
    // What tried to leave: WebLLM's model files, and nothing else.
    const external = urls.filter((u) => !isLocal(u));
    expect(external.length).toBeGreaterThan(0);
    for (const u of external) {
      expect(new URL(u).hostname).toMatch(/^(huggingface\.co|raw\.githubusercontent\.com)$/);
    }
  } finally {
    await browser.close();
  }
});
