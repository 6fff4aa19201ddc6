import { expect, test } from '@playwright/test';
import iconv from 'iconv-lite';
import { JA_BOOK } from '../test/scripts/samples';
import { dropFiles } from './support/drop';
import { isLocal, openLocalPage } from './support/local-page';
import { openAdvanced } from './support/advanced';

// Before this test: a Japanese book (UTF-8, no spaces between words) used to become one fragment that
// scored 0.000 for every question. Default settings: dense scoring with the English GloVe
// vectors, which know no Japanese word, so the app must say so and score by BM25 words.
test('a Japanese book answers a question about a named character with the right fragment first', async ({
  browser,
}) => {
  const urls: string[] = [];
  const problems: string[] = [];
  const page = await openLocalPage(browser, urls, problems);
  await page.goto('/');
  await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
  await openAdvanced(page);
  await page.getByLabel('Fragment size').selectOption('200');
  // The word-vector scorer is the one that has nothing for Japanese: ask with it to see the
  // fallback (the measured default for books is already BM25).
  await page.getByLabel(/independent score/).selectOption('dense');

  await dropFiles(page, [{ name: '町の人々.txt', bytes: new TextEncoder().encode(JA_BOOK) }]);
  const item = page.getByTestId('library-item');
  await expect(item).toHaveCount(1);
  await expect(item).toContainText('町の人々.txt');
  const fragments = Number((await item.textContent())?.match(/(\d+) fragments/)?.[1]);
  expect(fragments).toBeGreaterThanOrEqual(4);

  await page.getByLabel('Question').fill('佐藤花子が毎朝いちばん最初に焼くパンは何ですか');
  await page.getByRole('button', { name: 'Ask' }).click();
  await expect(page.getByTestId('retrieval-summary')).toContainText('佐藤花子');
  await expect(page.getByTestId('scoring-notice')).toContainText('BM25');

  const first = page.getByTestId('ranked-list').locator('li').first();
  await first.getByRole('button').first().click();
  const text = (await page.locator('.reader__fragment').textContent()) ?? '';
  expect(text).toContain('メロンパン');
  // Its independent score is not the 0.000 of the report.
  await expect(first.locator('.score-bar__eq')).not.toHaveText(/^\s*0\.000 \+/);

  expect(problems).toEqual([]);
  expect(urls.filter((u) => !isLocal(u))).toEqual([]);
  await page.context().close();
});

// Before this test: a Shift-JIS file was accepted as garbled text. Now its encoding is detected and
// shown, and the reader can read it again in another one.
test('a Shift_JIS book is read in its detected encoding, which the reader can change', async ({
  browser,
}) => {
  const urls: string[] = [];
  const problems: string[] = [];
  const page = await openLocalPage(browser, urls, problems);
  await page.goto('/');
  await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
  await dropFiles(page, [
    { name: 'sjis.txt', bytes: new Uint8Array(iconv.encode(JA_BOOK, 'Shift_JIS')) },
  ]);
  const detected = page.getByTestId('encoding-detected');
  await expect(detected).toHaveAttribute('data-encoding', 'shift_jis');
  await expect(detected).toContainText('Japanese (Shift_JIS) (detected)');
  await page.getByLabel('Question').fill('鈴木一郎の網にかかった魚は何ですか');
  await page.getByRole('button', { name: 'Ask' }).click();
  const first = page.getByTestId('ranked-list').locator('li').first();
  await first.getByRole('button').first().click();
  await expect(page.locator('.reader__fragment')).toContainText('鯛');

  await page.getByLabel('Encoding of sjis.txt').selectOption('euc-jp');
  await page.getByRole('button', { name: 'Re-read' }).click();
  await expect(detected).toHaveAttribute('data-encoding', 'euc-jp');
  await expect(detected).toContainText('(chosen)');
  await expect(page.getByTestId('library-item')).toHaveCount(1);

  expect(problems).toEqual([]);
  expect(urls.filter((u) => !isLocal(u))).toEqual([]);
  await page.context().close();
});
