import { useEffect, useMemo, useRef, useState } from 'react';
import { supportingSentences, type SentenceVectors } from '../../core/evidence/support';
import { documentOf, type RetrievalResult } from '../../workers/retrieval-types';
import { Highlight } from './Highlight';
import { sentenceVectors } from './sentence-vectors';

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
  /**
   * Set when a citation opened the fragment: the answer's claim, whose supporting sentences are
   * marked (core/evidence/support.ts), and a counter that brings them into view on every click.
   */
  citation?: { claim: string; seq: number } | null;
}

const CONTEXT_CHARS = 600;

export function Reader({ result, index, source, onPick, citation }: ReaderProps) {
  const terms = useMemo(() => new Set(result.queryTerms), [result.queryTerms]);
  const doc = documentOf(result, index);
  const start = result.starts[index];
  const end = result.ends[index];
  const text = source === null ? '' : source.slice(start, end);
  const claim = citation?.claim ?? '';
  // Sentence vectors, once loaded, add similarity to the shared words (core/evidence/support.ts).
  const [vectors, setVectors] = useState<{ key: string; v: SentenceVectors } | null>(null);
  const key = `${claim}\u0000${text}`;
  useEffect(() => {
    if (!claim || !text) return;
    let live = true;
    sentenceVectors(claim, text).then(
      (v) => live && setVectors({ key, v }),
      () => {}, // No vectors: the words alone decide.
    );
    return () => {
      live = false;
    };
  }, [claim, text, key]);
  const fitting = vectors?.key === key ? vectors.v : undefined;
  const support = useMemo(
    () =>
      claim && text
        ? supportingSentences(claim, text, {}, fitting).sort((a, b) => a.start - b.start)
        : [],
    [claim, text, fitting],
  );
  const box = useRef<HTMLDivElement>(null);
  const seq = citation?.seq;
  // A citation click: bring the first supporting sentence (else the fragment's start) into view,
  // scrolling the reader's box and the page as far as needed.
  useEffect(() => {
    if (seq === undefined || !box.current) return;
    const target =
      box.current.querySelector('.reader__support') ??
      box.current.querySelector('.reader__fragment');
    target?.scrollIntoView({ block: 'center', inline: 'nearest' });
  }, [seq, index, support]);
  if (!doc) return null;
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
          ref={box}
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
            <SupportedText text={text} support={support} terms={terms} />
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

/** The fragment with its supporting sentences marked and the question's words highlighted. */
function SupportedText({
  text,
  support,
  terms,
}: {
  text: string;
  support: readonly { start: number; end: number; weak?: boolean }[];
  terms: Set<string>;
}) {
  if (support.length === 0) return <Highlight text={text} terms={terms} />;
  const parts: React.ReactNode[] = [];
  let at = 0;
  for (const s of support) {
    if (s.start > at)
      parts.push(<Highlight key={`t${at}`} text={text.slice(at, s.start)} terms={terms} />);
    parts.push(
      <span
        key={`s${s.start}`}
        className={`reader__support${s.weak ? ' reader__support--weak' : ''}`}
        data-testid="support-sentence"
        data-weak={s.weak ? 'true' : undefined}
        title={
          s.weak
            ? 'A weak match: this sentence shares little with the cited claim (one word, or not enough to count as support)'
            : 'This sentence supports the cited claim'
        }
      >
        <Highlight text={text.slice(s.start, s.end)} terms={terms} />
      </span>,
    );
    if (s.weak)
      parts.push(
        <span key={`w${s.start}`} className="reader__weak" data-testid="support-weak">
          {' '}
          (weak match)
        </span>,
      );
    at = s.end;
  }
  if (at < text.length)
    parts.push(<Highlight key={`t${at}`} text={text.slice(at)} terms={terms} />);
  return <>{parts}</>;
}
