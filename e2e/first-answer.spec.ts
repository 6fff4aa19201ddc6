/**
 * @file The first question on a book with the recommended local model, with the defaults: Alice
 * dropped, the one-click SmolLM2-135M-Instruct (the ONNX engine's model from `npm run models`,
 * from the local hub mirror) loaded,
 * a factual question asked. The answer arrives with at least one citation (written by the model,
 * or inferred for an answer that cites none) and holds the fact; the model was given the
 * passages of its reading budget (the starting budget: it was never measured in this browser),
 * and after the answer the catalogue shows the seconds per answer measured here.
 *
 * The times from pressing Ask to the first token and to the finished answer are logged, not
 * asserted (the machine is shared; `npm run bench -- first-answer` records them under a lock).
 */
import { expect, test } from '@playwright/test';
import { requireRealModel } from '../test/real-models';
import { startHubMirror, type HubMirror } from './support/hub-mirror';
import { openLocalPage } from './support/local-page';
import { FIRST_FACT, firstAnswer } from './support/first-answer';

let mirror: HubMirror;

test.beforeAll(async () => {
  requireRealModel('SmolLM2-135M-Instruct-ONNX');
  mirror = await startHubMirror();
});

test.afterAll(async () => {
  await mirror?.close();
});

test('a first question on a book, with the defaults, is answered from the reading budget with a citation', async ({
  browser,
}) => {
  test.setTimeout(900_000);
  const urls: string[] = [];
  const problems: string[] = [];
  const page = await openLocalPage(browser, urls, problems);
  const r = await firstAnswer(page, '/', mirror.url);
  console.log(
    `[first-answer] Ask -> first token ${((r.firstTokenMs ?? NaN) / 1000).toFixed(1)} s, ` +
      `-> answer ${((r.answerMs ?? NaN) / 1000).toFixed(1)} s; ${r.promptTokens} prompt tokens ` +
      `read at ${r.promptTokensPerSecond} tokens/s, written at ${r.tokensPerSecond} tokens/s; ` +
      `model load ${(r.loadMs / 1000).toFixed(1)} s; answer ${JSON.stringify(r.answer)}; ` +
      `${r.readingBudget}`,
  );
  expect(r.state).toBe('done');
  expect(r.answer).toMatch(FIRST_FACT);
  expect(r.cited + r.inferred).toBeGreaterThan(0);
  // The model was never measured in this fresh browser: the starting budget, and the prompt
  // small because of it (the default retrieval budget selects far more than it holds).
  expect(r.readingBudget).toMatch(
    /up to about 420 tokens: the starting budget, until HuggingFaceTB\/SmolLM2-135M-Instruct's/,
  );
  expect(r.promptSummary).toMatch(/left out to keep within the reading budget/);
  // The knee's 420 passage tokens (on the estimate) and the instructions: far below the 3,500
  // that filling the window gave.
  expect(r.promptTokens).toBeLessThan(800);
  // Measured on use: the engine's fields now say what an answer costs here.
  expect(r.catalogueSpeed).toMatch(/measured here: about \d+ s per answer/);
  expect(problems).toEqual([]);
  await page.context().close();
});
