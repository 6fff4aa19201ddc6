import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { isLocal, openLocalPage } from './support/local-page';
import { startOpenAiServer } from './support/openai-server';

// Before this test: when storage is full, a chat reply that cannot be saved was thrown away unread.
test('a chat reply that cannot be saved stays on screen with Retry and Export', async ({
  browser,
}) => {
  const server = await startOpenAiServer();
  const urls: string[] = [];
  const problems: string[] = [];
  const page = await openLocalPage(browser, urls, problems);
  try {
    await page.goto('/');
    await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
    await page.getByRole('tab', { name: 'Chat' }).click();
    const chat = page.getByTestId('chat-view');
    await chat.locator('summary', { hasText: 'Engine:' }).click();
    await chat.getByLabel('Engine').selectOption('openai');
    await chat.getByLabel('Base URL').fill(`${server.url}/v1`);
    await chat.getByLabel('Model', { exact: true }).fill('test-model');
    await chat.locator('summary', { hasText: 'Engine:' }).click();
    await chat.getByRole('button', { name: 'New chat', exact: true }).click();
    await expect(chat.getByTestId('chat-conversation')).toHaveCount(1);

    // The disk fills up: every write of a conversation fails as a full quota does.
    await page.evaluate(() => {
      const w = window as unknown as { realPut: IDBObjectStore['put'] };
      w.realPut = IDBObjectStore.prototype.put;
      IDBObjectStore.prototype.put = function (this: IDBObjectStore, ...args) {
        if (this.name === 'chats') {
          throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
        }
        return w.realPut.apply(this, args);
      } as IDBObjectStore['put'];
    });
    const answer = 'The lighthouse keeper kept a cat named Biscuit.';
    server.replies.push({ kind: 'answer', pieces: [answer], delayMs: 10 });
    await chat.getByLabel('Message', { exact: true }).fill('Who kept a cat?');
    await chat.getByRole('button', { name: 'Send' }).click();
    await expect(chat.getByTestId('chat-error')).toContainText('could not be saved');
    await expect(chat.getByTestId('chat-streaming')).toHaveText(answer);
    await expect(chat.getByTestId('chat-round')).toHaveCount(0);

    // Export gives the reply as a file.
    const downloading = page.waitForEvent('download');
    await chat.getByRole('button', { name: 'Export' }).click();
    const text = readFileSync(await (await downloading).path(), 'utf8');
    expect(text).toContain('Who kept a cat?');
    expect(text).toContain(answer);

    // Space again: Retry stores the round, which a reload shows.
    await page.evaluate(() => {
      IDBObjectStore.prototype.put = (
        window as unknown as { realPut: IDBObjectStore['put'] }
      ).realPut;
    });
    await chat.getByRole('button', { name: 'Retry saving' }).click();
    await expect(chat.getByTestId('chat-round')).toHaveCount(1);
    await expect(chat.getByTestId('chat-pending')).toHaveCount(0);
    await page.reload();
    await page.getByRole('tab', { name: 'Chat' }).click();
    await expect(page.getByTestId('chat-view').getByTestId('chat-reply')).toHaveText(answer);

    expect(problems).toEqual([]);
    expect(urls.filter((u) => !isLocal(u))).toEqual([]);
  } finally {
    await page.context().close();
    await server.close();
  }
});
