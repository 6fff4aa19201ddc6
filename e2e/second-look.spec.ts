/**
 * @file What a new user still tripped on, checked in the built app: a link the model writes
 * never replaces the app's tab (answers and chat), the answer lists the excerpts it cites as its
 * sources and folds the rest, and at 390x844 the question comes first with the library in a
 * drawer, the engine form folded once an engine is chosen and nothing scrolling sideways.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type Page } from '@playwright/test';
import iconv from 'iconv-lite';
import { JA_BOOK } from '../test/scripts/samples';
import { bookFile, dropFiles } from './support/drop';
import { openLocalPage } from './support/local-page';
import { openAdvanced } from './support/advanced';
import { configureLoopbackEngine } from './support/loopback-engine';
import { startOpenAiServer, type OpenAiServer } from './support/openai-server';

const HERE = dirname(fileURLToPath(import.meta.url));
const ALICE = resolve(HERE, '../../shared/datasets/gutenberg/pg11.txt');
const QUALITY = resolve(HERE, '../../shared/datasets/leval/quality.jsonl');
const QUESTION_MT = 'What did the Mock Turtle learn at school in the sea?';

test.describe.configure({ mode: 'serial' });

let server: OpenAiServer;
let page: Page;
const urls: string[] = [];
const problems: string[] = [];

const panel = () => page.getByTestId('answer-panel');
const answerText = () => panel().getByTestId('answer-text');

test.beforeAll(async ({ browser }) => {
  server = await startOpenAiServer();
  page = await openLocalPage(browser, urls, problems);
});

test.afterAll(async () => {
  await page?.context().close();
  await server?.close();
});

/** Ask, with the scripted server answering `answer`. */
async function ask(question: string, answer: string) {
  server.replies.push({ kind: 'answer', pieces: [answer], delayMs: 10 });
  await page.getByLabel('Question').fill(question);
  await page.getByRole('button', { name: 'Ask', exact: true }).click();
  await expect(panel()).toHaveAttribute('data-state', 'done');
}

/** Click a link the model wrote: a new tab opens, the app's own tab stays where it was. */
async function clickModelLink(link: ReturnType<Page['locator']>) {
  await expect(link).toHaveAttribute('target', '_blank');
  await expect(link).toHaveAttribute('rel', 'noopener noreferrer');
  const before = page.url();
  const [popup] = await Promise.all([page.context().waitForEvent('page'), link.click()]);
  expect(page.url()).toBe(before);
  await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
  // No way back to the app from the opened tab.
  expect(await popup.evaluate(() => window.opener).catch(() => null)).toBeNull();
  await popup.close();
}

test('the setup: a book and an API engine', async () => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto('/');
  await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
  await dropFiles(page, [bookFile(ALICE)]);
  await expect(page.getByTestId('library-item')).toContainText(/\d+ fragments/);
  await page.getByTestId('engine-offer').getByRole('button', { name: 'use an API key' }).click();
  await page.getByLabel('Base URL').fill(`${server.url}/v1`);
  await page.getByLabel('Model', { exact: true }).fill('test-model');
  await page.getByLabel('API key').fill('sk-test-second-look');
  await expect(page.getByTestId('engine-offer')).toHaveCount(0);
});

test('a link in an answer opens in a new tab and shows its host; the app stays', async () => {
  await ask(
    'Who is the Cheshire Cat?',
    'The Cat grins [2]. See [the annotated edition](https://annotated.example/alice) or [home](index.html).',
  );
  const link = answerText().locator('a.model-link');
  await expect(link).toHaveCount(1);
  await expect(answerText()).toContainText('the annotated edition (annotated.example ↗)');
  // A relative link would open inside the app: it is text.
  await expect(answerText().getByRole('link', { name: 'home' })).toHaveCount(0);
  await clickModelLink(link);
});

test('the answer shows the excerpts it cites as its sources and folds the rest', async () => {
  await ask('Who is the Cheshire Cat?', 'The Cat grins [2], and vanishes [4].');
  const sources = panel().getByTestId('answer-sources');
  const cited = sources.getByRole('list', { name: 'Sources the answer cites' });
  await expect(cited.getByRole('listitem')).toHaveCount(2);
  await expect(cited.getByRole('listitem').first()).toContainText('[2]');
  await expect(cited.getByRole('listitem').last()).toContainText('[4]');
  const also = sources.getByTestId('answer-also-given');
  const given = (await panel().locator('.answer__sources li').count()) - 2;
  expect(given).toBeGreaterThan(0);
  await expect(also.locator('summary')).toContainText(`Also given to the model (${given}`);
  // Folded: the other excerpts are not on show until asked for.
  await expect(also.getByRole('listitem').first()).toBeHidden();
  await also.locator('summary').click();
  await expect(also.getByRole('listitem')).toHaveCount(given);

  // No citation at all: no sources, all folded, and the panel says so.
  await ask('Who is the Cheshire Cat?', 'A cat that grins.');
  await expect(sources.getByTestId('answer-no-citation')).toBeVisible();
  await expect(sources.getByRole('list', { name: 'Sources the answer cites' })).toHaveCount(0);
  // Its sentence still gets the excerpt that shares its words, marked as inferred; one opens it.
  const inferred = sources.getByTestId('answer-inferred-sources');
  await expect(inferred.getByRole('listitem').first()).toContainText(
    'inferred, for “A cat that grins.”',
  );
  await inferred.getByRole('button').first().click();
  await expect(page.getByTestId('reader-text')).toContainText(/grin/i);
  // A sentence no excerpt supports gets none (the planted wrong case).
  await ask('Who is the Cheshire Cat?', 'Zebras prefer marmalade sandwiches.');
  await expect(sources.getByTestId('answer-no-citation')).toBeVisible();
  await expect(sources.getByTestId('answer-inferred-sources')).toHaveCount(0);
});

test('a link in a chat reply opens in a new tab; the app stays', async () => {
  await page.getByRole('tab', { name: 'Chat' }).click();
  const chat = page.getByTestId('chat-view');
  await chat.getByRole('button', { name: 'New chat', exact: true }).click();
  // The new conversation is stored and shown before the message is typed: typed earlier, the
  // box was emptied when it opened (CI once sent nothing so).
  await expect(chat.getByTestId('chat-conversation')).toHaveCount(1);
  server.replies.push({
    kind: 'answer',
    pieces: ['Read it at [Gutenberg](https://www.gutenberg.example/ebooks/11).'],
  });
  await chat.getByLabel('Message', { exact: true }).fill('Where can I read Alice?');
  await chat.getByLabel('Message', { exact: true }).press('Enter');
  const link = chat.getByTestId('chat-reply').last().locator('a.model-link');
  await expect(link).toHaveAttribute('data-host', 'www.gutenberg.example');
  await clickModelLink(link);
  await page.getByRole('tab', { name: 'Ask the library' }).click();
  expect(problems).toEqual([]);
});

const say = (text: string) => ({ kind: 'answer' as const, pieces: [text] });

/** What scrolls sideways: the page's excess width, and the elements reaching past the screen. */
async function sideways(p: Page) {
  return p.evaluate(() => {
    const width = window.innerWidth;
    const scrolling = document.scrollingElement!;
    const past: string[] = [];
    for (const el of document.querySelectorAll<HTMLElement>('body *')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.right <= width + 0.5) continue;
      // Inside a box that scrolls by itself, reaching past the screen is that box's business.
      let clipped = false;
      for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
        const o = getComputedStyle(a).overflowX;
        if (
          (o === 'auto' || o === 'scroll' || o === 'hidden') &&
          a.getBoundingClientRect().right <= width + 0.5
        ) {
          clipped = true;
          break;
        }
      }
      if (!clipped)
        past.push(
          `${el.tagName.toLowerCase()}.${el.className} → ${Math.round(r.right - width)} px`,
        );
    }
    // The last ones are the deepest: the element that makes the others wide is among them.
    return { excess: scrolling.scrollWidth - width, past: past.slice(-8) };
  });
}

async function expectNoSideways(p: Page, where: string) {
  const s = await sideways(p);
  expect(s.past, `elements past the screen in ${where}`).toEqual([]);
  expect(s.excess, `sideways scroll in ${where}`).toBeLessThanOrEqual(0);
}

test('phone 390x844: the question first, the library in a drawer, the engine folded, nothing sideways', async ({
  browser,
}) => {
  test.setTimeout(240_000);
  const phoneUrls: string[] = [];
  const phoneProblems: string[] = [];
  const qrmem = await startOpenAiServer();
  qrmem.routes = [
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
    { when: 'new questions about the document', reply: say('["What did the Mock Turtle learn?"]') },
    { when: 'this question is about', reply: say('["Mock Turtle"]') },
    {
      when: 'Can the question be answered from these passages?',
      reply: say('{"answerable": false, "answer": "", "reason": "The lessons are not listed."}'),
    },
    { when: 'Answer the question from the passages', reply: say('Reeling and Writhing [1].') },
  ];
  qrmem.fallback = say('The Mock Turtle learned Reeling and Writhing [1].');
  const phone = await openLocalPage(browser, phoneUrls, phoneProblems);
  try {
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto('/');
    await expect(phone.getByTestId('worker-status')).toContainText('Workers ready');

    // The first screen: the question box, not the library.
    const question = phone.getByLabel('Question');
    await expect(question).toBeInViewport();
    const box = (await question.boundingBox())!;
    expect(box.y + box.height).toBeLessThanOrEqual(844);
    const drawer = phone.getByTestId('library-drawer');
    await expect(drawer).toBeHidden();

    // The drawer: a button opens it, the focus goes in, Escape closes it and gives the focus back.
    const opener = phone.getByTestId('library-drawer-open');
    await opener.click();
    await expect(drawer).toBeVisible();
    await expect(phone.getByRole('dialog', { name: 'Library' })).toBeVisible();
    await expect(drawer.getByRole('button', { name: 'Close' })).toBeFocused();
    const d = (await drawer.boundingBox())!;
    expect(d.x).toBeGreaterThanOrEqual(0);
    expect(d.x + d.width).toBeLessThanOrEqual(390);
    // Tab stays inside the open drawer.
    for (let k = 0; k < 40; k++) await phone.keyboard.press('Tab');
    expect(await phone.evaluate(() => !!document.activeElement?.closest('#library-drawer'))).toBe(
      true,
    );
    await phone.keyboard.press('Escape');
    await expect(drawer).toBeHidden();
    await expect(opener).toBeFocused();

    // A book dropped on the page lands in the library behind the button.
    await dropFiles(phone, [bookFile(ALICE)]);
    await expect(opener).toHaveText('Library (1 document)');
    await opener.click();
    await expect(drawer.getByTestId('library-item')).toContainText(/\d+ fragments/);
    await drawer.getByRole('button', { name: 'Close' }).click();
    await expect(drawer).toBeHidden();
    await expectNoSideways(phone, 'the main view');

    // No engine: the form is open under the offer. Chosen and asked: it folds to one line.
    const answer = phone.getByTestId('answer-panel');
    const fold = answer.getByTestId('engine-fold');
    await expect(fold).toHaveAttribute('open', '');
    await answer.getByRole('button', { name: 'use an API key' }).click();
    await configureLoopbackEngine(answer, qrmem);
    await question.fill(QUESTION_MT);
    await expect(question).toBeInViewport();
    await phone.getByRole('button', { name: 'Ask', exact: true }).click();
    await expect(answer).toHaveAttribute('data-state', 'done');
    await expect(fold).not.toHaveAttribute('open', '');
    await expect(answer.getByTestId('engine-fold-summary')).toContainText('test-model');
    await expect(answer.getByLabel('Base URL')).toBeHidden();
    await expectNoSideways(phone, 'the answer and evidence');
    // A reload with the engine chosen opens with the form folded.
    await phone.reload();
    await expect(phone.getByTestId('worker-status')).toContainText('Workers ready');
    await expect(fold).toBeVisible();
    await expect(fold).not.toHaveAttribute('open', '');
    await question.fill(QUESTION_MT);
    await phone.getByRole('button', { name: 'Ask', exact: true }).click();
    await expect(phone.getByTestId('retrieval-summary')).toContainText(QUESTION_MT);

    // Compare, with its price table open.
    const compare = phone.getByTestId('compare-panel');
    await compare.locator('summary').first().click();
    await compare.getByTestId('price-table').locator('summary').click();
    await expect(compare.getByTestId('price-table').locator('table')).toBeVisible();
    await expectNoSideways(phone, 'Compare');
    for (const el of [compare, compare.getByTestId('price-table')]) {
      const b = (await el.boundingBox())!;
      expect(b.x).toBeGreaterThanOrEqual(0);
      expect(b.x + b.width).toBeLessThanOrEqual(390);
    }
    await compare.locator('summary').first().click();

    // A QRMeM trace, every step opened.
    const pipelines = phone.getByTestId('pipelines-panel');
    await pipelines.getByRole('radio', { name: 'QRMeM' }).check();
    await pipelines.getByLabel('Trials at most').fill('2');
    await pipelines.getByLabel('Generated questions').fill('1');
    await pipelines.getByRole('button', { name: 'Run QRMeM' }).click();
    // Its dry run is over the default threshold (100 calls): the run waits for a yes.
    await pipelines
      .getByTestId('run-confirm')
      .getByRole('button', { name: 'Run QRMeM anyway' })
      .click();
    await expect(pipelines).toHaveAttribute('data-state', 'done', { timeout: 200_000 });
    const trace = pipelines.getByTestId('pipeline-trace');
    await trace.evaluate((el) => el.querySelectorAll('details').forEach((x) => (x.open = true)));
    await expectNoSideways(phone, 'the QRMeM trace');
    const t = (await trace.boundingBox())!;
    expect(t.x + t.width).toBeLessThanOrEqual(390);
    expect(phoneProblems).toEqual([]);
  } finally {
    await phone.context().close();
    await qrmem.close();
  }
});

test('one hub-host setting serves the embedders, the GGUF catalogue and evaluate.html', async () => {
  const mirror = 'http://127.0.0.1:9/mirror/';
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto('/');
  await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
  // The setting the embedders' error message names exists, under Advanced.
  await openAdvanced(page);
  const field = page.getByLabel('Download models from (hub host)');
  await field.fill(mirror);
  await field.blur();
  // The GGUF catalogue downloads from the same host.
  const engine = page.getByTestId('answer-panel');
  await engine.getByLabel('Engine', { exact: true }).selectOption('wllama');
  const catalogue = engine.getByTestId('gguf-catalogue');
  await catalogue.getByText('Download from another hub or mirror').click();
  await expect(catalogue.getByLabel('Model hub')).toHaveValue(mirror);
  // Changed there, it is changed for the embedders too.
  const other = 'http://127.0.0.1:9/other/';
  await catalogue.getByLabel('Model hub').fill(other);
  await expect(field).toHaveValue(other);
  await engine.getByLabel('Engine', { exact: true }).selectOption('openai');

  // The evaluation page reads it, and what is typed there is the library's setting.
  await page.goto('/evaluate.html');
  const line = readFileSync(QUALITY, 'utf8').split('\n').find(Boolean)!;
  await dropFiles(page, [{ name: 'quality.jsonl', bytes: new TextEncoder().encode(`${line}\n`) }]);
  await page.getByLabel('all-MiniLM-L6-v2 (transformer, ~23 MB download)').check();
  await expect(page.getByTestId('eval-hub-host')).toHaveValue(other);
  await page.getByTestId('eval-hub-host').fill(mirror);
  await page.getByTestId('eval-hub-host').blur();
  await page.goto('/');
  await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
  await openAdvanced(page);
  await expect(page.getByLabel('Download models from (hub host)')).toHaveValue(mirror);
  // Not an http(s) address: refused with a message, the setting unchanged.
  await page.getByLabel('Download models from (hub host)').fill('ftp://nowhere');
  await expect(page.getByRole('alert').filter({ hasText: 'must be an http(s) URL' })).toBeVisible();
  await page.reload();
  await openAdvanced(page);
  await expect(page.getByLabel('Download models from (hub host)')).toHaveValue(mirror);
});

test('evaluate.html: the answer-evaluation engine form is laid out like the app’s', async () => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto('/evaluate.html');
  const line = readFileSync(QUALITY, 'utf8').split('\n').find(Boolean)!;
  await dropFiles(page, [{ name: 'quality.jsonl', bytes: new TextEncoder().encode(`${line}\n`) }]);
  await expect(page.getByTestId('eval-format')).toHaveText('L-Eval JSONL');
  const section = page.getByTestId('answer-eval');
  await section.getByLabel('Engine', { exact: true }).selectOption('openai');
  const url = section.getByLabel('Base URL');
  // Label and field in two columns of the form's grid, the field wide, not "Base URLhttp://…".
  const layout = await url.evaluate((input) => {
    const row = input.closest('.engine__row');
    const label = row?.querySelector('label');
    return {
      row: row ? getComputedStyle(row).display : 'none',
      form: getComputedStyle(input.closest('fieldset.engine')!).display,
      gap: label ? input.getBoundingClientRect().left - label.getBoundingClientRect().right : 0,
      width: input.getBoundingClientRect().width,
    };
  });
  expect(layout.row).toBe('grid');
  expect(layout.form).toBe('grid');
  expect(layout.gap).toBeGreaterThan(4);
  expect(layout.width).toBeGreaterThan(300);
  await page.goto('/');
});

test('the library card: a book’s own title, and the encoding picker inside the card', async () => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto('/');
  await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
  const header =
    'The Project Gutenberg eBook of Moby Dick\r\n\r\nTitle: Moby Dick; Or, The Whale\r\n\r\n' +
    'Author: Herman Melville\r\n\r\n*** START OF THE PROJECT GUTENBERG EBOOK MOBY DICK ***\r\n\r\n';
  const body =
    'Call me Ishmael. Some years ago, never mind how long precisely, I went to sea. '.repeat(40);
  await dropFiles(page, [
    { name: 'pg2701.txt', bytes: new TextEncoder().encode(header + body) },
    { name: 'sjis.txt', bytes: new Uint8Array(iconv.encode(JA_BOOK, 'Shift_JIS')) },
  ]);
  const moby = page.getByTestId('library-item').filter({ hasText: 'pg2701.txt' });
  await expect(moby.locator('.library__name')).toHaveText('Moby Dick; Or, The Whale');
  await expect(moby.getByTestId('library-file')).toContainText('pg2701.txt');

  const card = page.getByTestId('library-item').filter({ hasText: 'sjis.txt' });
  const select = card.getByLabel('Encoding of sjis.txt');
  await expect(select).toBeVisible();
  // The longest encoding name is chosen so the select is at its widest.
  await select.selectOption('gb18030');
  const c = (await card.boundingBox())!;
  for (const el of [select, card.getByRole('button', { name: 'Re-read' })]) {
    const b = (await el.boundingBox())!;
    expect(b.x).toBeGreaterThanOrEqual(c.x);
    expect(b.x + b.width, 'inside the card').toBeLessThanOrEqual(c.x + c.width + 0.5);
  }
});
