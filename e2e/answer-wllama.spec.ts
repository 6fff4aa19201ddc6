/**
 * @file wllama generates real tokens in the page: the tiny trained llama base model
 * ../shared/models/stories260K/stories260K.gguf, served by the local hub mirror (downloaded like a
 * hub model) and then dropped as a file. A base model has no chat template: the story prompt is
 * sent as plain text, fitted with the model's own token counts to its 2,048-token context.
 *
 * Asserts that real tokens stream and that Stop works; not that the answer is right (the model
 * writes children's stories, whatever it is asked).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { bookFile, dropFiles } from './support/drop';
import { SHARED_MODELS, startHubMirror, type HubMirror } from './support/hub-mirror';
import { isLocal, openLocalPage } from './support/local-page';
import { datasetPath } from '../test/datasets';

const ALICE = datasetPath('gutenberg', 'pg11.txt');
const GGUF = resolve(SHARED_MODELS, 'stories260K/stories260K.gguf');
const QUESTION = 'What did the Mock Turtle learn at school in the sea?';

test.describe.configure({ mode: 'serial' });

let mirror: HubMirror;
let page: Page;
const urls: string[] = [];
const problems: string[] = [];

const panel = () => page.getByTestId('answer-panel');
const answerText = () => panel().getByTestId('answer-text');

/** Record the answer's length at every change, to see tokens arrive. */
async function watchAnswerLengths() {
  await page.evaluate(() => {
    const w = window as unknown as { __lengths: number[]; __observer?: MutationObserver };
    w.__lengths = [];
    w.__observer?.disconnect();
    w.__observer = new MutationObserver(() => {
      const text = document.querySelector('[data-testid="answer-text"]')?.textContent ?? '';
      if (text.length !== w.__lengths[w.__lengths.length - 1]) w.__lengths.push(text.length);
    });
    w.__observer.observe(document.querySelector('[data-testid="answer-panel"]')!, {
      subtree: true,
      childList: true,
      characterData: true,
    });
  });
}
const answerLengths = () =>
  page.evaluate(() => (window as unknown as { __lengths: number[] }).__lengths);

/** Press Answer, wait for tokens to arrive in several steps, press Stop; returns the kept text. */
async function answerThenStop(): Promise<string> {
  await watchAnswerLengths();
  await panel().getByRole('button', { name: 'Answer', exact: true }).click();
  await expect
    .poll(async () => (await answerLengths()).filter((n) => n > 0).length, { timeout: 60_000 })
    .toBeGreaterThanOrEqual(3);
  await panel().getByRole('button', { name: 'Stop' }).click();
  await expect(panel()).toHaveAttribute('data-state', 'stopped');
  const kept = (await answerText().textContent()) ?? '';
  await page.waitForTimeout(500);
  expect(await answerText().textContent()).toBe(kept);
  return kept;
}

test.beforeAll(async ({ browser }) => {
  mirror = await startHubMirror();
  page = await openLocalPage(browser, urls, problems);
});

test.afterAll(async () => {
  await page?.context().close();
  await mirror?.close();
});

test('a GGUF model from a URL streams real tokens, fitted to its context, and Stop stops it', async () => {
  await page.goto('/');
  await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
  await dropFiles(page, [bookFile(ALICE)]);
  await expect(page.getByTestId('library-item')).toContainText(/\d+ fragments/);
  await page.getByLabel('Question').fill(QUESTION);
  await page.getByRole('button', { name: 'Ask', exact: true }).click();
  await expect(page.getByTestId('retrieval-summary')).toContainText(QUESTION);

  // wllama is the default engine: nothing leaves the page until a model is asked for.
  await expect(page.getByLabel('Engine')).toHaveValue('wllama');
  await expect(panel().getByTestId('answer-blocker')).toContainText('.gguf');
  await page.getByLabel('GGUF URL').fill(`${mirror.url}stories260K/resolve/main/stories260K.gguf`);
  await panel().getByRole('button', { name: 'Load the model' }).click();
  const ready = panel().getByTestId('local-model-ready');
  await expect(ready).toContainText('stories260K.gguf', { timeout: 60_000 });
  await expect(ready).toContainText('context 2,048 tokens');
  expect(
    mirror.requests.some(
      (r) => r.path === '/stories260K/resolve/main/stories260K.gguf' && r.status === 200,
    ),
  ).toBe(true);

  const kept = await answerThenStop();
  // Real tokens: words of the model's small English vocabulary, not noise.
  expect(kept).toMatch(/\b[a-z]{2,}\b.*\b[a-z]{2,}\b/s);

  // The prompt was plain text (a base model), fitted with exact counts to 2,048 tokens.
  await panel().getByText('Show the prompt').click();
  const prompt = (await panel().getByTestId('prompt-text').textContent()) ?? '';
  expect(prompt.startsWith('Below are numbered excerpts')).toBe(true);
  expect(prompt.endsWith(`Question: ${QUESTION}\nAnswer:`)).toBe(true);
  expect(prompt).toContain('[1] (pg11.txt · fragment ');
  const summary = (await panel().getByTestId('prompt-summary').textContent()) ?? '';
  const [, tokens, available] = /([\d,]+) prompt tokens of ([\d,]+) available/.exec(summary)!;
  const num = (s: string) => Number(s.replace(/,/g, ''));
  expect(num(available)).toBe(2048 - 512);
  expect(num(tokens)).toBeLessThanOrEqual(num(available));
  expect(summary).toMatch(/Sent as plain text/);
});

test('an answer left to finish reports its speed', async () => {
  await page.getByLabel('Answer length (tokens)').fill('200');
  await panel().getByRole('button', { name: 'Regenerate' }).click();
  await expect(panel()).toHaveAttribute('data-state', 'done', { timeout: 60_000 });
  const status = panel().getByTestId('answer-status');
  await expect(status).toContainText(/tokens\/s/);
  const speed = Number(await answerText().getAttribute('data-tokens-per-second'));
  expect(speed).toBeGreaterThan(0);
  test.info().annotations.push({ type: 'stories260K tokens/s', description: speed.toFixed(1) });
  console.log(`stories260K on wllama: ${speed.toFixed(1)} tokens/s; ${await status.textContent()}`);
});

test('after a reload the kept model answers the next question without a click or a download', async () => {
  const downloads = () =>
    mirror.requests.filter((r) => r.path === '/stories260K/resolve/main/stories260K.gguf').length;
  const before = downloads();
  await page.reload();
  await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
  await expect(page.getByTestId('library-item')).toContainText(/\d+ fragments/);
  // No model is loaded after a reload; the panel says in one line that asking loads the kept one.
  await expect(panel().getByTestId('local-model-ready')).toHaveCount(0);
  await expect(panel().getByTestId('answer-kept-model')).toContainText(
    'stories260K.gguf is kept in this browser',
  );
  await page.getByLabel('Question').fill('Who did the Mock Turtle sing about?');
  await page.getByRole('button', { name: 'Ask', exact: true }).click();
  // Answered without pressing Answer or Load: the model is read from the browser's own cache.
  await expect(panel()).toHaveAttribute('data-state', 'done', { timeout: 60_000 });
  expect((await answerText().textContent())?.trim().length).toBeGreaterThan(0);
  await expect(panel().getByTestId('local-model-ready')).toContainText('stories260K.gguf');
  expect(downloads()).toBe(before);
});

test('a .gguf file dropped on the panel is read in place, not indexed as a book', async () => {
  const before = mirror.requests.length;
  await panel()
    .getByTestId('gguf-drop')
    .evaluate((target, base64) => {
      const bin = atob(base64);
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], 'stories260K.gguf'));
      for (const type of ['dragenter', 'dragover', 'drop']) {
        target.dispatchEvent(
          new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }),
        );
      }
    }, readFileSync(GGUF).toString('base64'));
  await expect(panel().getByTestId('gguf-file')).toHaveText('stories260K.gguf');
  // The library's window-wide drop zone did not take it.
  await expect(page.locator('.drop-overlay')).toHaveCount(0);
  await page.waitForTimeout(300);
  await expect(page.getByTestId('library-item')).toHaveCount(1);
  await expect(page.getByTestId('notice')).toHaveCount(0);

  await panel().getByRole('button', { name: 'Load the model' }).click();
  await expect(panel().getByTestId('local-model-ready')).toContainText('stories260K.gguf', {
    timeout: 60_000,
  });
  const kept = await answerThenStop();
  expect(kept.length).toBeGreaterThan(0);
  // Read from the file: the mirror saw nothing new.
  expect(mirror.requests.length).toBe(before);
});

test('a file that is not GGUF, or a broken one, gets a clear message, and the next model answers', async () => {
  await panel().getByRole('button', { name: 'Use the URL instead' }).click();
  await page.getByLabel('GGUF model file').setInputFiles({
    name: 'notes.gguf',
    mimeType: 'application/octet-stream',
    buffer: Buffer.from('this is not a model'),
  });
  await panel().getByRole('button', { name: 'Load the model' }).click();
  await expect(panel().getByTestId('local-model-error')).toContainText('is not a GGUF model file');

  // A file that starts like a GGUF but is not one (the magic, then noise): llama.cpp refuses it.
  await panel().getByRole('button', { name: 'Use the URL instead' }).click();
  await page.getByLabel('GGUF model file').setInputFiles({
    name: 'broken.gguf',
    mimeType: 'application/octet-stream',
    buffer: Buffer.concat([Buffer.from('GGUF'), Buffer.alloc(4096, 0x5a)]),
  });
  await panel().getByRole('button', { name: 'Load the model' }).click();
  await expect(panel().getByTestId('local-model-error')).toContainText(
    'llama.cpp could not load broken.gguf',
    { timeout: 60_000 },
  );

  // The next model loads and answers: nothing of the failures is left behind.
  await panel().getByRole('button', { name: 'Use the URL instead' }).click();
  await page.getByLabel('GGUF model file').setInputFiles(GGUF);
  await panel().getByRole('button', { name: 'Load the model' }).click();
  await expect(panel().getByTestId('local-model-ready')).toContainText('stories260K.gguf', {
    timeout: 60_000,
  });
  await expect(panel().getByTestId('local-model-error')).toHaveCount(0);
  expect((await answerThenStop()).length).toBeGreaterThan(0);
});

test('every request of the page and its workers went to 127.0.0.1', async () => {
  expect(urls.filter((u) => !isLocal(u))).toEqual([]);
  // The wasm came from our own build.
  expect(urls.some((u) => /\/assets\/wllama-[\w-]+\.wasm$/.test(u))).toBe(true);
  expect(problems).toEqual([]);
});
