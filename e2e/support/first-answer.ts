/**
 * @file A person's first question on a book with the recommended local model, timed: the built
 * app with its defaults, Alice dropped, the one-click model (SmolLM2-135M-Instruct from the local
 * hub mirror) loaded, a factual question asked. Times run from pressing Ask to the first token of
 * the answer and to the finished answer, read in the page (performance.now) so the test runner's
 * polling does not add to them. Shared by e2e/first-answer.spec.ts and `npm run bench --
 * first-answer`, so the figure reported is the flow the test holds.
 */
import { RECOMMENDED_GGUF } from '../../src/llm/gguf-catalogue';
import { expect, type Locator, type Page } from '@playwright/test';
import { datasetPath } from '../../test/datasets';
import { bookFile, dropFiles } from './drop';

export const FIRST_QUESTION = 'What did the label on the little bottle say?';
/** The fact the answer must hold: the label says "DRINK ME". */
export const FIRST_FACT = /drink me/i;

/** Which local engine answers: wllama with the one-click GGUF, or the ONNX engine. */
export type FirstAnswerEngine = 'wllama' | 'onnx';

export interface FirstAnswer {
  engine: FirstAnswerEngine;
  question: string;
  answer: string;
  state: string;
  /** Pressing Ask to the first token shown, and to the finished answer (ms). */
  firstTokenMs: number | null;
  answerMs: number | null;
  /** Loading the one-click model from the mirror (download and load, ms). */
  loadMs: number;
  /** Citations the model wrote, and those inferred for an answer that wrote none. */
  cited: number;
  inferred: number;
  /** The answer's stats as the panel keeps them (llama.cpp's own timings). */
  promptTokens: number | null;
  promptTokensPerSecond: number | null;
  tokensPerSecond: number | null;
  readingBudget: string;
  promptSummary: string;
  /** The catalogue's speed line for the model after the answer. */
  catalogueSpeed: string;
}

const num = (s: string | null) => (s ? Number(s) : null);

/** In the page: note when Ask is pressed, the first token shows, and the answer ends. */
const WATCH_ANSWER = `(() => {
  const t = (window.__first = {});
  document.addEventListener('click', (e) => {
    const b = e.target.closest('button');
    if (b && b.textContent.trim() === 'Ask' && t.ask === undefined) t.ask = performance.now();
  }, true);
  new MutationObserver(() => {
    if (t.ask === undefined) return;
    const text = document.querySelector('[data-testid="answer-text"]')?.textContent ?? '';
    if (t.first === undefined && text.trim()) t.first = performance.now();
    const state = document.querySelector('[data-testid="answer-panel"]')?.getAttribute('data-state');
    if (t.done === undefined && ['done', 'error', 'stopped'].includes(state)) t.done = performance.now();
  }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ['data-state'] });
})()`;

/**
 * The app at `baseUrl` ready to ask about Alice: workers ready, pg11.txt dropped and indexed, and
 * the page's one hub-host setting (through the GGUF catalogue's field) on the mirror at `hubUrl`.
 */
export async function aliceFromMirror(
  page: Page,
  baseUrl: string,
  hubUrl: string,
): Promise<{ panel: Locator; catalogue: Locator }> {
  const panel = page.getByTestId('answer-panel');
  await page.goto(baseUrl);
  await expect(page.getByTestId('worker-status')).toContainText('Workers ready', {
    timeout: 120_000,
  });
  await dropFiles(page, [bookFile(datasetPath('gutenberg', 'pg11.txt'))]);
  await expect(page.getByTestId('library-item')).toContainText(/\d+ fragments/, {
    timeout: 120_000,
  });
  const catalogue = panel.getByTestId('gguf-catalogue');
  await catalogue.getByText('Download from another hub or mirror').click();
  await catalogue.getByLabel('Model hub').fill(hubUrl);
  return { panel, catalogue };
}

/**
 * Run the flow on `page` (a fresh context) against the app at `baseUrl`. `engine` 'onnx' (the
 * default) takes the panel's one-click offer, SmolLM2-135M-Instruct in the ONNX engine; 'wllama'
 * loads the GGUF catalogue's recommended file instead. The rest of the flow is the same.
 */
export async function firstAnswer(
  page: Page,
  baseUrl: string,
  hubUrl: string,
  question = FIRST_QUESTION,
  engine: FirstAnswerEngine = 'onnx',
): Promise<FirstAnswer> {
  // The models come from the local mirror (the page's hub setting); everything else is default.
  const { panel, catalogue } = await aliceFromMirror(page, baseUrl, hubUrl);
  await expect(catalogue.locator('[data-key="smollm2-135m-instruct"]')).toContainText(
    'not measured on this machine yet',
  );
  const loadStart = Date.now();
  if (engine === 'onnx') {
    // The panel's one-click offer: the recommended model in the ONNX engine, from the page's one
    // hub setting.
    await panel
      .getByTestId('engine-offer')
      .getByRole('button', { name: /Use SmolLM2.* in this browser/ })
      .click();
    await expect(panel.getByTestId('local-model-ready')).toContainText('(ONNX Runtime', {
      timeout: 300_000,
    });
  } else {
    // wllama: the GGUF catalogue's recommended file ("another model" in the offer).
    await catalogue
      .locator(`[data-key="${RECOMMENDED_GGUF.key}"]`)
      .getByRole('button', { name: /Download and load/ })
      .click();
    await expect(panel.getByTestId('local-model-ready')).toContainText(RECOMMENDED_GGUF.file, {
      timeout: 300_000,
    });
  }
  const loadMs = Date.now() - loadStart;

  // Times taken in the page: the Ask click, the first token, the finished answer. A string, not
  // a function: tsx (the bench) compiles functions with helpers the page does not have.
  await page.evaluate(WATCH_ANSWER);
  await page.getByLabel('Question').fill(question);
  await page.getByRole('button', { name: 'Ask', exact: true }).click();
  await expect(panel.getByTestId('answer-question')).toContainText(question);
  await expect(panel).toHaveAttribute('data-state', /^(done|error|stopped)$/, {
    timeout: 600_000,
  });
  const t = await page.evaluate(
    () => (window as unknown as { __first: Record<string, number> }).__first,
  );
  const text = panel.getByTestId('answer-text');
  const answer = (await text.textContent()) ?? '';
  const cited = await panel.locator('ol[aria-label="Sources the answer cites"] li').count();
  const inferred = await panel.locator('[data-testid="answer-inferred-sources"] li').count();
  return {
    engine,
    question,
    answer,
    state: (await panel.getAttribute('data-state')) ?? '',
    firstTokenMs: t.first !== undefined ? t.first - t.ask : null,
    answerMs: t.done !== undefined ? t.done - t.ask : null,
    loadMs,
    cited,
    inferred,
    promptTokens: num(await text.getAttribute('data-prompt-tokens')),
    promptTokensPerSecond: num(await text.getAttribute('data-prompt-tokens-per-second')),
    tokensPerSecond: num(await text.getAttribute('data-tokens-per-second')),
    readingBudget: (await panel.getByTestId('reading-budget').textContent()) ?? '',
    promptSummary: (await panel.getByTestId('prompt-summary').textContent()) ?? '',
    // Each engine's own measured line: the ONNX engine's fields, or the GGUF catalogue's.
    catalogueSpeed:
      engine === 'onnx'
        ? ((await panel.getByTestId('onnx-measured').textContent()) ?? '')
        : ((await catalogue
            .locator(`[data-key="${RECOMMENDED_GGUF.key}"] [data-testid="gguf-measured"]`)
            .textContent()) ?? ''),
  };
}
