import { expect, test } from '@playwright/test';
import { JA_BOOK } from '../test/scripts/samples';
import { dropFiles } from './support/drop';
import { isLocal } from './support/local-page';

// Before this test: no offline use after the first visit.
test('offline after one visit: the app loads and answers from the library', async ({ browser }) => {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const problems: string[] = [];
  await context.route(
    (url) => !isLocal(url.href),
    (route) => route.abort('blockedbyclient'),
  );
  const page = await context.newPage();
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto('/');
  await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
  // The service worker has precached the app: it says so.
  await expect(page.getByTestId('offline-status')).toHaveAttribute('data-state', 'offline-ready', {
    timeout: 60_000,
  });
  await dropFiles(page, [{ name: 'town.txt', bytes: new TextEncoder().encode(JA_BOOK) }]);
  await expect(page.getByTestId('library-item')).toHaveCount(1);

  await context.setOffline(true);
  await page.reload();
  await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
  await expect(page.getByTestId('library-item')).toHaveCount(1);
  await page.getByLabel('Question').fill('佐藤花子が毎朝いちばん最初に焼くパンは何ですか');
  await page.getByRole('button', { name: 'Ask' }).click();
  const first = page.getByTestId('ranked-list').locator('li').first();
  await first.getByRole('button').first().click();
  await expect(page.locator('.reader__fragment')).toContainText('メロンパン');

  expect(problems).toEqual([]);
  await context.close();
});
