import type { Page } from '@playwright/test';

/** Open the "Advanced" settings (scorer, relations, embedder, fragment size) if it is closed. */
export async function openAdvanced(page: Page): Promise<void> {
  const details = page.getByTestId('advanced');
  if (!(await details.evaluate((d) => (d as HTMLDetailsElement).open))) {
    await details.locator('summary').click();
  }
}
