import { expect, test } from '@playwright/test';

test('the built app renders and its module workers answer', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'FragRel Lens' })).toBeVisible();
  // The retrieval worker answers a ping before the library is shown.
  await expect(page.getByTestId('worker-status')).toHaveText(/Workers ready/);
  // COOP/COEP from vite preview make the page cross-origin isolated (wasm threads need it).
  await expect(page.getByTestId('worker-status')).toContainText('cross-origin isolated');
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
  expect(errors).toEqual([]);
});
