/**
 * @file The selected fragments of a retrieval result as the prompt builders take them.
 */
import type { PromptFragment } from '../../core/prompt';
import { documentOf, type RetrievalResult } from '../../workers/retrieval-types';

/** "pg11.txt · fragment 31 · CHAPTER IX": the document, the fragment's place, its section. */
export function fragmentLocation(result: RetrievalResult, index: number): string {
  const doc = documentOf(result, index);
  const n = doc ? index - doc.offset + 1 : index + 1;
  const label = result.labels[index];
  return `${doc?.name ?? 'document'} · fragment ${n}${label ? ` · ${label}` : ''}`;
}

type RunSpan = NonNullable<RetrievalResult['spans']>[number];
type RunDocument = RetrievalResult['documents'][number];

/** How a prompt names where a quoted span or fragment sits. */
export interface Locate {
  span: (span: RunSpan, doc: RunDocument | undefined) => string;
  fragment: (index: number, doc: RunDocument) => string;
}

/**
 * The selected fragments in document order (Eq. 11), with their rank by final score and their
 * text, each located by `locate`; null while the text of a document they come from is still
 * loading. Code windows merged into spans (core/code/spans.ts) are quoted a span at a time, each
 * line once; a citation opens the span's best-ranked window.
 */
export function promptFragments(
  result: RetrievalResult,
  sources: ReadonlyMap<string, string>,
  locate: Locate,
): PromptFragment[] | null {
  if (result.spans) {
    const byRank = [...result.spans].sort((a, b) => a.rank - b.rank);
    const out: PromptFragment[] = [];
    for (const span of result.spans) {
      const text = sources.get(span.docId);
      if (text === undefined) return null;
      out.push({
        index: span.best,
        rank: byRank.indexOf(span),
        location: locate.span(span, documentOf(result, span.best)),
        text: text.slice(span.start, span.end),
      });
    }
    return out;
  }
  const rankOf = new Map<number, number>();
  result.selectedRanked.forEach((index, rank) => rankOf.set(index, rank));
  const out: PromptFragment[] = [];
  for (const index of result.selected) {
    const doc = documentOf(result, index);
    const text = doc ? sources.get(doc.docId) : undefined;
    if (text === undefined) return null;
    out.push({
      index,
      rank: rankOf.get(index) ?? out.length,
      location: locate.fragment(index, doc!),
      text: text.slice(result.starts[index], result.ends[index]),
    });
  }
  return out;
}

/** The selected fragments as the answer prompt takes them, located by document and section. */
export function selectedFragments(
  result: RetrievalResult,
  sources: ReadonlyMap<string, string>,
): PromptFragment[] | null {
  return promptFragments(result, sources, {
    span: (span, doc) =>
      `${doc?.name ?? 'repository'} · fragment ${span.best - (doc?.offset ?? 0) + 1} · ${span.path}:${span.first}-${span.last}`,
    fragment: (index) => fragmentLocation(result, index),
  });
}
