import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { openAdvanced } from './support/advanced';
import { bookFile, dropFiles } from './support/drop';

const HERE = dirname(fileURLToPath(import.meta.url));
const ALICE = resolve(HERE, '../../shared/datasets/gutenberg/pg11.txt');
// The build serves public/, so the asset is in the build only if the build step made it.
const ASSET = resolve(HERE, '../public/models/distilled/minilm-distilled-256d.bin');

test('a book is indexed with the vectors distilled from MiniLM, and meaning finds the passage', async ({
  page,
}) => {
  // Built by `npm run models` / `npm run assets` from the real weights; CI fetches them first.
  expect(existsSync(ASSET), `${ASSET} (run "npm run models", then build)`).toBe(true);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto('/');
  await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
  await openAdvanced(page);
  // The panel says which offline vectors are in use, and the embedder defaults to them.
  await expect(page.getByTestId('offline-vectors')).toContainText('distilled from MiniLM');
  await expect(page.getByLabel('Embedder')).toHaveValue('static-minilm-distilled-256d');
  await expect(page.getByLabel('Embedder').locator('option')).not.toContainText(['GloVe 100-d']);
  // Meaning alone, so the ranking is the distilled vectors' own.
  await page.getByLabel('Independent score').selectOption('dense');

  await dropFiles(page, [bookFile(ALICE)]);
  await expect(page.getByTestId('library-item')).toHaveCount(1, { timeout: 60_000 });
  await expect(page.getByTestId('session-stats')).not.toHaveAttribute('data-embedded', '0');

  await page.getByLabel('Question').fill('What did the Mock Turtle study at school in the sea?');
  await page.getByRole('button', { name: 'Ask' }).click();
  const selected = page.locator('[data-testid="ranked-list"] li[data-selected="true"]');
  await expect(selected.first()).toBeVisible();
  let found = false;
  for (let k = 0; k < (await selected.count()) && !found; k++) {
    await selected.nth(k).getByRole('button').first().click();
    found = /Reeling\s+and\s+Writhing/.test(
      (await page.locator('.reader__fragment').textContent()) ?? '',
    );
  }
  expect(found, 'the Mock Turtle passage is among the selected fragments').toBe(true);
  expect(errors).toEqual([]);
});
