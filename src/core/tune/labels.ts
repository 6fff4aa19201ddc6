/**
 * @file Tuning on labels: the record of a benchmark file that holds the open document, and its
 * questions with their gold located in the document's own text (as bench/quality/items.ts
 * locates L-Eval gold: the two consecutive sentences holding at least half of the gold text's
 * content words). The document may have been re-encoded or re-wrapped by ingest, so records are
 * matched on whitespace-normalised word runs, not on exact text.
 */
import { locateGold, sentenceSpans, type Span } from '../eval/retrieval';
import type { LevalDocument } from '../eval/datasets/leval';
import type { BenchmarkItem, ParsedBenchmark } from '../eval/datasets/types';

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

/** Where `passage` lies in `documentText`: verbatim, else with any whitespace between its words. */
export function findPassage(documentText: string, passage: string): Span | null {
  const at = documentText.indexOf(passage);
  if (at >= 0 && passage.length > 0) return { start: at, end: at + passage.length };
  const words = passage.split(/\s+/).filter(Boolean);
  if (words.length === 0) return null;
  const escaped = words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const hit = new RegExp(escaped.join('\\s+')).exec(documentText);
  return hit ? { start: hit.index, end: hit.index + hit[0].length } : null;
}

/**
 * Tuning on labels from any benchmark format that carries gold passages: the
 * parsed file's document that `documentText` holds best (as `matchRecord`), and its questions
 * with their gold spans carried over into `documentText`: each gold passage found verbatim or
 * re-wrapped, else located as L-Eval gold is (two consecutive sentences holding half of its
 * content words). An error in words for a file without gold or without this document.
 */
export function labelledQuestionsFrom(
  documentText: string,
  benchmark: ParsedBenchmark,
  fileName: string,
  documentName: string,
): { ok: true; questions: LabelledQuestion[]; unlocated: number } | { ok: false; error: string } {
  const withGold = benchmark.items.filter((i) => i.gold.length > 0);
  if (withGold.length === 0) {
    return {
      ok: false,
      error: `“${fileName}” (${benchmark.label}) holds no gold passages, so there is nothing to tune on. Choose a file with gold passages (L-Eval, LongBench, HotpotQA, MuSiQue, MTBench+ or the simple JSONL), or tune on pseudo-questions.`,
    };
  }
  const byDocument = new Map<string, BenchmarkItem[]>();
  for (const item of withGold)
    byDocument.set(item.documentId, [...(byDocument.get(item.documentId) ?? []), item]);
  const documents = [...byDocument.values()].map((items) => ({ text: items[0].document, items }));
  const match = matchRecord(documentText, documents);
  if (!match) {
    return {
      ok: false,
      error: `None of the ${documents.length} documents with gold passages in “${fileName}” is “${documentName}”. Choose the file made for this document, or tune on pseudo-questions.`,
    };
  }
  const spans = sentenceSpans(documentText);
  const questions: LabelledQuestion[] = [];
  let unlocated = 0;
  for (const item of match.items) {
    const gold: Span[] = [];
    for (const g of item.gold) {
      const passage = item.document.slice(g.start, g.end);
      const span =
        findPassage(documentText, passage) ??
        locateGold(documentText, passage, { sentences: 2, minCoverage: 0.5 }, spans)?.span ??
        null;
      if (span) gold.push(span);
    }
    // A question keeps its labels only when every gold passage was found (a partial gold
    // set would make recall look better or worse than it is).
    if (gold.length === item.gold.length) questions.push({ query: item.question, gold });
    else unlocated++;
  }
  if (questions.length === 0) {
    return {
      ok: false,
      error: `None of the ${unlocated} gold passages in “${fileName}” could be found in “${documentName}”, so there is nothing to tune on. Tune on pseudo-questions instead.`,
    };
  }
  return { ok: true, questions, unlocated };
}
