/**
 * @file QRMeM in the built app: it answers a question about a dropped book through the
 * OpenAI-compatible engine against the scripted server on 127.0.0.1 (support/openai-server.ts),
 * which answers each QRMeM step by a phrase of its prompt; the graph view shows the navigated
 * path (the question's entity, then the neighbour the reflection chose), the rounds and the
 * segments of the answer, which open in the reader.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { bookFile, dropFiles } from './support/drop';
import { isLocal, openLocalPage } from './support/local-page';
import { configureLoopbackEngine } from './support/loopback-engine';
import { startOpenAiServer, type RecordedRequest } from './support/openai-server';
import { datasetPath } from '../test/datasets';

const HERE = dirname(fileURLToPath(import.meta.url));
const ALICE = datasetPath('gutenberg', 'pg11.txt');
const QUESTION = 'What did the Mock Turtle learn at school in the sea?';

const say = (text: string) => ({ kind: 'answer' as const, pieces: [text] });

test('QRMeM answers about a dropped book and the graph view shows the navigated path', async ({
  browser,
}) => {
  test.setTimeout(240_000);
  const urls: string[] = [];
  const problems: string[] = [];
  const server = await startOpenAiServer();
  server.routes = [
    // Entities of a segment: the Mock Turtle's segments name him and the Gryphon.
    {
      when: /Document part:[\s\S]*Mock Turtle[\s\S]*List the key entities/,
      reply: say('["Mock Turtle", "Gryphon"]'),
    },
    { when: 'List the key entities', reply: say('["Alice"]') },
    {
      when: /Entities: [^\n]*Mock Turtle[\s\S]*For each pair/,
      reply: say(
        JSON.stringify([
          { head: 'Mock Turtle', relation: 'went to school in the sea with', tail: 'Gryphon' },
        ]),
      ),
    },
    { when: 'For each pair', reply: say('[]') },
    { when: 'Summarise the following text', reply: say('Alice meets the Mock Turtle.') },
    {
      when: 'new questions about the document',
      reply: say(
        '["Which lessons did the Mock Turtle take?", "What did the Mock Turtle learn at school?"]',
      ),
    },
    { when: 'this question is about', reply: say('["Mock Turtle"]') },
    {
      when: 'Can the question be answered from these passages?',
      reply: say(
        '{"answerable": false, "answer": "", "reason": "The lessons at school are not listed."}',
      ),
    },
    { when: 'Answer the question from the passages', reply: say('Reeling and Writhing [1].') },
  ];
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
    const runQrmem = async () => {
      await panel.getByRole('radio', { name: 'QRMeM' }).check();
      await panel.getByLabel('Trials at most').fill('2');
      await panel.getByLabel('Generated questions').fill('2');
      await panel.getByRole('button', { name: 'Run QRMeM' }).click();
      // Its dry run is over the default threshold (100 calls): the run waits for a yes.
      await panel
        .getByTestId('run-confirm')
        .getByRole('button', { name: 'Run QRMeM anyway' })
        .click();
      await expect(panel).toHaveAttribute('data-state', 'done', { timeout: 200_000 });
      await expect(panel.getByTestId('pipeline-answer')).toHaveText('Reeling and Writhing [1].');
    };
    await runQrmem();
    await expect(
      panel.getByTestId('pipeline-trace').locator('[data-step="qrmem.build.segment"]'),
    ).not.toContainText("Reused from the library's memory");
    const sent = server.requests
      .filter((r: RecordedRequest) => r.method === 'POST')
      .map((r) => r.body!.messages!.map((m) => m.content).join('\n'));
    const count = (phrase: string) => sent.filter((p) => p.includes(phrase)).length;
    // Two judges (the trial limit), then one answer call.
    expect(count('Can the question be answered from these passages?')).toBe(2);
    expect(count('Answer the question from the passages')).toBe(1);
    // The second generated question is a near copy of the question (ROUGE-L >= 0.6): one query more.
    const segments = count('List the key entities') / 2;
    expect(Number.isInteger(segments) && segments > 5).toBe(true);

    // The cost split: the summary is the only question-independent call; the navigation is
    // the question's entities, two judges and the answer; both add up to every request sent.
    const cost = panel.getByTestId('qrmem-cost');
    const calls = async (phase: string) =>
      Number(await cost.locator(`[data-phase="${phase}"]`).getAttribute('data-calls'));
    expect(await calls('constructionIndependent')).toBe(count('Summarise the following text'));
    expect(await calls('constructionIndependent')).toBeGreaterThan(0);
    expect(await calls('navigation')).toBe(4);
    expect((await calls('construction')) + (await calls('navigation'))).toBe(sent.length);

    const graph = panel.getByTestId('qrmem-graph');
    await expect(graph.getByTestId('qrmem-path')).toHaveText('Path: Mock Turtle → Gryphon');
    if (process.env.UPDATE_SCREENSHOTS)
      // The cost table and the graph view (the whole trace lists every call: too tall to read).
      for (const [id, file] of [
        ['qrmem-cost', 'screenshot-qrmem-cost.png'],
        ['qrmem-graph', 'screenshot-qrmem.png'],
      ])
        await panel.getByTestId(id).screenshot({ path: resolve(HERE, `../docs/${file}`) });
    await expect(graph.getByTestId('qrmem-round')).toHaveCount(2);
    await expect(graph.getByTestId('qrmem-round').first()).toContainText(
      'not answerable — The lessons at school are not listed. · next: Mock Turtle → Gryphon',
    );
    // The canvas draws the navigated part: two entities and their edge.
    await expect(graph.getByTestId('qrmem-canvas')).toHaveAttribute('data-nodes', '2');
    await expect(graph.getByTestId('qrmem-canvas').locator('canvas').first()).toBeVisible();
    // The whole graph on demand: every entity the construction found (NER finds many more).
    await graph.getByRole('checkbox', { name: /Show the whole graph/ }).check();
    const all = Number(await graph.getByTestId('qrmem-canvas').getAttribute('data-nodes'));
    expect(all).toBeGreaterThan(10);
    await expect(graph).toContainText(`${all.toLocaleString('en')} entities`);
    await graph.getByRole('checkbox', { name: /Show the whole graph/ }).uncheck();
    // A segment of the answer opens in the reader.
    const first = graph.getByTestId('qrmem-segment').first();
    await expect(first).toBeVisible();
    await first.click();
    await expect(page.getByTestId('reader-text').first()).toBeVisible();

    // After a reload, the same book's segments, NER and summary come from IndexedDB.
    const before = server.requests.length;
    await page.reload();
    await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
    await page.getByLabel('Question').fill(QUESTION);
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    await expect(page.getByTestId('retrieval-summary')).toContainText(QUESTION);
    await configureLoopbackEngine(page, server);
    await runQrmem();
    await expect(
      panel.getByTestId('pipeline-trace').locator('[data-step="qrmem.build.segment"]'),
    ).toContainText("Reused from the library's memory");
    const again = server.requests
      .slice(before)
      .filter((r: RecordedRequest) => r.method === 'POST')
      .map((r) => r.body!.messages!.map((m) => m.content).join('\n'));
    expect(again.filter((p) => p.includes('Summarise the following text'))).toHaveLength(0);
    // A second question on the same book: no question-independent call at all.
    expect(await calls('constructionIndependent')).toBe(0);
    expect(again.filter((p) => p.includes('List the key entities'))).toHaveLength(2 * segments);
    await expect(panel.getByTestId('qrmem-path')).toHaveText('Path: Mock Turtle → Gryphon');
    expect(urls.filter((u) => !isLocal(u))).toEqual([]);
    expect(problems).toEqual([]);
    await page.context().close();
  } finally {
    await server.close();
  }
});
