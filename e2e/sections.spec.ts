/**
 * @file The section relation in the app: a Markdown book with three headings, the
 * relation ticked in the Advanced settings, and the explanation of a selected fragment listing
 * the other fragments under its heading, and only those.
 */
import { expect, test } from '@playwright/test';
import { openAdvanced } from './support/advanced';
import { dropFiles } from './support/drop';

/** About 60 words on one subject, numbered so that no two paragraphs are the same. */
function paragraph(subject: string, words: string[], n: number): string {
  const out: string[] = [];
  for (let k = 0; out.length < 60; k++) out.push(words[(k + n) % words.length]);
  return `Paragraph ${n} about the ${subject}: ${out.join(' ')}.`;
}

const CHAPTERS: [string, string, string[]][] = [
  [
    'The Lighthouse',
    'lighthouse',
    'keeper lamp beacon tower storm rocks signal lens oil night'.split(' '),
  ],
  [
    'The Orchard',
    'orchard',
    'apples pears blossom ladder harvest cider branches bees spring'.split(' '),
  ],
  ['The Harbour', 'harbour', 'boats nets fishermen quay tide gulls ropes anchor market'.split(' ')],
];
const MARKDOWN = CHAPTERS.map(
  ([title, subject, words]) =>
    `# ${title}\n\n${[0, 1, 2, 3, 4].map((n) => paragraph(subject, words, n)).join('\n\n')}`,
).join('\n\n');

test('the same-section relation lends relevance only from fragments under the same heading', async ({
  page,
}) => {
  await page.goto('/');
  await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
  await dropFiles(page, [{ name: 'three-chapters.md', bytes: Buffer.from(MARKDOWN, 'utf8') }]);
  await expect(page.getByTestId('library-item')).toContainText(/\d+ fragments/);

  await openAdvanced(page);
  await page.getByRole('checkbox', { name: 'under the same heading or chapter' }).check();
  await page.getByLabel('Question').fill('Who kept the lamp of the lighthouse tower burning?');
  await page.getByRole('button', { name: 'Ask' }).click();
  await expect(page.getByTestId('retrieval-summary')).toContainText('lighthouse');

  const first = page.locator('[data-testid="ranked-list"] li').first();
  await first.getByRole('button').first().click();
  const kind = page
    .getByTestId('explanation')
    .locator('.explain__kind', { hasText: 'same section relation' });
  await expect(kind).toBeVisible();
  const rows = await kind.locator('tbody tr td:first-child').allTextContents();
  expect(rows.length).toBeGreaterThan(0);
  for (const r of rows) expect(r).toContain('(The Lighthouse)');
});
