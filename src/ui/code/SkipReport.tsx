/**
 * @file What became of a dropped repository: how many files were indexed, and every file left
 * out, grouped by why (vendored, .gitignore, binary, too large...), with the parse problems and
 * the size of the code graph. Shown after the drop, also when nothing could be stored.
 */
import type { SkipReason, SkippedFile } from '../../ingest/repo';
import type { IndexRepositoryTimings, RepositoryReport } from '../../indexing';
import { countOf, formatCount } from '../format/numbers';

const REASONS: Record<SkipReason, string> = {
  'unsafe-path': 'Unsafe paths',
  symlink: 'Symbolic links',
  duplicate: 'Listed twice',
  metadata: 'System metadata',
  vendored: 'Vendored or tool directories',
  gitignored: 'Ignored by .gitignore',
  generated: 'Generated files',
  binary: 'Binary files',
  'too-large': 'Too large',
  empty: 'Empty files',
  unsupported: 'Unsupported entries',
  limit: 'Over the repository size limit',
};

/** The skipped files grouped by reason, in the order of REASONS. */
export function groupSkipped(skipped: readonly SkippedFile[]): [SkipReason, SkippedFile[]][] {
  const groups = new Map<SkipReason, SkippedFile[]>();
  for (const s of skipped) {
    let list = groups.get(s.reason);
    if (!list) groups.set(s.reason, (list = []));
    list.push(s);
  }
  return (Object.keys(REASONS) as SkipReason[])
    .filter((r) => groups.has(r))
    .map((r) => [r, groups.get(r)!]);
}

export interface RepositoryReportEntry {
  id: number;
  report: RepositoryReport;
  /** Why nothing was stored, or null when the repository was added. */
  error: string | null;
  /** Time per stage, when indexing got that far. */
  timings?: IndexRepositoryTimings | null;
}

const ms = (t: number) => (t >= 1000 ? `${(t / 1000).toFixed(1)} s` : `${Math.round(t)} ms`);

export function SkipReport({
  entry,
  onDismiss,
}: {
  entry: RepositoryReportEntry;
  onDismiss: () => void;
}) {
  const { report, error } = entry;
  const groups = groupSkipped(report.skipped);
  const titleId = `skip-report-${entry.id}`;
  const g = report.graph;
  return (
    <section
      className={`card skip-report${error ? ' skip-report--failed' : ''}`}
      aria-labelledby={titleId}
      data-testid="skip-report"
    >
      <h2 id={titleId} className="card__title">
        {report.name}:{' '}
        {error
          ? 'not added'
          : `${countOf(report.files, 'file')} indexed as ${countOf(report.windows, 'window')}`}
        {report.skipped.length > 0 && `, ${report.skipped.length.toLocaleString('en')} left out`}
      </h2>
      {error && (
        <p role="alert" className="skip-report__error">
          {error}
        </p>
      )}
      {report.reuse && !error && (
        <p className="stats" data-testid="reindex-reuse">
          Updated the earlier version: {report.reuse.filesParsed.toLocaleString('en')} changed files
          re-parsed, {report.reuse.filesReused.toLocaleString('en')} unchanged reused;{' '}
          {report.reuse.windowsEmbedded.toLocaleString('en')} windows embedded,{' '}
          {report.reuse.windowsReused.toLocaleString('en')} reused.
        </p>
      )}
      {g && (
        <p className="stats" data-testid="graph-stats">
          Code graph: {formatCount(g.parsedFiles)} of {countOf(g.files, 'file')} parsed,{' '}
          {g.definitions.toLocaleString('en')} definitions, {g.resolvedCalls.toLocaleString('en')}{' '}
          of {g.calls.toLocaleString('en')} calls resolved to a definition in the repository (
          {g.nodes.toLocaleString('en')} nodes, {g.edges.toLocaleString('en')} edges);{' '}
          {report.relationWeights.toLocaleString('en')} window weights stored
          {report.relationCutPerRow !== undefined &&
            ` (at most ${report.relationCutPerRow.toLocaleString('en')} per window, the strongest: the full relation was too large for the browser’s store)`}
          .
        </p>
      )}
      {entry.timings && (
        <p className="stats" data-testid="index-timings">
          Indexed in{' '}
          {ms(
            entry.timings.readMs +
              entry.timings.parseMs +
              entry.timings.splitMs +
              entry.timings.embedMs +
              entry.timings.graphMs +
              entry.timings.relateMs,
          )}
          : read {ms(entry.timings.readMs)}, parse {ms(entry.timings.parseMs)}, split{' '}
          {ms(entry.timings.splitMs)}, embed {ms(entry.timings.embedMs)}, graph{' '}
          {ms(entry.timings.graphMs)}, relate {ms(entry.timings.relateMs)}
          {entry.timings.codeRelateMs !== undefined &&
            ` (code relation ${ms(entry.timings.codeRelateMs)})`}{' '}
          (before saving).
        </p>
      )}
      {groups.length > 0 && (
        <ul className="skip-report__groups">
          {groups.map(([reason, files]) => (
            <li key={reason} data-reason={reason}>
              <details>
                <summary>
                  {REASONS[reason]} ({files.length.toLocaleString('en')})
                </summary>
                <ul className="skip-report__files">
                  {files.slice(0, 200).map((f) => (
                    <li key={f.path}>
                      <code>{f.path}</code> <span className="stats">{f.detail}</span>
                    </li>
                  ))}
                  {files.length > 200 && (
                    <li className="stats">and {(files.length - 200).toLocaleString('en')} more</li>
                  )}
                </ul>
              </details>
            </li>
          ))}
        </ul>
      )}
      {report.problems.length > 0 && (
        <details className="skip-report__problems">
          <summary>Not parsed ({report.problems.length})</summary>
          <ul>
            {report.problems.map((p) => (
              <li key={p.path}>{p.message}</li>
            ))}
          </ul>
        </details>
      )}
      <button type="button" onClick={onDismiss}>
        Dismiss
      </button>
    </section>
  );
}
