/**
 * @file LongRAG's chunk-to-paragraph mapping (`s2l_doc` in `src/main.py`; PIPELINES.md 2.2 step
 * 5) over the library: a "chunk" is a library fragment and its "paragraph" is the source unit
 * around it (PIPELINES.md 1, "Unit mapping").
 *
 * What a paragraph is, by text kind (the long context a hit is mapped back to):
 * - **book** (prose): a block of `paragraphFragments` consecutive fragments inside one section
 *   (a run of fragments with the same chapter or page label), counted from the section's start;
 *   blocks do not overlap, so two hits in one block map to one paragraph, as in the paper.
 * - **repository** (code): the whole file the window belongs to (windows labelled `path:a-b`).
 * - **chat**: a block of `paragraphFragments` consecutive turns (a turn is one fragment).
 *
 * Walk the hits in rerank order, emit each hit's paragraph unless already emitted; a paragraph of
 * `longThreshold` tokens or more is replaced by the hit itself, never de-duplicated.
 */
import { fragmentsByDocument, fragmentText, documentOf } from '../library';
import type { PipelineFragment, PipelineLibrary } from '../types';

export interface Paragraph {
  /** Stable key: document and span. */
  key: string;
  docId: string;
  start: number;
  end: number;
  /** Fragments it covers, in document order. */
  fragments: number[];
  /** The code file's path, the section's label. */
  label?: string;
}

/** The path of a code window labelled `src/io.py:12-31`. */
function pathOf(label: string | undefined): string {
  return (label ?? '').replace(/:\d+-\d+$/, '');
}

/** Every fragment's paragraph, by fragment index. */
export function paragraphsOf(
  library: PipelineLibrary,
  paragraphFragments: number,
): Map<number, Paragraph> {
  const n = Math.max(1, Math.floor(paragraphFragments));
  const out = new Map<number, Paragraph>();
  for (const [docId, fragments] of fragmentsByDocument(library)) {
    const doc = library.documents.find((d) => d.docId === docId)!;
    const groups: PipelineFragment[][] = [];
    if (doc.kind === 'code') {
      const byPath = new Map<string, PipelineFragment[]>();
      for (const f of fragments) {
        const p = pathOf(f.label);
        if (!byPath.has(p)) byPath.set(p, []);
        byPath.get(p)!.push(f);
      }
      groups.push(...byPath.values());
    } else {
      let run: PipelineFragment[] = [];
      const flush = () => {
        for (let i = 0; i < run.length; i += n) groups.push(run.slice(i, i + n));
        run = [];
      };
      for (const f of fragments) {
        // Chat turns carry their own labels ("turn 4"); only books have sections to respect.
        if (doc.kind === 'prose' && run.length && run[0].label !== f.label) flush();
        run.push(f);
      }
      flush();
    }
    for (const g of groups) {
      const start = Math.min(...g.map((f) => f.start));
      const end = Math.max(...g.map((f) => f.end));
      const label = doc.kind === 'code' ? pathOf(g[0].label) : g[0].label;
      const paragraph: Paragraph = {
        key: `${docId}:${start}-${end}`,
        docId,
        start,
        end,
        fragments: g.map((f) => f.index),
        ...(label ? { label } : {}),
      };
      for (const f of g) out.set(f.index, paragraph);
    }
  }
  return out;
}

export interface MappedItem {
  /** The hit (chunk) that brought it, its best in rerank order. */
  hit: number;
  /** The paragraph, or null when it was too long and the hit stands for itself. */
  paragraph: Paragraph | null;
  text: string;
  tokens: number;
}

export interface Mapping {
  items: MappedItem[];
  /** Hits whose paragraph was already emitted by a better hit. */
  duplicates: Array<{ hit: number; sameAs: number }>;
}

/** `s2l_doc`: hits in rerank order to their paragraphs, de-duplicated, long ones kept as the hit. */
export async function mapToParagraphs(
  library: PipelineLibrary,
  hits: readonly number[],
  paragraphs: Map<number, Paragraph>,
  longThreshold: number,
  countTokens: (text: string) => Promise<number>,
): Promise<Mapping> {
  const items: MappedItem[] = [];
  const duplicates: Mapping['duplicates'] = [];
  const emitted = new Map<string, number>();
  for (const hit of hits) {
    const paragraph = paragraphs.get(hit);
    if (paragraph && emitted.has(paragraph.key)) {
      duplicates.push({ hit, sameAs: emitted.get(paragraph.key)! });
      continue;
    }
    const text = paragraph
      ? documentOf(library, hit)!.text.slice(paragraph.start, paragraph.end)
      : '';
    // A very long paragraph (a large file) is not worth counting exactly: it is over anyway.
    const tokens =
      !paragraph || text.length > longThreshold * 16 ? Infinity : await countTokens(text);
    if (paragraph && tokens < longThreshold) {
      emitted.set(paragraph.key, hit);
      items.push({ hit, paragraph, text, tokens });
    } else {
      const own = fragmentText(library, hit);
      items.push({ hit, paragraph: null, text: own, tokens: await countTokens(own) });
    }
  }
  return { items, duplicates };
}
