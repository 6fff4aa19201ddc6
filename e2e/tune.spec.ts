import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { bookFile, dropFiles } from './support/drop';
import { isLocal, openLocalPage } from './support/local-page';
import { openAdvanced } from './support/advanced';
import { datasetPath } from '../test/datasets';

const HERE = dirname(fileURLToPath(import.meta.url));
const ALICE = datasetPath('gutenberg', 'pg11.txt');

test('tune a book: progress, the chosen values, the curve and its table; Apply changes the settings, Revert restores them', async ({
  browser,
}) => {
  const urls: string[] = [];
  const problems: string[] = [];
  const page = await openLocalPage(browser, urls, problems);
  await page.goto('/');
  await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
  await dropFiles(page, [bookFile(ALICE)]);
  await expect(page.getByTestId('library-item')).toContainText(/\d+ fragments/);

  // Start from plain retrieval (every relation off) with an alpha off the tuning grid: on this
  // book the relations find clearly more sources of the pseudo-questions (seeded, so always), so
  // the tuned configuration differs from this one.
  await page.getByRole('slider', { name: 'alpha' }).fill('2');
  await openAdvanced(page);
  const relationBoxes = page.getByRole('group', { name: 'Relations' }).getByRole('checkbox');
  for (const box of await relationBoxes.all()) await box.uncheck();
  const before = {
    alpha: await page.getByRole('slider', { name: 'alpha' }).inputValue(),
    wRel: await page.getByRole('slider', { name: 'w_rel' }).inputValue(),
    relations: await relationBoxes.evaluateAll((xs) =>
      xs.map((x) => (x as HTMLInputElement).checked),
    ),
  };
  expect(before.relations.length).toBeGreaterThanOrEqual(3);
  expect(before.relations.every((checked) => !checked)).toBe(true);
  expect(before.alpha).toBe('2');

  const panel = page.getByTestId('tune');
  await panel.getByRole('button', { name: 'Tune for this document' }).click();
  await expect(panel.getByTestId('tune-chosen')).toContainText('Best for “pg11.txt”', {
    timeout: 60_000,
  });
  await expect(panel.getByTestId('tune-chosen')).toContainText(/α \d/);
  await expect(panel.getByTestId('tune-confidence')).toContainText(
    /pseudo-questions: chosen [\d.]+%/,
  );
  await expect(panel.getByTestId('tune-confidence')).toContainText(/\[[−+][\d.]+, [−+][\d.]+\]/);
  await expect(panel.getByTestId('tune-chart')).toHaveAttribute('data-state', 'ready');
  const rows = panel.getByTestId('tune-table').locator('tbody tr');
  await expect(rows).toHaveCount(4); // context, semantic, ppr, context+semantic
  await expect(rows.first().locator('td')).toHaveCount(7); // alpha 0 and the six grid alphas
  const axe = await new AxeBuilder({ page }).include('[data-testid="tune"]').analyze();
  expect(
    axe.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.help} (${v.nodes.length})`),
  ).toEqual([]);
  if (process.env.UPDATE_SCREENSHOTS) {
    await panel.screenshot({ path: resolve(HERE, '../docs/screenshot-tune.png') });
  }
  // Nothing is applied before Apply.
  await expect(page.getByRole('slider', { name: 'alpha' })).toHaveValue('2');
  await expect(panel.getByTestId('tune-applied')).toHaveCount(0);

  await panel.getByRole('button', { name: 'Apply' }).click();
  await expect(panel.getByTestId('tune-applied')).toContainText('came from tuning on “pg11.txt”');
  await expect(page.getByRole('slider', { name: 'alpha' })).not.toHaveValue('2');
  const tunedAlpha = await page.getByRole('slider', { name: 'alpha' }).inputValue();
  expect(await panel.getByTestId('tune-chosen').innerText()).toContain(`α ${Number(tunedAlpha)}`);
  expect(
    await relationBoxes.evaluateAll((xs) => xs.some((x) => (x as HTMLInputElement).checked)),
  ).toBe(true);

  // A reload still says where the settings came from.
  await page.reload();
  await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
  await expect(page.getByTestId('tune-applied')).toContainText('came from tuning');
  await expect(page.getByRole('slider', { name: 'alpha' })).toHaveValue(tunedAlpha);

  await page.getByTestId('tune-applied').getByRole('button', { name: 'Revert' }).click();
  await expect(page.getByTestId('tune-applied')).toHaveCount(0);
  await openAdvanced(page);
  await expect(page.getByRole('slider', { name: 'alpha' })).toHaveValue(before.alpha);
  await expect(page.getByRole('slider', { name: 'w_rel' })).toHaveValue(before.wRel);
  expect(
    await page
      .getByRole('group', { name: 'Relations' })
      .getByRole('checkbox')
      .evaluateAll((xs) => xs.map((x) => (x as HTMLInputElement).checked)),
  ).toEqual(before.relations);

  expect(problems).toEqual([]);
  expect(urls.filter((u) => !isLocal(u))).toEqual([]);
  await page.context().close();
});

test('tuning can be cancelled and changes nothing', async ({ browser }) => {
  const urls: string[] = [];
  const problems: string[] = [];
  const page = await openLocalPage(browser, urls, problems);
  await page.goto('/');
  await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
  await dropFiles(page, [bookFile(ALICE)]);
  await expect(page.getByTestId('library-item')).toContainText(/\d+ fragments/);
  const panel = page.getByTestId('tune');
  await panel.getByRole('button', { name: 'Tune for this document' }).click();
  await panel.getByRole('button', { name: 'Cancel' }).click();
  await expect(panel.getByTestId('tune-error')).toContainText('cancelled; nothing was changed');
  await expect(panel.getByTestId('tune-result')).toHaveCount(0);
  await expect(panel.getByRole('button', { name: 'Tune for this document' })).toBeEnabled();
  expect(problems).toEqual([]);
  await page.context().close();
});

test('tune on labels: an L-Eval file and a simple JSONL holding the document; a wrong, malformed or gold-less file gets a message', async ({
  browser,
}) => {
  const LEVAL = datasetPath('leval');
  const record = JSON.parse(
    readFileSync(resolve(LEVAL, 'quality.jsonl'), 'utf8').split('\n')[0],
  ) as { input: string };
  const urls: string[] = [];
  const problems: string[] = [];
  const page = await openLocalPage(browser, urls, problems);
  await page.goto('/');
  await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
  await dropFiles(page, [{ name: 'quality-story.txt', bytes: Buffer.from(record.input) }]);
  await expect(page.getByTestId('library-item')).toContainText(/\d+ fragments/);
  const panel = page.getByTestId('tune');
  const input = panel.getByTestId('tune-labels');

  await input.setInputFiles({
    name: 'broken.jsonl',
    mimeType: 'application/json',
    buffer: Buffer.from('{"input": "x"\n'),
  });
  await expect(panel.getByTestId('tune-error')).toContainText(
    '“broken.jsonl” could not be read as a benchmark file',
  );
  // A file in a known format without gold passages: nothing to tune on, and it says so.
  const sentences = record.input.split(/(?<=[.!?])\s+/).filter((x) => x.split(' ').length > 8);
  await input.setInputFiles({
    name: 'answers-only.jsonl',
    mimeType: 'application/json',
    buffer: Buffer.from(
      `${JSON.stringify({ document: record.input, question: 'Who?', answers: ['Someone here'] })}\n`,
    ),
  });
  await expect(panel.getByTestId('tune-error')).toContainText(
    '“answers-only.jsonl” (FragRel simple JSONL {document, question, answers, gold_passages}) holds no gold passages',
  );
  await input.setInputFiles(resolve(LEVAL, 'sci_fi.jsonl'));
  await expect(panel.getByTestId('tune-error')).toContainText(
    'None of the 7 documents in “sci_fi.jsonl” is “quality-story.txt”',
  );

  await input.setInputFiles(resolve(LEVAL, 'quality.jsonl'));
  await expect(panel.getByTestId('tune-confidence')).toContainText(
    /\d+ labelled questions from “quality\.jsonl” \(\d+ whose answer could not be located left out\): chosen/,
  );
  await expect(panel.getByTestId('tune-error')).toHaveCount(0);
  await expect(panel.getByTestId('tune-chosen')).toContainText('Best for “quality-story.txt”');
  await expect(panel.getByTestId('tune-table').locator('tbody tr')).toHaveCount(4);

  // The simple JSONL with gold passages (sentences of the story) tunes as well.
  const simple = [10, 40, 80, 120].map((k, q) =>
    JSON.stringify({
      id: `q${q}`,
      document: record.input,
      question: sentences[k].split(' ').slice(0, 8).join(' '),
      gold_passages: [sentences[k]],
    }),
  );
  await input.setInputFiles({
    name: 'mine.jsonl',
    mimeType: 'application/json',
    buffer: Buffer.from(`${simple.join('\n')}\n`),
  });
  await expect(panel.getByTestId('tune-confidence')).toContainText(
    /4 labelled questions from “mine\.jsonl” \(0 whose answer could not be located left out\): chosen/,
  );
  await expect(panel.getByTestId('tune-error')).toHaveCount(0);
  expect(problems).toEqual([]);
  expect(urls.filter((u) => !isLocal(u))).toEqual([]);
  await page.context().close();
});
