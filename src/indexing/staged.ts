/**
 * @file Folder entries handed to the index worker in slices before indexing begins: a large
 * folder's files cross a few hundred at a time (`stageFolder`), so the page never spends seconds
 * in one postMessage cloning 100,000 File objects. The indexing request then names its staged set
 * (`folder.staged`), which is taken in and released.
 */
import type { FolderEntry } from '../ingest/repo';
import type { IndexRepositoryRequest } from './types';

const GONE = 'The folder handed to the indexer is gone; add it again.';

export class StagedFolders {
  private next = 1;
  private readonly staged = new Map<number, FolderEntry[]>();

  /** Add a slice of entries; the first (no `staged`) starts a new set. */
  add(req: { staged?: number; entries: FolderEntry[] }): { staged: number; count: number } {
    if (req.staged !== undefined && !this.staged.has(req.staged)) throw new Error(GONE);
    const key = req.staged ?? this.next++;
    const list = this.staged.get(key) ?? [];
    for (const e of req.entries) list.push(e);
    this.staged.set(key, list);
    return { staged: key, count: list.length };
  }

  drop(key: number): void {
    this.staged.delete(key);
  }

  /** The request with any staged entries of its folder taken in (and released here). */
  takeInto(req: IndexRepositoryRequest): IndexRepositoryRequest {
    if (!('folder' in req.source) || req.source.folder.staged === undefined) return req;
    const { staged: key, ...folder } = req.source.folder;
    const earlier = this.staged.get(key);
    this.staged.delete(key);
    if (!earlier) throw new Error(GONE);
    return { ...req, source: { folder: { ...folder, entries: [...earlier, ...folder.entries] } } };
  }
}
