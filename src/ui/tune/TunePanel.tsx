/**
 * @file "Tune for this document": runs the tuner in the retrieval worker (tune-handler.ts) with
 * progress and Cancel, then shows the chosen relations, alpha and w_rel, the curve they came
 * from (chart and table), and how sure the choice is. Nothing is applied until the user presses
 * Apply; the panel then says the settings came from tuning, and Revert restores the ones before.
 * The applied record is kept in the library's settings (key `tuning`), so a reload still says so.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { PairedDelta } from '../../core/eval/bootstrap';
import { levalSubsetOf, parseLevalJsonl } from '../../core/eval/datasets/leval';
import { parseBenchmarkFile } from '../../core/eval/datasets';
import { usesWRel } from '../../core/relations/kinds';
import {
  labelledQuestions,
  labelledQuestionsFrom,
  matchRecord,
  type LabelledQuestion,
} from '../../core/tune';
import type { EmbedderSpec } from '../../models/embedder';
import type { DocumentRecord, Library } from '../../store';
import type { Caller } from '../../workers/client';
import type { Progress } from '../../workers/protocol';
import type { RetrievalApi } from '../../workers/retrieval.worker';
import type { RetrievalSettings } from '../../workers/retrieval-types';
import type { TuneResult } from '../../workers/tune-handler';
import { TuneChart } from './TuneChart';
import {
  TUNING_SETTING,
  asAppliedTuning,
  describeConfig,
  sameRanking,
  withTuned,
  type AppliedTuning,
} from './tune-settings';

const pct = (x: number) => (100 * x).toFixed(1);
const pts = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}`;
const interval = (d: PairedDelta) => `${pts(d.mean)} points [${pts(d.ci95[0])}, ${pts(d.ci95[1])}]`;

export function TunePanel({
  retrieval,
  library,
  documents,
  embedder,
  semanticK,
  settings,
  onSettings,
}: {
  retrieval: Caller<RetrievalApi>;
  library: Library;
  /** The ticked books (tuning is for prose). */
  documents: DocumentRecord[];
  embedder: EmbedderSpec;
  semanticK: number;
  settings: RetrievalSettings;
  onSettings: (next: RetrievalSettings) => void;
}) {
  const [docId, setDocId] = useState<string>('');
  const [running, setRunning] = useState<{
    controller: AbortController;
    progress: Progress | null;
  } | null>(null);
  const [result, setResult] = useState<TuneResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [applied, setApplied] = useState<AppliedTuning | null>(null);
  const mounted = useRef(true);
  useEffect(() => {
    // Set on every mount: StrictMode mounts twice in development.
    mounted.current = true;
    return () => void (mounted.current = false);
  }, []);

  useEffect(() => {
    void library
      .getSetting<unknown>(TUNING_SETTING, null)
      .then((v) => mounted.current && setApplied(asAppliedTuning(v)))
      .catch(() => undefined);
  }, [library]);

  const target = documents.find((d) => d.id === docId) ?? documents[0];

  const [labels, setLabels] = useState<{ file: string; unlocated: number } | null>(null);

  const start = useCallback(
    (labelled?: LabelledQuestion[]) => {
      if (!target) return;
      const controller = new AbortController();
      setRunning({ controller, progress: null });
      setError(null);
      setResult(null);
      retrieval
        .call(
          'tune',
          { docId: target.id, embedder, semanticK, settings, ...(labelled && { labelled }) },
          {
            signal: controller.signal,
            onProgress: (progress) =>
              mounted.current &&
              setRunning((r) => (r && r.controller === controller ? { ...r, progress } : r)),
          },
        )
        .then((r) => mounted.current && setResult(r))
        .catch((e: Error) => {
          if (!mounted.current) return;
          setError(e.name === 'AbortError' ? 'Tuning cancelled; nothing was changed.' : e.message);
        })
        .finally(
          () => mounted.current && setRunning((r) => (r?.controller === controller ? null : r)),
        );
    },
    [target, retrieval, embedder, semanticK, settings],
  );

  /**
   * Tune on labels: the document of a benchmark file that holds this document, with its gold.
   * L-Eval keeps its own path (its gold answers located in this document's text); every other
   * format with gold passages (LongBench, HotpotQA, MuSiQue, MTBench+, the simple JSONL) has its
   * passages carried over (core/tune/labels.ts `labelledQuestionsFrom`).
   */
  const onLabelFile = async (file: File) => {
    if (!target) return;
    setError(null);
    try {
      const text = await file.text();
      const detected = parseBenchmarkFile(file.name, text);
      if (!detected.ok) {
        throw new Error(`“${file.name}” could not be read as a benchmark file: ${detected.error}`);
      }
      const source = await library.getSource(target.id);
      if (source === undefined) throw new Error(`“${target.name}” is no longer in the library.`);
      let labelled: { questions: LabelledQuestion[]; unlocated: number };
      if (detected.value.format === 'leval') {
        const parsed = parseLevalJsonl(text, levalSubsetOf(file.name));
        if (!parsed.ok) throw new Error(`“${file.name}” is not an L-Eval file: ${parsed.error}`);
        const record = matchRecord(source, parsed.value);
        if (!record) {
          throw new Error(
            `None of the ${parsed.value.length} documents in “${file.name}” is “${target.name}”. Choose the file made for this document, or tune on pseudo-questions.`,
          );
        }
        labelled = labelledQuestions(source, record);
        if (labelled.questions.length === 0) {
          throw new Error(
            `None of the ${labelled.unlocated} answers in “${file.name}” could be located in “${target.name}”, so there is nothing to tune on. Tune on pseudo-questions instead.`,
          );
        }
      } else {
        const carried = labelledQuestionsFrom(source, detected.value, file.name, target.name);
        if (!carried.ok) throw new Error(carried.error);
        labelled = carried;
      }
      setLabels({ file: file.name, unlocated: labelled.unlocated });
      start(labelled.questions);
    } catch (e) {
      setError((e as Error).message);
    }
  };

  const apply = () => {
    if (!result) return;
    const record: AppliedTuning = {
      previous: settings,
      tuned: withTuned(settings, result.report.chosen),
      docName: result.name,
      at: new Date().toISOString(),
    };
    onSettings(record.tuned);
    setApplied(record);
    void library.setSetting(TUNING_SETTING, record).catch((e: Error) => setError(e.message));
  };
  const revert = () => {
    if (!applied) return;
    onSettings(applied.previous);
    setApplied(null);
    void library.setSetting(TUNING_SETTING, null).catch((e: Error) => setError(e.message));
  };

  const report = result?.report;
  const tunedNow = applied !== null && sameRanking(settings, applied.tuned);
  const wouldChange = report ? !sameRanking(withTuned(settings, report.chosen), settings) : false;
  const alphas = report
    ? [...new Set(report.curves.flatMap((c) => c.points.map((p) => p.alpha)))]
    : [];

  return (
    <section className="settings tune" aria-labelledby="tune-title" data-testid="tune">
      <h2 id="tune-title" className="card__title">
        Tune for this document
      </h2>
      <p className="hint">
        Asks the document questions made from its own sentences (a sentence is cut out of its
        passage and its rarest words are the question), then tries which neighbours, α and w_rel
        find the passage it came from best within your budget. Nothing changes until you press
        Apply.
      </p>
      {applied && (
        <p className="notice notice--info" role="status" data-testid="tune-applied">
          {tunedNow
            ? `These settings came from tuning on “${applied.docName}”.`
            : `Tuned on “${applied.docName}”; you have changed the settings since.`}{' '}
          <button type="button" onClick={revert}>
            Revert
          </button>
        </p>
      )}
      <div className="controls__group">
        {documents.length > 1 && (
          <label>
            Document
            <select value={target?.id ?? ''} onChange={(e) => setDocId(e.target.value)}>
              {documents.map((d) => (
                <option key={d.id} value={d.id}>
                  {d.name}
                </option>
              ))}
            </select>
          </label>
        )}
        {running ? (
          <button type="button" onClick={() => running.controller.abort()}>
            Cancel
          </button>
        ) : (
          <>
            <button
              type="button"
              className="primary"
              disabled={!target}
              onClick={() => {
                setLabels(null);
                start();
              }}
            >
              Tune for this document
            </button>
            <label>
              or on labels: a benchmark file with gold passages holding this document (L-Eval,
              LongBench, HotpotQA, MuSiQue, MTBench+ or the simple JSONL){' '}
              <input
                type="file"
                accept=".jsonl,.json,.txt"
                disabled={!target}
                data-testid="tune-labels"
                onChange={(e) => {
                  const file = e.target.files?.[0];
                  e.target.value = '';
                  if (file) void onLabelFile(file);
                }}
              />
            </label>
          </>
        )}
        {!target && <span className="hint">Tick a book to tune for it.</span>}
      </div>
      {running && (
        <p role="status" data-testid="tune-progress">
          {running.progress?.stage ?? 'Starting'}…{' '}
          {running.progress && running.progress.total > 1 && (
            <progress value={running.progress.done} max={running.progress.total}>
              {running.progress.done} of {running.progress.total}
            </progress>
          )}
        </p>
      )}
      {error && (
        <p className="notice" role="alert" data-testid="tune-error">
          {error}
        </p>
      )}
      {result && report && (
        <div data-testid="tune-result">
          <p data-testid="tune-chosen">
            Best for “{result.name}”: <strong>{describeConfig(report.chosen)}</strong>
            {wouldChange ? '' : ' (what you have now)'}.
          </p>
          <p className="stats" data-testid="tune-confidence">
            Sources found within {result.budget.toLocaleString()} words, over {report.questions}{' '}
            {result.basis === 'labels' && labels
              ? `labelled questions from “${labels.file}” (${labels.unlocated} whose answer could not be located left out)`
              : 'pseudo-questions'}
            : chosen {pct(report.chosen.score)}%, your current settings {pct(report.current.score)}
            %, plain retrieval {pct(report.plain.score)}%. Chosen − current:{' '}
            {interval(report.vsCurrent)}; chosen − plain: {interval(report.vsPlain)} (paired
            bootstrap, 95%). Best in {pct(report.probabilityBest)}% of resamples of the questions.{' '}
            {report.recommendation === 'chosen'
              ? 'A sure gain over your current settings: the interval lies above zero.'
              : wouldChange
                ? 'Not a sure gain over your current settings (the interval reaches zero): keeping them is as good on this evidence.'
                : ''}
          </p>
          <TuneChart curves={report.curves} />
          <table className="explain__table" data-testid="tune-table">
            <caption>Sources found (%) by relation and α; α 0 is plain retrieval</caption>
            <thead>
              <tr>
                <th scope="col">Relations (w_rel)</th>
                {alphas.map((a) => (
                  <th key={a} scope="col">
                    α {a}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {report.curves.map((c) => (
                <tr key={c.label}>
                  <th scope="row">
                    {c.label}
                    {usesWRel(c.relations) ? ` (${c.wRel})` : ''}
                  </th>
                  {alphas.map((a) => {
                    const p = c.points.find((x) => x.alpha === a);
                    return <td key={a}>{p ? pct(p.score) : '—'}</td>;
                  })}
                </tr>
              ))}
            </tbody>
          </table>
          {result.examples.length > 0 && (
            <details>
              <summary>What was asked (first {result.examples.length})</summary>
              <ul>
                {result.examples.map((x, i) => (
                  <li key={i}>
                    “{x.query}” — from: {x.sentence}
                  </li>
                ))}
              </ul>
            </details>
          )}
          <button
            type="button"
            className="primary"
            disabled={!wouldChange || tunedNow}
            onClick={apply}
          >
            Apply
          </button>
        </div>
      )}
    </section>
  );
}
