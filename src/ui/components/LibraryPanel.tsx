import type { ReactNode } from 'react';
import type { DocumentRecord } from '../../store';
import type { Progress } from '../../workers/protocol';
import { countOf, formatCount } from '../format/numbers';

export interface Job {
  id: string;
  name: string;
  /** What the job does: adding a file, or bringing a stored index up to date. */
  action: 'add' | 'refresh';
  progress: Progress | null;
  cancel: () => void;
}

const STAGES: Record<string, string> = {
  handover: 'Handing the files to the indexer',
  read: 'Reading',
  parse: 'Parsing the code',
  split: 'Splitting into fragments',
  download: 'Downloading the model',
  warmup: 'Starting the model',
  embed: 'Embedding',
  graph: 'Building the code graph',
  relate: 'Relating fragments',
  save: 'Saving',
};

/** The library: stored documents with their status, ticks for which ones a question covers, and jobs in progress. */
export function LibraryPanel({
  documents,
  jobs,
  ticked,
  onTick,
  onDelete,
  extra,
}: {
  documents: DocumentRecord[];
  jobs: Job[];
  ticked: Set<string>;
  onTick: (id: string, on: boolean) => void;
  onDelete: (doc: DocumentRecord) => void;
  /** More lines under a document (its encoding, ...), from features that own them. */
  extra?: (doc: DocumentRecord) => ReactNode;
}) {
  return (
    <section aria-labelledby="library-title">
      <h2 id="library-title" className="sidebar__title">
        Library
      </h2>
      {documents.length === 0 && jobs.length === 0 && (
        <p className="empty-state">
          Drop a book (.txt, .md, .html, .epub, .pdf) or a zipped repository anywhere on this page,
          or use “Add files…” or “Add a folder…”.
        </p>
      )}
      <ul className="library" data-testid="library">
        {documents.map((doc) => (
          <li
            key={doc.id}
            className="library__item"
            data-testid="library-item"
            data-status={doc.status}
          >
            <div className="library__row">
              <input
                type="checkbox"
                id={`tick-${doc.id}`}
                checked={ticked.has(doc.id)}
                onChange={(e) => onTick(doc.id, e.target.checked)}
              />
              <label htmlFor={`tick-${doc.id}`} className="library__name">
                {doc.title ?? doc.name}
              </label>
              <button
                type="button"
                aria-label={`Remove ${doc.name} from the library`}
                title="Remove from the library"
                onClick={() => onDelete(doc)}
              >
                ✕
              </button>
            </div>
            <div className="library__meta">
              {doc.title && (
                <span className="library__file" data-testid="library-file">
                  {doc.name} ·{' '}
                </span>
              )}
              {countOf(doc.fragmentCount, 'fragment')} · {doc.format} · {formatSize(doc.bytes)}
              {doc.status !== 'indexed' && ` · ${doc.status}`}
            </div>
            {extra?.(doc)}
          </li>
        ))}
        {jobs.map((job) => (
          <li key={job.id} className="library__item" data-testid="job">
            <div className="library__row">
              <span className="library__name">{job.name}</span>
              <button type="button" onClick={job.cancel}>
                Cancel
              </button>
            </div>
            <JobProgress job={job} />
          </li>
        ))}
      </ul>
    </section>
  );
}

function JobProgress({ job }: { job: Job }) {
  const p = job.progress;
  const stage = p ? (STAGES[p.stage] ?? p.stage) : job.action === 'add' ? 'Starting' : 'Updating';
  const detail = p && p.total > 1 ? ` ${formatCount(p.done)} / ${formatCount(p.total)}` : '';
  return (
    <div className="library__meta">
      <span role="status">
        {stage}
        {detail}
      </span>
      <progress
        aria-label={`${job.name}: ${stage}`}
        max={p?.total || 1}
        value={p ? p.done : undefined}
      />
    </div>
  );
}

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
