/**
 * @file Eq. 11 for code windows without repeats. Windows slide by half their length (20 lines
 * by 10, DESIGN.md section 2), so the top windows of a repository are often overlapping pieces
 * of one file: taken as they are, the model reads the same lines twice (measured on RepoEval:
 * 7 of 10 selected windows overlapped). Here selection counts *new lines*: a window costs the
 * lines no selected window of its file already covers, a window wholly covered is a repeat and
 * costs nothing, and the budget is the top-K windows' worth of lines, so the budget a repeat
 * frees goes to the next window down the ranking. Overlapping or touching selected windows of a
 * file are then merged into one span, which is what the prompt quotes.
 */
import { RankHeap } from '../heap';
import type { Selection } from '../types';

/** A code window: its file (unique per document) and its 1-based inclusive line range. */
export interface WindowRef {
  /** Identifies the file across documents, e.g. `${docId}\u0000${path}`. */
  file: string;
  first: number;
  last: number;
}

/** Selected windows of one file merged: lines [first, last] and the windows inside. */
export interface WindowSpan {
  file: string;
  first: number;
  last: number;
  /** Member windows, ascending. */
  windows: number[];
  /** The best (lowest) rank among its windows: the span's place in the ranking. */
  rank: number;
  /** The best-ranked member window. */
  best: number;
}

export interface SpanSelection {
  /** Windows taken (their new lines went into the context); `used`/`budget` count lines. */
  selection: Selection;
  /** The merged spans, in document order (by file first-seen order of `windows`, then line). */
  spans: WindowSpan[];
  /** Windows left out as repeats: each maps to a selected window that covers it. */
  duplicateOf: Map<number, number>;
}

export interface SpanOptions {
  /** The top-K windows' worth of lines (code: K = 10). */
  maxWindows: number;
  /** Lines in a full window (20); the line budget is maxWindows x windowLines. */
  windowLines: number;
  /** Windows kept out of the ranking (a completion's cursor windows). */
  exclude?: ArrayLike<number>;
}

/** Number of lines of [first, last] not covered by `covered` (sorted, disjoint intervals). */
function newLines(covered: readonly [number, number][], first: number, last: number): number {
  let n = last - first + 1;
  for (const [a, b] of covered) {
    const lo = Math.max(a, first);
    const hi = Math.min(b, last);
    if (hi >= lo) n -= hi - lo + 1;
  }
  return n;
}

/** Adds [first, last] to sorted disjoint intervals, merging overlapping and touching ones. */
function cover(covered: [number, number][], first: number, last: number): [number, number][] {
  const all = [...covered, [first, last] as [number, number]].sort((x, y) => x[0] - y[0]);
  const out: [number, number][] = [];
  for (const [a, b] of all) {
    const prev = out[out.length - 1];
    if (prev && a <= prev[1] + 1) prev[1] = Math.max(prev[1], b);
    else out.push([a, b]);
  }
  return out;
}

/**
 * Selection by new lines. `windows[i]` null: fragment i is not a code window (never taken).
 * Walks the ranking until the line budget is full or the windows run out.
 */
export function selectWindowSpans(
  final: Float64Array,
  windows: readonly (WindowRef | null)[],
  options: SpanOptions,
): SpanSelection {
  const n = final.length;
  if (windows.length !== n) throw new Error(`FragRel: ${n} scores but ${windows.length} windows.`);
  const budget = options.maxWindows * options.windowLines;
  const skip = new Uint8Array(n);
  for (let k = 0; k < (options.exclude?.length ?? 0); k++) skip[options.exclude![k]] = 1;
  const keep: number[] = [];
  for (let i = 0; i < n; i++) if (!skip[i] && windows[i]) keep.push(i);

  const heap = new RankHeap(final, Uint32Array.from(keep));
  const covered = new Map<string, [number, number][]>();
  const taken = new Map<string, number[]>();
  const picked: number[] = [];
  const pickedRanks: number[] = [];
  const duplicateOf = new Map<number, number>();
  let used = 0;
  for (let rank = 0; heap.size > 0 && used < budget; rank++) {
    const i = heap.pop();
    const w = windows[i]!;
    const have = covered.get(w.file) ?? [];
    const cost = newLines(have, w.first, w.last);
    if (cost === 0) {
      // Wholly covered: a repeat (which window it repeats is settled below).
      duplicateOf.set(i, -1);
      continue;
    }
    if (used + cost > budget) continue;
    used += cost;
    picked.push(i);
    pickedRanks.push(rank);
    covered.set(w.file, cover(have, w.first, w.last));
    taken.set(w.file, [...(taken.get(w.file) ?? []), i]);
  }
  // A repeat's "repeat of" is a taken window that overlaps it (one always does), for the
  // explanation.
  for (const i of duplicateOf.keys()) {
    const w = windows[i]!;
    const over = taken
      .get(w.file)!
      .find((t) => windows[t]!.first <= w.last && windows[t]!.last >= w.first);
    duplicateOf.set(i, over!);
  }

  const rankOf = new Map(picked.map((i, r) => [i, pickedRanks[r]]));
  const spans: WindowSpan[] = [];
  const byFile = new Map<string, number[]>();
  for (const i of [...picked].sort((a, b) => a - b)) {
    const f = windows[i]!.file;
    byFile.set(f, [...(byFile.get(f) ?? []), i]);
  }
  for (const [file, members] of byFile) {
    members.sort((a, b) => windows[a]!.first - windows[b]!.first || a - b);
    let open: WindowSpan | null = null;
    for (const i of members) {
      const w = windows[i]!;
      const r = rankOf.get(i)!;
      if (open && w.first <= open.last + 1) {
        open.last = Math.max(open.last, w.last);
        open.windows.push(i);
        if (r < open.rank) {
          open.rank = r;
          open.best = i;
        }
      } else {
        open = { file, first: w.first, last: w.last, windows: [i], rank: r, best: i };
        spans.push(open);
      }
    }
  }
  for (const s of spans) s.windows.sort((a, b) => a - b);
  spans.sort((a, b) => a.windows[0] - b.windows[0]);

  const ranked = Uint32Array.from(picked);
  return {
    selection: {
      indices: ranked.slice().sort(),
      ranked,
      used,
      budget,
      ranks: Uint32Array.from(pickedRanks),
    },
    spans,
    duplicateOf,
  };
}
