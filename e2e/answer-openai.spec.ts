/**
 * @file Answers through the OpenAI-compatible engine, against a scripted server on 127.0.0.1
 * (support/openai-server.ts): a streamed answer whose citations open their fragments, then 401,
 * 429 with Retry-After, 500 and a connection dropped mid-stream, each ending in a clear message
 * with the question kept. Keys: remembered across a reload, forgotten, and bound to their
 * endpoint. No request of the page or its workers leaves 127.0.0.1.
 */
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { bookFile, dropFiles } from './support/drop';
import { startOpenAiServer, type OpenAiServer } from './support/openai-server';
import { isLocal, openLocalPage } from './support/local-page';
import { datasetPath } from '../test/datasets';

const ALICE = datasetPath('gutenberg', 'pg11.txt');
const QUESTION = 'What did the Mock Turtle learn at school in the sea?';
const KEY = 'sk-test-0123456789';

test.describe.configure({ mode: 'serial' });

let server: OpenAiServer;
let page: Page;
const urls: string[] = [];
const problems: string[] = [];

async function ask(question: string) {
  await page.getByLabel('Question').fill(question);
  await page.getByRole('button', { name: 'Ask', exact: true }).click();
  await expect(page.getByTestId('retrieval-summary')).toContainText(question);
}

const panel = () => page.getByTestId('answer-panel');
const answerButton = () => panel().getByRole('button', { name: 'Answer', exact: true });

/** Record the answer's length at every change, to see it grow while streaming. */
async function watchAnswerLengths() {
  await page.evaluate(() => {
    const w = window as unknown as { __lengths: number[] };
    w.__lengths = [];
    const target = document.querySelector('[data-testid="answer-panel"]')!;
    new MutationObserver(() => {
      const text = document.querySelector('[data-testid="answer-text"]')?.textContent ?? '';
      const last = w.__lengths[w.__lengths.length - 1];
      if (text.length !== last) w.__lengths.push(text.length);
    }).observe(target, { subtree: true, childList: true, characterData: true });
  });
}
const answerLengths = () =>
  page.evaluate(() => (window as unknown as { __lengths: number[] }).__lengths);

async function expectQuestionKept() {
  await expect(panel().getByTestId('answer-question')).toHaveText(`Question: “${QUESTION}”`);
  await expect(page.getByLabel('Question')).toHaveValue(QUESTION);
  await expect(answerButton()).toBeEnabled();
}

test.beforeAll(async ({ browser }) => {
  server = await startOpenAiServer();
  page = await openLocalPage(browser, urls, problems);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
});

test.afterAll(async () => {
  await page?.context().close();
  await server?.close();
});

test('a streamed answer cites its excerpts, and a citation opens its fragment', async () => {
  await page.goto('/');
  await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
  await dropFiles(page, [bookFile(ALICE)]);
  await expect(page.getByTestId('library-item')).toContainText(/\d+ fragments/);
  await ask(QUESTION);

  await page.getByLabel('Engine').selectOption('openai');
  await expect(panel().getByTestId('engine-privacy')).toContainText('api.openai.com');
  await page.getByLabel('Base URL').fill(`${server.url}/v1`);
  await page.getByLabel('Model', { exact: true }).fill('test-model');
  await page.getByLabel('API key').fill(KEY);
  await expect(panel().getByTestId('engine-privacy')).toContainText(server.url.slice(7));

  server.replies.push({
    kind: 'answer',
    pieces: [
      'The Mock Turtle ',
      'learned Reeling ',
      'and Writhing [1], ',
      'and the branches ',
      'of Arithmetic [1, 2].',
    ],
  });
  await watchAnswerLengths();
  await answerButton().click();
  await expect(panel()).toHaveAttribute('data-state', 'done');
  const text = panel().getByTestId('answer-text');
  await expect(text).toHaveText(
    'The Mock Turtle learned Reeling and Writhing [1], and the branches of Arithmetic [1][2].',
  );
  // It streamed: the text grew in several steps.
  const lengths = await answerLengths();
  expect(lengths.filter((n) => n > 0).length).toBeGreaterThanOrEqual(3);
  expect([...lengths].sort((a, b) => a - b)).toEqual(lengths);

  // The request: model, key, and the story prompt with labelled excerpts in document order.
  const posts = server.requests.filter((r) => r.method === 'POST');
  expect(posts).toHaveLength(1);
  expect(posts[0].headers.authorization).toBe(`Bearer ${KEY}`);
  expect(posts[0].headers.cookie).toBeUndefined();
  const body = posts[0].body!;
  expect(body.model).toBe('test-model');
  expect(body.stream).toBe(true);
  expect(body.messages!.map((m) => m.role)).toEqual(['system', 'user']);
  expect(body.messages![1].content).toContain('[1] (pg11.txt · fragment ');
  expect(body.messages![1].content.endsWith(`Question: ${QUESTION}`)).toBe(true);

  // "Show the prompt" shows exactly what was sent.
  await panel().getByText('Show the prompt').click();
  const shown = await panel().getByTestId('prompt-text').textContent();
  expect(shown).toBe(body.messages!.map((m) => `[${m.role}]\n${m.content}`).join('\n\n'));
  await expect(panel().getByTestId('prompt-summary')).toContainText(
    /\d+ of \d+ selected fragments sent/,
  );

  // Citations are links; [2] opens its fragment in the reader.
  const links = text.getByRole('link');
  await expect(links).toHaveCount(3);
  const second = text.getByRole('link', { name: '[2]' });
  const index = Number(await second.getAttribute('data-fragment'));
  await second.click();
  await expect(page.locator('#reader-title')).toContainText(`fragment ${index + 1} of`);
  const fragment = (await page.locator('.reader__fragment').textContent())!.trim();
  expect(body.messages![1].content).toContain(fragment.slice(0, 200));

  // The panel, with its answer, links and prompt open, has no serious accessibility problems.
  const axe = await new AxeBuilder({ page }).include('[data-testid="answer-panel"]').analyze();
  const serious = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious.map((v) => `${v.id}: ${v.help} (${v.nodes.length})`)).toEqual([]);

  // Copy puts the answer on the clipboard.
  await panel().getByRole('button', { name: 'Copy' }).click();
  await expect(panel().getByTestId('copy-status')).toHaveText('Copied the answer.');
  // Markdown, with the citations resolved to their places in the book.
  expect(await page.evaluate(() => navigator.clipboard.readText())).toMatch(
    /^The Mock Turtle learned Reeling and Writhing \[1\], and the branches of Arithmetic \[1, 2\]\.\n\nSources:\n\n- \[1\] pg11\.txt · fragment \d+ · CHAPTER IX[^\n]*\n- \[2\] pg11\.txt · fragment \d+[^\n]*\n$/,
  );
});

test('a rejected key (401) ends in a clear message, and the question is kept', async () => {
  server.replies.push({
    kind: 'error',
    status: 401,
    body: {
      error: {
        message: 'Incorrect API key provided',
        type: 'invalid_request_error',
        code: 'invalid_api_key',
      },
    },
  });
  await panel().getByRole('button', { name: 'Regenerate' }).click();
  const error = panel().getByTestId('answer-error');
  await expect(error).toHaveAttribute('data-code', 'auth');
  await expect(error).toContainText(/rejected the API key \(401\)/);
  await expect(error).toContainText('Incorrect API key provided');
  await expect(panel()).toHaveAttribute('data-state', 'error');
  await expectQuestionKept();
});

test('a rate limit (429) says when to try again', async () => {
  server.replies.push({
    kind: 'error',
    status: 429,
    body: { error: { message: 'Rate limit reached for requests', type: 'requests' } },
    headers: { 'Retry-After': '7' },
  });
  await answerButton().click();
  const error = panel().getByTestId('answer-error');
  await expect(error).toHaveAttribute('data-code', 'rate-limit');
  await expect(error).toContainText('Try again in 7 seconds.');
  await expectQuestionKept();
});

test('a server error (500) says the problem is on the server', async () => {
  server.replies.push({
    kind: 'error',
    status: 500,
    body: { error: { message: 'The server had an error while processing your request.' } },
  });
  await answerButton().click();
  const error = panel().getByTestId('answer-error');
  await expect(error).toHaveAttribute('data-code', 'server');
  await expect(error).toContainText(/server error \(500\)/);
  await expectQuestionKept();
});

test('a connection dropped mid-stream keeps the part that arrived and says so', async () => {
  server.replies.push({ kind: 'drop', pieces: ['The Mock ', 'Turtle went '] });
  await answerButton().click();
  const error = panel().getByTestId('answer-error');
  await expect(error).toHaveAttribute('data-code', 'network');
  await expect(error).toContainText(/broke off before the answer was complete/);
  await expect(panel().getByTestId('answer-text')).toHaveText('The Mock Turtle went ');
  await expectQuestionKept();
});

test('Stop ends a streaming answer and keeps what arrived', async () => {
  server.replies.push({
    kind: 'answer',
    pieces: Array.from({ length: 60 }, (_, i) => `word${i} `),
    delayMs: 100,
  });
  await answerButton().click();
  await expect(panel().getByTestId('answer-text')).toContainText('word2');
  await panel().getByRole('button', { name: 'Stop' }).click();
  await expect(panel()).toHaveAttribute('data-state', 'stopped');
  await expect(panel().getByTestId('answer-error')).toHaveCount(0);
  const kept = await panel().getByTestId('answer-text').textContent();
  expect(kept).not.toContain('word59');
  await page.waitForTimeout(400);
  expect(await panel().getByTestId('answer-text').textContent()).toBe(kept);
});

test('a remembered key survives a reload, stays with its endpoint, and can be forgotten', async () => {
  const keyField = page.getByLabel('API key');
  await page.getByLabel('Remember the key on this device').check();
  await expect(panel().getByTestId('key-stored')).toBeVisible();
  await page.reload();
  await expect(page.getByTestId('library-item')).toHaveCount(1);
  await expect(page.getByLabel('Engine')).toHaveValue('openai');
  await expect(page.getByLabel('Base URL')).toHaveValue(`${server.url}/v1`);
  await expect(keyField).toHaveValue(KEY);
  await expect(panel().getByTestId('key-stored')).toBeVisible();

  // Another endpoint does not get this key.
  await page.getByLabel('Base URL').fill('http://127.0.0.1:9/v1');
  await expect(keyField).toHaveValue('');
  await page.getByLabel('Base URL').fill(`${server.url}/v1`);
  await expect(keyField).toHaveValue(KEY);

  await panel().getByRole('button', { name: 'Forget the key' }).click();
  await expect(keyField).toHaveValue('');
  await expect(panel().getByTestId('key-stored')).toHaveCount(0);
  await page.reload();
  await expect(page.getByLabel('Engine')).toHaveValue('openai');
  await expect(page.getByLabel('API key')).toHaveValue('');

  // Without a key, no Authorization header is sent at all.
  await ask(QUESTION);
  const before = server.requests.length;
  await answerButton().click();
  await expect(panel()).toHaveAttribute('data-state', 'done');
  const post = server.requests.slice(before).find((r) => r.method === 'POST')!;
  expect(post.headers.authorization).toBeUndefined();
});

test('every request of the page and its workers went to 127.0.0.1', async () => {
  expect(urls.length).toBeGreaterThan(0);
  expect(urls.filter((u) => !isLocal(u))).toEqual([]);
  // The key went to the chosen server only, and only on its completions.
  const withKey = server.requests.filter((r) => r.headers.authorization);
  expect(withKey.every((r) => r.path === '/v1/chat/completions')).toBe(true);
  expect(problems).toEqual([]);
});
