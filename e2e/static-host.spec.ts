/**
 * @file The built app on a plain static host (docs/deploy.md): dist/ served under a sub-path by a
 * server that sends no special headers (e2e/support/static-server.ts), as GitHub Pages or
 * `python3 -m http.server` would. The service worker must make the page cross-origin isolated
 * after one reload of its own; then the main flow works, wllama answers on 2 threads (the tiny
 * stories260K model from the local hub mirror, another origin), and the app works offline.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type Page } from '@playwright/test';
import { bookFile, dropFiles } from './support/drop';
import { startHubMirror, type HubMirror } from './support/hub-mirror';
import { isLocal, openLocalPage } from './support/local-page';
import { startStaticServer, type StaticServer } from './support/static-server';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const DIST = path.resolve(HERE, '..', process.env.E2E_DIST ?? 'dist');
const ALICE = path.resolve(HERE, '../../shared/datasets/gutenberg/pg11.txt');
const QUESTION = 'What did the Mock Turtle learn at school in the sea?';

test.describe.configure({ mode: 'serial' });

let server: StaticServer;
let mirror: HubMirror;
let page: Page;
const urls: string[] = [];
const problems: string[] = [];

interface LoadRecord {
  isolated: boolean;
  controlled: boolean;
}
const loads = () =>
  page.evaluate(
    () => JSON.parse(sessionStorage.getItem('test:loads') ?? '[]') as Array<LoadRecord>,
  );

/** Ask the question and open the best fragment in the reader. */
async function askAndRead() {
  await page.getByLabel('Question').fill(QUESTION);
  await page.getByRole('button', { name: 'Ask', exact: true }).click();
  await expect(page.getByTestId('retrieval-summary')).toContainText(QUESTION);
  const first = page.getByTestId('ranked-list').locator('li').first();
  await first.getByRole('button').first().click();
  await expect(page.locator('.reader__fragment')).toContainText('Mock Turtle');
}

test.beforeAll(async ({ browser }) => {
  server = await startStaticServer(
    DIST,
    '/some/sub/path/',
    Number(process.env.E2E_STATIC_PORT ?? 0),
  );
  mirror = await startHubMirror();
  page = await openLocalPage(browser, urls, problems);
  // Each load of the page records whether it was isolated and controlled by the worker.
  await page.context().addInitScript(() => {
    if (window !== window.top) return;
    const loads = JSON.parse(sessionStorage.getItem('test:loads') ?? '[]') as unknown[];
    loads.push({
      isolated: self.crossOriginIsolated,
      controlled: navigator.serviceWorker?.controller != null,
    });
    sessionStorage.setItem('test:loads', JSON.stringify(loads));
  });
});

test.afterAll(async () => {
  await page?.context().close();
  await mirror?.close();
  await server?.close();
});

test('the service worker makes the page cross-origin isolated after one reload', async () => {
  await page.goto(server.url);
  await page.waitForFunction(() => self.crossOriginIsolated, null, { timeout: 90_000 });
  await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
  await expect(page.getByTestId('worker-status')).toContainText('cross-origin isolated');
  await expect(page.getByTestId('offline-status')).toHaveAttribute('data-state', 'offline-ready');
  // The first load came from the host as it is (no headers, no worker); the second, the page's
  // own reload, from the worker. No third.
  expect(await loads()).toEqual([
    { isolated: false, controlled: false },
    { isolated: true, controlled: true },
  ]);
  const registration = await page.evaluate(async () => {
    const r = await navigator.serviceWorker.getRegistration();
    return { scope: r?.scope, script: r?.active?.scriptURL };
  });
  expect(registration).toEqual({ scope: server.url, script: `${server.url}sw.js` });
  // Everything the app asked of the host was under the sub-path.
  const stray = server.requests.filter((r) => !r.path.startsWith('/some/sub/path/'));
  expect(stray).toEqual([]);
  expect(server.requests.filter((r) => r.status !== 200)).toEqual([]);
});

test('the main flow works: a book dropped, a question asked, ranked fragments read', async () => {
  await dropFiles(page, [bookFile(ALICE)]);
  await expect(page.getByTestId('library-item')).toContainText(/\d+ fragments/);
  await askAndRead();
});

test('wllama answers on 2 threads with a model from another origin', async () => {
  const panel = page.getByTestId('answer-panel');
  await expect(page.getByLabel('Engine')).toHaveValue('wllama');
  await page.getByLabel('CPU threads (0 = automatic)').fill('2');
  await page.getByLabel('GGUF URL').fill(`${mirror.url}stories260K/resolve/main/stories260K.gguf`);
  await panel.getByRole('button', { name: 'Load the model' }).click();
  const ready = panel.getByTestId('local-model-ready');
  await expect(ready).toContainText('stories260K.gguf', { timeout: 60_000 });
  // wllama runs its multi-thread build only where the page is isolated; else 1 thread.
  await expect(ready).toHaveAttribute('data-threads', '2');
  await expect(ready).toContainText('2 CPU threads');
  expect(
    mirror.requests.some(
      (r) => r.path === '/stories260K/resolve/main/stories260K.gguf' && r.status === 200,
    ),
  ).toBe(true);

  await page.getByLabel('Answer length (tokens)').fill('48');
  await panel.getByRole('button', { name: 'Answer', exact: true }).click();
  await expect(panel).toHaveAttribute('data-state', 'done', { timeout: 90_000 });
  const answer = panel.getByTestId('answer-text');
  expect((await answer.textContent()) ?? '').toMatch(/\b[a-z]{2,}\b.*\b[a-z]{2,}\b/s);
  expect(Number(await answer.getAttribute('data-tokens-per-second'))).toBeGreaterThan(0);
});

test('offline: the app reopens isolated from the cache, with the library, and answers', async () => {
  await page.context().setOffline(true);
  await page.reload();
  await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
  expect(await page.evaluate(() => self.crossOriginIsolated)).toBe(true);
  await expect(page.getByTestId('library-item')).toHaveCount(1);
  await askAndRead();
  await page.context().setOffline(false);
});

test('a new version waits for the reader, then takes over, still isolated', async () => {
  const before = (await loads()).length;
  server.patch = (file, bytes) =>
    file === 'sw.js' ? Buffer.concat([bytes, Buffer.from('\n// the next version\n')]) : bytes;
  // A navigation makes the browser check the worker's script: it changed, so it installs.
  await page.reload();
  await expect(page.getByTestId('offline-status')).toHaveAttribute('data-state', 'update', {
    timeout: 60_000,
  });
  // 'prompt': nothing is replaced until the reader says so.
  const waiting = () =>
    page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.waiting != null);
  expect(await waiting()).toBe(true);
  await page.getByRole('button', { name: 'Reload to update' }).click();
  // The page reloads itself: a read that meets the navigation is simply tried again.
  await expect
    .poll(async () => (await loads().catch(() => [])).length, { timeout: 60_000 })
    .toBe(before + 2);
  await page.waitForLoadState();
  expect((await loads()).at(-1)).toEqual({ isolated: true, controlled: true });
  expect(await waiting()).toBe(false);
  await expect(page.getByTestId('library-item')).toHaveCount(1);
  server.patch = null;
});

test('once the reader has started something, the reload is offered, not done', async ({
  browser,
}) => {
  const context = await browser.newContext();
  await context.route(
    (url) => !isLocal(url.href),
    (route) => route.abort('blockedbyclient'),
  );
  const fresh = await context.newPage();
  let navigations = 0;
  fresh.on('framenavigated', (frame) => {
    if (frame === fresh.mainFrame()) navigations++;
  });
  await fresh.goto(server.url);
  // A click as soon as the page is there, long before the worker has cached 67 MiB.
  await fresh.getByLabel('Question').click();
  const offer = fresh.getByTestId('isolation-offer');
  await expect(offer).toContainText('Reload once to let the models use all', { timeout: 90_000 });
  expect(navigations).toBe(1);
  expect(await fresh.evaluate(() => self.crossOriginIsolated)).toBe(false);
  await offer.getByRole('button', { name: 'Reload' }).click();
  await fresh.waitForFunction(() => self.crossOriginIsolated, null, { timeout: 30_000 });
  expect(navigations).toBe(2);
  await expect(fresh.getByTestId('isolation-offer')).toHaveCount(0);
  await context.close();
});

test('every request went to 127.0.0.1 and the page logged no error', async () => {
  expect(urls.filter((u) => !isLocal(u))).toEqual([]);
  expect(problems).toEqual([]);
});
