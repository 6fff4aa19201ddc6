import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it, vi } from 'vitest';
import {
  UNTITLED_CHAT,
  chatTitle,
  newChatRecord,
  readChatRecord,
  readChatSettings,
  titleFromMessage,
  withRound,
} from './chats';
import { openLibrary } from './library';

const open = () => openLibrary('lib', { factory: new IDBFactory() });

describe('chat records', () => {
  it('titles are one trimmed line, never empty, cut when long', () => {
    expect(chatTitle('  Trip\n to   Kyoto ')).toBe('Trip to Kyoto');
    expect(chatTitle('   ')).toBe(UNTITLED_CHAT);
    expect(chatTitle(undefined)).toBe(UNTITLED_CHAT);
    const long = chatTitle('word '.repeat(100));
    expect(long.length).toBeLessThanOrEqual(120);
    expect(long.endsWith('…')).toBe(true);
    expect(titleFromMessage('My lighthouse keeper has a cat named Biscuit, a ginger tabby.')).toBe(
      'My lighthouse keeper has a cat named Biscuit,…',
    );
    expect(titleFromMessage('Hello there')).toBe('Hello there');
  });

  it('adds a round at the end or replaces one, never leaving a gap', () => {
    const chat = newChatRecord({ id: 'c', now: 100 });
    const one = withRound(chat, { user: 'a', assistant: 'b', at: 200 });
    expect(one.rounds).toEqual([{ user: 'a', assistant: 'b', at: 200 }]);
    expect(one.updatedAt).toBe(200);
    expect(chat.rounds).toEqual([]);
    const replaced = withRound(one, { user: 'a', assistant: 'c', at: 300, stopped: true }, 0);
    expect(replaced.rounds).toEqual([{ user: 'a', assistant: 'c', at: 300, stopped: true }]);
    expect(() => withRound(one, { user: 'x', assistant: '', at: 1 }, 2)).toThrow(/round 3/);
  });

  it('reads settings back in range and drops the rest', () => {
    expect(
      readChatSettings({
        topTurns: 4,
        recentTurns: 1.5,
        wRel: 0.9,
        alpha: 2,
        chatShare: 1.2,
        memoryAfterTokens: 500,
        memoryAfterRounds: -1,
        memory: 'on',
        scoring: 'sparse',
        budgetSplit: 'share',
        extra: 1,
      }),
    ).toEqual({
      topTurns: 4,
      wRel: 0.9,
      alpha: 2,
      memoryAfterTokens: 500,
      memory: 'on',
      budgetSplit: 'share',
    });
    expect(readChatSettings(null)).toEqual({});
  });

  it('reads a damaged record into shape, skipping rounds that are not rounds', () => {
    expect(readChatRecord({ title: 'no id' })).toBeNull();
    expect(
      readChatRecord({
        id: 'x',
        title: 7,
        rounds: [
          { user: 'kept', assistant: 'yes', at: 5 },
          { user: 'no time' },
          'junk',
          { user: 'no reply', at: 9 },
        ],
        docIds: ['d', 'd', 3, ''],
      }),
    ).toEqual({
      id: 'x',
      title: UNTITLED_CHAT,
      createdAt: 5,
      updatedAt: 9,
      rounds: [
        { user: 'kept', assistant: 'yes', at: 5 },
        { user: 'no reply', assistant: '', at: 9 },
      ],
      settings: {},
      docIds: ['d'],
    });
  });
});

describe('chats in the library', () => {
  it('creates, lists newest first, renames, links documents and deletes', async () => {
    const library = await open();
    const a = await library.createChat({ title: 'First', now: 1000 });
    const b = await library.createChat({ title: 'Second', docIds: ['doc-1'], now: 2000 });
    expect((await library.listChats()).map((c) => c.title)).toEqual(['Second', 'First']);

    await library.updateChat(a.id, { title: '  Renamed  ' }, 3000);
    expect((await library.listChats()).map((c) => c.title)).toEqual(['Renamed', 'Second']);

    const linked = await library.updateChat(b.id, { docIds: ['doc-1', 'doc-2'], settings: {} });
    expect(linked!.docIds).toEqual(['doc-1', 'doc-2']);
    await library.updateChat(b.id, { settings: { topTurns: 3, alpha: 0.2 } }, 4000);
    expect((await library.getChat(b.id))!.settings).toEqual({ topTurns: 3, alpha: 0.2 });

    await library.deleteChat(a.id);
    expect((await library.listChats()).map((c) => c.id)).toEqual([b.id]);
    expect(await library.updateChat(a.id, { title: 'gone' })).toBeUndefined();
    expect(await library.saveChatRound(a.id, { user: 'x', assistant: 'y', at: 1 })).toBeUndefined();
    library.close();
  });

  it('writes each round in one transaction, and a reopened library has every round', async () => {
    const factory = new IDBFactory();
    const library = await openLibrary('lib', { factory });
    const chat = await library.createChat({ now: 1 });
    const transaction = vi.spyOn(library.db, 'transaction');
    for (let i = 0; i < 12; i++) {
      await library.saveChatRound(chat.id, {
        user: `message ${i}`,
        assistant: `reply ${i}`,
        at: 10 + i,
      });
    }
    expect(transaction).toHaveBeenCalledTimes(12);
    expect(
      transaction.mock.calls.every(([stores, mode]) => stores === 'chats' && mode === 'readwrite'),
    ).toBe(true);
    transaction.mockRestore();
    // A regenerated reply replaces its round.
    await library.saveChatRound(
      chat.id,
      { user: 'message 11', assistant: 'better', at: 30 },
      { index: 11 },
    );
    library.close();

    const again = await openLibrary('lib', { factory });
    const [stored] = await again.listChats();
    expect(stored.rounds).toHaveLength(12);
    expect(stored.rounds[0]).toEqual({ user: 'message 0', assistant: 'reply 0', at: 10 });
    expect(stored.rounds[11]).toEqual({ user: 'message 11', assistant: 'better', at: 30 });
    expect(stored.updatedAt).toBe(30);
    again.close();
  });

  it('names an untitled conversation with the round that names it, in the same write', async () => {
    const library = await open();
    const chat = await library.createChat({ now: 1 });
    const named = await library.saveChatRound(
      chat.id,
      { user: 'Biscuit?', assistant: 'A cat.', at: 2 },
      { title: 'About Biscuit' },
    );
    expect(named!.title).toBe('About Biscuit');
    const kept = await library.saveChatRound(
      chat.id,
      { user: 'More?', assistant: 'Yes.', at: 3 },
      { title: 'Another title' },
    );
    expect(kept!.title).toBe('About Biscuit');
    library.close();
  });

  it('a failed round write leaves the conversation as it was', async () => {
    const library = await open();
    const chat = await library.createChat({ now: 1 });
    await library.saveChatRound(chat.id, { user: 'one', assistant: 'two', at: 2 });
    await expect(
      library.saveChatRound(chat.id, { user: 'bad', assistant: '', at: NaN }),
    ).rejects.toThrow(/needs a message/);
    expect((await library.getChat(chat.id))!.rounds.map((r) => r.user)).toEqual(['one']);
    library.close();
  });
});
