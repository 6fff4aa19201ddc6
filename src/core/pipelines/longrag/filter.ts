/**
 * @file Parsing the per-chunk filter's reply (the second half of `filter()` in LongRAG's
 * `src/main.py`; PIPELINES.md 2.2 step 7b), with the official fallbacks.
 */

export type FilterParse =
  /** `{"status": "True"}` (any case): kept. */
  | { keep: true; how: 'json' }
  /** Valid JSON with a string status other than "true": dropped. */
  | { keep: false; how: 'json' }
  /** JSON.parse failed, the key was missing or not a string: kept iff "True|true" occurs anywhere. */
  | { keep: boolean; how: 'text' };

export function parseFilterReply(reply: string): FilterParse {
  try {
    const parsed: unknown = JSON.parse(reply);
    const status = (parsed as Record<string, unknown>)['status'];
    // Python's `.lower()` fails on a non-string (a bare true, null, a number): the fallback runs.
    if (typeof status !== 'string') throw new TypeError('status is not a string');
    return status.toLowerCase() === 'true'
      ? { keep: true, how: 'json' }
      : { keep: false, how: 'json' };
  } catch {
    // The official fallback: "untrue" and "not True" match too.
    return { keep: /True|true/.test(reply), how: 'text' };
  }
}

/**
 * The filter's verdicts over all k chunks: kept in rerank order; when none is kept, all are
 * (the official code's fallback, so the generator is never left without passages).
 */
export function filterVerdicts(replies: readonly string[]): {
  parses: FilterParse[];
  kept: boolean[];
  allKeptAsFallback: boolean;
} {
  const parses = replies.map(parseFilterReply);
  const any = parses.some((p) => p.keep);
  return {
    parses,
    kept: parses.map((p) => !any || p.keep),
    allKeptAsFallback: !any && parses.length > 0,
  };
}
