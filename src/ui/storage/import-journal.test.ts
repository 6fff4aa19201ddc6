import { describe, expect, it } from 'vitest';
import { ImportJournal, journalRepository, type JournalPlatform } from './import-journal';

/** localStorage and Web Locks as one browser profile holds them; `closeTab` drops a tab's locks. */
function profile() {
  const items = new Map<string, string>();
  const tabs = new Map<string, Set<string>>();
  const storage = {
    getItem: (k: string) => items.get(k) ?? null,
    setItem: (k: string, v: string) => void items.set(k, v),
  };
  const tab = (name: string): JournalPlatform => {
    const held = new Set<string>();
    tabs.set(name, held);
    const locks = {
      request: ((lock: string, callback: () => Promise<void>) => {
        held.add(lock);
        return callback().then(() => void held.delete(lock));
      }) as unknown as LockManager['request'],
      query: async () => ({
        held: [...tabs.values()].flatMap((s) => [...s].map((n) => ({ name: n }))),
        pending: [],
      }),
    };
    return { storage, locks };
  };
  return { items, tab, closeTab: (name: string) => tabs.get(name)?.clear() };
}

describe('import journal', () => {
  it('reports an import whose tab closed, not one that ended or one another tab is running', async () => {
    const p = profile();
    const first = new ImportJournal(p.tab('a'));
    const done = first.begin('finished.txt', 10);
    first.begin('cut-short.txt', 20, 1000);
    done.end();
    const other = new ImportJournal(p.tab('b'));
    const running = other.begin('running.txt', 30);

    // A tab opened now sees nothing interrupted while both tabs live...
    const fresh = new ImportJournal(p.tab('c'));
    expect(await fresh.interrupted()).toEqual([]);
    // ...and the cut-short import once its tab is gone.
    p.closeTab('a');
    const left = await fresh.interrupted();
    expect(left.map((e) => [e.name, e.bytes, e.startedAt])).toEqual([['cut-short.txt', 20, 1000]]);
    fresh.dismiss(left[0].id);
    expect(await fresh.interrupted()).toEqual([]);
    running.end();
    expect(await fresh.interrupted()).toEqual([]);
  });

  it('survives a journal that is not its own JSON, and works without Web Locks', async () => {
    const p = profile();
    p.items.set('fragrel-lens:import-journal', '{not json');
    const journal = new ImportJournal({ storage: p.tab('a').storage, locks: null });
    expect(await journal.interrupted()).toEqual([]);
    journal.begin('<img src=x onerror=alert(1)>.txt', 1);
    // Without locks every entry counts as interrupted on the next visit (no tab can claim it).
    expect((await journal.interrupted()).map((e) => e.name)).toEqual([
      '<img src=x onerror=alert(1)>.txt',
    ]);
    p.items.set('fragrel-lens:import-journal', JSON.stringify([{ id: 1 }, null, 'x']));
    expect(await journal.interrupted()).toEqual([]);
  });

  it('journals repositories as a zip (with its size) or a folder, and keeps older entries', async () => {
    const p = profile();
    const journal = new ImportJournal(p.tab('a'));
    journalRepository(journal, 'repo.zip', { zip: new Blob(['12345']) });
    journalRepository(journal, 'src', {
      folder: { entries: [{ file: new Blob(['ab']) }, { file: new Blob(['cde']) }] },
    });
    journal.begin('book.txt', 7);
    p.closeTab('a');
    const left = await new ImportJournal(p.tab('b')).interrupted();
    expect(left.map((e) => [e.name, e.bytes, e.kind])).toEqual([
      ['repo.zip', 5, 'zip'],
      // A folder's size is not read on the UI thread (a synchronous stat per file in Chromium).
      ['src', 0, 'folder'],
      ['book.txt', 7, undefined],
    ]);
    // An entry with a kind this code does not know is not offered for Retry.
    const raw = JSON.parse(p.items.get('fragrel-lens:import-journal')!) as object[];
    p.items.set(
      'fragrel-lens:import-journal',
      JSON.stringify([...raw, { id: 'x', name: 'n', bytes: 1, startedAt: 1, kind: 'disk' }]),
    );
    expect((await new ImportJournal(p.tab('c')).interrupted()).map((e) => e.name)).toEqual([
      'repo.zip',
      'src',
      'book.txt',
    ]);
  });
});
