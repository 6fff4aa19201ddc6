/**
 * @file Find in a book: where a phrase occurs in a document's text, and which fragments hold
 * the occurrences (for ticks on the score strip and for stepping through them in the reader).
 */

export interface FindResult {
  /** Character offsets of the matches, ascending (at most `limit`). */
  offsets: number[];
  /** Fragments (document-local ordinals) holding at least one match, ascending. */
  fragments: number[];
  /** True when the search stopped at `limit` matches. */
  truncated: boolean;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Case-insensitive matches of `phrase` in `text` (whitespace in the phrase matches any run of
 * whitespace, so a phrase found across a line break counts). `starts` are the fragments' start
 * offsets, ascending; a match belongs to the last fragment starting at or before it.
 */
export function findInText(
  text: string,
  phrase: string,
  starts: ArrayLike<number>,
  limit = 10_000,
): FindResult {
  const words = phrase.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return { offsets: [], fragments: [], truncated: false };
  const pattern = new RegExp(words.map(escape).join('\\s+'), 'giu');
  const offsets: number[] = [];
  const fragments: number[] = [];
  let truncated = false;
  for (const m of text.matchAll(pattern)) {
    if (offsets.length >= limit) {
      truncated = true;
      break;
    }
    offsets.push(m.index);
    // Binary search: the last fragment whose start is <= the match.
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (starts[mid] <= m.index) lo = mid;
      else hi = mid - 1;
    }
    if (starts.length > 0 && fragments[fragments.length - 1] !== lo) fragments.push(lo);
  }
  return { offsets, fragments, truncated };
}
