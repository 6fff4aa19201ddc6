import { expect, test } from '@playwright/test';
import { chapterXhtml, makeEpub, makeTextPdf } from '../src/ingest/testing/fixtures';
import { dropFiles } from './support/drop';

// The browser paths of the book formats: pdf.js's browser build (nested in our index worker)
// and the epub reader, inside the built app.

test('a PDF with a text layer and an EPUB are indexed with their pages and chapters; a scanned PDF is refused', async ({
  page,
}) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto('/');
  await expect(page.getByTestId('worker-status')).toContainText('Workers ready');

  const pdf = makeTextPdf([
    ['The lighthouse keeper counted the ships every night.'],
    ['In winter the harbour froze and the keeper read old almanacs by the lamp.'],
  ]);
  const scan = makeTextPdf([[], []]);
  const epub = makeEpub({
    chapters: [
      {
        href: 'two.xhtml',
        id: 'c2',
        xhtml: chapterXhtml('The Orchard', [
          'Apples ripened slowly in the orchard behind the mill.',
        ]),
      },
      {
        href: 'one.xhtml',
        id: 'c1',
        xhtml: chapterXhtml('The Mill', ['The miller ground barley for the whole valley.']),
      },
    ],
    spine: ['c1', 'c2'],
  });
  await dropFiles(page, [
    { name: 'keeper.pdf', bytes: pdf },
    { name: 'scan.pdf', bytes: scan },
    { name: 'valley.epub', bytes: epub },
  ]);

  const items = page.getByTestId('library-item');
  await expect(items).toHaveCount(2);
  await expect(items.filter({ hasText: 'keeper.pdf' })).toContainText('pdf');
  await expect(items.filter({ hasText: 'valley.epub' })).toContainText('epub');
  await expect(page.getByTestId('notice').filter({ hasText: 'scan.pdf' })).toContainText(
    'no text layer',
  );

  // Ask only the PDF: its page shows as the fragment's label, and its text is in the reader.
  await items.filter({ hasText: 'valley.epub' }).getByRole('checkbox').uncheck();
  await page.getByLabel('Question').fill('What did the keeper read in winter?');
  await page.getByRole('button', { name: 'Ask' }).click();
  await expect(page.getByTestId('ranked-list').locator('li').first()).toContainText(/\(Page \d+\)/);
  await expect(page.locator('.reader__fragment')).toContainText('almanacs');

  // Ask only the EPUB: chapters come in spine order, so the mill comes first.
  await items.filter({ hasText: 'valley.epub' }).getByRole('checkbox').check();
  await items.filter({ hasText: 'keeper.pdf' }).getByRole('checkbox').uncheck();
  await page.getByLabel('Question').fill('Who ground barley?');
  await page.getByRole('button', { name: 'Ask' }).click();
  await expect(page.locator('.reader__fragment')).toContainText(
    /miller ground barley[\s\S]*Apples ripened/,
  );
  expect(errors).toEqual([]);
});
