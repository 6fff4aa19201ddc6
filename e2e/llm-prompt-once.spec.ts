/**
 * @file The in-browser model reads each prompt once, for real: SmolLM2-135M-Instruct in wllama
 * (the recommended catalogue model, from the local mirror), a context small enough that the
 * prompt is counted exactly before it is sent. Counting reads the prompt with its chat template;
 * the answer then takes all of it but the last token from llama.cpp's cache, so the prompt
 * tokens read for the answer add up to the prompt's length, not twice it, for each question.
 */
import { resolve } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { requireRealModel } from '../test/real-models';
import { bookFile, dropFiles } from './support/drop';
import { startHubMirror, type HubMirror } from './support/hub-mirror';
import { openAdvanced } from './support/advanced';
import { openLocalPage } from './support/local-page';

const ALICE = resolve('../shared/datasets/gutenberg/pg11.txt');

test.describe.configure({ mode: 'serial' });

let mirror: HubMirror;
let page: Page;
const urls: string[] = [];
const problems: string[] = [];
const logs: string[] = [];
const panel = () => page.getByTestId('answer-panel');

test.beforeAll(async ({ browser }) => {
  requireRealModel('SmolLM2-135M-Instruct');
  mirror = await startHubMirror();
  page = await openLocalPage(browser, urls, problems);
  page.on('console', (m) => {
    if (m.text().startsWith('[wllama]')) logs.push(m.text());
  });
});

test.afterAll(async () => {
  await page?.context().close();
  await mirror?.close();
});

async function ask(question: string) {
  await page.getByLabel('Question').fill(question);
  await page.getByRole('button', { name: 'Ask', exact: true }).click();
  await expect(panel().getByTestId('answer-question')).toContainText(question);
  await expect(panel()).toHaveAttribute('data-state', /^(done|error)$/, { timeout: 480_000 });
  expect(await panel().getAttribute('data-state')).toBe('done');
  const text = panel().getByTestId('answer-text');
  const summary = (await panel().getByTestId('prompt-summary').textContent()) ?? '';
  return {
    promptTokens: Number(await text.getAttribute('data-prompt-tokens')),
    reused: Number((await text.getAttribute('data-reused-prompt-tokens')) || 0),
    summary,
  };
}

test('a prompt counted exactly is read once: the answer reuses the reading of its count', async () => {
  test.setTimeout(900_000);
  await page.goto('/');
  await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
  await openAdvanced(page);
  await page.getByLabel('Fragment size').selectOption('200');
  await dropFiles(page, [bookFile(ALICE)]);
  await expect(page.getByTestId('library-item')).toContainText(/\d+ fragments/);
  await page.getByLabel('Independent score').selectOption('bm25');
  // About 800 prompt tokens in a 1,024-token context: more than half of it, so counted exactly.
  await page.locator('input[type=range][aria-label=budget]').fill('600');
  await page.getByLabel('Answer length (tokens)').fill('24');
  await page.getByLabel('CPU threads (0 = automatic)').fill('2');
  await page.getByLabel('Context size (tokens)').fill('1024');
  // The whole window, not the reading budget: the prompt must be long enough to be counted.
  await page.getByLabel('Passages to read').selectOption('0');
  const catalogue = panel().getByTestId('gguf-catalogue');
  await catalogue.getByText('Download from another hub or mirror').click();
  await catalogue.getByLabel('Model hub').fill(mirror.url);
  await catalogue
    .locator('[data-key="smollm2-135m-instruct"]')
    .getByRole('button', { name: /Download and load SmolLM2|Load SmolLM2/ })
    .click();
  await expect(panel().getByTestId('local-model-ready')).toBeVisible({ timeout: 180_000 });
  // Texts are counted by the tokenizer the GGUF file carries, rebuilt in the page, not by the
  // model reading them (gguf-tokenizer.ts); the final prompt is still the model's count below.
  await expect
    .poll(() => logs.join('\n'), { timeout: 60_000 })
    .toContain("token counts from the file's own tokenizer (smollm)");

  const first = await ask('What did the label on the little bottle say?');
  console.log(`[prompt once] first: ${JSON.stringify(first)}`);
  // Counted exactly (no "about"), and the count is the answer's own prompt size.
  const counted = /([\d,]+) prompt tokens of/.exec(first.summary);
  expect(first.summary).not.toMatch(/about [\d,]+ prompt tokens/);
  expect(Number(counted?.[1].replace(/,/g, ''))).toBe(first.promptTokens);
  expect(first.promptTokens).toBeGreaterThan(500);
  // All but the last token came from the cache: the prompt was read once, by the count.
  expect(first.reused).toBe(first.promptTokens - 1);

  // Another question, other passages: read once again (its count's reading, reused).
  const second = await ask('Who was the White Rabbit?');
  console.log(`[prompt once] second: ${JSON.stringify(second)}`);
  expect(second.reused).toBe(second.promptTokens - 1);
  expect(problems).toEqual([]);
});
