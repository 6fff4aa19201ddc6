/**
 * @file What the UI asks of the library: add files (read, split, embed and relate in the index
 * worker, then store in one transaction), add repositories (a .zip or a folder: read, parse,
 * split into windows, embed, graph, relate, then store in one transaction), bring stored indexes
 * up to date with the index settings (recomputing exactly what depends on a changed setting),
 * and delete.
 *
 * A repository is stored as a document of kind 'code': its files' texts end to end as the
 * source, one section per file (kind 'file', title = path), windows labelled `path:11-30`, the
 * active embedder's vectors and semantic relation as for books, and the code relation (kind
 * 'code', params {threshold, maxPerRow}). The fragment size setting does not apply to it.
 */
import { relationParamsKey, type DocumentRecord, type Library } from '../store';
import { sameRepository } from '../ingest/reindex';
import type { Caller } from '../workers/client';
import type {
  IndexApi,
  IndexRepositoryTimings,
  RepositoryFileSpan,
  RepositoryReport,
  RepositorySource,
  StoreHeldRequest,
} from '../indexing';
import type { Progress } from '../workers/protocol';
import { semanticParams } from '../workers/retrieval-params';
import { codeRelationParams } from '../workers/retrieval-types';
import { embedderSpec, type IndexSettings } from './library/index-settings';

// The index settings have their own file; their callers import them here too.
export {
  defaultIndexSettings,
  EMBEDDER_CHOICES,
  embedderSpec,
  RECOMMENDED_EMBEDDER,
  type IndexSettings,
} from './library/index-settings';

export type Staleness = 'fresh' | 'relation' | 'vectors' | 'fragments' | 'code';

/** What came of adding a repository: the stored document, or why nothing was stored. */
export interface RepositoryOutcome {
  document: DocumentRecord | null;
  /** Files kept and left out (and why), parse problems, graph size. */
  report: RepositoryReport;
  /** A message a person can act on when nothing was stored. */
  error: string | null;
  timings: IndexRepositoryTimings | null;
}

/** The name a dropped repository is stored under (as src/ingest/repo.ts names it). */
export function repositoryName(source: RepositorySource): string {
  return 'zip' in source ? source.zip.name || 'repository.zip' : source.folder.name;
}

/** The files of a stored repository: its sections of kind 'file'. */
export function repositoryFiles(doc: Pick<DocumentRecord, 'sections'>): RepositoryFileSpan[] {
  return doc.sections
    .filter((s) => s.kind === 'file')
    .map((s) => ({ path: s.title, start: s.start, end: s.end }));
}

/**
 * A flag the index worker polls during the code relation's synchronous loop, where a cancel
 * message cannot reach it (needs SharedArrayBuffer, i.e. a cross-origin isolated page).
 */
function cancelFlagFor(signal: AbortSignal): Int32Array | undefined {
  if (typeof SharedArrayBuffer !== 'function') return undefined;
  const flag = new Int32Array(new SharedArrayBuffer(4));
  signal.addEventListener('abort', () => Atomics.store(flag, 0, 1), { once: true });
  return flag;
}

/** A folder's entries per hand-over message to the index worker (see `handOver`). */
export const HANDOVER_SLICE = 300;

export interface JobCallbacks {
  signal: AbortSignal;
  onProgress: (p: Progress) => void;
}

/** Counts of work done this session: the UI shows them, and tests read them. */
export interface SessionStats {
  embeddedFragments: number;
}

export class LibraryService {
  readonly stats: SessionStats = { embeddedFragments: 0 };
  /**
   * The files added in this session, by document id, so a document whose encoding was guessed can
   * be read again in another one. The store keeps the text, not the original bytes.
   */
  private readonly files = new Map<string, File>();

  constructor(
    private readonly library: Library,
    private readonly indexer: Caller<IndexApi>,
    /** Base URL the static embedder's asset is resolved against. */
    private readonly baseUrl: string = globalThis.document?.baseURI ?? '',
    /**
     * Called after the index worker stored a document (the page's library did not write it, so
     * its own announcing of writes to other tabs did not run; App passes the tab sync).
     */
    private readonly announceStored: () => void = () => {},
  ) {}

  /**
   * Store an index the worker holds under `document`, or drop it when anything before the store
   * fails (a duplicate, a cancel): the worker must not keep it.
   */
  private async storeHeld(
    held: number,
    settle: () => Promise<Omit<StoreHeldRequest, 'held' | 'dbName'> | null>,
    job: JobCallbacks,
  ): Promise<DocumentRecord | null> {
    let stored = false;
    try {
      const request = await settle();
      if (!request) return null;
      job.onProgress({ stage: 'save', done: 0, total: 1 });
      const saved = await this.indexer.call(
        'storeHeld',
        { held, dbName: this.library.name, ...request },
        job,
      );
      stored = true;
      job.onProgress({ stage: 'save', done: 1, total: 1 });
      this.announceStored();
      return saved;
    } finally {
      // storeHeld releases the index itself, also when it fails; the rest never reached it.
      if (!stored) void this.indexer.call('dropHeld', { held }).catch(() => undefined);
    }
  }

  /**
   * Read, index and store one file. Resolves with the stored document; rejects with an
   * AbortError when cancelled (nothing stored) or an Error whose message a person can act on.
   */
  async addFile(
    file: File,
    settings: IndexSettings,
    job: JobCallbacks,
    options: { encoding?: string; replaces?: string } = {},
  ): Promise<DocumentRecord> {
    const docId = crypto.randomUUID();
    const spec = embedderSpec(settings, this.baseUrl);
    const r = await this.indexer.call(
      'indexHeld',
      {
        docId,
        source: options.encoding ? { file, encoding: options.encoding } : { file },
        wordsPerFragment: settings.wordsPerFragment,
        semanticK: settings.semanticK,
        embedder: spec,
      },
      job,
    );
    const doc = r.document!;
    const saved = (await this.storeHeld(
      r.held,
      async () => {
        const existing = (await this.library.listDocuments()).find(
          (d) => d.sha256 === doc.sha256 && d.name === doc.name && d.id !== options.replaces,
        );
        if (existing) {
          throw new Error(`“${doc.name}” is already in the library; it was not added twice.`);
        }
        this.stats.embeddedFragments += r.fragmentCount;
        return {
          document: {
            id: docId,
            name: doc.name,
            format: doc.format,
            kind: doc.kind,
            bytes: doc.bytes,
            sha256: doc.sha256,
            encoding: doc.encoding,
            ...(doc.encodingGuessed ? { encodingGuessed: true } : {}),
            ...(doc.title ? { title: doc.title } : {}),
            addedAt: Date.now(),
            status: 'indexed',
            fragmentOptions: fragmentOptionsOf(settings),
            embedderId: r.embedderId,
            sections: doc.sections,
          },
          semanticParams: semanticParams(r.embedderId, settings.semanticK),
        };
      },
      job,
    ))!;
    this.files.set(saved.id, file);
    // A re-read replaces the old record only once the new one is stored.
    if (options.replaces) {
      await this.library.deleteDocument(options.replaces);
      this.files.delete(options.replaces);
    }
    return saved;
  }

  /** Whether `reread` can read this document's file again (it was added in this session). */
  canReread(docId: string): boolean {
    return this.files.has(docId);
  }

  /**
   * Read a document's file again in the encoding the reader chose, index it, and replace the old
   * record with it (the old one stays if anything fails). Resolves with the new record.
   */
  async reread(
    doc: DocumentRecord,
    encoding: string,
    settings: IndexSettings,
    job: JobCallbacks,
  ): Promise<DocumentRecord> {
    const file = this.files.get(doc.id);
    if (!file) {
      throw new Error(
        `“${doc.name}” was added before this page was opened; drop the file again to read it in another encoding.`,
      );
    }
    return this.addFile(file, settings, job, { encoding, replaces: doc.id });
  }

  /**
   * Read, parse, index and store a dropped repository (a .zip or a folder). Resolves with the
   * stored document and the report of what was left out, or with an error and the report (a
   * broken zip, nothing to index, a repository already in the library): nothing is stored then.
   * Rejects with an AbortError when cancelled (nothing stored).
   */
  async addRepository(
    source: RepositorySource,
    settings: IndexSettings,
    job: JobCallbacks,
  ): Promise<RepositoryOutcome> {
    // A repository of this name already in the library is re-indexed in place, reusing its
    // parses and vectors where the content did not change (src/ingest/reindex.ts).
    const earlier = (await this.library.listDocuments()).find(
      (d) => d.kind === 'code' && d.name === repositoryName(source),
    );
    const docId = crypto.randomUUID();
    const { handed, staged } = await this.handOver(source, job);
    const r = await this.indexer
      .call(
        'indexRepositoryHeld',
        {
          docId,
          source: handed,
          semanticK: settings.semanticK,
          embedder: embedderSpec(settings, this.baseUrl),
          cancelFlag: cancelFlagFor(job.signal),
          // The worker reads the earlier index itself: the page never holds it.
          ...(earlier
            ? {
                previousFrom: {
                  dbName: this.library.name,
                  docId: earlier.id,
                  embedderId: settings.embedderId,
                },
              }
            : {}),
        },
        job,
      )
      .catch((error: unknown) => {
        // Cancelled before the worker took the staged entries in: let them go.
        if (staged !== undefined) void this.indexer.call('dropStaged', { staged }).catch(() => {});
        throw error;
      });
    if (!r.ok) return { document: null, report: r.report, error: r.error.message, timings: null };
    const doc = r.document;
    // Another repository that shares only the name is added beside it. What was reused is still
    // right (reuse goes by content), but the report must not say "updated".
    const replaces =
      earlier && sameRepository(repositoryFiles(earlier), doc.files) ? earlier : null;
    const report = replaces ? r.report : { ...r.report, reuse: undefined };
    const saved = await this.storeHeld(
      r.held,
      async () => {
        const existing = (await this.library.listDocuments()).find(
          (d) => d.sha256 === doc.sha256 && d.name === doc.name,
        );
        if (existing) return null;
        this.stats.embeddedFragments += r.report.reuse?.windowsEmbedded ?? r.fragmentCount;
        // Same id: the store replaces the earlier version's whole index in one transaction.
        return {
          document: {
            id: replaces?.id ?? docId,
            name: doc.name,
            format: doc.format,
            kind: 'code',
            bytes: doc.bytes,
            sha256: doc.sha256,
            addedAt: replaces?.addedAt ?? Date.now(),
            status: 'indexed',
            fragmentOptions: fragmentOptionsOf(settings),
            embedderId: r.embedderId,
            sections: doc.files.map((f) => ({
              title: f.path,
              start: f.start,
              end: f.end,
              kind: 'file',
            })),
          },
          semanticParams: semanticParams(r.embedderId, settings.semanticK),
          codeParams: codeRelationParams(r.codeParams),
        };
      },
      job,
    );
    if (!saved) {
      return {
        document: null,
        report: r.report,
        error: `“${doc.name}” is already in the library; it was not added twice.`,
        timings: r.timings,
      };
    }
    return { document: saved, report, error: null, timings: r.timings };
  }

  /**
   * A large folder's entries handed to the index worker in slices before the index call: in
   * Chromium a File takes about 0.3 ms to clone into a message, so 100,000 of them in the call
   * itself froze the page for 30 s (docs/scale.md, section 12). Each slice is one message of
   * about 0.1 s, and the page handles input between them. Small folders and zips go as they are.
   */
  private async handOver(
    source: RepositorySource,
    job: JobCallbacks,
  ): Promise<{ handed: RepositorySource; staged?: number }> {
    if (!('folder' in source) || source.folder.entries.length <= HANDOVER_SLICE) {
      return { handed: source };
    }
    const { entries } = source.folder;
    let staged: number | undefined;
    try {
      for (let i = 0; i < entries.length; i += HANDOVER_SLICE) {
        job.onProgress({ stage: 'handover', done: i, total: entries.length });
        const slice = entries.slice(i, i + HANDOVER_SLICE);
        const r = await this.indexer.call(
          'stageFolder',
          staged === undefined ? { entries: slice } : { staged, entries: slice },
          { signal: job.signal },
        );
        staged = r.staged;
      }
    } catch (error) {
      if (staged !== undefined) void this.indexer.call('dropStaged', { staged }).catch(() => {});
      throw error;
    }
    job.onProgress({ stage: 'handover', done: entries.length, total: entries.length });
    return { handed: { folder: { ...source.folder, entries: [], staged } }, staged };
  }

  /**
   * What a stored document lacks under `settings`, and so what must be recomputed: nothing; its
   * semantic relation (k changed); its vectors and relation (embedder changed); everything
   * (fragment size changed; never for a repository, whose windows are fixed at 20 lines); or a
   * repository's code relation (stored under other parameters).
   */
  async staleness(doc: DocumentRecord, settings: IndexSettings): Promise<Staleness> {
    if (doc.kind !== 'code' && doc.fragmentOptions.wordsPerFragment !== settings.wordsPerFragment)
      return 'fragments';
    const parts = await this.library.listIndexParts(doc.id);
    if (doc.kind === 'code') {
      const key = relationParamsKey(codeRelationParams());
      if (!parts.relations.some((r) => r.kind === 'code' && r.paramsKey === key)) return 'code';
    }
    if (!parts.embedderIds.includes(settings.embedderId)) return 'vectors';
    const key = relationParamsKey(semanticParams(settings.embedderId, settings.semanticK));
    const hasSemantic = parts.relations.some((r) => r.kind === 'semantic' && r.paramsKey === key);
    return hasSemantic ? 'fresh' : 'relation';
  }

  /** Bring one stored document up to date, recomputing exactly what `staleness` names. */
  async refresh(doc: DocumentRecord, settings: IndexSettings, job: JobCallbacks): Promise<boolean> {
    const stale = await this.staleness(doc, settings);
    if (stale === 'fresh') return false;
    const source = await this.library.getSource(doc.id);
    if (source === undefined)
      throw new Error(`The text of “${doc.name}” is missing; remove it and add it again.`);
    const spec = embedderSpec(settings, this.baseUrl);
    if (stale === 'code') {
      const r = await this.indexer.call(
        'relateCode',
        { text: source, files: repositoryFiles(doc), cancelFlag: cancelFlagFor(job.signal) },
        job,
      );
      await this.library.putRelation({
        docId: doc.id,
        kind: 'code',
        params: codeRelationParams(r.codeParams),
        matrix: r.code,
        references: r.codeReferences,
        scopes: r.codeScopes,
      });
      // The vectors or the semantic relation may be stale too.
      await this.refresh(doc, settings, job);
      return true;
    }
    if (stale === 'fragments') {
      const r = await this.indexer.call(
        'indexHeld',
        {
          docId: doc.id,
          source: { text: source, sections: doc.sections },
          wordsPerFragment: settings.wordsPerFragment,
          semanticK: settings.semanticK,
          embedder: spec,
        },
        job,
      );
      this.stats.embeddedFragments += r.fragmentCount;
      const { fragmentCount: _c, storedBytes: _b, ...meta } = doc;
      await this.storeHeld(
        r.held,
        () =>
          Promise.resolve({
            document: {
              ...meta,
              fragmentOptions: fragmentOptionsOf(settings),
              embedderId: r.embedderId,
            },
            semanticParams: semanticParams(r.embedderId, settings.semanticK),
          }),
        job,
      );
      return true;
    }
    if (stale === 'relation') {
      const stored = await this.library.getVectors(doc.id, settings.embedderId);
      if (!stored)
        throw new Error(`The vectors of “${doc.name}” are missing; remove it and add it again.`);
      const r = await this.indexer.call(
        'relate',
        { vectors: stored.vectors, semanticK: settings.semanticK },
        job,
      );
      await this.library.putRelation({
        docId: doc.id,
        kind: 'semantic',
        params: semanticParams(settings.embedderId, settings.semanticK),
        matrix: r.semantic,
      });
      return true;
    }
    const fragments = await this.library.getFragments(doc.id);
    if (!fragments)
      throw new Error(`The fragments of “${doc.name}” are missing; remove it and add it again.`);
    const r = await this.indexer.call(
      'embed',
      {
        text: source,
        starts: fragments.starts,
        ends: fragments.ends,
        semanticK: settings.semanticK,
        embedder: spec,
      },
      job,
    );
    this.stats.embeddedFragments += r.vectors.count;
    await this.library.putVectors({
      docId: doc.id,
      embedderId: r.embedderId,
      vectors: r.vectors,
      fragmentOptions: doc.fragmentOptions,
    });
    await this.library.putRelation({
      docId: doc.id,
      kind: 'semantic',
      params: semanticParams(r.embedderId, settings.semanticK),
      matrix: r.semantic,
    });
    await this.library.updateDocument(doc.id, { embedderId: r.embedderId });
    return true;
  }

  remove(id: string): Promise<boolean> {
    return this.library.deleteDocument(id);
  }

  list(): Promise<DocumentRecord[]> {
    return this.library.listDocuments();
  }

  source(id: string): Promise<string | undefined> {
    return this.library.getSource(id);
  }
}

function fragmentOptionsOf(settings: IndexSettings) {
  return { wordsPerFragment: settings.wordsPerFragment, windowLines: 20, windowStride: 10 };
}
