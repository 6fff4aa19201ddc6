/**
 * @file A journal of imports in progress, so one cut short by a closed tab or a crash is
 * reported on the next visit (such an import "vanishes without a word on reopen").
 *
 * An entry is written when an import starts and removed when it ends in any way the page sees
 * (stored, failed with its message, cancelled). What is left was cut short. Another tab may be
 * importing right now, so "left" means: no tab holds the entry's Web Lock. A tab holds the lock
 * for as long as the import runs, and the browser releases it when the tab closes or crashes,
 * which is exactly the signal needed (no heartbeats or timeouts).
 *
 * localStorage rather than IndexedDB: an entry is a few bytes, must be written before the import
 * starts (synchronously), and must survive a quota-full IndexedDB, the very failure it reports.
 * The save itself is one IndexedDB transaction, so an interrupted import stored nothing.
 */

/** What was being imported: a file (a book), or a repository as a .zip or a folder. */
export type ImportKind = 'file' | 'zip' | 'folder';

export interface JournalEntry {
  id: string;
  name: string;
  /** The file's or zip's size; 0 for a folder (see journalRepository). */
  bytes: number;
  /** ms since the epoch. */
  startedAt: number;
  /** Absent in entries written before repositories were journalled: a file. */
  kind?: ImportKind;
}

const KINDS: readonly ImportKind[] = ['file', 'zip', 'folder'];

const KEY = 'fragrel-lens:import-journal';
const LOCK_PREFIX = 'fragrel-lens:import:';

/** The parts of the platform the journal uses, so tests can give their own. */
export interface JournalPlatform {
  storage: Pick<Storage, 'getItem' | 'setItem'>;
  locks: Pick<LockManager, 'request' | 'query'> | null;
}

function browserPlatform(): JournalPlatform {
  return {
    storage: globalThis.localStorage,
    locks: typeof navigator !== 'undefined' && navigator.locks ? navigator.locks : null,
  };
}

export class ImportJournal {
  constructor(private readonly platform: JournalPlatform = browserPlatform()) {}

  private read(): JournalEntry[] {
    try {
      const raw: unknown = JSON.parse(this.platform.storage.getItem(KEY) ?? '[]');
      if (!Array.isArray(raw)) return [];
      return raw.filter(
        (e): e is JournalEntry =>
          typeof e === 'object' &&
          e !== null &&
          typeof (e as JournalEntry).id === 'string' &&
          typeof (e as JournalEntry).name === 'string' &&
          typeof (e as JournalEntry).bytes === 'number' &&
          typeof (e as JournalEntry).startedAt === 'number' &&
          ((e as JournalEntry).kind === undefined || KINDS.includes((e as JournalEntry).kind!)),
      );
    } catch {
      // A journal that does not parse reports nothing rather than breaking the page.
      return [];
    }
  }

  private write(entries: JournalEntry[]): void {
    try {
      this.platform.storage.setItem(KEY, JSON.stringify(entries));
    } catch {
      // Storage full or disabled: the import goes on, only its crash report is lost.
    }
  }

  /** Note an import that starts now; call `end` when it ends in any way the page sees. */
  begin(
    name: string,
    bytes: number,
    now = Date.now(),
    kind: ImportKind = 'file',
  ): { id: string; end: () => void } {
    const entry: JournalEntry = {
      id: crypto.randomUUID(),
      name,
      bytes,
      startedAt: now,
      ...(kind !== 'file' ? { kind } : {}),
    };
    this.write([...this.read(), entry]);
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    void this.platform.locks?.request(LOCK_PREFIX + entry.id, () => held);
    return {
      id: entry.id,
      end: () => {
        this.dismiss(entry.id);
        release();
      },
    };
  }

  /** Entries no tab is working on: imports a closed tab or a crash cut short. */
  async interrupted(): Promise<JournalEntry[]> {
    const entries = this.read();
    if (entries.length === 0) return [];
    const locks = this.platform.locks;
    if (!locks) return entries;
    const state = await locks.query();
    const held = new Set([...(state.held ?? []), ...(state.pending ?? [])].map((l) => l.name));
    return entries.filter((e) => !held.has(LOCK_PREFIX + e.id));
  }

  /** Forget an entry (reported, retried, or found stored after all). */
  dismiss(id: string): void {
    this.write(this.read().filter((e) => e.id !== id));
  }
}

/**
 * Journal a repository import (a .zip or a folder) under its name and size; a folder's size is
 * journalled as 0. Summing it here read every picked file's size on the UI thread, and Chromium
 * answers each with a synchronous look at the disk: about 0.37 ms a file, 30 s for a folder of
 * 100,000 before its job even showed (docs/scale.md section 12). Nothing shows a folder's size.
 */
export function journalRepository(
  journal: ImportJournal,
  name: string,
  source: { zip: Blob } | { folder: { entries: readonly { file: Blob }[] } },
): { id: string; end: () => void } {
  if ('zip' in source) return journal.begin(name, source.zip.size, Date.now(), 'zip');
  return journal.begin(name, 0, Date.now(), 'folder');
}
