/**
 * @file Accessibility of every view, light and dark: axe-core over the whole page finds
 * no serious or critical problem in the ask view with an answer, its evidence, a pipeline's trace
 * and the Advanced, storage and history panels open; in the chat view; and in the code view of a
 * dropped repository with a window's details open. The answer engine is the scripted
 * OpenAI-compatible server on 127.0.0.1.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { zipSync } from 'fflate';
import { openAdvanced } from './support/advanced';
import { bookFile, dropFiles } from './support/drop';
import { isLocal, openLocalPage } from './support/local-page';
import { startOpenAiServer, type OpenAiServer } from './support/openai-server';
import { datasetPath } from '../test/datasets';

const HERE = dirname(fileURLToPath(import.meta.url));
const ALICE = datasetPath('gutenberg', 'pg11.txt');
const PICOMATCH = resolve(HERE, '../node_modules/picomatch');
const QUESTION = 'What did the Mock Turtle learn at school in the sea?';

test.describe.configure({ mode: 'serial' });

let server: OpenAiServer;
let page: Page;
const urls: string[] = [];
const problems: string[] = [];

const say = (text: string) => ({
  kind: 'answer' as const,
  pieces: [text.slice(0, 9), text.slice(9)],
});

/** Serious and critical axe findings on the whole page, light and dark. */
async function seriousBothSchemes(): Promise<string[]> {
  const found: string[] = [];
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    const axe = await new AxeBuilder({ page }).analyze();
    for (const v of axe.violations) {
      if (v.impact !== 'serious' && v.impact !== 'critical') continue;
      found.push(
        `${colorScheme} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`,
      );
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return found;
}

test.beforeAll(async ({ browser }) => {
  server = await startOpenAiServer();
  server.routes = [
    // LongRAG's steps, for a trace with every kind of entry.
    { when: 'Thinking process:', reply: say('The Mock Turtle names his lessons.') },
    { when: 'Reply with JSON only, in this form: {"status"', reply: say('{"status": "True"}') },
    { when: '\nInformation:', reply: say('He learned Reeling and Writhing.') },
    { when: 'The following are given passages.', reply: say('Reeling and Writhing [1].') },
  ];
  server.fallback = say('The Mock Turtle learned **Reeling and Writhing** [1].');
  page = await openLocalPage(browser, urls, problems);
});

test.afterAll(async () => {
  await page?.context().close();
  await server?.close();
});

test('the ask view with an answer, evidence, a pipeline trace and every panel open', async () => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto('/');
  await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
  // The first page a newcomer sees, before anything is added.
  expect(await seriousBothSchemes()).toEqual([]);

  await dropFiles(page, [bookFile(ALICE)]);
  await expect(page.getByTestId('library-item')).toContainText(/\d+ fragments/);
  await page.getByTestId('engine-offer').getByRole('button', { name: 'use an API key' }).click();
  await page.getByLabel('Base URL').fill(`${server.url}/v1`);
  await page.getByLabel('Model', { exact: true }).fill('test-model');
  await page.getByLabel('API key').fill('sk-test-a11y');
  await page.getByLabel('Question').fill(QUESTION);
  await page.getByRole('button', { name: 'Ask', exact: true }).click();
  await expect(page.getByTestId('answer-panel')).toHaveAttribute('data-state', 'done');
  await page.getByTestId('answer-text').getByRole('link', { name: '[1]' }).click();
  await expect(page.getByTestId('support-sentence').first()).toBeVisible();

  const pipelines = page.getByTestId('pipelines-panel');
  await pipelines.getByRole('radio', { name: 'LongRAG' }).check();
  await pipelines.getByRole('button', { name: 'Run LongRAG' }).click();
  await expect(pipelines).toHaveAttribute('data-state', 'done', { timeout: 60_000 });
  const cot = pipelines.getByTestId('pipeline-trace').locator('[data-tag="longrag.cot"]');
  await cot.locator('summary').click();
  await expect(cot.getByTestId('trace-prompt')).toBeVisible();

  await openAdvanced(page);
  await page.getByTestId('storage-panel').locator('summary').click();
  await expect(page.getByTestId('storage-usage')).toBeVisible();
  expect(await seriousBothSchemes()).toEqual([]);
});

test('the chat view', async () => {
  await page.getByRole('tab', { name: 'Chat' }).click();
  await expect(page.getByTestId('chat-view')).toBeVisible();
  expect(await seriousBothSchemes()).toEqual([]);
  await page.getByRole('tab', { name: 'Ask the library' }).click();
});

test('the code view of a dropped repository, with a window and its graph neighbourhood', async () => {
  const entries: Record<string, Uint8Array> = {};
  for (const name of readdirSync(resolve(PICOMATCH, 'lib'))) {
    entries[`picomatch/lib/${name}`] = readFileSync(resolve(PICOMATCH, 'lib', name));
  }
  await dropFiles(page, [{ name: 'picomatch.zip', bytes: zipSync(entries) }]);
  const code = page.getByTestId('code-view');
  await expect(code).toBeVisible({ timeout: 60_000 });
  await code.getByLabel('Question about the repository').fill('parse a glob into a regex');
  await code.getByRole('button', { name: 'Ask', exact: true }).click();
  await expect(code.getByTestId('code-summary')).toContainText('for “parse a glob');
  await code.getByTestId('window-list').locator('.ranked__open').first().click();
  await expect(code.getByTestId('window-details')).toBeVisible();
  await expect(page.getByTestId('skip-report')).toBeVisible();
  expect(await seriousBothSchemes()).toEqual([]);
  expect(problems).toEqual([]);
  expect(urls.filter((u) => !isLocal(u))).toEqual([]);
});
