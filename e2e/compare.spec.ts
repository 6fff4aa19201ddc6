/**
 * @file Compare in the built app: one question about a dropped book through FragRel, plain
 * retrieval (alpha = 0) and LongRAG side by side, on the OpenAI-compatible engine against the
 * scripted server on 127.0.0.1 (support/openai-server.ts), which answers each step by a phrase of
 * its prompt. Three columns with their answers and costs; one column stopped while the others
 * finish; a server error in one column shown there while the others finish; the phone layout.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { bookFile, dropFiles } from './support/drop';
import { isLocal, openLocalPage } from './support/local-page';
import { configureLoopbackEngine } from './support/loopback-engine';
import { startOpenAiServer, type OpenAiServer, type Reply } from './support/openai-server';
import { datasetPath } from '../test/datasets';

const HERE = dirname(fileURLToPath(import.meta.url));
const ALICE = datasetPath('gutenberg', 'pg11.txt');
const QUESTION = 'What did the Mock Turtle learn at school in the sea?';

test.describe.configure({ mode: 'serial' });

let server: OpenAiServer;
let page: Page;
const urls: string[] = [];
const problems: string[] = [];

const say = (text: string, delayMs = 40): Reply => ({
  kind: 'answer',
  pieces: [text.slice(0, 7), text.slice(7)],
  delayMs,
});

const panel = () => page.getByTestId('compare-panel');
const column = (pipeline: string) =>
  panel().locator(`[data-testid="compare-column"][data-pipeline="${pipeline}"]`);
const posts = () => server.requests.filter((r) => r.method === 'POST');
const promptOf = (r: (typeof server.requests)[number]) =>
  r.body!.messages!.map((m) => m.content).join('\n');

const ROUTES = [
  // LongRAG (E&F)
  { when: 'Thinking process:', reply: say('The Mock Turtle names his lessons.') },
  { when: 'Reply with JSON only, in this form: {"status"', reply: say('{"status": "True"}') },
  { when: '\nInformation:', reply: say('He learned Reeling and Writhing.') },
  { when: 'The following are given passages.', reply: say('LongRAG: Reeling and Writhing [1].') },
  // FragRel and plain retrieval (the same story prompt, on different fragments)
  { when: 'numbered excerpts', reply: say('Reeling and Writhing [1].') },
];

test.beforeAll(async ({ browser }) => {
  server = await startOpenAiServer();
  server.routes = [...ROUTES];
  page = await openLocalPage(browser, urls, problems);
  await page.goto('/');
  await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
  await dropFiles(page, [bookFile(ALICE)]);
  await expect(page.getByTestId('library-item')).toContainText(/\d+ fragments/);
  await page.getByLabel('Question').fill(QUESTION);
  await page.getByRole('button', { name: 'Ask', exact: true }).click();
  await expect(page.getByTestId('retrieval-summary')).toContainText(QUESTION);
  await configureLoopbackEngine(page, server);
  await panel().getByText('Compare pipelines side by side').click();
});

test.afterAll(async () => {
  await page?.context().close();
  await server?.close();
});

test('three pipelines side by side: answers, costs, prices, the overlay and the agreement', async () => {
  // FragRel, plain retrieval and LongRAG are ticked by default.
  await expect(panel().getByRole('checkbox', { name: 'FragRel' })).toBeChecked();
  await expect(panel().getByRole('checkbox', { name: 'Plain retrieval' })).toBeChecked();
  await expect(panel().getByRole('checkbox', { name: 'LongRAG' })).toBeChecked();
  await expect(panel().getByLabel('Engine for LongRAG')).toContainText('test-model');
  // The scripted model has no list price: the person adds one to the table.
  await panel().getByText('Prices of API models (estimates, editable)').click();
  await panel().getByRole('button', { name: 'Add a model' }).click();
  const rows = panel().getByTestId('price-row');
  const last = await rows.count();
  await panel().getByLabel(`Model of price row ${last}`).fill('test-model');
  await panel().getByLabel(`Dollars per million input tokens, row ${last}`).fill('1');
  await panel().getByLabel(`Dollars per million output tokens, row ${last}`).fill('2');
  // Each pipeline's settings open on their own; closing a disclosure leaves the panel open.
  await panel().getByText('Settings of LongRAG').click();
  await expect(panel().getByLabel('Chunks kept (top k2)')).toHaveValue('7');
  await panel().getByText('Settings of LongRAG').click();
  await panel().getByText('Prices of API models (estimates, editable)').click();
  await expect(panel().getByTestId('price-row').first()).toBeHidden();

  const before = posts().length;
  await panel().getByRole('button', { name: 'Compare 3 pipelines' }).click();
  await expect(panel().getByTestId('compare-column')).toHaveCount(3);
  for (const p of ['fragrel', 'plain', 'longrag'])
    await expect(column(p)).toHaveAttribute('data-state', 'done', { timeout: 30_000 });

  await expect(column('fragrel').getByTestId('column-answer')).toHaveText(
    'Reeling and Writhing [1].',
  );
  await expect(column('plain').getByTestId('column-answer')).toHaveText(
    'Reeling and Writhing [1].',
  );
  await expect(column('longrag').getByTestId('column-answer')).toHaveText(
    'LongRAG: Reeling and Writhing [1].',
  );
  // Calls as each pipeline makes them: one each for FragRel and plain, k + 3 = 10 for LongRAG.
  await expect(column('fragrel').getByTestId('cost-calls')).toHaveText('1');
  await expect(column('plain').getByTestId('cost-calls')).toHaveText('1');
  await expect(column('longrag').getByTestId('cost-calls')).toHaveText('10');
  expect(posts().length - before).toBe(12);
  for (const p of ['fragrel', 'plain', 'longrag']) {
    const tokens = await column(p).getByTestId('cost-tokens').textContent();
    const [tin, tout] = tokens!.split('/').map((t) => Number(t.trim().replace(/,/g, '')));
    expect(tin).toBeGreaterThan(100);
    expect(tout).toBeGreaterThan(0);
    await expect(column(p).getByTestId('cost-price')).toContainText(
      /^\$\d+\.\d+ at \$1 \/ \$2 per 1M tokens/,
    );
    await expect(column(p).getByTestId('cost-wall')).toHaveText(/^\d+\.\d s$/);
  }
  // FragRel's and plain retrieval's requests are the same story prompt; LongRAG's are its own.
  const sent = posts().slice(before).map(promptOf);
  expect(sent.filter((t) => t.includes('numbered excerpts'))).toHaveLength(2);
  for (const t of sent) expect(t).toContain(QUESTION);

  // Each column lists the fragments it used; the overlay has one row per pipeline.
  for (const p of ['fragrel', 'plain', 'longrag']) {
    const n = Number(await column(p).getByTestId('column-used').getAttribute('data-count'));
    expect(n).toBeGreaterThan(0);
    await expect(
      panel().locator(
        `[data-testid="compare-overlay"] g[data-pipeline="${p}"] rect[data-fragment]`,
      ),
    ).toHaveCount(n);
  }
  const agreement = panel().getByTestId('compare-agreement');
  await expect(agreement.getByTestId('agreement-all')).toContainText('Used by all 3:');
  await expect(agreement.getByTestId('agreement-only')).toHaveCount(3);

  // A citation opens its fragment in the reader.
  const cite = column('longrag').getByTestId('column-answer').getByRole('link', { name: '[1]' });
  await expect(cite).toHaveAttribute('data-fragment', /\d+/);
  await cite.click();
  await expect(page.getByTestId('reader-text')).toBeVisible();

  if (process.env.UPDATE_SCREENSHOTS)
    await panel().screenshot({ path: resolve(HERE, '../docs/screenshot-compare.png') });
  // No serious accessibility problem in the panel with its results, light or dark.
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    const axe = await new AxeBuilder({ page }).include('[data-testid="compare-panel"]').analyze();
    const serious = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(serious.map((v) => `${colorScheme} ${v.id}: ${v.help} (${v.nodes.length})`)).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: 'light' });
});

test('plain retrieval is FragRel with alpha 0: its prompt does not move with alpha', async () => {
  await panel().getByRole('checkbox', { name: 'LongRAG' }).uncheck();
  const storyPrompts = async (alpha: string) => {
    await page.getByLabel('alpha').fill(alpha);
    await expect(page.locator('.score-bar__eq').first()).toContainText(`${alpha}.000×`);
    const before = posts().length;
    await panel().getByRole('button', { name: 'Compare 2 pipelines' }).click();
    for (const p of ['fragrel', 'plain'])
      await expect(column(p)).toHaveAttribute('data-state', 'done');
    const sent = posts().slice(before).map(promptOf);
    expect(sent).toHaveLength(2);
    return sent;
  };
  // At alpha 2 the environment score moves FragRel's selection away from plain retrieval's.
  const strong = await storyPrompts('2');
  expect(new Set(strong).size).toBe(2);
  const only = panel().locator('[data-testid="agreement-only"][data-pipeline="fragrel"]');
  await expect(only).not.toHaveAttribute('data-count', '0');
  // At alpha 0 FragRel selects what plain retrieval selects, which did not change.
  const off = await storyPrompts('0');
  expect(off[0]).toBe(off[1]);
  expect(strong).toContain(off[0]);
  await page.getByLabel('alpha').fill('0.5');
  await panel().getByRole('checkbox', { name: 'LongRAG' }).check();
});

test('Stop ends one column; the others finish', async () => {
  // LongRAG's chain of thought streams slowly; FragRel and plain answer after about 2 s.
  server.routes = [
    {
      when: 'Thinking process:',
      reply: { kind: 'answer', pieces: Array(30).fill('slow '), delayMs: 400 },
    },
    { when: 'numbered excerpts', reply: say('Reeling and Writhing [1].', 1000) },
    ...ROUTES,
  ];
  const cots = () => posts().filter((r) => promptOf(r).includes('Thinking process:')).length;
  const before = cots();
  await panel().getByRole('button', { name: 'Compare 3 pipelines' }).click();
  await expect(column('longrag')).toHaveAttribute('data-state', 'running');
  await expect.poll(cots).toBe(before + 1);
  await expect(column('fragrel')).toHaveAttribute('data-state', 'running');
  await panel().getByRole('button', { name: 'Stop LongRAG' }).click();
  await expect(column('longrag')).toHaveAttribute('data-state', 'stopped');
  await expect(column('longrag').getByTestId('column-error')).toHaveCount(0);
  await expect(column('fragrel')).toHaveAttribute('data-state', 'done');
  await expect(column('plain')).toHaveAttribute('data-state', 'done');
  await expect(column('fragrel').getByTestId('column-answer')).toHaveText(
    'Reeling and Writhing [1].',
  );
  // The stopped column keeps its costs so far; agreement counts the finished ones only.
  await expect(column('longrag').getByTestId('cost-calls')).not.toHaveText('');
  await expect(panel().getByTestId('agreement-all')).toContainText('Used by all 2:');
});

test('a server error in one column is shown there; the others finish; phone layout', async () => {
  server.routes = [
    {
      when: 'Thinking process:',
      reply: { kind: 'error', status: 500, body: { error: { message: 'boom' } } },
    },
    ...ROUTES,
  ];
  await panel().getByRole('button', { name: 'Compare 3 pipelines' }).click();
  // A server error is retried twice (after 1 s and 2 s), then shown in its column.
  await expect(column('longrag')).toHaveAttribute('data-state', 'error');
  await expect(column('longrag').getByTestId('column-error')).toHaveAttribute(
    'data-code',
    'server',
  );
  await expect(column('longrag').getByTestId('cost-calls')).toContainText('failed');
  await expect(column('fragrel')).toHaveAttribute('data-state', 'done');
  await expect(column('plain')).toHaveAttribute('data-state', 'done');
  await expect(column('plain').getByTestId('column-error')).toHaveCount(0);

  // At 390 px the columns stack and nothing is wider than the screen.
  await page.setViewportSize({ width: 390, height: 900 });
  const boxes = await Promise.all(
    ['fragrel', 'plain', 'longrag'].map((p) => column(p).boundingBox()),
  );
  expect(new Set(boxes.map((b) => Math.round(b!.x))).size).toBe(1);
  expect(boxes[1]!.y).toBeGreaterThan(boxes[0]!.y + boxes[0]!.height - 1);
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow).toBeLessThanOrEqual(0);
  await page.setViewportSize({ width: 1400, height: 1000 });

  expect(urls.filter((u) => !isLocal(u))).toEqual([]);
  expect(problems).toEqual([]);
});
