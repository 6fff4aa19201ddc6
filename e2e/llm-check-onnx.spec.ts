/**
 * @file The speed check page's ONNX mode (llm.html?engine=onnx), which the llm-speed benchmark
 * reads beside llama.cpp: the app's ONNX engine loads SmolLM2-135M-Instruct (onnx/model.onnx from
 * the local hub mirror, written by `npm run models`), reads the prompt as plain text, not through
 * the chat template, so its prompt tokens are the text's own tokens (the same count the model's
 * tokenizer gives in Node), and writes exactly the tokens asked for, an end-of-text token held
 * back. A name that is not a hub model id gets a clear message.
 */
import { existsSync, readFileSync } from 'node:fs';
import { Tokenizer } from '@huggingface/tokenizers';
import { expect, test, type Page } from '@playwright/test';
import { realModelPath } from '../test/real-models';
import { startHubMirror, type HubMirror } from './support/hub-mirror';

const MODEL = 'HuggingFaceTB/SmolLM2-135M-Instruct';
const PROMPT =
  'Alice was beginning to get very tired of sitting by her sister on the bank, and of having nothing to do: once or twice she had peeped into the book her sister was reading, but it had no pictures or conversations in it,';

let mirror: HubMirror;

test.beforeAll(async () => {
  const file = realModelPath(MODEL, 'onnx/model.onnx');
  if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run models\`.`);
  mirror = await startHubMirror();
});

test.afterAll(async () => {
  await mirror?.close();
});

async function check(page: Page, params: Record<string, string>) {
  await page.goto(`/llm.html?${new URLSearchParams({ engine: 'onnx', ...params })}`);
  await page.locator('#prompt').fill(PROMPT);
  await page.getByRole('button', { name: 'Run' }).click();
  await page.locator('main[data-state="done"], main[data-state="error"]').waitFor({
    timeout: 240_000,
  });
}

test('the ONNX mode reads the plain prompt and writes the tokens asked for', async ({ page }) => {
  test.setTimeout(300_000);
  // With the warm-up read first, as the benchmark runs it: the timed read is still whole.
  await check(page, {
    model: MODEL,
    hub: mirror.url,
    threads: '1',
    max: '6',
    ctx: '2048',
    warm: '1',
  });
  const status = (await page.getByRole('status').textContent()) ?? '';
  expect(await page.locator('main').getAttribute('data-state'), status).toBe('done');
  const r = JSON.parse((await page.getByTestId('result').textContent()) ?? '{}') as {
    engine: string;
    threads: number;
    crossOriginIsolated: boolean;
    promptTokens: number;
    cachedTokens: number;
    generatedTokens: number;
    promptTokensPerS: number;
    firstTokenMs: number;
    text: string;
  };
  const json = (file: string) =>
    JSON.parse(readFileSync(realModelPath(MODEL, file), 'utf8')) as object;
  const tokenizer = new Tokenizer(json('tokenizer.json'), json('tokenizer_config.json'));
  // The text's own tokens: no chat template around it (that would add its role markers).
  expect(r.promptTokens).toBe(tokenizer.encode(PROMPT, { add_special_tokens: false }).ids.length);
  expect(r.cachedTokens).toBe(0);
  expect(r.engine).toBe('onnx');
  expect(r.threads).toBe(1);
  expect(r.crossOriginIsolated).toBe(true);
  expect(r.generatedTokens).toBe(6);
  expect(r.text.trim().length).toBeGreaterThan(0);
  expect(r.firstTokenMs).toBeGreaterThan(0);
  expect(r.promptTokensPerS).toBeGreaterThan(0);
  expect(status).toContain(`Prompt ${r.promptTokens} tokens`);
});

test('a model name that is not a hub model id gets a clear message', async ({ page }) => {
  await check(page, { model: 'not a model', hub: mirror.url, threads: '1', max: '4' });
  await expect(page.locator('main')).toHaveAttribute('data-state', 'error');
  await expect(page.getByRole('status')).toContainText(
    'is not a model name of the form owner/name',
  );
});
