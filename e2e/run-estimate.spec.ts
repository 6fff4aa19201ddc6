/**
 * @file The cost of a pipeline run, said before anything is sent: the pipelines panel estimates
 * a QRMeM run (calls and prompt tokens, from the evaluation page's dry run) and, above the
 * threshold the person set, sends nothing to the engine (the scripted OpenAI-compatible server on
 * 127.0.0.1 counts what it received) until the run is confirmed; Compare asks the same way.
 */
import { expect, test } from '@playwright/test';
import { bookFile, dropFiles } from './support/drop';
import { isLocal, openLocalPage } from './support/local-page';
import { configureLoopbackEngine } from './support/loopback-engine';
import { startOpenAiServer } from './support/openai-server';
import { datasetPath } from '../test/datasets';

const ALICE = datasetPath('gutenberg', 'pg11.txt');
const QUESTION = 'What did the Mock Turtle learn at school in the sea?';

test('a QRMeM run over the threshold is estimated first and sent only once confirmed', async ({
  browser,
}) => {
  test.setTimeout(240_000);
  const urls: string[] = [];
  const problems: string[] = [];
  const server = await startOpenAiServer();
  const say = (text: string) => ({ kind: 'answer' as const, pieces: [text] });
  server.routes = [
    { when: 'List the key entities', reply: say('["Mock Turtle"]') },
    { when: 'For each pair', reply: say('[]') },
    { when: 'Summarise the following text', reply: say('Alice meets the Mock Turtle.') },
    { when: 'new questions about the document', reply: say('[]') },
    { when: 'this question is about', reply: say('["Mock Turtle"]') },
    {
      when: 'Can the question be answered from these passages?',
      reply: say('{"answerable": true, "answer": "Reeling and Writhing", "reason": "listed"}'),
    },
    { when: 'Answer the question from the passages', reply: say('Reeling and Writhing [1].') },
  ];
  const posts = () => server.requests.filter((r) => r.method === 'POST').length;
  try {
    const page = await openLocalPage(browser, urls, problems);
    await page.goto('/');
    await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
    await dropFiles(page, [bookFile(ALICE)]);
    await expect(page.getByTestId('library-item')).toContainText(/\d+ fragments/);
    await page.getByLabel('Question').fill(QUESTION);
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    await expect(page.getByTestId('retrieval-summary')).toContainText(QUESTION);
    await configureLoopbackEngine(page, server);

    const panel = page.getByTestId('pipelines-panel');
    await panel.getByRole('radio', { name: 'QRMeM' }).check();
    await panel.getByLabel('Trials at most').fill('2');
    await panel.getByLabel('Generated questions').fill('2');
    await panel.getByLabel('Ask before runs of more than this many calls').fill('5');
    await panel.getByRole('button', { name: 'Run QRMeM' }).click();

    // The estimate, then the question: nothing has reached the engine.
    const confirm = panel.getByTestId('run-confirm');
    await expect(confirm).toBeVisible({ timeout: 60_000 });
    const rows = panel.getByTestId('run-estimate-rows');
    const estimated = Number(await rows.getAttribute('data-calls'));
    expect(estimated).toBeGreaterThan(5);
    await expect(rows).toContainText(/QRMeM on .*: about [\d,]+ calls, [\d,]+ prompt tokens/);
    await expect(rows).toContainText('price unknown (test-model is not in the price table)');
    await expect(confirm).toContainText(`estimated at ${estimated.toLocaleString('en')} calls`);
    expect(posts()).toBe(0);

    // Cancel sends nothing either.
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await expect(confirm).toHaveCount(0);
    await expect(panel).toHaveAttribute('data-state', 'idle');
    expect(posts()).toBe(0);

    // Asked again and confirmed: the run goes out. (Its calls differ from the dry run's: QRMeM's
    // rounds depend on the answers, and this server's judge answers at once.)
    await panel.getByRole('button', { name: 'Run QRMeM' }).click();
    await confirm.getByRole('button', { name: 'Run QRMeM anyway' }).click();
    await expect(panel).toHaveAttribute('data-state', 'done', { timeout: 200_000 });
    await expect(panel.getByTestId('pipeline-answer')).toContainText('Reeling and Writhing');
    expect(posts()).toBeGreaterThan(0);
    console.log(`[run-estimate] QRMeM: ${estimated} calls estimated, ${posts()} sent`);

    // Under the threshold the run starts at once, the estimate still shown.
    const before = posts();
    await panel.getByRole('radio', { name: 'FragRel' }).check();
    await panel.getByRole('button', { name: 'Run FragRel' }).click();
    await expect(panel).toHaveAttribute('data-state', 'done', { timeout: 60_000 });
    await expect(panel.getByTestId('run-confirm')).toHaveCount(0);
    await expect(panel.getByTestId('run-estimate-rows')).toContainText('FragRel on');
    await expect(panel.getByTestId('run-estimate-rows')).toHaveAttribute('data-calls', '1');
    expect(posts()).toBe(before + 1);

    // Compare: the columns' calls added up, over the threshold (0): asked, nothing sent.
    await page.getByText('Compare pipelines side by side').click();
    const compare = page.getByTestId('compare-panel');
    await compare.getByLabel('Ask before runs of more than this many calls').fill('0');
    await compare.getByRole('button', { name: /^Compare \d pipelines$/ }).click();
    const compareConfirm = compare.getByTestId('run-confirm');
    await expect(compareConfirm).toBeVisible({ timeout: 60_000 });
    await expect(compare.getByTestId('run-estimate-rows').locator('li')).toHaveCount(3);
    const sentBefore = posts();
    await compareConfirm.getByRole('button', { name: 'Cancel' }).click();
    expect(posts()).toBe(sentBefore);
    await expect(compare.getByTestId('compare-result')).toHaveCount(0);

    expect(problems).toEqual([]);
    expect(urls.filter((u) => !isLocal(u))).toEqual([]);
  } finally {
    await server.close();
  }
});
