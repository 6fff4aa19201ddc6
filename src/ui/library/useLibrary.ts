/**
 * @file The library's controller: the documents and which are ticked, the settings they are
 * indexed and ranked with, and the jobs that change them, run one at a time (add a file or a
 * repository, re-index after a settings change, read again in another encoding), removing with
 * an Undo offer, and what other tabs change (tab-sync.ts). The page's shell (App.tsx) draws it;
 * the book view asks questions of the ticked documents.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { DocumentRecord } from '../../store';
import { isAbortError } from '../../workers/protocol';
import type { RetrievalSettings } from '../../workers/retrieval-types';
import { retrievalPreset } from '../../core/retrieval/presets';
import type { RepositoryReportEntry } from '../code/SkipReport';
import type { DroppedFolder } from '../components/DropZone';
import { jobFailureMessage } from '../components/ErrorBoundary';
import type { Job } from '../components/LibraryPanel';
import type { Notice } from '../components/NoticeStack';
import {
  detectOfflineVectors,
  offlineEmbedderId,
  withOfflineVectors,
  type OfflineVectors,
} from '../offline-vectors';
import { defaultIndexSettings, type IndexSettings, type LibraryService } from '../library-service';
import { ImportJournal, journalRepository } from '../storage/import-journal';
import { embedderFallback } from '../storage/embedder-fallback';
import { libraryChanges, useTabSync } from '../sync/tab-sync';
import { followMeasuredPreset, presetRetrievalSettings } from '../presets/PresetPicker';
import type { Services } from './useServices';

/** The book settings measured best (BENCHMARKS.md); the paper's stay one preset away. */
export const defaultRetrievalSettings: Readonly<RetrievalSettings> = Object.freeze(
  presetRetrievalSettings(retrievalPreset('prose', 'measured')),
);

/** How long a removed document can be brought back. */
const UNDO_MS = 15_000;

/**
 * @param onGone Documents that left this view (removed, here or in another tab, or read again
 *   under a new id): whatever shows them is dropped.
 */
export function useLibrary(
  { library, service, retrieval }: Services,
  notify: (kind: Notice['kind'], text: string) => void,
  onGone: (docIds: readonly string[]) => void,
) {
  const [documents, setDocuments] = useState<DocumentRecord[] | null>(null);
  const [ticked, setTicked] = useState<Set<string>>(new Set());
  const [jobs, setJobs] = useState<Job[]>([]);
  const [retrievalSettings, setRetrievalSettings] =
    useState<RetrievalSettings>(defaultRetrievalSettings);
  const [indexSettings, setIndexSettings] = useState<IndexSettings>(defaultIndexSettings);
  // The distilled offline vectors when this build has them, else GloVe (offline-vectors.ts).
  const [offline, setOffline] = useState<OfflineVectors>('glove');
  const indexDefaults = useMemo(
    () => ({ ...defaultIndexSettings, embedderId: offlineEmbedderId(offline) }),
    [offline],
  );
  const [embedded, setEmbedded] = useState(0);
  const [reports, setReports] = useState<RepositoryReportEntry[]>([]);
  const nextReport = useRef(1);
  const queue = useRef<Promise<unknown>>(Promise.resolve());
  // The index settings a job reads when it starts (not when it was queued): a file dropped while
  // the page is still choosing its offline vectors is indexed with the chosen ones, not with the
  // defaults and then re-embedded.
  const indexSettingsNow = useRef(indexSettings);
  useEffect(() => {
    indexSettingsNow.current = indexSettings;
  }, [indexSettings]);

  const journal = useMemo(() => new ImportJournal(), []);

  const refreshDocuments = useCallback(async () => {
    const docs = await service.list();
    setDocuments(docs);
    return docs;
  }, [service]);

  // Another tab changed the library: read it again. A document removed there leaves this view
  // (ticks, the shown result, the retrieval worker's cache) instead of failing the next question.
  useTabSync('library', () => {
    const before = documents ?? [];
    void (async () => {
      const { removed, added } = libraryChanges(before, await refreshDocuments());
      setTicked(
        (t) => new Set([...t].filter((id) => !removed.some((d) => d.id === id)).concat(added)),
      );
      if (removed.length === 0) return;
      const gone = removed.map((d) => d.id);
      await retrieval.call('forget', { docIds: gone });
      onGone(gone);
      notify('info', `Removed in another tab: ${removed.map((d) => `“${d.name}”`).join(', ')}.`);
    })().catch((e: Error) => notify('error', e.message));
  });
  const reloadSettings = () =>
    void library
      .getSettings({ retrieval: defaultRetrievalSettings, index: indexDefaults })
      .then((stored) => {
        setRetrievalSettings({ ...defaultRetrievalSettings, ...stored.retrieval });
        setIndexSettings(withOfflineVectors({ ...indexDefaults, ...stored.index }, offline));
      })
      .catch((e: Error) => notify('error', e.message));
  useTabSync('settings', reloadSettings);

  // Reopening shows the library at once, with the settings it was left with; nothing is recomputed.
  useEffect(() => {
    const loaded = (async () => {
      const found = await detectOfflineVectors();
      setOffline(found);
      const defaults = { ...defaultIndexSettings, embedderId: offlineEmbedderId(found) };
      const stored = await library.getSettings({
        retrieval: defaultRetrievalSettings,
        index: defaults,
      });
      setRetrievalSettings({ ...defaultRetrievalSettings, ...stored.retrieval });
      const index = withOfflineVectors({ ...defaults, ...stored.index }, found);
      indexSettingsNow.current = index;
      setIndexSettings(index);
    })().catch((e: Error) => notify('error', e.message));
    // Jobs (a drop) wait for the settings: they are queued behind their loading.
    queue.current = queue.current.then(() => loaded);
    void loaded
      .then(async () => {
        const docs = await refreshDocuments();
        setTicked(new Set(docs.map((d) => d.id)));
      })
      .catch((e: Error) => notify('error', e.message));
  }, [library, refreshDocuments, notify]);

  /** Run one job at a time (indexing shares two CPU cores with everything else). */
  const runJob = useCallback(
    (
      name: string,
      action: Job['action'],
      work: (signal: AbortSignal, job: Job) => Promise<void>,
    ) => {
      const controller = new AbortController();
      const job: Job = {
        id: crypto.randomUUID(),
        name,
        action,
        progress: null,
        cancel: () => controller.abort(),
      };
      setJobs((j) => [...j, job]);
      const run = async () => {
        try {
          if (controller.signal.aborted) return;
          await work(controller.signal, job);
        } catch (e) {
          // Only the Cancel button makes a cancellation: an AbortError the browser raised (an
          // aborted IndexedDB transaction, a stopped worker) is a failure and is shown as one.
          if (isAbortError(e) && controller.signal.aborted) {
            notify('info', `Cancelled “${name}”. Nothing was stored.`);
          } else notify('error', jobFailureMessage(name, e));
        } finally {
          setJobs((j) => j.filter((x) => x.id !== job.id));
          setEmbedded(service.stats.embeddedFragments);
        }
      };
      queue.current = queue.current.then(run);
      return queue.current;
    },
    [notify, service],
  );

  const progressOf = (job: Job) => (p: Job['progress']) =>
    setJobs((all) => all.map((j) => (j.id === job.id ? { ...j, progress: p } : j)));

  // A dropped repository (.zip or folder): its report is shown, and it opens in the code view.
  const addRepository = useCallback(
    (name: string, source: Parameters<LibraryService['addRepository']>[0]) =>
      void runJob(name, 'add', async (signal, job) => {
        const entry = journalRepository(journal, name, source);
        const outcome = await service
          .addRepository(source, indexSettingsNow.current, {
            signal,
            onProgress: progressOf(job),
          })
          .finally(entry.end);
        setReports((r) => [
          ...r,
          {
            id: nextReport.current++,
            report: outcome.report,
            error: outcome.error,
            timings: outcome.timings,
          },
        ]);
        if (!outcome.document) return;
        await refreshDocuments();
        setTicked(new Set([outcome.document.id]));
      }),
    [runJob, service, refreshDocuments, journal],
  );
  const onFolder = useCallback(
    (folder: DroppedFolder) =>
      addRepository(folder.name, {
        folder: { name: folder.name, entries: folder.entries, skipped: folder.skipped },
      }),
    [addRepository],
  );

  const onFiles = useCallback(
    (files: File[]) => {
      for (const file of files) {
        if (/\.zip$/i.test(file.name)) {
          addRepository(file.name, { zip: file });
          continue;
        }
        void runJob(file.name, 'add', async (signal, job) => {
          // Journalled, so a closed tab or a crash is reported on the next visit.
          const entry = journal.begin(file.name, file.size);
          try {
            const doc = await service.addFile(file, indexSettingsNow.current, {
              signal,
              onProgress: progressOf(job),
            });
            await refreshDocuments();
            setTicked((t) => new Set([...t, doc.id]));
          } finally {
            entry.end();
          }
        });
      }
    },
    [runJob, service, refreshDocuments, addRepository, journal],
  );

  const onIndexSettings = useCallback(
    (chosen: IndexSettings) => {
      const previous = indexSettings;
      // With the measured book preset on, a new embedder brings its own measured preset
      // (MiniLM has one), fragment size included, in the same re-index.
      const followed = followMeasuredPreset(retrievalSettings, previous, chosen);
      const next = followed ? followed.index : chosen;
      if (followed) {
        setRetrievalSettings(followed.retrieval);
        void library
          .setSetting('retrieval', followed.retrieval)
          .catch((e: Error) => notify('error', e.message));
      }
      setIndexSettings(next);
      void library.setSetting('index', next).catch((e: Error) => notify('error', e.message));
      // A new embedder that cannot be loaded (a failed download) takes the selection back to the
      // last one that worked, instead of leaving every question to fail.
      const fallback = embedderFallback(previous, next);
      // Recompute exactly what the change invalidates, document by document.
      for (const doc of documents ?? []) {
        void runJob(doc.name, 'refresh', async (signal, job) => {
          if (fallback.failed) return;
          let changed: boolean;
          try {
            changed = await service.refresh(doc, next, { signal, onProgress: progressOf(job) });
          } catch (e) {
            const back = fallback.onError(e);
            if (!back) throw e;
            setIndexSettings(back.settings);
            void library.setSetting('index', back.settings);
            // The preset that came with the embedder goes back with it.
            if (followed) {
              setRetrievalSettings(retrievalSettings);
              void library.setSetting('retrieval', retrievalSettings);
            }
            throw new Error(back.message);
          }
          if (changed) {
            await retrieval.call('forget', { docIds: [doc.id] });
            await refreshDocuments();
          }
        });
      }
    },
    [
      documents,
      indexSettings,
      library,
      notify,
      refreshDocuments,
      retrieval,
      retrievalSettings,
      runJob,
      service,
    ],
  );

  /** New ranking settings, kept for the next visit. */
  const saveRetrievalSettings = useCallback(
    (next: RetrievalSettings) => {
      setRetrievalSettings(next);
      void library.setSetting('retrieval', next).catch((e: Error) => notify('error', e.message));
    },
    [library, notify],
  );

  // The one hub-host setting (ui/hub/hub-host.ts): embedders, the GGUF catalogue and the
  // evaluation page download from it. Nothing is re-indexed: a host changes no stored index.
  const onHubHost = useCallback(
    (hubHost: string) =>
      setIndexSettings((current) => {
        const next = { ...current, hubHost };
        void library.setSetting('index', next).catch((e: Error) => notify('error', e.message));
        return next;
      }),
    [library, notify],
  );

  // A document read in a guessed encoding, read again in the one the reader chose.
  const onReread = useCallback(
    (doc: DocumentRecord, encoding: string) =>
      void runJob(doc.name, 'add', async (signal, job) => {
        const next = await service.reread(doc, encoding, indexSettings, {
          signal,
          onProgress: progressOf(job),
        });
        await retrieval.call('forget', { docIds: [doc.id] });
        setTicked((t) => new Set([...t].filter((id) => id !== doc.id).concat(next.id)));
        onGone([doc.id]);
        await refreshDocuments();
      }),
    [runJob, service, indexSettings, retrieval, onGone, refreshDocuments],
  );

  // Removing is recoverable: the document leaves the list at once, and is deleted from the
  // store only when the Undo offer runs out (or another document is removed). Closing the page
  // before then keeps it.
  const [removing, setRemoving] = useState<DocumentRecord | null>(null);
  const removal = useRef<{ doc: DocumentRecord; timer: ReturnType<typeof setTimeout> } | null>(
    null,
  );
  const commitRemoval = useCallback(async () => {
    const pending = removal.current;
    if (!pending) return;
    clearTimeout(pending.timer);
    removal.current = null;
    setRemoving(null);
    try {
      await service.remove(pending.doc.id);
      await retrieval.call('forget', { docIds: [pending.doc.id] });
      await refreshDocuments();
    } catch (e) {
      notify('error', (e as Error).message);
    }
  }, [notify, refreshDocuments, retrieval, service]);
  const onDelete = useCallback(
    async (doc: DocumentRecord) => {
      await commitRemoval();
      removal.current = { doc, timer: setTimeout(() => void commitRemoval(), UNDO_MS) };
      setRemoving(doc);
      setTicked((t) => new Set([...t].filter((id) => id !== doc.id)));
      onGone([doc.id]);
    },
    [commitRemoval, onGone],
  );
  const undoRemoval = useCallback(() => {
    const pending = removal.current;
    if (!pending) return;
    clearTimeout(pending.timer);
    removal.current = null;
    setRemoving(null);
    setTicked((t) => new Set([...t, pending.doc.id]));
  }, []);
  useEffect(() => () => clearTimeout(removal.current?.timer), []);

  const onTick = useCallback(
    (id: string, on: boolean) =>
      setTicked((t) => {
        const n = new Set(t);
        if (on) n.add(id);
        else n.delete(id);
        return n;
      }),
    [],
  );
  // Documents carried in from a file: ticked, and the settings read again if it brought some.
  const onImported = (added: string[], settings: boolean) => {
    void refreshDocuments().then(() => setTicked((t) => new Set([...t, ...added])));
    if (settings) reloadSettings();
  };

  return {
    documents,
    /** The documents the list shows: all but one being removed. */
    listed: documents ? documents.filter((d) => d.id !== removing?.id) : null,
    ticked,
    onTick,
    jobs,
    embedded,
    reports,
    dismissReport: (id: number) => setReports((all) => all.filter((x) => x.id !== id)),
    retrievalSettings,
    saveRetrievalSettings,
    indexSettings,
    offline,
    onIndexSettings,
    onHubHost,
    onFiles,
    onFolder,
    onReread,
    onDelete,
    removing,
    undoRemoval,
    onImported,
    journal,
  };
}

export type LibraryController = ReturnType<typeof useLibrary>;
