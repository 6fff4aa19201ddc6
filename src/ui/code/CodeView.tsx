/**
 * @file The workspace for repositories, shown in the Ask view when every ticked
 * document is a repository: questions about the code (answered as for books, citing
 * `file:line`), code completion at a cursor line picked in the viewer, and the visual panel:
 * the file tree with each file's best final score as heat, the code viewer with the selected
 * windows and their three scores, the ranked windows, and for a window the graph neighbourhood
 * that produced its code-relation environment score.
 *
 * Code runs use their own settings (settings.ts): BM25, the code relation, alpha 1, the top
 * 10 windows. A completion's query is the 20 lines before the cursor; the windows around the
 * cursor are kept out of the ranking; the prompt is RepoCoder's layout (useCompletion.ts).
 */
import { memo, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { DocumentRecord, Library } from '../../store';
import type { Caller } from '../../workers/client';
import { isAbortError } from '../../workers/protocol';
import { parseWindowLabel } from '../../core/run';
import type { RetrievalApi } from '../../workers/retrieval.worker';
import {
  documentOf,
  type CompletionCursor,
  type RetrievalResult,
} from '../../workers/retrieval-types';
import { AnswerPanel } from '../answer/AnswerPanel';
import { embedderSpec, type IndexSettings } from '../library-service';
import { CodeControls } from './CodeControls';
import { CodePresetNote } from '../presets/CodePresetNote';
import { CodeViewer } from './CodeViewer';
import { CompletionPanel, useInlineCompletion } from './CompletionPanel';
import { FileTree } from './FileTree';
import {
  cachedWindowsByFile,
  completionQuery,
  newLayoutCache,
  fileHeat,
  fileKey,
  fileTree,
  firstFileToOpen,
  linesOf,
  repositoryFilesOf,
  retrievedWindows,
  textBeforeLine,
  type RunWindow,
} from './model';
import {
  CODE_SETTINGS_KEY,
  defaultCodeSettings,
  normalizeCodeSettings,
  retrievalSettingsOf,
  type CodeSettings,
} from './settings';
import { useCompletion } from './useCompletion';
import { WindowDetails, type ExplainedWindow, type Explainer } from './WindowDetails';
import { WindowList } from './WindowList';
import './code.css';
import { countOf, formatCount } from '../format/numbers';

export interface CodeViewProps {
  library: Library;
  retrieval: Caller<RetrievalApi>;
  /** The ticked repositories (documents of kind 'code'). */
  documents: readonly DocumentRecord[];
  indexSettings: IndexSettings;
  /** The stored text of a document. */
  sourceOf: (docId: string) => Promise<string | undefined>;
  onError: (message: string) => void;
}

const NO_WINDOWS: readonly RunWindow[] = [];
/** The answer panel redrawn only when its props change (not on every settings change). */
const CodeAnswerPanel = memo(AnswerPanel);

type CodeRequest =
  | { kind: 'question'; question: string }
  | { kind: 'completion'; cursor: CompletionCursor; query: string };

export function CodeView({
  library,
  retrieval,
  documents,
  indexSettings,
  sourceOf,
  onError,
}: CodeViewProps) {
  const [settings, setSettings] = useState<CodeSettings>(defaultCodeSettings);
  const [sources, setSources] = useState<Map<string, string>>(new Map());
  const [question, setQuestion] = useState('');
  const [request, setRequest] = useState<CodeRequest | null>(null);
  const [result, setResult] = useState<RetrievalResult | null>(null);
  const [busy, setBusy] = useState(false);
  const [focused, setFocused] = useState<number | null>(null);
  const [open, setOpen] = useState<{ docId: string; path: string } | null>(null);
  const [scrollTo, setScrollTo] = useState<{ line: number; n: number } | null>(null);
  const [cursorLine, setCursorLine] = useState(1);
  const completion = useCompletion();
  const queryAbort = useRef<AbortController | null>(null);
  const layout = useRef<{ layout: string; labels: string[] } | null>(null);
  const explained = useRef(new Map<string, Promise<ExplainedWindow>>());
  const docIds = useMemo(() => documents.map((d) => d.id), [documents]);
  const docKey = docIds.join(',');

  useEffect(() => {
    let live = true;
    void library
      .getSetting<unknown>(CODE_SETTINGS_KEY, null)
      .then((stored) => live && stored && setSettings(normalizeCodeSettings(stored)))
      .catch(() => {});
    return () => {
      live = false;
    };
  }, [library]);

  // The repositories' texts, for the viewer and the prompts; explanations of another set go.
  useEffect(() => {
    explained.current.clear();
    let live = true;
    void (async () => {
      for (const doc of documents) {
        const text = await sourceOf(doc.id);
        if (!live) return;
        if (text !== undefined)
          setSources((s) => (s.has(doc.id) ? s : new Map(s).set(doc.id, text)));
      }
    })().catch((e: Error) => onError(e.message));
    return () => {
      live = false;
    };
    // docKey stands for the documents' identities.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [docKey, sourceOf, onError]);

  // Read the repositories' indexes and build what a first question needs (BM25, the multi-hop
  // graph) in the retrieval worker now, while the question is being typed.
  const prepareKey = JSON.stringify([docKey, settings.scoring, settings.relations]);
  useEffect(() => {
    if (docIds.length === 0) return;
    const s = retrievalSettingsOf(settings);
    void retrieval
      .call('prepare', {
        docIds,
        embedder: embedderSpec(indexSettings),
        semanticK: indexSettings.semanticK,
        settings: s,
      })
      .catch(() => {
        // The question reports any error itself.
      });
    // prepareKey stands for the documents and the settings that decide what is built.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [prepareKey, retrieval, indexSettings]);

  const files = useMemo(
    () =>
      documents.map((doc) => {
        const list = repositoryFilesOf(doc);
        return { doc, files: list, tree: fileTree(list.map((f) => f.path)) };
      }),
    [documents],
  );
  // One stable opener per repository, so the (memoised) file trees skip renders that change
  // nothing of theirs: a slider move re-renders the tree once, when its heat arrives.
  const openers = useMemo(
    () =>
      new Map(
        files.map(({ doc }) => [
          doc.id,
          (path: string) => {
            setOpen({ docId: doc.id, path });
            setScrollTo((s) => ({ line: 1, n: (s?.n ?? 0) + 1 }));
          },
        ]),
      ),
    [files],
  );
  const firstPath = useMemo(
    () => (files[0] ? firstFileToOpen(files[0].files.map((f) => f.path)) : null),
    [files],
  );
  const current =
    open ?? (files[0] && firstPath ? { docId: files[0].doc.id, path: firstPath } : null);
  const currentFile = current
    ? files.find((f) => f.doc.id === current.docId)?.files.find((f) => f.path === current.path)
    : undefined;
  const currentSource = current ? sources.get(current.docId) : undefined;
  const lines = useMemo(
    () =>
      currentFile && currentSource !== undefined
        ? linesOf(currentSource.slice(currentFile.start, currentFile.end))
        : [],
    [currentFile, currentSource],
  );

  // The windows by file depend on the run's layout only, not on the scores: a re-rank of the
  // same documents reuses them (94,378 labels parsed again per slider move otherwise).
  const [layoutCache] = useState(newLayoutCache);
  const byFile = useMemo(
    () => (result ? cachedWindowsByFile(result, layoutCache) : null),
    [result, layoutCache],
  );
  const heat = useMemo(
    () => (result && byFile ? fileHeat(result, byFile) : null),
    [result, byFile],
  );
  const heatMax = useMemo(() => {
    let max = 0;
    for (const h of heat?.values() ?? []) max = Math.max(max, h.best);
    return max;
  }, [heat]);

  const openWindow = useCallback(
    (index: number) => {
      setFocused(index);
      if (!result || !byFile) return;
      const doc = documentOf(result, index);
      if (!doc) return;
      for (const [, list] of byFile) {
        const w = list.find((x) => x.index === index);
        if (w) {
          setOpen({ docId: w.docId, path: w.path });
          setScrollTo((s) => ({ line: w.first, n: (s?.n ?? 0) + 1 }));
          return;
        }
      }
    },
    [result, byFile],
  );

  const run = useCallback(
    async (req: CodeRequest, s: CodeSettings): Promise<RetrievalResult | null> => {
      queryAbort.current?.abort();
      const controller = new AbortController();
      queryAbort.current = controller;
      setBusy(true);
      try {
        const ask = (known: string | undefined) =>
          retrieval.call(
            'query',
            {
              question: req.kind === 'question' ? req.question : req.query,
              docIds,
              embedder: embedderSpec(indexSettings),
              semanticK: indexSettings.semanticK,
              settings: retrievalSettingsOf(s, req.kind),
              maxSelected: s.topWindows,
              mergeWindows: true,
              cursor: req.kind === 'completion' ? req.cursor : undefined,
              listed: 40,
              // The labels this view already holds are not sent again (a slider move).
              layout: known,
            },
            { signal: controller.signal },
          );
        let r = await ask(layout.current?.layout);
        const held = layout.current;
        if (r.labelsOmitted && held && held.layout === r.layout) r.labels = held.labels;
        else {
          // Another layout meanwhile (cannot happen with one view asking in order): ask whole.
          if (r.labelsOmitted) r = await ask(undefined);
          if (r.layout) layout.current = { layout: r.layout, labels: r.labels };
        }
        setResult(r);
        setRequest(req);
        setFocused((f) => (f !== null && f < r.final.length ? f : (r.selectedRanked[0] ?? null)));
        return r;
      } catch (e) {
        if (!isAbortError(e)) onError((e as Error).message);
        return null;
      } finally {
        if (queryAbort.current === controller) setBusy(false);
      }
    },
    [docIds, indexSettings, retrieval, onError],
  );

  const ask = (e: React.FormEvent) => {
    e.preventDefault();
    const q = question.trim();
    if (!q) return;
    completion.clear();
    setFocused(null);
    void run({ kind: 'question', question: q }, settings).then((r) => {
      // Open the best window where it sits, so the answer's main source is on screen.
      const top = r?.selectedRanked[0];
      const w = top === undefined ? null : parseWindowLabel(r!.labels[top]);
      const doc = top === undefined ? undefined : documentOf(r!, top);
      if (!w || !doc) return;
      setOpen({ docId: doc.docId, path: w.path });
      setScrollTo((s) => ({ line: w.first, n: (s?.n ?? 0) + 1 }));
    });
  };

  const completeAt = async () => {
    if (!current || !currentFile) return;
    const line = Math.max(1, Math.min(cursorLine, lines.length + 1));
    const cursor: CompletionCursor = { docId: current.docId, path: current.path, line };
    // The last 20 lines before the cursor; at the top of a file, its path stands in.
    const query = completionQuery(lines, line).trim() || current.path;
    const signal = completion.begin(cursor);
    setFocused(null);
    // Bring the cursor into view (again once the window marks are drawn): the completion goes there.
    const showCursor = () =>
      setScrollTo((s) => ({ line: Math.max(1, line - 6), n: (s?.n ?? 0) + 1 }));
    showCursor();
    const r = await run({ kind: 'completion', cursor, query }, settings);
    if (signal.aborted) return;
    showCursor();
    if (!r)
      return completion.fail({ code: 'engine', message: 'The windows could not be retrieved.' });
    const fragments = retrievedWindows(r, sources);
    if (!fragments)
      return completion.fail({ code: 'engine', message: 'The repository text is still loading.' });
    await completion.complete({
      fragments,
      path: current.path,
      textBeforeCursor: textBeforeLine(lines, line),
    });
  };

  const onSettings = (next: CodeSettings) => {
    setSettings(next);
    void library.setSetting(CODE_SETTINGS_KEY, next).catch((e: Error) => onError(e.message));
    // Re-rank what was asked (a completion is not written again: press Complete for that).
    if (request) void run(request, next);
  };

  const explain: Explainer = useCallback(
    (docId, window) => {
      const key = `${docId}\u0000${window}`;
      let p = explained.current.get(key);
      if (!p) {
        p = retrieval.call('explainWindow', { docId, window });
        explained.current.set(key, p);
        p.catch(() => explained.current.delete(key));
      }
      return p;
    },
    [retrieval],
  );

  const crun = completion.run;
  const completionHere =
    crun && current && crun.cursor.docId === current.docId && crun.cursor.path === current.path
      ? crun
      : null;
  const inline = useInlineCompletion(completionHere);
  const viewerCursor = completionHere ? completionHere.cursor.line : cursorLine;
  const fileWindows: readonly RunWindow[] =
    (current && byFile?.get(fileKey(current.docId, current.path))) || NO_WINDOWS;
  const completing =
    crun !== null && ['retrieving', 'preparing', 'loading', 'streaming'].includes(crun.status);

  return (
    <section className="code" aria-label="Repository" data-testid="code-view">
      <form className="ask" onSubmit={ask} role="search">
        <label htmlFor="code-question" className="visually-hidden">
          Question about the repository
        </label>
        <input
          id="code-question"
          value={question}
          onChange={(e) => setQuestion(e.target.value)}
          placeholder={`Ask about ${documents.length === 1 ? documents[0].name : `the ${documents.length} repositories`}…`}
        />
        <button type="submit" className="primary" disabled={!question.trim()}>
          Ask
        </button>
      </form>
      <CodeControls settings={settings} onChange={onSettings} />
      <CodePresetNote
        settings={settings}
        documents={result?.documents ?? null}
        onChange={onSettings}
      />
      {busy && !result && <p role="status">Scoring windows…</p>}
      {result && request && (
        <p className="stats" data-testid="code-summary">
          {formatCount(result.selected.length)} of {countOf(result.final.length, 'window')} selected
          {result.spans
            ? ` (merged into ${result.spans.length} ${result.spans.length === 1 ? 'span' : 'spans'}, ${result.used.toLocaleString('en')} lines, none repeated)`
            : ''}{' '}
          {request.kind === 'question'
            ? `for “${result.question}”`
            : `for the completion at ${request.cursor.path}:${request.cursor.line} (query: the lines before it)`}{' '}
          · {result.settings.scoring} with {result.settings.relations.join(' + ') || 'no relation'},
          α {result.settings.alpha.toFixed(2)} · scored in {result.timings.independentMs.toFixed(0)}{' '}
          ms, ranked in {result.timings.rerankMs.toFixed(1)} ms
        </p>
      )}

      <div className="code__panel">
        <nav className="card code__files" aria-label="Files">
          <h2 className="card__title">Files</h2>
          {files.map(({ doc, tree }) => (
            <div key={doc.id}>
              {files.length > 1 && <h3 className="code__repo">{doc.name}</h3>}
              <FileTree
                docId={doc.id}
                tree={tree}
                heat={heat}
                max={heatMax}
                open={current?.docId === doc.id ? current.path : null}
                onOpen={openers.get(doc.id)!}
              />
            </div>
          ))}
        </nav>
        <div className="card code__file">
          {current ? (
            <>
              <div className="code__toolbar">
                <h2 className="card__title" data-testid="open-file">
                  {current.path}
                </h2>
                <label>
                  Cursor line{' '}
                  <input
                    type="number"
                    min={1}
                    max={lines.length + 1}
                    value={cursorLine}
                    onChange={(e) => {
                      const n = Math.round(Number(e.target.value));
                      if (n >= 1) setCursorLine(n);
                    }}
                  />
                </label>
                <button
                  type="button"
                  className="primary"
                  disabled={completing || lines.length === 0}
                  onClick={() => void completeAt()}
                >
                  Complete at line {cursorLine}
                </button>
                {completing && (
                  <button type="button" onClick={completion.stop}>
                    Stop
                  </button>
                )}
              </div>
              <CodeViewer
                path={current.path}
                lines={lines}
                windows={fileWindows}
                result={result}
                focused={focused}
                cursor={viewerCursor}
                completion={inline}
                scrollTo={scrollTo}
                onPickWindow={openWindow}
                onCursor={setCursorLine}
              />
            </>
          ) : (
            <p>Loading the repository…</p>
          )}
        </div>
      </div>

      {crun && (
        <CompletionPanel
          run={crun}
          engineProblem={Boolean(completion.problem)}
          onPick={openWindow}
        />
      )}

      {result && (
        <div className="panel">
          <div className="card">
            <h2 className="card__title">Windows ranked by final score</h2>
            <WindowList result={result} focused={focused} onPick={openWindow} />
          </div>
          {focused !== null && focused < result.final.length && (
            <div className="card">
              <WindowDetails
                result={result}
                index={focused}
                explain={explain}
                onPick={openWindow}
              />
            </div>
          )}
        </div>
      )}
      <CodeAnswerPanel
        result={request?.kind === 'question' ? result : null}
        sources={sources}
        onCite={openWindow}
      />
    </section>
  );
}
