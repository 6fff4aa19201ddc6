/**
 * @file Tuning on labels: the record of a benchmark file that holds the open document, and its
 * questions with their gold located in the document's own text (as bench/quality/items.ts
 * locates L-Eval gold: the two consecutive sentences holding at least half of the gold text's
 * content words). The document may have been re-encoded or re-wrapped by ingest, so records are
 * matched on whitespace-normalised word runs, not on exact text.
 */
import { locateGold, sentenceSpans, type Span } from '../eval/retrieval';
import type { LevalDocument } from '../eval/datasets/leval';

export interface LabelledQuestion {
  query: string;
  gold: Span[];
}

const squash = (text: string) => text.replace(/\s+/g, ' ').trim();

/**
 * How much of a record's text the document holds: the share of `probes` runs of 8 words, taken
 * evenly through the record, found in the document (both whitespace-normalised).
 */
export function recordOverlap(documentText: string, recordText: string, probes = 20): number {
  const words = squash(recordText).split(' ');
  if (words.length < 8) return 0;
  const haystack = squash(documentText);
  let found = 0;
  for (let k = 0; k < probes; k++) {
    const at = Math.floor((k * (words.length - 8)) / Math.max(1, probes - 1));
    if (haystack.includes(words.slice(at, at + 8).join(' '))) found++;
  }
  return found / probes;
}

/** The record whose text the document holds best (at least half the probes), or null. */
export function matchRecord<T extends Pick<LevalDocument, 'text'>>(
  documentText: string,
  records: readonly T[],
): T | null {
  let best: { record: T; overlap: number } | null = null;
  for (const record of records) {
    const overlap = recordOverlap(documentText, record.text);
    if (overlap > (best?.overlap ?? 0)) best = { record, overlap };
  }
  return best && best.overlap >= 0.5 ? best.record : null;
}

/** The record's questions whose gold text locates a passage in the document; the rest counted. */
export function labelledQuestions(
  documentText: string,
  record: LevalDocument,
): { questions: LabelledQuestion[]; unlocated: number } {
  const spans = sentenceSpans(documentText);
  const questions: LabelledQuestion[] = [];
  let unlocated = 0;
  for (const q of record.questions) {
    const located = q.goldText
      ? locateGold(documentText, q.goldText, { sentences: 2, minCoverage: 0.5 }, spans)
      : null;
    if (located) questions.push({ query: q.query, gold: [located.span] });
    else unlocated++;
  }
  return { questions, unlocated };
}
