/**
 * @file The library a pipeline reads, from the current retrieval result: the ticked documents'
 * texts, their fragments in run order, s_ind and s_rel for the question, and FragRel's selection.
 */
import type { PipelineLibrary } from '../../core/pipelines/types';
import type { TextKind } from '../../core/types';
import type { RetrievalResult } from '../../workers/retrieval-types';

const SCORER_NAMES = { dense: 'dense', bm25: 'BM25', hybrid: 'hybrid (dense + BM25)' } as const;

/** Null while the text of a document of the run is still loading. */
export function pipelineLibraryOf(
  result: RetrievalResult,
  sources: ReadonlyMap<string, string>,
  kindOf: (docId: string) => TextKind = () => 'prose',
): PipelineLibrary | null {
  const library: PipelineLibrary = {
    documents: [],
    fragments: [],
    independent: result.independent,
    final: result.final,
    scorer: SCORER_NAMES[result.settings.scoring],
    selection: { indices: [...result.selected], ranked: [...result.selectedRanked] },
  };
  for (const d of result.documents) {
    const text = sources.get(d.docId);
    if (text === undefined) return null;
    library.documents.push({ docId: d.docId, name: d.name, kind: kindOf(d.docId), text });
    for (let index = d.offset; index < d.offset + d.count; index++) {
      library.fragments.push({
        index,
        docId: d.docId,
        ordinal: index - d.offset,
        start: result.starts[index],
        end: result.ends[index],
        ...(result.labels[index] ? { label: result.labels[index] } : {}),
      });
    }
  }
  return library;
}
