/**
 * @file LongRAG on a model in the page (wllama): the whole pipeline runs on real tokens, one call
 * at a time, with sizes fitted to the model's own window and token counts. The model is a
 * parameter: PIPELINES_GGUF names a file under ../shared/models served by the hub mirror
 * (default the tiny trained base model stories260K, which writes children's stories whatever it
 * is asked; a real instruct GGUF fetched by `npm run models` drops in the same way).
 *
 * Asserts what holds for any model: every step ran, k + 3 calls (k = 3), one at a time, the
 * sizes of a 2,048-token window, an answer produced. Not that the answer is right.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { bookFile, dropFiles } from './support/drop';
import { startHubMirror } from './support/hub-mirror';
import { isLocal, openLocalPage } from './support/local-page';

const HERE = dirname(fileURLToPath(import.meta.url));
const ALICE = resolve(HERE, '../../shared/datasets/gutenberg/pg11.txt');
const MODEL = process.env.PIPELINES_GGUF ?? 'stories260K/stories260K.gguf';
const QUESTION = 'What did the Mock Turtle learn at school in the sea?';

test('LongRAG runs end to end on a GGUF model in wllama, one call at a time', async ({
  browser,
}) => {
  test.setTimeout(300_000);
  const mirror = await startHubMirror();
  const urls: string[] = [];
  const problems: string[] = [];
  const page = await openLocalPage(browser, urls, problems);
  try {
    await page.goto('/');
    await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
    await dropFiles(page, [bookFile(ALICE)]);
    await expect(page.getByTestId('library-item')).toContainText(/\d+ fragments/);
    await page.getByLabel('Question').fill(QUESTION);
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    await expect(page.getByTestId('retrieval-summary')).toContainText(QUESTION);

    const [folder, file] = MODEL.split('/');
    await page.getByLabel('GGUF URL').fill(`${mirror.url}${folder}/resolve/main/${file}`);
    const answer = page.getByTestId('answer-panel');
    await answer.getByRole('button', { name: 'Load the model' }).click();
    await expect(answer.getByTestId('local-model-ready')).toContainText(file, { timeout: 120_000 });

    const panel = page.getByTestId('pipelines-panel');
    await panel.getByRole('radio', { name: 'LongRAG' }).check();
    // k = 3 keeps the run short on the CPU: k + 3 = 6 calls.
    await panel.getByLabel('Chunks kept (top k2)').fill('3');
    await panel.getByRole('button', { name: 'Run LongRAG' }).click();
    await expect(panel).toHaveAttribute('data-state', 'done', { timeout: 240_000 });
    const trace = panel.getByTestId('pipeline-trace');
    await expect(trace).toContainText('up to 1 at once');
    await expect(trace.getByTestId('trace-call')).toHaveCount(3 + 3);
    await expect(trace.locator('[data-testid="trace-call"][data-status="ok"]')).toHaveCount(6);
    for (const step of ['retrieve', 'rerank', 'map', 'extract', 'cot', 'filter', 'generate'])
      await expect(trace.locator(`[data-step="longrag.${step}"]`)).toHaveAttribute(
        'data-status',
        'done',
      );
    // A 2,048-token window: CoT 512, extractor 256.
    await expect(trace).toContainText('CoT output: 512 tokens');
    await expect(trace).toContainText('extractor output: 256 tokens');
    await expect(trace.getByTestId('trace-critical')).toContainText('longrag.generator');
    const text = (await panel.getByTestId('pipeline-answer').textContent()) ?? '';
    console.log(
      `LongRAG on ${MODEL}: ${await panel.getByTestId('pipeline-status').textContent()} answer: ${JSON.stringify(text.slice(0, 120))}`,
    );
    expect(urls.filter((u) => !isLocal(u))).toEqual([]);
    expect(problems).toEqual([]);
  } finally {
    await page.context().close();
    await mirror.close();
  }
});
