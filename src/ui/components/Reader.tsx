import { useMemo } from 'react';
import type { RetrievalResult } from '../../workers/retrieval-types';
import { Highlight } from './Highlight';

/**
 * A fragment read in its place in the book: the fragment itself with the question's terms
 * marked, between the ends of its neighbours.
 */
export interface ReaderProps {
  result: RetrievalResult;
  index: number;
  /** Source text of the fragment's document (null while it loads). */
  source: string | null;
  onPick: (index: number) => void;
}

const CONTEXT_CHARS = 600;

export function Reader({ result, index, source, onPick }: ReaderProps) {
  const terms = useMemo(() => new Set(result.queryTerms), [result.queryTerms]);
  const doc = result.documents.find((d) => index >= d.offset && index < d.offset + d.count);
  if (!doc) return null;
  const start = result.starts[index];
  const end = result.ends[index];
  const selected = result.selected.includes(index);
  const hasPrev = index > doc.offset;
  const hasNext = index < doc.offset + doc.count - 1;

  return (
    <section className="reader" aria-labelledby="reader-title">
      <header className="reader__head">
        <h2 id="reader-title">
          {doc.name} · fragment {index - doc.offset + 1} of {doc.count}
          {result.labels[index] ? ` · ${result.labels[index]}` : ''}
        </h2>
        <span className={selected ? 'badge badge--selected' : 'badge'}>
          {selected ? 'selected' : 'not selected'}
        </span>
        <div className="reader__nav">
          <button type="button" disabled={!hasPrev} onClick={() => onPick(index - 1)}>
            ← Previous fragment
          </button>
          <button type="button" disabled={!hasNext} onClick={() => onPick(index + 1)}>
            Next fragment →
          </button>
        </div>
      </header>
      {source === null ? (
        <p>Loading the text…</p>
      ) : (
        // Focusable so keyboard users can scroll it.
        <div
          className="reader__text"
          data-testid="reader-text"
          tabIndex={0}
          aria-label="Fragment text"
        >
          {hasPrev && (
            <p className="reader__context">
              …{source.slice(Math.max(result.starts[index - 1], start - CONTEXT_CHARS), start)}
            </p>
          )}
          <p className="reader__fragment">
            <Highlight text={source.slice(start, end)} terms={terms} />
          </p>
          {hasNext && (
            <p className="reader__context">
              {source.slice(end, Math.min(result.ends[index + 1], end + CONTEXT_CHARS))}…
            </p>
          )}
        </div>
      )}
    </section>
  );
}
