/**
 * @file The ONNX engine on the real model: SmolLM2-135M-Instruct in the hub's ONNX layout (from
 * the local hub mirror, written by `npm run models`), run by ONNX Runtime Web in the engine's
 * worker. A factual question on Alice is answered with the fact and a citation, the prompt was
 * counted with the model's own tokenizer and read once, and the reading speed measured here is
 * shown by the reading budget for the next answer. Stop ends an answer at once and the next
 * question works; the instructions a stopped call read are taken from the KV cache, not read
 * again. A model name the hub does not have gets a message, and the right one then loads.
 */
import { expect, test } from '@playwright/test';
import { requireRealModel } from '../test/real-models';
import { startHubMirror, type HubMirror } from './support/hub-mirror';
import { openLocalPage } from './support/local-page';
import { FIRST_FACT, FIRST_QUESTION, aliceFromMirror } from './support/first-answer';

let mirror: HubMirror;

test.beforeAll(async () => {
  requireRealModel('SmolLM2-135M-Instruct-ONNX');
  mirror = await startHubMirror();
});

test.afterAll(async () => {
  await mirror?.close();
});

test('the ONNX engine answers a question on a book from the real model, with a citation', async ({
  browser,
}) => {
  test.setTimeout(600_000);
  const urls: string[] = [];
  const problems: string[] = [];
  const page = await openLocalPage(browser, urls, problems);
  // The page's one hub-host setting (set through the GGUF catalogue's field) serves the ONNX
  // engine too.
  const { panel } = await aliceFromMirror(page, '/', mirror.url);
  await panel.getByLabel('Engine').selectOption('onnx');
  await expect(panel.getByTestId('onnx-hint')).toContainText('SmolLM2 135M Instruct');
  // A model the hub does not have: a message that names it, the host and the files looked for.
  const modelField = panel.getByLabel('Model', { exact: true });
  await modelField.fill('nobody/no-such-model');
  await panel.getByRole('button', { name: 'Load the model' }).click();
  await expect(panel.getByTestId('local-model-error')).toContainText(
    'nobody/no-such-model has no ONNX model at 127.0.0.1',
    { timeout: 60_000 },
  );
  await modelField.fill('HuggingFaceTB/SmolLM2-135M-Instruct');
  await panel.getByRole('button', { name: 'Load the model' }).click();
  await expect(panel.getByTestId('local-model-ready')).toContainText(
    'SmolLM2-135M-Instruct in this browser (ONNX Runtime',
    { timeout: 300_000 },
  );
  // The mirror has the 8-bit graph (`npm run models`): the engine prefers it to the float one.
  await expect(panel.getByTestId('local-model-ready')).toContainText('8-bit');

  await page.getByLabel('Question').fill(FIRST_QUESTION);
  await page.getByRole('button', { name: 'Ask', exact: true }).click();
  await expect(panel).toHaveAttribute('data-state', /^(done|error|stopped)$/, {
    timeout: 300_000,
  });
  expect(await panel.getAttribute('data-state')).toBe('done');
  const text = panel.getByTestId('answer-text');
  const answer = (await text.textContent()) ?? '';
  const promptTokens = Number(await text.getAttribute('data-prompt-tokens'));
  const readSpeed = Number(await text.getAttribute('data-prompt-tokens-per-second'));
  console.log(
    `[answer-onnx] ${promptTokens} prompt tokens read at ${readSpeed.toFixed(1)} tokens/s; answer ${JSON.stringify(answer)}`,
  );
  expect(answer).toMatch(FIRST_FACT);
  const cited = await panel.locator('ol[aria-label="Sources the answer cites"] li').count();
  const inferred = await panel.locator('[data-testid="answer-inferred-sources"] li').count();
  expect(cited + inferred).toBeGreaterThan(0);
  // Counted by the model's own tokenizer and read once: a positive count within the budget.
  expect(promptTokens).toBeGreaterThan(100);
  expect(promptTokens).toBeLessThan(800);
  expect(readSpeed).toBeGreaterThan(0);

  // Stop: the answer ends at once as stopped, and the next question is answered.
  await page.getByLabel('Question').fill('Who is the Cheshire Cat?');
  await page.getByRole('button', { name: 'Ask', exact: true }).click();
  await expect(panel).toHaveAttribute('data-state', /streaming|preparing/);
  await panel.getByRole('button', { name: 'Stop' }).click();
  // At once: the worker reads the page's shared stop flag between steps of the reading and the
  // writing (a whole answer to this prompt takes over 30 s here; before the flag, Stop waited
  // for it).
  await expect(panel).toHaveAttribute('data-state', 'stopped', { timeout: 10_000 });
  await page.getByLabel('Question').fill(FIRST_QUESTION);
  await page.getByRole('button', { name: 'Ask', exact: true }).click();
  await expect(panel).toHaveAttribute('data-state', 'done', { timeout: 300_000 });
  const third = panel.getByTestId('answer-text');
  await expect(third).toContainText(FIRST_FACT);
  // This answer's passages were sized by the speed the first one measured.
  await expect(panel.getByTestId('reading-budget')).toContainText(/measured \d+ tokens\/s/);
  // The stopped call's KV cache served the instructions both prompts open with: those tokens
  // were not read again.
  const total = Number(await third.getAttribute('data-prompt-tokens'));
  const reused = Number(await third.getAttribute('data-reused-prompt-tokens'));
  console.log(`[answer-onnx] third answer: ${total} prompt tokens, ${reused} from the cache`);
  expect(reused).toBeGreaterThanOrEqual(16);
  expect(reused).toBeLessThan(total);
  expect(problems).toEqual([]);
  await page.context().close();
});
