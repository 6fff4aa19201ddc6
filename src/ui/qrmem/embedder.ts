/**
 * @file The library's embedder for QRMeM, on the page: the same `loadEmbedder` the workers use
 * (static GloVe from the app's own asset, or the transformer the library indexes with), so edge
 * similarity is measured with the library's model and never a fake.
 */
import type { PipelineEmbedder } from '../../core/pipelines/types';
import { STATIC_EMBEDDER_ID, STATIC_MODEL_PATH } from '../../core/embed/static';
import { loadEmbedder, type EmbedderSpec } from '../../models/embedder';

export async function pipelineEmbedder(
  spec: EmbedderSpec | undefined,
  signal: AbortSignal,
): Promise<PipelineEmbedder> {
  const use: EmbedderSpec = spec ?? {
    id: STATIC_EMBEDDER_ID,
    url: new URL(STATIC_MODEL_PATH, document.baseURI).href,
  };
  const e = await loadEmbedder(use, { signal });
  return {
    name: e.id,
    async embed(texts, kind) {
      const data = await e.embed(texts, { kind, signal });
      return Array.from({ length: texts.length }, (_, i) =>
        data.subarray(i * e.dim, (i + 1) * e.dim),
      );
    },
  };
}
