/**
 * @file The chat view against a scripted OpenAI-compatible server on 127.0.0.1
 * (support/openai-server.ts): a conversation of 13 rounds whose last message refers back to
 * round 2 ("Biscuit", the lighthouse keeper's cat). The request for that message holds round 2
 * and leaves out rounds the memory did not retrieve; the memory panel shows round 2 as
 * retrieved with its scores. Then: settings per conversation, Stop, an error that keeps the
 * typed message, rename and delete, a chat that draws on a library document (the budget split
 * shown), and a reload that restores every conversation. No request leaves 127.0.0.1.
 */
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { BISCUIT_CHAT, BISCUIT_QUESTION } from '../src/ui/chat/testing';
import { dropFiles } from './support/drop';
import { startOpenAiServer, type OpenAiServer } from './support/openai-server';
import { isLocal, openLocalPage } from './support/local-page';

test.describe.configure({ mode: 'serial' });

let server: OpenAiServer;
let page: Page;
const urls: string[] = [];
const problems: string[] = [];

const chat = () => page.getByTestId('chat-view');
const panel = () => page.getByTestId('memory-panel');
const row = (round: number) => panel().locator(`[data-testid="memory-row"][data-round="${round}"]`);
const posts = () => server.requests.filter((r) => r.method === 'POST');

/** A reply in three streamed pieces. */
function reply(text: string, delayMs = 10) {
  const words = text.split(' ');
  const third = Math.ceil(words.length / 3);
  const pieces = [0, 1, 2]
    .map((k) => words.slice(k * third, (k + 1) * third).join(' '))
    .filter(Boolean)
    .map((p, k, all) => (k < all.length - 1 ? `${p} ` : p));
  server.replies.push({ kind: 'answer', pieces, delayMs });
}

/** Send a message and wait until its round is stored. */
async function say(message: string, answer: string, rounds: Locator) {
  const before = await rounds.count();
  reply(answer);
  await chat().getByLabel('Message', { exact: true }).fill(message);
  await chat().getByLabel('Message', { exact: true }).press('Enter');
  await expect(rounds).toHaveCount(before + 1);
  await expect(chat().getByTestId('chat-pending')).toHaveCount(0);
  await expect(rounds.last().getByTestId('chat-reply')).toHaveText(answer);
}

test.beforeAll(async ({ browser }) => {
  server = await startOpenAiServer();
  page = await openLocalPage(browser, urls, problems);
});

test.afterAll(async () => {
  await page?.context().close();
  await server?.close();
});

test('a late message recalls the early round it refers to, and the panel shows why', async () => {
  await page.goto('/');
  await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
  await page.getByRole('tab', { name: 'Chat' }).click();
  await expect(page.getByRole('tab', { name: 'Chat' })).toHaveAttribute('aria-selected', 'true');
  // The Ask view is out of sight.
  await expect(page.getByRole('search')).toBeHidden();

  // The engine: set once, here, for both views.
  await chat().locator('summary', { hasText: 'Engine:' }).click();
  await chat().getByLabel('Engine').selectOption('openai');
  await chat().getByLabel('Base URL').fill(`${server.url}/v1`);
  await chat().getByLabel('Model', { exact: true }).fill('test-model');
  await expect(chat().getByTestId('chat-engine')).toContainText(
    `test-model at ${server.url.slice(7)}`,
  );
  await chat().locator('summary', { hasText: 'Engine:' }).click();

  await chat().getByRole('button', { name: 'New chat', exact: true }).click();
  const rounds = chat().getByTestId('chat-round');
  await expect(panel()).toContainText('Send a message');

  // Round 1 names the conversation; its panel has nothing to recall yet.
  await say(BISCUIT_CHAT[0].user, BISCUIT_CHAT[0].assistant!, rounds);
  await expect(chat().getByTestId('chat-title')).toHaveText(
    'Can you recommend a good book about the…',
  );
  await expect(panel()).toContainText('This is the first message');

  for (let i = 1; i < BISCUIT_CHAT.length; i++) {
    await say(BISCUIT_CHAT[i].user, BISCUIT_CHAT[i].assistant!, rounds);
    // Up to round 11 (10 past rounds) the whole history goes in; round 12 switches to memory.
    if (i === 10) {
      await expect(panel().getByTestId('memory-mode')).toHaveAttribute('data-mode', 'full-history');
      const body = posts().at(-1)!.body!;
      expect(body.messages!.filter((m) => m.role === 'user')).toHaveLength(11);
    }
  }
  await expect(panel().getByTestId('memory-mode')).toHaveAttribute('data-mode', 'memory');

  // Round 13 refers back to round 2.
  const answer = 'Biscuit was a ginger tabby who slept on the lamp room stairs [1].';
  await say(BISCUIT_QUESTION, answer, rounds);
  expect(posts()).toHaveLength(13);
  const body = posts().at(-1)!.body!;
  expect(body.model).toBe('test-model');
  const [system, ...dialog] = body.messages!;
  expect(system.role).toBe('system');
  // Round 2 is in the prompt as related evidence, whole.
  expect(system.content).toContain(`(round 2)\nUser: ${BISCUIT_CHAT[1].user}`);
  expect(system.content).toContain(BISCUIT_CHAT[1].assistant);
  // The two latest rounds verbatim, then the new message.
  expect(dialog).toEqual([
    { role: 'user', content: BISCUIT_CHAT[10].user },
    { role: 'assistant', content: BISCUIT_CHAT[10].assistant },
    { role: 'user', content: BISCUIT_CHAT[11].user },
    { role: 'assistant', content: BISCUIT_CHAT[11].assistant },
    { role: 'user', content: BISCUIT_QUESTION },
  ]);

  // The panel: memory on because of the rounds; round 2 retrieved, with its three scores.
  const mode = panel().getByTestId('memory-mode');
  await expect(mode).toHaveAttribute('data-mode', 'memory');
  await expect(mode).toHaveAttribute('data-reason', 'rounds');
  await expect(mode).toContainText('12 past rounds, more than 10');
  await expect(panel().locator('[data-testid="memory-row"]')).toHaveCount(12);
  await expect(row(2)).toHaveAttribute('data-reason', 'retrieved');
  await expect(row(2)).toContainText('retrieved');
  await expect(row(11)).toHaveAttribute('data-reason', 'recent');
  await expect(row(12)).toHaveAttribute('data-reason', 'recent');
  const scores = async (round: number) => ({
    independent: Number(await row(round).getAttribute('data-independent')),
    environment: Number(await row(round).getAttribute('data-environment')),
    final: Number(await row(round).getAttribute('data-final')),
    reason: await row(round).getAttribute('data-reason'),
  });
  const two = await scores(2);
  expect(two.independent).toBeGreaterThan(0);
  expect(two.environment).toBeGreaterThan(0);
  expect(two.final).toBeCloseTo(two.independent + 0.5 * two.environment, 6);
  // Of the older rounds, round 2 scores highest; 8 of the 10 were retrieved, 2 were not.
  const older = await Promise.all([...Array(10).keys()].map((k) => scores(k + 1)));
  expect(Math.max(...older.map((s) => s.final))).toBe(two.final);
  expect(older.filter((s) => s.reason === 'retrieved')).toHaveLength(8);
  const left = older.flatMap((s, k) => (s.reason === 'not-retrieved' ? [k] : []));
  expect(left).toHaveLength(2);
  for (const k of left) expect(JSON.stringify(body)).not.toContain(BISCUIT_CHAT[k].user);
  // The rounds retrieved are exactly those labelled in the prompt, in time order.
  const retrieved = older.flatMap((s, k) => (s.reason === 'retrieved' ? [k + 1] : []));
  const labelled = [...system.content.matchAll(/\(round (\d+)\)/g)].map((m) => Number(m[1]));
  expect(labelled).toEqual(retrieved);

  // The first retrieved round is in focus, with its equation; the token split is shown.
  await expect(panel().getByTestId('memory-focus')).toHaveAttribute('data-round', '2');
  await expect(panel().getByTestId('memory-focus')).toContainText('rank 2 of 12');
  const split = panel().getByTestId('memory-split');
  await expect(split.locator('[data-part="recent"]')).toContainText('recent rounds');
  await expect(split.locator('[data-part="retrieved"]')).toContainText('retrieved rounds');
  await expect(split.getByTestId('memory-budget')).toContainText('Context 16,384 tokens');
  // "Show the prompt" is exactly what was sent.
  await panel().getByText('Show the prompt').click();
  expect(await panel().getByTestId('prompt-text').textContent()).toBe(
    body.messages!.map((m) => `[${m.role}]\n${m.content}`).join('\n\n'),
  );

  // The chat view, with its panel and prompt open, has no serious accessibility problems.
  const axe = await new AxeBuilder({ page }).include('[data-testid="chat-view"]').analyze();
  const serious = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious.map((v) => `${v.id}: ${v.help} (${v.nodes.length})`)).toEqual([]);
});

test('the memory settings are the conversation’s, and change the panel at once', async () => {
  await chat().getByTestId('chat-settings').locator('summary').click();
  const top = chat().getByLabel('Rounds recalled (top)');
  await expect(top).toHaveValue('8');
  await expect(chat().getByLabel('Context decay w_rel')).toHaveValue('0.8');
  await expect(chat().getByLabel('Environment weight α')).toHaveValue('0.5');
  await expect(chat().getByLabel('Recent rounds kept verbatim')).toHaveValue('2');
  await expect(chat().getByLabel('Memory after (rounds)')).toHaveValue('10');
  await expect(chat().getByLabel('Memory after (tokens)')).toHaveValue('1000');
  await top.fill('3');
  await expect(panel().locator('[data-reason="not-retrieved"]')).toHaveCount(7);
  await expect(row(2)).toHaveAttribute('data-reason', 'retrieved');
  await expect(panel()).toContainText('with the current settings');
  await chat().getByTestId('chat-settings').locator('summary').click();
});

test('a reply can be stopped; an error keeps the typed message; conversations are renamed and deleted', async () => {
  await chat().getByRole('button', { name: 'New chat', exact: true }).click();
  await expect(chat().getByTestId('chat-conversation')).toHaveCount(2);
  const rounds = chat().getByTestId('chat-round');
  await expect(rounds).toHaveCount(0);

  // An error: a clear message, the typed message back in the box, nothing stored.
  server.replies.push({
    kind: 'error',
    status: 500,
    body: { error: { message: 'The server had an error while processing your request.' } },
  });
  const box = chat().getByLabel('Message', { exact: true });
  await box.fill('Will this fail?');
  await chat().getByRole('button', { name: 'Send' }).click();
  const error = chat().getByTestId('chat-error');
  await expect(error).toHaveAttribute('data-code', 'server');
  await expect(error).toContainText(/server error \(500\)/);
  await expect(box).toHaveValue('Will this fail?');
  await expect(rounds).toHaveCount(0);

  // Sent again, it streams; Stop keeps what arrived and stores the round as stopped.
  server.replies.push({
    kind: 'answer',
    pieces: Array.from({ length: 60 }, (_, i) => `word${i} `),
    delayMs: 80,
  });
  await chat().getByRole('button', { name: 'Send' }).click();
  await expect(chat().getByTestId('chat-error')).toHaveCount(0);
  const streaming = chat().getByTestId('chat-streaming');
  await expect(streaming).toContainText('word1');
  const early = (await streaming.textContent())!.length;
  await expect(streaming).toContainText('word3');
  expect((await streaming.textContent())!.length).toBeGreaterThan(early);
  await chat().getByRole('button', { name: 'Stop' }).click();
  await expect(rounds).toHaveCount(1);
  await expect(rounds.first()).toContainText('Stopped before the end.');
  const kept = await rounds.first().getByTestId('chat-reply').textContent();
  expect(kept).toContain('word3');
  expect(kept).not.toContain('word59');
  await expect(box).toHaveValue('');

  // Rename, then delete this one (asked twice).
  await chat().getByRole('button', { name: 'Rename' }).click();
  await chat().getByLabel('New name').fill('Scratch');
  await chat().getByLabel('New name').press('Enter');
  await expect(chat().getByTestId('chat-title')).toHaveText('Scratch');
  await expect(chat().getByTestId('chat-conversation').first()).toContainText('Scratch');
  await chat().getByRole('button', { name: 'Delete', exact: true }).click();
  await chat().getByRole('button', { name: 'Delete for good' }).click();
  await expect(chat().getByTestId('chat-conversation')).toHaveCount(1);
  await expect(chat().getByTestId('chat-title')).toHaveText(
    'Can you recommend a good book about the…',
  );
});

test('a chat on a library document scores both memories and shows the split', async () => {
  const text =
    'The Keeper of Gull Rock\n\n' +
    'Every evening the keeper climbed the iron stairs to light the great lamp. ' +
    'His ginger cat Biscuit followed him up and slept on the warm lamp room stairs until dawn, ' +
    'while the fog horn sounded over the rocks and the gulls slept on the gallery rail. '.repeat(3);
  await page.getByRole('tab', { name: 'Ask the library' }).click();
  // The engine set in the chat is the Ask view's too.
  await expect(page.getByLabel('Engine')).toHaveValue('openai');
  await dropFiles(page, [{ name: 'keeper.txt', bytes: new TextEncoder().encode(text) }]);
  await expect(page.getByTestId('library-item')).toContainText(/\d+ fragments?/);

  await page.getByRole('tab', { name: 'Chat' }).click();
  await chat().getByRole('button', { name: 'New chat on the ticked document' }).click();
  await expect(chat().getByTestId('chat-library')).toContainText(
    'Draws on the library: keeper.txt',
  );
  const rounds = chat().getByTestId('chat-round');
  await say('Where did the cat sleep at night?', 'On the lamp room stairs [1].', rounds);
  const body = posts().at(-1)!.body!;
  // The title line is a bare heading (src/ingest/sections.ts), so the label names its section.
  expect(body.messages![0].content).toContain(
    '(keeper.txt · fragment 1 · The Keeper of Gull Rock)',
  );
  expect(body.messages![0].content).toContain('slept on the warm lamp room stairs');
  const shared = panel().getByTestId('memory-library-split');
  await expect(shared).toContainText('Shared with the library');
  expect(Number(await shared.getAttribute('data-documents'))).toBeGreaterThan(0);
  await expect(
    panel().getByTestId('memory-split').locator('[data-part="documents"]'),
  ).toContainText('library');
  await expect(panel().getByTestId('memory-library')).toContainText('keeper.txt · fragment 1');
});

test('a reload restores every conversation, its rounds and its settings', async () => {
  await page.reload();
  await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
  await page.getByRole('tab', { name: 'Chat' }).click();
  const list = chat().getByTestId('chat-conversation');
  await expect(list).toHaveCount(2);
  await list.filter({ hasText: 'Can you recommend' }).getByRole('button').first().click();
  const rounds = chat().getByTestId('chat-round');
  await expect(rounds).toHaveCount(13);
  await expect(rounds.nth(1)).toContainText(BISCUIT_CHAT[1].user);
  await expect(rounds.last().getByTestId('chat-reply')).toHaveText(
    'Biscuit was a ginger tabby who slept on the lamp room stairs [1].',
  );
  // The panel works the memory out again, with the stored settings (top 3).
  await expect(row(2)).toHaveAttribute('data-reason', 'retrieved');
  await expect(panel().locator('[data-reason="not-retrieved"]')).toHaveCount(7);
  await chat().getByTestId('chat-settings').locator('summary').click();
  await expect(chat().getByLabel('Rounds recalled (top)')).toHaveValue('3');

  // An earlier message's memory can be opened from the message list.
  await rounds.nth(10).getByRole('button', { name: 'What it remembered' }).click();
  await expect(panel()).toContainText('for round 11');
  await expect(panel().getByTestId('memory-mode')).toHaveAttribute('data-mode', 'full-history');

  // The other conversation, with its library link.
  await list.filter({ hasText: 'Where did the cat' }).getByRole('button').first().click();
  await expect(chat().getByTestId('chat-library')).toContainText('keeper.txt');
  await expect(rounds).toHaveCount(1);
});

test('every request of the page and its workers went to 127.0.0.1', async () => {
  expect(urls.length).toBeGreaterThan(0);
  expect(urls.filter((u) => !isLocal(u))).toEqual([]);
  expect(posts().every((r) => r.path === '/v1/chat/completions')).toBe(true);
  expect(problems).toEqual([]);
});
