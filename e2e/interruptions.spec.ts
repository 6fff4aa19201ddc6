import { readdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type Page } from '@playwright/test';
import { strToU8, zipSync } from 'fflate';
import { JA_BOOK } from '../test/scripts/samples';
import { bookFile, dropFiles } from './support/drop';
import { isLocal } from './support/local-page';
import { openAdvanced } from './support/advanced';
import { datasetPath } from '../test/datasets';

const HERE = dirname(fileURLToPath(import.meta.url));
const ALICE = datasetPath('gutenberg', 'pg11.txt');
const PICOMATCH = resolve(HERE, '../node_modules/picomatch');

/** picomatch's sources zipped under one top folder, with `edit` applied to lib/utils.js. */
function picomatchZip(edit: (utils: string) => string = (u) => u): Buffer {
  const entries: Record<string, Uint8Array> = {};
  for (const name of readdirSync(resolve(PICOMATCH, 'lib'))) {
    const text = readFileSync(resolve(PICOMATCH, 'lib', name), 'utf8');
    entries[`picomatch/lib/${name}`] = strToU8(name === 'utils.js' ? edit(text) : text);
  }
  entries['picomatch/index.js'] = readFileSync(resolve(PICOMATCH, 'index.js'));
  return Buffer.from(zipSync(entries));
}

/** The interrupted-imports journal has been read on this page (its report, if any, is shown). */
async function expectJournalRead(page: Page) {
  await expect(
    page.locator('[data-testid="interrupted-imports"][data-journal="read"]'),
  ).toHaveCount(1);
}

// Before this test: an import interrupted by closing the page vanished without a word on reopen.
test('a page closed mid-import reports it on reopen, and Retry adds the file', async ({
  browser,
}) => {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const urls: string[] = [];
  const problems: string[] = [];
  context.on('request', (r) => urls.push(r.url()));
  await context.route(
    (url) => !isLocal(url.href),
    (route) => route.abort('blockedbyclient'),
  );
  const page = await context.newPage();
  await page.goto('/');
  await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
  await dropFiles(page, [bookFile(ALICE)]);
  await expect(page.getByTestId('job')).toContainText('pg11.txt');
  await page.close();

  const again = await context.newPage();
  again.on('pageerror', (e) => problems.push(e.message));
  await again.goto('/');
  const report = again.getByTestId('interrupted');
  await expect(report).toHaveCount(1);
  await expect(report).toContainText('Adding “pg11.txt” was cut short');
  await expect(again.getByTestId('library-item')).toHaveCount(0);

  // Retry asks for the file again (the closed page had it) and adds it.
  const chooser = again.waitForEvent('filechooser');
  await report.getByRole('button', { name: 'Retry' }).click();
  await (await chooser).setFiles(ALICE);
  await expect(report).toHaveCount(0);
  await expect(again.getByTestId('library-item')).toHaveCount(1);
  await expect(again.getByTestId('library-item')).toContainText('pg11.txt');

  // Nothing is reported once the import has ended: held once the journal has been read (the
  // read is asynchronous; before it, no report proves nothing).
  await again.reload();
  await expect(again.getByTestId('library-item')).toHaveCount(1);
  await expectJournalRead(again);
  await expect(again.getByTestId('interrupted')).toHaveCount(0);
  // The same check sees a report that is there: an entry planted in the journal is reported by
  // the time the journal counts as read, so the check above could not pass too early.
  await again.evaluate(() => {
    const entry = { id: 'planted', name: 'planted.txt', bytes: 1, startedAt: Date.now() - 1000 };
    localStorage.setItem('fragrel-lens:import-journal', JSON.stringify([entry]));
  });
  await again.reload();
  await expectJournalRead(again);
  expect(await again.getByTestId('interrupted').count()).toBe(1);
  await again.getByTestId('interrupted').getByRole('button', { name: 'Dismiss' }).click();
  await expect(again.getByTestId('interrupted')).toHaveCount(0);

  // The storage panel: usage and quota, persistence, the document's cost, the startup sweep.
  const storage = again.getByTestId('storage-panel');
  await storage.locator('summary').click();
  await expect(again.getByTestId('storage-usage')).toContainText(/used of .* this browser allows/);
  await expect(again.getByTestId('storage-persistence')).toContainText(/ersistent/);
  await expect(again.getByTestId('storage-reclaimed')).toContainText('No unused storage found');
  await expect(again.getByTestId('storage-doc')).toHaveCount(1);
  await expect(again.getByTestId('storage-doc')).toContainText(/pg11\.txt\s*[\d.]+ (KB|MB)/);

  expect(problems).toEqual([]);
  expect(urls.filter((u) => !isLocal(u))).toEqual([]);
  await context.close();
});

// Before this test: a repository import cut short was not journalled; a newer zip of a repository already
// in the library is re-indexed reusing the unchanged files.
test('a repository import cut short is reported with Retry; a newer zip re-parses only changed files', async ({
  browser,
}) => {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const urls: string[] = [];
  const problems: string[] = [];
  context.on('request', (r) => urls.push(r.url()));
  await context.route(
    (url) => !isLocal(url.href),
    (route) => route.abort('blockedbyclient'),
  );
  const page = await context.newPage();
  await page.goto('/');
  await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
  await dropFiles(page, [{ name: 'picomatch.zip', bytes: picomatchZip() }]);
  await expect(page.getByTestId('job')).toContainText('picomatch.zip');
  await page.close();

  const again = await context.newPage();
  again.on('pageerror', (e) => problems.push(e.message));
  await again.goto('/');
  const report = again.getByTestId('interrupted');
  await expect(report).toHaveCount(1);
  await expect(report).toContainText('Adding the repository “picomatch.zip” was cut short');
  await expect(again.getByTestId('library-item')).toHaveCount(0);

  const chooser = again.waitForEvent('filechooser');
  await report.getByRole('button', { name: 'Retry' }).click();
  await (
    await chooser
  ).setFiles({ name: 'picomatch.zip', mimeType: 'application/zip', buffer: picomatchZip() });
  await expect(report).toHaveCount(0);
  await expect(again.getByTestId('library-item')).toHaveCount(1);
  await expect(again.getByTestId('library-item')).toContainText('picomatch.zip');
  await expect(again.getByTestId('skip-report')).toHaveCount(1);
  await expect(again.getByTestId('reindex-reuse')).toHaveCount(0);

  // The next version: one function added to lib/utils.js. One document still, updated in place.
  const edited = picomatchZip(
    (u) => `${u}\nexports.isGlobby = (input) => /[*?[\\]{}]/.test(input);\n`,
  );
  await dropFiles(again, [{ name: 'picomatch.zip', bytes: edited }]);
  const reuse = again.getByTestId('reindex-reuse');
  await expect(reuse).toHaveCount(1);
  await expect(reuse).toContainText(
    /1 changed files re-parsed, 5 unchanged reused; \d windows embedded/,
  );
  await expect(again.getByTestId('library-item')).toHaveCount(1);
  await again.reload();
  await expect(again.getByTestId('library-item')).toHaveCount(1);
  await expectJournalRead(again);
  await expect(again.getByTestId('interrupted')).toHaveCount(0);

  expect(problems).toEqual([]);
  expect(urls.filter((u) => !isLocal(u))).toEqual([]);
  await context.close();
});

// Before this test: after a failed model download the selection stayed on the failed model.
test('a model that cannot be downloaded leaves the last working embedder selected', async ({
  browser,
}) => {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  // Nothing leaves 127.0.0.1, so the model hub is unreachable: the download fails.
  await context.route(
    (url) => !isLocal(url.href),
    (route) => route.abort('blockedbyclient'),
  );
  const page = await context.newPage();
  await page.goto('/');
  await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
  await dropFiles(page, [{ name: 'town.txt', bytes: new TextEncoder().encode(JA_BOOK) }]);
  await expect(page.getByTestId('library-item')).toHaveCount(1);

  await openAdvanced(page);
  const embedder = page.getByLabel('Embedder');
  const working = await embedder.inputValue();
  const other = await embedder
    .locator('option')
    .evaluateAll(
      (options, current) =>
        options.map((o) => (o as HTMLOptionElement).value).find((v) => v !== current),
      working,
    );
  await embedder.selectOption(other!);
  await expect(page.getByTestId('notice').filter({ hasText: 'could not be used' })).toContainText(
    'Back to',
  );
  await expect(embedder).toHaveValue(working);
  // And the library still answers with it.
  await page.getByLabel('Question').fill('伊藤健は迷子の女の子に何を出しましたか');
  await page.getByRole('button', { name: 'Ask' }).click();
  await expect(page.getByTestId('retrieval-summary')).toBeVisible();
  await page.reload();
  await expect(page.getByLabel('Embedder')).toHaveValue(working);
  await context.close();
});
