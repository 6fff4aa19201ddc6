import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { JA_BOOK } from '../test/scripts/samples';
import { dropFiles } from './support/drop';
import { isLocal } from './support/local-page';
import { openAdvanced } from './support/advanced';

const QUESTION = '鈴木一郎の網にかかった魚は何ですか';

async function open(browser: import('@playwright/test').Browser, problems: string[]) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  await context.route(
    (url) => !isLocal(url.href),
    (route) => route.abort('blockedbyclient'),
  );
  const page = await context.newPage();
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto('/');
  await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
  return page;
}

async function ranking(page: Page): Promise<string[]> {
  await page.getByLabel('Question').fill(QUESTION);
  await page.getByRole('button', { name: 'Ask' }).click();
  await expect(page.getByTestId('retrieval-summary')).toContainText(QUESTION);
  const items = page.getByTestId('ranked-list').locator('li');
  // Each entry's one-line preview appears once its document's text has loaded from storage;
  // read the list only then, so both sides compare the same complete rendering.
  await expect(items.locator('.ranked__preview')).toHaveCount(await items.count());
  return items.evaluateAll((items) =>
    items.map((li) => `${li.getAttribute('data-fragment')} ${li.textContent}`),
  );
}

// Before this test: a library could not leave the browser.
test('export a library, import it in a fresh browser profile: same ranking, nothing recomputed', async ({
  browser,
}) => {
  const problems: string[] = [];
  const first = await open(browser, problems);
  await openAdvanced(first);
  await first.getByLabel('Fragment size').selectOption('200');
  await dropFiles(first, [{ name: 'town.txt', bytes: new TextEncoder().encode(JA_BOOK) }]);
  await expect(first.getByTestId('library-item')).toHaveCount(1);
  await first.getByLabel('alpha').fill('1.5');
  const before = await ranking(first);
  expect(before.length).toBeGreaterThan(3);

  const downloading = first.waitForEvent('download');
  await first.getByRole('button', { name: 'Export library' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/^fragrel-library-.*\.fragrel\.zip$/);
  // Read before the context closes (Playwright deletes its downloads then).
  const bytes = readFileSync(await download.path());
  expect(bytes.subarray(0, 2).toString()).toBe('PK');
  await first.context().close();

  // Another profile: empty storage.
  const second = await open(browser, problems);
  await expect(second.getByTestId('library-item')).toHaveCount(0);
  // A damaged file is refused and changes nothing.
  let chooser = second.waitForEvent('filechooser');
  await second.getByRole('button', { name: 'Import library…' }).click();
  await (
    await chooser
  ).setFiles({
    name: 'broken.fragrel.zip',
    mimeType: 'application/zip',
    buffer: bytes.subarray(0, 200),
  });
  await expect(
    second.getByTestId('notice').filter({ hasText: 'broken.fragrel.zip' }),
  ).toContainText('nothing changed');
  await expect(second.getByTestId('library-item')).toHaveCount(0);

  chooser = second.waitForEvent('filechooser');
  await second.getByRole('button', { name: 'Import library…' }).click();
  await (
    await chooser
  ).setFiles({ name: 'town.fragrel.zip', mimeType: 'application/zip', buffer: bytes });
  await expect(second.getByTestId('library-item')).toHaveCount(1);
  await expect(second.getByTestId('library-item')).toContainText('town.txt');
  // Settings came along, and the same question ranks the same fragments with the same scores.
  await expect(second.getByLabel('alpha')).toHaveValue('1.5');
  expect(await ranking(second)).toEqual(before);
  await expect(second.getByTestId('session-stats')).toHaveAttribute('data-embedded', '0');

  expect(problems).toEqual([]);
  await second.context().close();
});
