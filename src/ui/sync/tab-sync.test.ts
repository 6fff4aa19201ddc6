import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { afterEach, describe, expect, it } from 'vitest';
import { openLibrary, type Library } from '../../store';
import {
  announcingWrites,
  createTabSync,
  libraryChanges,
  type SyncMessage,
  type TabSync,
} from './tab-sync';

// Node 20 has BroadcastChannel: two syncs on one channel name stand for two tabs.
const opened: TabSync[] = [];
function tab(name: string): { sync: TabSync; heard: SyncMessage[] } {
  const sync = createTabSync(() => new BroadcastChannel(name));
  opened.push(sync);
  const heard: SyncMessage[] = [];
  sync.subscribe((m) => heard.push(m));
  return { sync, heard };
}
afterEach(() => opened.splice(0).forEach((s) => s.close()));
const settle = () => new Promise((r) => setTimeout(r, 50));

describe('tab sync', () => {
  it('tells the other tabs, not the one that posted, and ignores foreign messages', async () => {
    const a = tab('t1');
    const b = tab('t1');
    a.sync.post('library');
    new BroadcastChannel('t1').postMessage({ topic: '<img onerror=alert(1)>' });
    await settle();
    expect(b.heard).toEqual([{ topic: 'library' }]);
    expect(a.heard).toEqual([]);
  });

  it('announces a store write that succeeded, by the part it changed, and no read', async () => {
    const a = tab('t2');
    const b = tab('t2');
    const library = await openLibrary('sync', { factory: new IDBFactory() });
    const shared = announcingWrites(library, a.sync);
    await shared.setSetting('retrieval', { alpha: 1 });
    const chat = await shared.createChat({});
    await shared.listChats();
    await shared.listDocuments();
    await settle();
    expect(b.heard.map((m) => m.topic)).toEqual(['settings', 'chats']);
    // A failed write is not announced.
    const failing = announcingWrites(
      { deleteDocument: () => Promise.reject(new Error('storage full')) } as unknown as Library,
      a.sync,
    );
    await expect(failing.deleteDocument('x')).rejects.toThrow('storage full');
    await settle();
    expect(b.heard).toHaveLength(2);
    expect((await library.getChat(chat.id))?.id).toBe(chat.id);
    library.close();
  });

  it('finds the documents removed and added between two listings', () => {
    const a = { id: 'a', name: 'A' };
    const b = { id: 'b', name: 'B' };
    const c = { id: 'c', name: 'C' };
    expect(libraryChanges([a, b], [b, c])).toEqual({ removed: [a], added: ['c'] });
    expect(libraryChanges([a], [a])).toEqual({ removed: [], added: [] });
  });
});
