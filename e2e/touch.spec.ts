/**
 * @file A phone with a touch screen ("the strip and the reader stay usable by touch"):
 * at 390x844 with touch input, tapping the strip picks the fragment under the finger and the
 * reader shows it; a finger drag scrolls the reader's text; the Advanced panel opens by a tap.
 */
import { expect, test } from '@playwright/test';
import { bookFile, dropFiles } from './support/drop';
import { isLocal } from './support/local-page';
import { datasetPath } from '../test/datasets';

const ALICE = datasetPath('gutenberg', 'pg11.txt');

test('touch: a tap on the strip opens that fragment, the reader scrolls by drag, Advanced opens by tap', async ({
  browser,
}) => {
  const context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    hasTouch: true,
  });
  const urls: string[] = [];
  const problems: string[] = [];
  context.on('request', (r) => urls.push(r.url()));
  await context.route(
    (url) => !isLocal(url.href),
    (route) => route.abort('blockedbyclient'),
  );
  const page = await context.newPage();
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto('/');
  await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
  await dropFiles(page, [bookFile(ALICE)]);
  await expect(page.getByTestId('library-item')).toContainText(/\d+ fragments/);
  await page.getByLabel('Question').fill('Who is the Cheshire Cat?');
  await page.getByRole('button', { name: 'Ask', exact: true }).tap();
  await expect(page.getByTestId('retrieval-summary')).toBeVisible();

  // A tap three quarters along the strip opens the fragment three quarters into the book.
  const strip = page.getByRole('slider', { name: /Fragment of pg11\.txt/ });
  await strip.scrollIntoViewIfNeeded();
  const box = (await strip.boundingBox())!;
  await page.touchscreen.tap(box.x + box.width * 0.75, box.y + box.height / 2);
  const count = Number(await strip.getAttribute('aria-valuemax'));
  const near = Math.max(2, Math.round(count * 0.03));
  await expect
    .poll(async () => Math.abs(Number(await strip.getAttribute('aria-valuenow')) - 0.75 * count))
    .toBeLessThanOrEqual(near);
  const picked = Number(await strip.getAttribute('aria-valuenow'));
  await expect(page.locator('#reader-title')).toContainText(`fragment ${picked} of ${count}`);

  // The reader's text scrolls under a finger drag (Chromium's touch scroll gesture).
  const text = page.getByTestId('reader-text');
  await text.scrollIntoViewIfNeeded();
  const metrics = await text.evaluate((el) => ({
    scroll: el.scrollHeight,
    client: el.clientHeight,
  }));
  expect(metrics.scroll).toBeGreaterThan(metrics.client);
  const before = await text.evaluate((el) => el.scrollTop);
  const r = (await text.boundingBox())!;
  // A finger put down in the text and moved up in steps, as touch events (Chromium turns them
  // into a scroll of the element under the finger).
  const cdp = await context.newCDPSession(page);
  const x = Math.round(r.x + r.width / 2);
  const from = Math.round(r.y + r.height * 0.8);
  const to = Math.round(r.y + r.height * 0.2);
  await cdp.send('Input.dispatchTouchEvent', {
    type: 'touchStart',
    touchPoints: [{ x, y: from }],
  });
  for (let k = 1; k <= 10; k++) {
    await cdp.send('Input.dispatchTouchEvent', {
      type: 'touchMove',
      touchPoints: [{ x, y: Math.round(from + ((to - from) * k) / 10) }],
    });
  }
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await expect.poll(() => text.evaluate((el) => el.scrollTop)).toBeGreaterThan(before);

  // A tap while the reader still flings only stops the fling (no click, as on any phone): wait
  // until the drag's momentum has settled before the next tap.
  await expect
    .poll(async () => {
      const a = await text.evaluate((el) => el.scrollTop);
      await page.waitForTimeout(250);
      return (await text.evaluate((el) => el.scrollTop)) === a;
    })
    .toBe(true);

  // The Advanced settings open by a tap on their summary.
  const advanced = page.getByTestId('advanced');
  await advanced.locator('summary').scrollIntoViewIfNeeded();
  await advanced.locator('summary').tap();
  await expect.poll(() => advanced.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true);
  await expect(page.getByLabel('Embedder')).toBeVisible();

  // Nothing scrolls sideways on the phone.
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow).toBeLessThanOrEqual(0);
  expect(problems).toEqual([]);
  expect(urls.filter((u) => !isLocal(u))).toEqual([]);
  await context.close();
});
