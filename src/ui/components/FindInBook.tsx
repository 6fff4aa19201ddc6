import { findInText } from '../../core/find/find';
import type { RetrievalResult } from '../../workers/retrieval-types';
import { SearchField } from './SearchField';

export interface RunFind {
  /** Run indices of the passages holding the phrase, ascending. */
  hits: number[];
  matches: number;
}

/** The phrase's matches over every document of the run (core/find). */
export function findInRun(
  result: RetrievalResult,
  sources: ReadonlyMap<string, string>,
  phrase: string,
): RunFind {
  const hits: number[] = [];
  let matches = 0;
  if (!phrase.trim()) return { hits, matches };
  for (const d of result.documents) {
    const text = sources.get(d.docId);
    if (text === undefined) continue;
    const r = findInText(text, phrase, result.starts.subarray(d.offset, d.offset + d.count));
    matches += r.offsets.length;
    for (const k of r.fragments) hits.push(d.offset + k);
  }
  return { hits, matches };
}

/**
 * Find in the asked documents: the passages holding the phrase are ticked on the strips, and
 * Next/Previous step the reader through them.
 */
export function FindInBook({
  phrase,
  onPhrase,
  found,
  focused,
  onPick,
}: {
  phrase: string;
  onPhrase: (phrase: string) => void;
  found: RunFind;
  focused: number | null;
  onPick: (index: number) => void;
}) {
  const step = (dir: 1 | -1) => {
    const { hits } = found;
    if (hits.length === 0) return;
    const from = focused ?? -1;
    const next =
      dir === 1
        ? (hits.find((i) => i > from) ?? hits[0])
        : ([...hits].reverse().find((i) => i < from) ?? hits[hits.length - 1]);
    onPick(next);
  };
  return (
    <form
      className="find"
      role="search"
      aria-label="Search within the documents"
      onSubmit={(e) => {
        e.preventDefault();
        step(1);
      }}
    >
      <SearchField id="find-phrase" label="Find in the book" value={phrase} onChange={onPhrase} />
      <button type="button" onClick={() => step(-1)} disabled={found.hits.length === 0}>
        Previous
      </button>
      <button type="submit" disabled={found.hits.length === 0}>
        Next
      </button>
      {phrase.trim() && (
        <span className="stats" role="status" data-testid="find-status">
          {found.matches.toLocaleString('en')} {found.matches === 1 ? 'match' : 'matches'} in{' '}
          {found.hits.length.toLocaleString('en')}{' '}
          {found.hits.length === 1 ? 'passage' : 'passages'}
        </span>
      )}
    </form>
  );
}
