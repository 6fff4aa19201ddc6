import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import {
  openLibrary,
  requestPersistentStorage,
  type CitationRecord,
  type DocumentRecord,
  type Library,
} from '../store';
import { WorkerClient } from '../workers/client';
import type { IndexApi } from '../indexing';
import { isAbortError } from '../workers/protocol';
import type { RetrievalApi } from '../workers/retrieval.worker';
import { ExplainRoute } from '../workers/explain-route';
import type { RetrievalResult, RetrievalSettings } from '../workers/retrieval-types';
import { retrievalPreset } from '../core/retrieval/presets';
import { CodeView } from './code/CodeView';
import { SkipReport, type RepositoryReportEntry } from './code/SkipReport';
import { Controls } from './components/Controls';
import { DocumentStrip } from './components/DocumentStrip';
import { DropZone, type DroppedFolder } from './components/DropZone';
import { ErrorBoundary, jobFailureMessage, useGlobalFailures } from './components/ErrorBoundary';
import { ExplanationView } from './components/ExplanationView';
import { LibraryPanel, type Job } from './components/LibraryPanel';
import { RankedList } from './components/RankedList';
import { ThemeSwitch } from './components/ThemeSwitch';
import { LibraryDrawer } from './layout/LibraryDrawer';
import { NoticeStack, type Notice } from './components/NoticeStack';
import { FindInBook, findInRun } from './components/FindInBook';
import { HistoryPanel } from './history/HistoryPanel';
import { Reader } from './components/Reader';
import { budgetLine } from '../core/why/reasons';
import { AnswerPanel } from './answer/AnswerPanel';
import { PipelinesPanel } from './pipelines/PipelinesPanel';
import { ComparePanel } from './compare/ComparePanel';
import { libraryPipelineMemory } from './qrmem/memory';
import { EngineProvider } from './answer/useEngine';
import { ChatView } from './chat/ChatView';
import { ViewSwitch, type MainView } from './chat/ViewSwitch';
import {
  detectOfflineVectors,
  embedderChoicesFor,
  offlineEmbedderId,
  withOfflineVectors,
  offlineVectorsNote,
  type OfflineVectors,
} from './offline-vectors';
import {
  EMBEDDER_CHOICES,
  LibraryService,
  defaultIndexSettings,
  embedderSpec,
  type IndexSettings,
} from './library-service';
import { CarryPanel } from './carry/CarryPanel';
import { ExportDocument } from './carry/ExportDocument';
import { EncodingChoice } from './scripts/EncodingChoice';
import { ImportJournal, journalRepository } from './storage/import-journal';
import { InterruptedImports } from './storage/InterruptedImports';
import { StoragePanel } from './storage/StoragePanel';
import { UpdateNotice } from './offline/UpdateNotice';
import { embedderFallback } from './storage/embedder-fallback';
import { announcingWrites, libraryChanges, tabSync, useTabSync } from './sync/tab-sync';
import { ScoringNotice } from './scripts/ScoringNotice';
import { TunePanel } from './tune/TunePanel';
import { followMeasuredPreset, presetRetrievalSettings } from './presets/PresetPicker';
import { countOf, formatCount } from './format/numbers';

/** The book settings measured best (BENCHMARKS.md); the paper's stay one preset away. */
export const defaultRetrievalSettings: Readonly<RetrievalSettings> = Object.freeze(
  presetRetrievalSettings(retrievalPreset('prose', 'measured')),
);

/** How long a removed document can be brought back. */
const UNDO_MS = 15_000;

const ACCEPT = '.txt,.md,.markdown,.html,.htm,.xhtml,.epub,.pdf,.zip';

interface Services {
  library: Library;
  service: LibraryService;
  retrieval: ExplainRoute;
}

type Boot =
  | { status: 'loading' }
  | { status: 'ready'; services: Services; workers: string }
  | { status: 'failed'; message: string };

function useServices(onNotice: (kind: Notice['kind'], text: string) => void): Boot {
  const [boot, setBoot] = useState<Boot>({ status: 'loading' });
  useEffect(() => {
    let closed = false;
    const indexer = new WorkerClient<IndexApi>(
      new Worker(new URL('../workers/index.worker.ts', import.meta.url), { type: 'module' }),
    );
    const retrievalWorker = () =>
      new WorkerClient<RetrievalApi>(
        new Worker(new URL('../workers/retrieval.worker.ts', import.meta.url), { type: 'module' }),
      );
    // Windows' graph neighbourhoods in a second retrieval worker (explain-route.ts).
    const retrieval = new ExplainRoute(retrievalWorker(), retrievalWorker);
    let library: Library | null = null;
    const report = (e: { message: string }) => onNotice('error', e.message);
    openLibrary(undefined, { onBlocked: report, onVersionChange: report, onTerminated: report })
      .then(async (opened) => {
        library = opened;
        if (closed) return opened.close();
        // Every write tells the other tabs of this library what changed.
        const lib = announcingWrites(opened);
        void requestPersistentStorage();
        const ping = await retrieval.call('ping', null);
        setBoot({
          status: 'ready',
          services: {
            library: lib,
            service: new LibraryService(lib, indexer, undefined, () => tabSync().post('library')),
            retrieval,
          },
          workers: `Workers ready${ping.crossOriginIsolated ? ' (cross-origin isolated)' : ''}`,
        });
      })
      .catch((e: Error) => setBoot({ status: 'failed', message: e.message }));
    return () => {
      closed = true;
      indexer.terminate();
      retrieval.terminate();
      library?.close();
    };
  }, [onNotice]);
  return boot;
}

export function App() {
  const [notices, setNotices] = useState<Notice[]>([]);
  const nextNotice = useRef(1);
  const notify = useCallback((kind: Notice['kind'], text: string) => {
    setNotices((n) => [...n, { id: nextNotice.current++, kind, text }]);
  }, []);
  const boot = useServices(notify);
  useGlobalFailures(useCallback((text: string) => notify('error', text), [notify]));

  return (
    <div className="layout">
      {boot.status === 'ready' ? (
        <ErrorBoundary>
          <Workspace
            services={boot.services}
            workers={boot.workers}
            notices={notices}
            setNotices={setNotices}
            notify={notify}
          />
        </ErrorBoundary>
      ) : (
        <>
          <aside className="sidebar">
            <h1>FragRel Lens</h1>
          </aside>
          <main className="main">
            <p role="status" data-testid="boot-status">
              {boot.status === 'loading'
                ? 'Opening your library…'
                : `The library could not be opened: ${boot.message}`}
            </p>
          </main>
        </>
      )}
    </div>
  );
}

function Workspace({
  services,
  workers,
  notices,
  setNotices,
  notify,
}: {
  services: Services;
  workers: string;
  notices: Notice[];
  setNotices: React.Dispatch<React.SetStateAction<Notice[]>>;
  notify: (kind: Notice['kind'], text: string) => void;
}) {
  const { library, service, retrieval } = services;
  const pipelineMemory = useMemo(() => libraryPipelineMemory(library), [library]);
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
  const [question, setQuestion] = useState('');
  const [asked, setAsked] = useState<string | null>(null);
  const [result, setResult] = useState<RetrievalResult | null>(null);
  const [busy, setBusy] = useState(false);
  const [focused, setFocused] = useState<number | null>(null);
  const [sources, setSources] = useState<Map<string, string>>(new Map());
  const [embedded, setEmbedded] = useState(0);
  const [view, setView] = useState<MainView>('ask');
  const [reports, setReports] = useState<RepositoryReportEntry[]>([]);
  // Answer first: each Ask is numbered so the answer panel answers it once.
  const [askSeq, setAskSeq] = useState(0);
  // The citation that opened the reader: its claim, and a counter to scroll on every click.
  const [citation, setCitation] = useState<{ claim: string; seq: number } | null>(null);
  // The question history: the record id of each question asked this session, by its text.
  const [historyVersion, setHistoryVersion] = useState(0);
  const questionIds = useRef(new Map<string, string>());
  const nextReport = useRef(1);
  const queue = useRef<Promise<unknown>>(Promise.resolve());
  // The index settings a job reads when it starts (not when it was queued): a file dropped while
  // the page is still choosing its offline vectors is indexed with the chosen ones, not with the
  // defaults and then re-embedded.
  const indexSettingsNow = useRef(indexSettings);
  useEffect(() => {
    indexSettingsNow.current = indexSettings;
  }, [indexSettings]);
  const queryAbort = useRef<AbortController | null>(null);

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
      setResult((r) => (r?.documents.some((d) => gone.includes(d.docId)) ? null : r));
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
        if (result?.documents.some((d) => d.docId === doc.id)) setResult(null);
        await refreshDocuments();
      }),
    [runJob, service, indexSettings, retrieval, result, refreshDocuments],
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
      if (result?.documents.some((d) => d.docId === doc.id)) setResult(null);
    },
    [commitRemoval, result],
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

  const runQuery = useCallback(
    async (q: string, settings: RetrievalSettings, asking = false) => {
      queryAbort.current?.abort();
      const controller = new AbortController();
      queryAbort.current = controller;
      const docIds = (documents ?? []).filter((d) => ticked.has(d.id)).map((d) => d.id);
      setBusy(true);
      try {
        const r = await retrieval.call(
          'query',
          {
            question: q,
            docIds,
            embedder: embedderSpec(indexSettings),
            semanticK: indexSettings.semanticK,
            settings,
          },
          { signal: controller.signal },
        );
        setResult(r);
        // A new question (not a re-rank): the answer panel may answer it at once, and the
        // history keeps it with the settings it was asked with.
        if (asking) {
          setAskSeq((n) => n + 1);
          const selected = Array.from(r.selected, (i) => {
            const d = r.documents.find((x) => i >= x.offset && i < x.offset + x.count)!;
            return { docId: d.docId, ordinal: i - d.offset };
          });
          void library
            .addQuestion({ question: q, docIds, selected, settings: { ...settings } })
            .then((record) => {
              questionIds.current.set(q, record.id);
              setHistoryVersion((v) => v + 1);
            })
            .catch((e: Error) => notify('error', e.message));
        }
        setFocused((f) =>
          f !== null && f < r.final.length ? f : (r.selectedRanked[0] ?? r.top[0] ?? null),
        );
        for (const d of r.documents) {
          if (!sources.has(d.docId)) {
            const text = await service.source(d.docId);
            if (text !== undefined) setSources((s) => new Map(s).set(d.docId, text));
          }
        }
      } catch (e) {
        if (!isAbortError(e)) notify('error', (e as Error).message);
      } finally {
        if (queryAbort.current === controller) setBusy(false);
      }
    },
    [documents, indexSettings, library, notify, retrieval, service, sources, ticked],
  );

  const ask = (e: React.FormEvent) => {
    e.preventDefault();
    const q = question.trim();
    if (!q) return;
    setAsked(q);
    setFocused(null);
    setCitation(null);
    void runQuery(q, retrievalSettings, true);
  };
  // Picking a fragment from the strip, the list or the reader drops the citation's marks.
  const pick = useCallback((index: number) => {
    setFocused(index);
    setCitation(null);
  }, []);
  const onAnswered = useCallback(
    (a: { question: string; text: string; citations: CitationRecord[]; engine: string }) => {
      const id = questionIds.current.get(a.question);
      const stored = id
        ? library.setQuestionAnswer(id, a.text, { citations: a.citations, engine: a.engine })
        : library.addQuestion({
            question: a.question,
            docIds: [...new Set(a.citations.map((c) => c.docId))],
            selected: [],
            answer: a.text,
            citations: a.citations,
            engine: a.engine,
          });
      void Promise.resolve(stored)
        .then(() => setHistoryVersion((v) => v + 1))
        .catch((e: Error) => notify('error', e.message));
    },
    [library, notify],
  );
  const onCite = useCallback((index: number, claim?: string) => {
    setFocused(index);
    setCitation((c) => ({ claim: claim ?? '', seq: (c?.seq ?? 0) + 1 }));
  }, []);

  // alpha, w_rel, relation kinds, scoring and budget re-rank the asked question at once.
  const onRetrievalSettings = (next: RetrievalSettings) => {
    setRetrievalSettings(next);
    void library.setSetting('retrieval', next).catch((e: Error) => notify('error', e.message));
    if (asked) void runQuery(asked, next);
  };

  const selected = useMemo(() => new Set(result?.selected ?? []), [result]);
  const [findPhrase, setFindPhrase] = useState('');
  const found = useMemo(
    () => (result ? findInRun(result, sources, findPhrase) : { hits: [], matches: 0 }),
    [result, sources, findPhrase],
  );
  const findHits = useMemo(() => new Set(found.hits), [found]);
  const line = useMemo(
    () => (result ? budgetLine(result.final, result.selected, result.excluded) : null),
    [result],
  );
  // Dense scores of a book sit in a narrow band (GloVe cosines near 0.5): draw the band, not 0..1.
  const scale = useMemo(() => {
    if (!result) return { low: 0, high: 1 };
    let low = Infinity;
    let high = -Infinity;
    for (const a of [result.independent, result.environment, result.final]) {
      for (const v of a) {
        if (v < low) low = v;
        if (v > high) high = v;
      }
    }
    return { low: Math.min(low, high), high };
  }, [result]);
  const tickedCount = (documents ?? []).filter((d) => ticked.has(d.id)).length;
  const kindOf = useCallback(
    (docId: string) => documents?.find((d) => d.id === docId)?.kind ?? 'prose',
    [documents],
  );
  // Every ticked document a repository: the code view takes the Ask view's place.
  const tickedCode = useMemo(
    () => (documents ?? []).filter((d) => ticked.has(d.id) && d.kind === 'code'),
    [documents, ticked],
  );
  const codeMode = tickedCode.length > 0 && tickedCode.length === tickedCount;
  const onHistoryError = useCallback((message: string) => notify('error', message), [notify]);
  const onCodeError = useCallback((message: string) => notify('error', message), [notify]);
  const codeSource = useCallback((id: string) => service.source(id), [service]);

  return (
    <EngineProvider library={library} hub={{ host: indexSettings.hubHost, onChange: onHubHost }}>
      <LibraryDrawer
        title="FragRel Lens"
        documents={documents ? documents.filter((d) => d.id !== removing?.id).length : null}
      >
        <DropZone onFiles={onFiles} onFolder={onFolder} accept={ACCEPT} />
        {documents === null ? (
          <p role="status">Opening your library…</p>
        ) : (
          <LibraryPanel
            documents={documents.filter((d) => d.id !== removing?.id)}
            jobs={jobs}
            ticked={ticked}
            onTick={(id, on) =>
              setTicked((t) => {
                const n = new Set(t);
                if (on) n.add(id);
                else n.delete(id);
                return n;
              })
            }
            onDelete={onDelete}
            extra={(doc) => (
              <>
                <EncodingChoice
                  doc={doc}
                  canReread={service.canReread(doc.id)}
                  onReread={(encoding) => onReread(doc, encoding)}
                />
                <ExportDocument library={library} doc={doc} notify={notify} />
              </>
            )}
          />
        )}
        <CarryPanel
          library={library}
          notify={notify}
          onImported={(added, settings) => {
            void refreshDocuments().then(() => setTicked((t) => new Set([...t, ...added])));
            if (settings) reloadSettings();
          }}
        />
        <StoragePanel library={library} documents={documents} />
        <UpdateNotice />
        <p className="stats" data-testid="session-stats" data-embedded={embedded}>
          This session: {countOf(embedded, 'fragment')} embedded.
        </p>
        <p className="stats" data-testid="worker-status">
          {workers}
        </p>
        <p className="stats">
          <a href="./models.html">Check an embedding model</a>
        </p>
        <p className="stats">
          <a href="./evaluate.html">Evaluate retrieval on a benchmark</a>
        </p>
        <HistoryPanel
          library={library}
          version={historyVersion}
          onAsk={(q) => setQuestion(q)}
          onError={onHistoryError}
        />
        <ThemeSwitch />
      </LibraryDrawer>
      <main className="main" data-view={view}>
        <ViewSwitch view={view} onView={setView} />
        <div aria-live="polite">
          {removing && (
            <div className="notice notice--info" role="status" data-testid="undo-remove">
              Removed “{removing.name}” from the library.{' '}
              <button type="button" onClick={undoRemoval}>
                Undo
              </button>
            </div>
          )}
          <NoticeStack
            notices={notices}
            onDismiss={(ids) => setNotices((all) => all.filter((x) => !ids.includes(x.id)))}
          />
        </div>
        <InterruptedImports
          journal={journal}
          documents={documents}
          onFiles={onFiles}
          onFolder={onFolder}
        />
        <ChatView
          active={view === 'chat'}
          library={library}
          retrieval={retrieval}
          documents={documents ?? []}
          ticked={ticked}
          indexSettings={indexSettings}
          retrievalSettings={retrievalSettings}
        />
        {reports.map((entry) => (
          <SkipReport
            key={entry.id}
            entry={entry}
            onDismiss={() => setReports((all) => all.filter((x) => x.id !== entry.id))}
          />
        ))}
        {codeMode ? (
          <CodeView
            key={tickedCode.map((d) => d.id).join(',')}
            library={library}
            retrieval={retrieval}
            documents={tickedCode}
            indexSettings={indexSettings}
            sourceOf={codeSource}
            onError={onCodeError}
          />
        ) : (
          <>
            <form className="ask" onSubmit={ask} role="search">
              <label htmlFor="question" className="visually-hidden">
                Question
              </label>
              <input
                id="question"
                value={question}
                onChange={(e) => setQuestion(e.target.value)}
                placeholder={
                  tickedCount
                    ? `Ask ${tickedCount === 1 ? 'the ticked document' : `the ${tickedCount} ticked documents`}…`
                    : 'Add a book to ask it questions'
                }
              />
              <button type="submit" className="primary" disabled={!tickedCount || !question.trim()}>
                Ask
              </button>
            </form>
            <div className="results" data-testid="results">
              <div className="results__answer">
                <AnswerPanel
                  result={result}
                  sources={sources}
                  onCite={onCite}
                  autoAnswer={askSeq || undefined}
                  onAnswered={onAnswered}
                />
              </div>
              <div className="results__evidence">
                {busy && !result && <p role="status">Finding the passages…</p>}
                {result && (
                  <section aria-label="Evidence" data-testid="retrieval">
                    <h2 className="card__title">Evidence</h2>
                    <p className="stats" data-testid="retrieval-summary">
                      {countOf(result.selected.length, 'passage')} used ({formatCount(result.used)}{' '}
                      of {formatCount(result.budget)} words of context) for “{result.question}” ·
                      scored in {result.timings.independentMs.toFixed(0)} ms, ranked in{' '}
                      <span data-testid="rerank-ms">{result.timings.rerankMs.toFixed(1)}</span> ms
                    </p>
                    <ScoringNotice result={result} />
                    <FindInBook
                      phrase={findPhrase}
                      onPhrase={setFindPhrase}
                      found={found}
                      focused={focused}
                      onPick={pick}
                    />
                    {result.documents.map((d) => (
                      <DocumentStrip
                        hits={findHits}
                        key={d.docId}
                        doc={d}
                        independent={result.independent}
                        environment={result.environment}
                        final={result.final}
                        selected={selected}
                        cutoff={line}
                        scale={scale}
                        focused={focused}
                        onPick={pick}
                      />
                    ))}
                    <div className="panel">
                      {focused !== null && (
                        <div className="card">
                          <Reader
                            result={result}
                            index={focused}
                            citation={citation}
                            source={
                              sources.get(
                                result.documents.find(
                                  (d) => focused >= d.offset && focused < d.offset + d.count,
                                )?.docId ?? '',
                              ) ?? null
                            }
                            onPick={pick}
                          />
                          <ExplanationView result={result} index={focused} onPick={pick} />
                        </div>
                      )}
                      <div className="card">
                        <h2 className="card__title">Passages by relevance</h2>
                        <RankedList
                          result={result}
                          focused={focused}
                          onPick={pick}
                          source={(id) => sources.get(id) ?? null}
                        />
                      </div>
                    </div>
                  </section>
                )}
              </div>
            </div>
            <Controls
              retrieval={retrievalSettings}
              index={indexSettings}
              embedders={embedderChoicesFor(EMBEDDER_CHOICES, offline)}
              offlineNote={offlineVectorsNote(offline)}
              onRetrieval={onRetrievalSettings}
              onIndex={onIndexSettings}
              onHubHost={onHubHost}
            />
            <TunePanel
              retrieval={retrieval}
              library={library}
              documents={(documents ?? []).filter((d) => ticked.has(d.id) && d.kind === 'prose')}
              embedder={embedderSpec(indexSettings)}
              semanticK={indexSettings.semanticK}
              settings={retrievalSettings}
              onSettings={onRetrievalSettings}
            />
            <PipelinesPanel
              result={result}
              sources={sources}
              kindOf={kindOf}
              onCite={setFocused}
              hubHost={indexSettings.hubHost}
              embedder={embedderSpec(indexSettings)}
              memory={pipelineMemory}
            />
            <ComparePanel
              result={result}
              sources={sources}
              kindOf={kindOf}
              onCite={setFocused}
              hubHost={indexSettings.hubHost}
              embedder={embedderSpec(indexSettings)}
              memory={pipelineMemory}
              store={library}
            />
          </>
        )}
      </main>
    </EngineProvider>
  );
}
