/**
 * @file Reading the library a pipeline is given: fragment texts, where a fragment sits, and
 * fragments grouped by document.
 */
import type { PipelineDocument, PipelineFragment, PipelineLibrary } from './types';

export function documentOf(library: PipelineLibrary, index: number): PipelineDocument | undefined {
  const f = library.fragments[index];
  return f ? library.documents.find((d) => d.docId === f.docId) : undefined;
}

export function fragmentText(library: PipelineLibrary, index: number): string {
  const f = library.fragments[index];
  const doc = documentOf(library, index);
  return f && doc ? doc.text.slice(f.start, f.end) : '';
}

/**
 * "pg11.txt · fragment 31 · CHAPTER IX": the document, the fragment's place, its section (the
 * same words as the answer panel's src/ui/answer/fragments.ts).
 */
export function fragmentLocation(library: PipelineLibrary, index: number): string {
  const f = library.fragments[index];
  const doc = documentOf(library, index);
  if (!f) return 'document';
  return `${doc?.name ?? 'document'} · fragment ${f.ordinal + 1}${f.label ? ` · ${f.label}` : ''}`;
}

/** The fragments of each document, in document order. */
export function fragmentsByDocument(library: PipelineLibrary): Map<string, PipelineFragment[]> {
  const out = new Map<string, PipelineFragment[]>();
  for (const d of library.documents) out.set(d.docId, []);
  for (const f of library.fragments) out.get(f.docId)?.push(f);
  for (const list of out.values()) list.sort((a, b) => a.ordinal - b.ordinal);
  return out;
}

/** Fragment indices sorted by a score, best first (ties by index, for determinism). */
export function rankBy(scores: ArrayLike<number>, indices?: readonly number[]): number[] {
  const all = indices ? [...indices] : Array.from({ length: scores.length }, (_, i) => i);
  return all.sort((a, b) => scores[b] - scores[a] || a - b);
}

/** At most `max` characters of a text for the trace's lists. */
export function preview(text: string, max = 400): string {
  const t = text.trim();
  return t.length <= max ? t : `${t.slice(0, max - 1)}…`;
}
