/**
 * @file The page's shell: opens the services (library/useServices.ts), then lays out the library
 * drawer (the documents and their jobs: library/useLibrary.ts), the notices, the chat, and the
 * main view: the code view when every ticked document is a repository, else the book view
 * (book/BookView.tsx, its state in book/useBook.ts, kept here so it outlasts the code view).
 */
import { useCallback, useMemo, useRef, useState } from 'react';
import { BookView } from './book/BookView';
import { useBook, useShownResult } from './book/useBook';
import { ChatView } from './chat/ChatView';
import { ViewSwitch, type MainView } from './chat/ViewSwitch';
import { CarryPanel } from './carry/CarryPanel';
import { ExportDocument } from './carry/ExportDocument';
import { CodeView } from './code/CodeView';
import { SkipReport } from './code/SkipReport';
import { DropZone } from './components/DropZone';
import { ErrorBoundary, useGlobalFailures } from './components/ErrorBoundary';
import { LibraryPanel } from './components/LibraryPanel';
import { NoticeStack, type Notice } from './components/NoticeStack';
import { ThemeSwitch } from './components/ThemeSwitch';
import { countOf } from './format/numbers';
import { HistoryPanel } from './history/HistoryPanel';
import { EngineProvider } from './answer/useEngine';
import { LibraryDrawer } from './layout/LibraryDrawer';
import { useLibrary } from './library/useLibrary';
import { useServices, type Services } from './library/useServices';
import { UpdateNotice } from './offline/UpdateNotice';
import { libraryPipelineMemory } from './qrmem/memory';
import { EncodingChoice } from './scripts/EncodingChoice';
import { InterruptedImports } from './storage/InterruptedImports';
import { StoragePanel } from './storage/StoragePanel';

const ACCEPT = '.txt,.md,.markdown,.html,.htm,.xhtml,.epub,.pdf,.zip';

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
  const shown = useShownResult();
  const lib = useLibrary(services, notify, shown.drop);
  const book = useBook(services, lib, shown, notify);
  const { documents, ticked, indexSettings, retrievalSettings, removing } = lib;
  const [view, setView] = useState<MainView>('ask');

  const tickedCount = (documents ?? []).filter((d) => ticked.has(d.id)).length;
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
    <EngineProvider
      library={library}
      hub={{ host: indexSettings.hubHost, onChange: lib.onHubHost }}
    >
      <LibraryDrawer title="FragRel Lens" documents={lib.listed ? lib.listed.length : null}>
        <DropZone onFiles={lib.onFiles} onFolder={lib.onFolder} accept={ACCEPT} />
        {lib.listed === null ? (
          <p role="status">Opening your library…</p>
        ) : (
          <LibraryPanel
            documents={lib.listed}
            jobs={lib.jobs}
            ticked={ticked}
            onTick={lib.onTick}
            onDelete={lib.onDelete}
            extra={(doc) => (
              <>
                <EncodingChoice
                  doc={doc}
                  canReread={service.canReread(doc.id)}
                  onReread={(encoding) => lib.onReread(doc, encoding)}
                />
                <ExportDocument library={library} doc={doc} notify={notify} />
              </>
            )}
          />
        )}
        <CarryPanel library={library} notify={notify} onImported={lib.onImported} />
        <StoragePanel library={library} documents={documents} />
        <UpdateNotice />
        <p className="stats" data-testid="session-stats" data-embedded={lib.embedded}>
          This session: {countOf(lib.embedded, 'fragment')} embedded.
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
          version={book.historyVersion}
          onAsk={book.setQuestion}
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
              <button type="button" onClick={lib.undoRemoval}>
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
          journal={lib.journal}
          documents={documents}
          onFiles={lib.onFiles}
          onFolder={lib.onFolder}
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
        {lib.reports.map((entry) => (
          <SkipReport key={entry.id} entry={entry} onDismiss={() => lib.dismissReport(entry.id)} />
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
          <BookView services={services} lib={lib} book={book} memory={pipelineMemory} />
        )}
      </main>
    </EngineProvider>
  );
}
