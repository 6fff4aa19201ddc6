/**
 * @file The pipelines' question-independent memory (QRMeM's segments, NER and summary) in the
 * library's IndexedDB store (schema v6, `pipelineMemory`), so it survives a reload and is
 * deleted with its document. A failed read is a miss and a failed write is reported as `false`:
 * the pipeline then rebuilds, and stored data is never harmed.
 */
import type { PipelineMemory } from '../../core/pipelines/types';
import type { Library } from '../../store';

export function libraryPipelineMemory(library: Library): PipelineMemory {
  return {
    get: async (docId, key) => (await library.getPipelineMemory(docId, key))?.value,
    put: (docId, key, value) =>
      library.putPipelineMemory({ docId, key, createdAt: Date.now(), value }).catch(() => false),
  };
}
