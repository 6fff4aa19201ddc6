/**
 * @file What QRMeM keeps of a document across questions (PIPELINES.md 3.5 "Caching"): its
 * segments (as fragment ordinals; the text only where a segment was cut), the named entities of
 * each segment, and the library's summary when the library is this one document. None of it
 * depends on the question. Keyed by the segment size and the engine's tokenizer, which decide the
 * segments; checked against the document's fragment count and text length before reuse.
 */
import type { Segment } from '../segment';
import type { PipelineDocument, PipelineLibrary, PipelineLlm } from '../types';

/** Bumped when the stored layout or the NER pass changes, so old memories are rebuilt. */
export const QRMEM_MEMORY_LAYOUT = 1;

export interface QrmemDocumentMemory {
  layout: number;
  fragmentCount: number;
  textLength: number;
  segments: Array<{ ordinals: number[]; tokens: number; cut: boolean; text?: string }>;
  ner: string[][];
  summary?: string;
}

export function memoryKey(segmentTokens: number, llm: PipelineLlm): string {
  return `qrmem|${segmentTokens}|${llm.exactTokenCounts ? llm.label : 'estimate'}`;
}

/** The document's memory from its segments (in run indices) and their NER. */
export function toMemory(
  library: PipelineLibrary,
  doc: PipelineDocument,
  segments: readonly Segment[],
  ner: readonly string[][],
  summary?: string,
): QrmemDocumentMemory {
  return {
    layout: QRMEM_MEMORY_LAYOUT,
    fragmentCount: library.fragments.filter((f) => f.docId === doc.docId).length,
    textLength: doc.text.length,
    segments: segments.map((s) => ({
      ordinals: s.fragments.map((i) => library.fragments[i].ordinal),
      tokens: s.tokens,
      cut: s.cut,
      ...(s.cut ? { text: s.text } : {}),
    })),
    ner: ner.map((l) => [...l]),
    ...(summary !== undefined ? { summary } : {}),
  };
}

/**
 * The segments and NER of a stored memory in this run's fragment indices, or null when it does
 * not fit the document as it is now (re-indexed, or another layout).
 */
export function fromMemory(
  library: PipelineLibrary,
  doc: PipelineDocument,
  value: unknown,
): { segments: Segment[]; ner: string[][]; summary?: string } | null {
  const m = value as Partial<QrmemDocumentMemory> | undefined;
  if (!m || m.layout !== QRMEM_MEMORY_LAYOUT || !Array.isArray(m.segments) || !Array.isArray(m.ner))
    return null;
  const byOrdinal = new Map<number, number>();
  for (const f of library.fragments) if (f.docId === doc.docId) byOrdinal.set(f.ordinal, f.index);
  if (m.fragmentCount !== byOrdinal.size || m.textLength !== doc.text.length) return null;
  if (m.ner.length !== m.segments.length) return null;
  const segments: Segment[] = [];
  for (const s of m.segments) {
    const fragments = s.ordinals.map((o) => byOrdinal.get(o));
    if (!fragments.length || fragments.some((i) => i === undefined)) return null;
    const idx = fragments as number[];
    const first = library.fragments[idx[0]];
    const last = library.fragments[idx[idx.length - 1]];
    segments.push({
      docId: doc.docId,
      fragments: idx,
      text: s.cut && s.text !== undefined ? s.text : doc.text.slice(first.start, last.end),
      tokens: s.tokens,
      cut: s.cut,
    });
  }
  return { segments, ner: m.ner, ...(m.summary !== undefined ? { summary: m.summary } : {}) };
}
