import { expect, test } from '@playwright/test';
import { JA_BOOK } from '../test/scripts/samples';
import { dropFiles } from './support/drop';
import { isLocal } from './support/local-page';

// Before this test: two tabs did not see each other's changes; one kept a book deleted in the other and
// failed its next question with "reload the page".
test('two pages of one browser stay in sync after add and remove', async ({ browser }) => {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const urls: string[] = [];
  const problems: string[] = [];
  context.on('request', (r) => urls.push(r.url()));
  await context.route(
    (url) => !isLocal(url.href),
    (route) => route.abort('blockedbyclient'),
  );
  const [a, b] = [await context.newPage(), await context.newPage()];
  for (const page of [a, b]) {
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto('/');
    await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
  }

  await dropFiles(a, [{ name: 'town.txt', bytes: new TextEncoder().encode(JA_BOOK) }]);
  await expect(a.getByTestId('library-item')).toHaveCount(1);
  // The other page lists it without a reload, ticked and ready to ask.
  await expect(b.getByTestId('library-item')).toHaveCount(1);
  await expect(b.getByTestId('library-item')).toContainText('town.txt');
  await b.getByLabel('Question').fill('高橋美咲は雪の夜にどうしましたか');
  await b.getByRole('button', { name: 'Ask' }).click();
  await expect(b.getByTestId('retrieval-summary')).toBeVisible();

  // Settings follow too.
  await a.getByLabel('alpha').fill('1.5');
  await expect(b.getByLabel('alpha')).toHaveValue('1.5');

  // Removed in the first page: the second drops it and its result, and says why.
  await a.getByRole('button', { name: 'Remove town.txt from the library' }).click();
  await expect(a.getByTestId('library-item')).toHaveCount(0);
  await expect(b.getByTestId('library-item')).toHaveCount(0);
  await expect(b.getByTestId('retrieval-summary')).toHaveCount(0);
  await expect(b.getByTestId('notice').filter({ hasText: 'Removed in another tab' })).toContainText(
    'town.txt',
  );
  // Adding it again in the second page works (it is not "already in the library").
  await dropFiles(b, [{ name: 'town.txt', bytes: new TextEncoder().encode(JA_BOOK) }]);
  await expect(b.getByTestId('library-item')).toHaveCount(1);
  await expect(a.getByTestId('library-item')).toHaveCount(1);

  expect(problems).toEqual([]);
  expect(urls.filter((u) => !isLocal(u))).toEqual([]);
  await context.close();
});
