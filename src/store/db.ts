/**
 * @file Opening the library database: idb's `openDB`, with an injectable `IDBFactory`.
 *
 * idb's `openDB` always uses the global `indexedDB`. Tests need a fresh factory each (fake
 * IndexedDB's `new IDBFactory()`), so this file does what `openDB` does (open request, `upgrade`,
 * `blocked`, `blocking`, `terminated`) against any factory and wraps the result with idb's `wrap`,
 * which gives the same typed, promise-based database object. idb's wrapper recognises objects by
 * the global `IDBRequest`, `IDBDatabase`, ... classes, so in Node load `fake-indexeddb/auto` first.
 */
import { deleteDB, wrap } from 'idb';
import { openError, StoreError } from './errors';
import {
  MIGRATIONS,
  upgradeLibrary,
  type LibraryDb,
  type Migration,
  type UpgradeTransaction,
} from './schema';

export interface OpenLibraryOptions {
  /** The IndexedDB to use; default the global `indexedDB`. Tests pass a fresh fake one. */
  factory?: IDBFactory;
  /**
   * Our upgrade waits because another tab holds an older version open (and did not close it
   * when asked). The open completes by itself once that tab closes or reloads; tell the person.
   */
  onBlocked?: (error: StoreError) => void;
  /**
   * Another tab wants to upgrade or delete the library: this connection has been closed so it
   * can, and every later call on it fails with code 'unavailable'. Tell the person to reload.
   */
  onVersionChange?: (error: StoreError) => void;
  /** The browser closed the connection abnormally (storage cleared, disk error). */
  onTerminated?: (error: StoreError) => void;
  /**
   * Migrations to apply; the database version is their count. Default: every shipped step.
   * Tests and tooling only (open at an older version, or try a future step).
   */
  migrations?: readonly Migration[];
}

/** What happened to a connection the store closed itself. */
export interface ConnectionState {
  closed?: StoreError;
}

/**
 * Open (creating or upgrading as needed) the library database. Rejects with a StoreError:
 * 'unavailable' when IndexedDB is missing or refuses, 'version' when the stored database is
 * newer than `migrations` know.
 */
export async function openLibraryDb(
  name: string,
  options: OpenLibraryOptions = {},
  state: ConnectionState = {},
): Promise<LibraryDb> {
  const migrations = options.migrations ?? MIGRATIONS;
  // The last step's number (branches are assigned numbers ahead of merging, so one may skip).
  const version = migrations.at(-1)?.version ?? 0;
  const factory = options.factory ?? (typeof indexedDB === 'undefined' ? undefined : indexedDB);
  if (!factory) {
    throw new StoreError(
      'unavailable',
      'FragRel store: this browser offers no IndexedDB here, so the library cannot be kept. Private browsing modes and disabled site data do this.',
    );
  }

  let request: IDBOpenDBRequest;
  try {
    request = factory.open(name, version);
  } catch (error) {
    // SecurityError in sandboxed frames or opaque origins.
    throw openError(error, name, version);
  }
  const opened = wrap(request) as Promise<LibraryDb>;

  request.addEventListener('upgradeneeded', (event) => {
    const db = wrap(request.result) as unknown as LibraryDb;
    const tx = wrap(request.transaction as IDBTransaction) as unknown as UpgradeTransaction;
    // An aborted upgrade rejects `done`; the open request reports it, so this one is handled.
    tx.done.catch(() => {});
    const abort = (error: unknown) => {
      console.error('FragRel store: migration failed; the library keeps its old version.', error);
      try {
        tx.abort();
      } catch {
        // Already finished.
      }
    };
    try {
      upgradeLibrary(db, event.oldVersion, event.newVersion ?? version, tx, migrations)?.catch(
        abort,
      );
    } catch (error) {
      abort(error);
    }
  });

  request.addEventListener('blocked', (event) => {
    options.onBlocked?.(
      new StoreError(
        'blocked',
        `FragRel store: the library needs an upgrade (version ${event.oldVersion} to ${event.newVersion ?? version}), but another tab still has it open. Close or reload the other FragRel Lens tabs; this one continues by itself.`,
      ),
    );
  });

  let db: LibraryDb;
  try {
    db = await opened;
  } catch (error) {
    throw openError(error, name, version);
  }

  db.addEventListener('versionchange', (event) => {
    // Close at once so the other tab's upgrade (or delete) is not blocked by us.
    db.close();
    const error = new StoreError(
      'unavailable',
      event.newVersion === null
        ? `FragRel store: the library "${name}" was deleted in another tab. Reload this page.`
        : `FragRel store: another tab upgraded the library "${name}" to a newer version (${event.newVersion}); this tab closed its connection. Reload this page.`,
    );
    state.closed = error;
    options.onVersionChange?.(error);
  });

  db.addEventListener('close', () => {
    const error = new StoreError(
      'unavailable',
      `FragRel store: the browser closed the library "${name}" (site data cleared or a storage failure). Reload this page.`,
    );
    state.closed = error;
    options.onTerminated?.(error);
  });

  return db;
}

/** Delete the whole library database (every document, setting and question). */
export async function deleteLibraryDb(name: string, factory?: IDBFactory): Promise<void> {
  if (!factory) {
    await deleteDB(name);
    return;
  }
  await wrap(factory.deleteDatabase(name));
}
