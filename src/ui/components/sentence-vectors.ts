/**
 * @file Sentence vectors for marking a cited fragment's supporting sentences by similarity
 * (core/evidence/support.ts), on the main thread.
 *
 * The offline GloVe embedder: the app's own 5.8 MB asset, which the workers have usually fetched
 * already (HTTP or service-worker cache), decoded here once, on the first citation click (about
 * 0.1 s); a fragment's sentences then embed in well under a millisecond. Until it is loaded, or
 * when it cannot be, the reader marks by shared words alone.
 */
import { STATIC_EMBEDDER_ID, STATIC_MODEL_PATH } from '../../core/embed/static';
import { sentencesOf, type SentenceVectors } from '../../core/evidence/support';
import { loadEmbedder, type TextEmbedder } from '../../models/embedder';

let embedder: Promise<TextEmbedder> | null = null;

function staticEmbedderOnce(baseUrl: string): Promise<TextEmbedder> {
  if (!embedder) {
    const loading = loadEmbedder({
      id: STATIC_EMBEDDER_ID,
      url: new URL(STATIC_MODEL_PATH, baseUrl).href,
    });
    // A failed load is tried again on the next citation (the asset may be back).
    loading.catch(() => {
      if (embedder === loading) embedder = null;
    });
    embedder = loading;
  }
  return embedder;
}

/** The claim's and each sentence's vector of `fragment`, in `sentencesOf` order. */
export async function sentenceVectors(
  claim: string,
  fragment: string,
  baseUrl: string = document.baseURI,
): Promise<SentenceVectors> {
  const e = await staticEmbedderOnce(baseUrl);
  const texts = sentencesOf(fragment).map((s) => fragment.slice(s.start, s.end));
  const data = await e.embed([claim, ...texts], { kind: 'passage' });
  return {
    claim: data.slice(0, e.dim),
    sentences: { dim: e.dim, count: texts.length, data: data.slice(e.dim) },
  };
}
