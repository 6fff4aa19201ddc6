/**
 * @file The evaluation page (evaluate.html): drop a benchmark file, see its format
 * and counts, choose a retrieval grid, run it in the evaluation worker with progress, pause,
 * resume and cancel, and read the results as a table with paired bootstrap intervals against a
 * baseline and as a plot; export CSV and JSON. Runs and their partial results live in the
 * library database (schema v7): a run interrupted by a reload resumes on the next visit.
 *
 * Everything from a file (names, questions, notes) is rendered as React text, never as markup.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { STATIC_EMBEDDER_ID, STATIC_MODEL_PATH } from '../../core/embed/static';
import type { EmbedderSpec } from '../../models/embedder';
import { DEFAULT_HUB_HOST } from '../../models/settings';
import { parseBenchmarkFile, type ParsedBenchmark } from '../../core/eval/datasets';
import { configKey } from '../../core/eval/grid';
import { openLibrary, type Library } from '../../store/library';
import {
  deleteEvalRun,
  getEvalRun,
  listEvalResults,
  listEvalRuns,
  putEvalRun,
  setEvalRunStatus,
} from '../../store/eval-runs';
import { LIBRARY_DB_NAME, type EvalRunRecord, type LibraryDb } from '../../store/schema';
import { WorkerClient } from '../../workers/client';
import type { EvalApi, EvalRunSettings } from '../../workers/eval-handlers';
import { isAbortError } from '../../workers/protocol';
import { defaultGridChoice, gridFromChoice, type GridChoice } from './grid-choice';
import { GridForm } from './GridForm';
import { RunView, type Active, type Metric } from './RunView';
import { AnswerEval } from './AnswerEval';
import { EngineProvider } from '../answer/useEngine';
import { writeHubHost } from '../hub/hub-host';

interface Loaded {
  files: { name: string; text: string }[];
  benchmark: ParsedBenchmark;
}

const BOOTSTRAP = { resamples: 1000, seed: 20240601 };

export function EvaluatePage() {
  const [db, setDb] = useState<LibraryDb | null>(null);
  const [library, setLibrary] = useState<Library | null>(null);
  const [fatal, setFatal] = useState<string | null>(null);
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [choice, setChoice] = useState<GridChoice>({ ...defaultGridChoice });
  const [sample, setSample] = useState('');
  const [baselineChoice, setBaselineChoice] = useState('');
  const [active, setActive] = useState<Active | null>(null);
  const [runs, setRuns] = useState<EvalRunRecord[]>([]);
  const [runError, setRunError] = useState<string | null>(null);
  const [metric, setMetric] = useState<Metric>('gold');
  const [embedderId, setEmbedderId] = useState<string>(STATIC_EMBEDDER_ID);
  /** Where a transformer embedder is downloaded from: the library's hub host until edited. */
  const [hubHost, setHubHost] = useState<string | null>(null);
  /** The library's one hub-host setting, changed here: the main app downloads from it too. */
  const chooseHub = useCallback(
    (host: string) => {
      setHubHost(host);
      if (library) void writeHubHost(library, host).catch(() => undefined);
    },
    [library],
  );
  /** The stored answer run shown in the answer section, and a count that remounts that section. */
  const [answerShown, setAnswerShown] = useState<EvalRunRecord | null>(null);
  const [answerEpoch, setAnswerEpoch] = useState(0);
  const worker = useRef<WorkerClient<EvalApi> | null>(null);
  const controller = useRef<AbortController | null>(null);
  const resumedOnce = useRef(false);
  const showAnswerRunRef = useRef<((run: EvalRunRecord) => void) | null>(null);
  const openRef = useRef<
    ((conn: LibraryDb, run: EvalRunRecord, resume: boolean) => Promise<void>) | null
  >(null);

  const workerClient = () =>
    (worker.current ??= new WorkerClient<EvalApi>(
      new Worker(new URL('../../workers/eval.worker.ts', import.meta.url), { type: 'module' }),
    ));

  const refreshRuns = useCallback(async (conn: LibraryDb) => setRuns(await listEvalRuns(conn)), []);

  useEffect(() => {
    let lib: Library | null = null;
    let closed = false;
    openLibrary(LIBRARY_DB_NAME)
      .then(async (openedLibrary) => {
        // Unmounted while opening (StrictMode mounts twice in development): let it go.
        if (closed) return openedLibrary.close();
        lib = openedLibrary;
        const opened = openedLibrary.db;
        setLibrary(openedLibrary);
        setDb(opened);
        const stored = await openedLibrary
          .getSettings({ index: { hubHost: DEFAULT_HUB_HOST } as Record<string, unknown> })
          .catch(() => null);
        const host = (stored?.index as { hubHost?: unknown } | undefined)?.hubHost;
        setHubHost((h) => h ?? (typeof host === 'string' && host ? host : DEFAULT_HUB_HOST));
        const all = await listEvalRuns(opened);
        setRuns(all);
        const interrupted = all.find((r) => r.status === 'running' && r.kind !== 'answers');
        if (interrupted && !resumedOnce.current) {
          resumedOnce.current = true;
          void openRef.current?.(opened, interrupted, true);
        }
        // An interrupted answer run is shown with a Resume button, never resumed by itself: its
        // engine may be a paid API. (A grid run resumed above keeps its own file section.)
        const answers = all.find((r) => r.status === 'running' && r.kind === 'answers');
        if (answers && !interrupted) showAnswerRunRef.current?.(answers);
      })
      .catch((e: unknown) =>
        setFatal(`The library database could not be opened: ${(e as Error).message}`),
      );
    return () => {
      closed = true;
      lib?.close();
      controller.current?.abort();
    };
  }, [refreshRuns]);

  const gridState = useMemo(() => gridFromChoice(choice), [choice]);
  const baselineKey =
    gridState.spec?.configs.map(configKey).find((k) => k === baselineChoice) ??
    gridState.spec?.configs.map(configKey)[0] ??
    '';

  const readFiles = async (list: FileList | File[]) => {
    setFileError(null);
    const files = await Promise.all(
      [...list].map(async (f) => ({ name: f.name, text: await f.text() })),
    );
    if (files.length === 0) return;
    // RepoEval: the tasks file is the main one, repo_files.jsonl its companion.
    const companionFirst = files.findIndex((f) => !/repo_files/i.test(f.name));
    const mainIndex = companionFirst >= 0 ? companionFirst : 0;
    const main = files[mainIndex];
    const companions = files.filter((_, i) => i !== mainIndex);
    const parsed = parseBenchmarkFile(main.name, main.text, companions);
    if (!parsed.ok) {
      setFileError(parsed.error);
      return;
    }
    setLoaded({ files: [main, ...companions], benchmark: parsed.value });
    // A new file: the answer section starts afresh (a stored answer run stays in the list).
    setAnswerShown(null);
    setAnswerEpoch((e) => e + 1);
  };

  useEffect(() => {
    const over = (e: DragEvent) => e.preventDefault();
    const drop = (e: DragEvent) => {
      e.preventDefault();
      if (e.dataTransfer?.files.length) void readFiles(e.dataTransfer.files);
    };
    window.addEventListener('dragover', over);
    window.addEventListener('drop', drop);
    return () => {
      window.removeEventListener('dragover', over);
      window.removeEventListener('drop', drop);
    };
  });

  const loadResults = useCallback(async (conn: LibraryDb, runId: string) => {
    const stored = await listEvalResults(conn, runId);
    return stored.map(({ config, question, gold, answer }) => ({ config, question, gold, answer }));
  }, []);

  /** Start or resume a stored run in the worker. */
  const start = useCallback(
    async (conn: LibraryDb, run: EvalRunRecord, benchmark: ParsedBenchmark) => {
      controller.current?.abort();
      const ctrl = new AbortController();
      controller.current = ctrl;
      setRunError(null);
      const startedAt = Date.now();
      const results = await loadResults(conn, run.id);
      setActive({
        startedAt,
        run,
        benchmark,
        results,
        progress: null,
        resumedFrom: results.length,
        running: true,
      });
      let last = 0;
      let refreshing = false;
      const refresh = async () => {
        if (refreshing) return;
        refreshing = true;
        const now = await loadResults(conn, run.id);
        refreshing = false;
        if (!ctrl.signal.aborted)
          setActive((a) => (a && a.run.id === run.id ? { ...a, results: now } : a));
      };
      try {
        await workerClient().call(
          'runGrid',
          { runId: run.id },
          {
            signal: ctrl.signal,
            onProgress: (p) => {
              setActive((a) =>
                a && a.run.id === run.id ? { ...a, progress: { done: p.done, total: p.total } } : a,
              );
              // Re-read the stored results at most twice a second while running.
              if (performance.now() - last > 500) {
                last = performance.now();
                void refresh();
              }
            },
          },
        );
        const finished = await getEvalRun(conn, run.id);
        const final = await loadResults(conn, run.id);
        setActive((a) =>
          a && a.run.id === run.id
            ? { ...a, run: finished ?? a.run, results: final, running: false }
            : a,
        );
      } catch (e) {
        if (isAbortError(e)) return;
        setRunError((e as Error).message);
        const failed = await getEvalRun(conn, run.id);
        setActive((a) =>
          a && a.run.id === run.id ? { ...a, run: failed ?? a.run, running: false } : a,
        );
      } finally {
        await refreshRuns(conn);
      }
    },
    [loadResults, refreshRuns],
  );

  const open = useCallback(
    async (conn: LibraryDb, run: EvalRunRecord, resume: boolean) => {
      const [main, ...companions] = run.files;
      const parsed = parseBenchmarkFile(main.name, main.text, companions);
      if (!parsed.ok) {
        setRunError(parsed.error);
        return;
      }
      if (resume) return start(conn, run, parsed.value);
      controller.current?.abort();
      const results = await loadResults(conn, run.id);
      setActive({
        run,
        benchmark: parsed.value,
        results,
        progress: null,
        resumedFrom: null,
        startedAt: Date.now(),
        running: false,
      });
    },
    [loadResults, start],
  );

  // A run left 'running' (the page was closed or reloaded mid-run) resumes by itself, once:
  // the database effect below calls the latest `open` through this ref.
  useEffect(() => {
    openRef.current = open;
  }, [open]);

  /** Show a stored answer run: its file becomes the loaded one, the answer section shows it. */
  const showAnswerRun = useCallback((run: EvalRunRecord) => {
    const [main, ...companions] = run.files;
    const parsed = parseBenchmarkFile(main.name, main.text, companions);
    if (!parsed.ok) {
      setRunError(parsed.error);
      return;
    }
    setFileError(null);
    setLoaded({ files: run.files, benchmark: parsed.value });
    setAnswerShown(run);
    setAnswerEpoch((e) => e + 1);
  }, []);
  useEffect(() => {
    showAnswerRunRef.current = showAnswerRun;
  }, [showAnswerRun]);

  const run = async () => {
    if (!db || !loaded || !gridState.spec) return;
    const n = Number(sample);
    const embedder: EmbedderSpec =
      embedderId === STATIC_EMBEDDER_ID
        ? { id: STATIC_EMBEDDER_ID, url: new URL(STATIC_MODEL_PATH, document.baseURI).href }
        : { id: embedderId, modelId: embedderId, host: hubHost ?? DEFAULT_HUB_HOST };
    const settings: EvalRunSettings = {
      embedder,
      baseline: baselineKey,
      ...(sample.trim() && Number.isInteger(n) && n > 0 ? { sample: n } : {}),
      bootstrap: BOOTSTRAP,
    };
    const now = Date.now();
    const record: EvalRunRecord = {
      id: `run-${now.toString(36)}-${Math.random().toString(36).slice(2, 8)}`,
      createdAt: now,
      updatedAt: now,
      status: 'running',
      fileName: loaded.files[0].name,
      files: loaded.files,
      spec: gridState.spec,
      settings,
    };
    try {
      await putEvalRun(db, record);
    } catch (e) {
      setRunError((e as Error).message);
      return;
    }
    resumedOnce.current = true;
    await refreshRuns(db);
    await start(db, record, loaded.benchmark);
  };

  const pause = async () => {
    if (!db || !active) return;
    controller.current?.abort();
    const paused = await setEvalRunStatus(db, active.run.id, 'paused');
    setActive((a) => (a ? { ...a, run: paused ?? a.run, running: false } : a));
    await refreshRuns(db);
  };

  const cancel = async () => {
    if (!db || !active) return;
    controller.current?.abort();
    await deleteEvalRun(db, active.run.id);
    setActive(null);
    await refreshRuns(db);
  };

  const remove = async (id: string) => {
    if (!db) return;
    if (runs.find((r) => r.id === id)?.kind === 'answers') {
      // The answer section lets the run go (and stops it, if it is running).
      setAnswerShown(null);
      setAnswerEpoch((e) => e + 1);
    }
    if (active?.run.id === id) {
      controller.current?.abort();
      setActive(null);
    }
    await deleteEvalRun(db, id);
    await refreshRuns(db);
  };

  if (fatal) return <p role="alert">{fatal}</p>;

  const b = loaded?.benchmark;
  return (
    <main className="eval-page">
      <p className="eval-nav">
        <a href="./">← Back to the library</a>
      </p>
      <h1>Evaluate retrieval on a benchmark</h1>
      <p className="eval-lead">
        Drop a benchmark file anywhere on this page (L-Eval, LongBench, HotpotQA, MuSiQue, MTBench+,
        RepoEval with its repo_files.jsonl, or the simple JSONL of docs/evaluation.md). Everything
        runs in this browser; nothing is sent.
      </p>
      <label className="eval-file">
        Or choose the file(s):{' '}
        <input
          type="file"
          multiple
          accept=".json,.jsonl,application/json"
          data-testid="eval-file-input"
          onChange={(e) => e.target.files && void readFiles(e.target.files)}
        />
      </label>
      {fileError && (
        <p className="eval-error" role="alert" data-testid="eval-file-error">
          {fileError}
        </p>
      )}

      {loaded && (
        <GridForm
          loaded={loaded}
          choice={choice}
          setChoice={setChoice}
          embedderId={embedderId}
          setEmbedderId={setEmbedderId}
          hubHost={hubHost}
          chooseHub={chooseHub}
          sample={sample}
          setSample={setSample}
          baselineKey={baselineKey}
          setBaselineChoice={setBaselineChoice}
          gridState={gridState}
          disabled={!gridState.spec || !db || Boolean(active?.running)}
          run={run}
        />
      )}

      {b && loaded && library && db && (
        <EngineProvider
          library={library}
          hub={{ host: hubHost ?? DEFAULT_HUB_HOST, onChange: chooseHub }}
        >
          <AnswerEval
            key={answerEpoch}
            items={b.items}
            files={loaded.files}
            format={b.label}
            db={db}
            shown={answerShown}
            onRunsChanged={() => void refreshRuns(db)}
          />
        </EngineProvider>
      )}

      {runError && (
        <p className="eval-error" role="alert" data-testid="eval-run-error">
          {runError}
        </p>
      )}

      {active && (
        <RunView
          active={active}
          db={db}
          metric={metric}
          setMetric={setMetric}
          onPause={pause}
          onCancel={cancel}
          onResume={() => (db ? open(db, active.run, true) : Promise.resolve())}
        />
      )}

      {runs.length > 0 && (
        <section aria-labelledby="eval-runs-h">
          <h2 id="eval-runs-h">Stored runs</h2>
          <ul className="eval-runs" data-testid="eval-runs">
            {runs.map((r) => (
              <li key={r.id}>
                {r.kind === 'answers' ? 'answers' : 'retrieval grid'} · {r.fileName} ·{' '}
                {new Date(r.createdAt).toLocaleString()} · {r.status}
                {r.error ? ` (${r.error})` : ''}{' '}
                <button
                  type="button"
                  onClick={() =>
                    r.kind === 'answers' ? showAnswerRun(r) : db && void open(db, r, false)
                  }
                >
                  Show
                </button>{' '}
                <button type="button" onClick={() => void remove(r.id)}>
                  Delete
                </button>
              </li>
            ))}
          </ul>
        </section>
      )}
    </main>
  );
}
