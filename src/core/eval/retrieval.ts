/**
 * @file Retrieval metrics without an LLM, over a selection of fragments (Eq. 11):
 * - gold recall: the share of gold spans lying wholly inside selected fragments;
 * - answer-in-context: the share of the answer's content words found in the selected text;
 * - locating a gold passage for data sets that give an answer but no passage (L-Eval): the
 *   sentence of the document that holds most of the answer's content words.
 */
import { STOP_WORDS } from '../stopwords';
import { tokenize } from '../tokenize';

export interface Span {
  start: number;
  end: number;
}

/**
 * Whether [start, end) lies wholly inside selected fragments. `starts`/`ends` are fragment spans
 * in document order that tile the text; `selected[i]` says whether fragment i is in.
 */
export function spanSelected(
  starts: ArrayLike<number>,
  ends: ArrayLike<number>,
  selected: ArrayLike<boolean>,
  start: number,
  end: number,
): boolean {
  let lo = 0;
  let hi = starts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ends[mid] <= start) lo = mid + 1;
    else hi = mid;
  }
  if (lo === starts.length) return false;
  for (let i = lo; i < starts.length && starts[i] < end; i++) if (!selected[i]) return false;
  return true;
}

/** Share of `gold` spans wholly inside the selection (0 when there is no gold). */
export function goldRecall(
  starts: ArrayLike<number>,
  ends: ArrayLike<number>,
  selected: ArrayLike<boolean>,
  gold: readonly Span[],
): number {
  if (gold.length === 0) return 0;
  let hit = 0;
  for (const g of gold) if (spanSelected(starts, ends, selected, g.start, g.end)) hit++;
  return hit / gold.length;
}

/** Distinct lower-cased words of a text without the common function words. */
export function contentWords(text: string): Set<string> {
  return new Set(tokenize(text).filter((t) => !STOP_WORDS.has(t)));
}

/** Share of the answer's content words present in `context` (0 for an answer without any). */
export function answerInContext(answer: ReadonlySet<string>, context: ReadonlySet<string>): number {
  if (answer.size === 0) return 0;
  let hit = 0;
  for (const w of answer) if (context.has(w)) hit++;
  return hit / answer.size;
}

/** Sentence spans of a text: cut after ., ! or ? (optionally closed by quotes or brackets) before whitespace, and at blank lines. */
export function sentenceSpans(text: string): Span[] {
  const out: Span[] = [];
  const cut = /[.!?]["'\u201d\u2019)\]]*(?=\s)|\n\s*\n/g;
  let at = 0;
  for (const m of text.matchAll(cut)) {
    const end = m.index + m[0].length;
    pushTrimmed(text, at, end, out);
    at = end;
  }
  pushTrimmed(text, at, text.length, out);
  return out;
}

function pushTrimmed(text: string, start: number, end: number, out: Span[]): void {
  while (start < end && /\s/.test(text[start])) start++;
  while (end > start && /\s/.test(text[end - 1])) end--;
  if (end > start) out.push({ start, end });
}

export interface LocatedGold {
  span: Span;
  /** Share of the answer's content words in that sentence. */
  coverage: number;
}

export interface LocateOptions {
  /** Least share of the answer's content words the passage must hold. */
  minCoverage: number;
  /** The passage is this many consecutive sentences. */
  sentences: number;
}

export const defaultLocateOptions: Readonly<LocateOptions> = Object.freeze({
  minCoverage: 0.5,
  sentences: 1,
});

/**
 * The run of `sentences` consecutive sentences holding the largest share of the answer's content
 * words (ties: the earlier), or null when none reaches `minCoverage` or the answer has no content
 * word. A silver label: lexical, so it finds extractive answers well and paraphrased ones less
 * often (those questions are dropped and counted by the caller).
 */
export function locateGold(
  document: string,
  answer: string,
  options: Partial<LocateOptions> = {},
  spans: readonly Span[] = sentenceSpans(document),
): LocatedGold | null {
  const { minCoverage, sentences } = { ...defaultLocateOptions, ...options };
  const words = contentWords(answer);
  if (words.size === 0 || spans.length === 0) return null;
  const width = Math.max(1, Math.min(sentences, spans.length));
  let best: LocatedGold | null = null;
  for (let s = 0; s + width <= spans.length; s++) {
    const span = { start: spans[s].start, end: spans[s + width - 1].end };
    const coverage = answerInContext(words, contentWords(document.slice(span.start, span.end)));
    if (coverage > (best?.coverage ?? 0)) best = { span, coverage };
  }
  return best && best.coverage >= minCoverage ? best : null;
}
