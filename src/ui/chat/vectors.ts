/**
 * @file Round vectors for dense chat memory scoring (Eq. 4), on the main thread.
 *
 * Chat memory embeds with the offline static GloVe embedder (no download beyond the app's own
 * 5.8 MB asset, which the retrieval worker has usually fetched already, so it comes from the
 * HTTP cache). Decoding the asset takes about 0.1 s once; embedding a round takes microseconds,
 * and each round is embedded once (vectors are cached by text), so each new message embeds only
 * the round before it and the query. That is cheap enough for the main thread at the sizes of a
 * conversation (hundreds of rounds), and keeps the chat independent of the workers' queues.
 */
import { STATIC_EMBEDDER_ID, STATIC_MODEL_PATH } from '../../core/embed/static';
import type { VectorSet } from '../../core/types';
import { loadEmbedder, type TextEmbedder } from '../../models/embedder';

export interface RoundVectors {
  rounds: VectorSet;
  query: Float32Array;
}

/** Vectors of texts, each text embedded once. */
export class VectorCache {
  private readonly rows = new Map<string, Float32Array>();
  private embedder: Promise<TextEmbedder> | null = null;

  constructor(
    private readonly load: () => Promise<TextEmbedder>,
    /** Most texts kept; the least recently used go first. */
    private readonly capacity = 20_000,
  ) {}

  /** Texts embedded so far (for tests and the panel's note). */
  get size(): number {
    return this.rows.size;
  }

  private embedderOnce(): Promise<TextEmbedder> {
    if (!this.embedder) {
      const loading = this.load();
      // A failed load is tried again next time (the asset may be back).
      loading.catch(() => {
        if (this.embedder === loading) this.embedder = null;
      });
      this.embedder = loading;
    }
    return this.embedder;
  }

  /** One vector per text (rows L2-normalised), and one for the query. */
  async vectors(
    texts: readonly string[],
    query: string,
    signal?: AbortSignal,
  ): Promise<RoundVectors> {
    const embedder = await this.embedderOnce();
    const { dim } = embedder;
    const fresh = new Map<string, Float32Array>();
    const missing = [...new Set(texts.filter((t) => !this.rows.has(t)))];
    if (missing.length) {
      const data = await embedder.embed(missing, { kind: 'passage', signal });
      missing.forEach((t, k) => fresh.set(t, data.slice(k * dim, (k + 1) * dim)));
    }
    const queryRow = (await embedder.embed([query], { kind: 'query', signal })).slice(0, dim);
    const data = new Float32Array(texts.length * dim);
    texts.forEach((t, i) => data.set(fresh.get(t) ?? this.rows.get(t)!, i * dim));
    // Most recently used last, so the oldest go first when the cache is full.
    for (const t of texts) {
      const row = fresh.get(t) ?? this.rows.get(t)!;
      this.rows.delete(t);
      this.rows.set(t, row);
    }
    while (this.rows.size > this.capacity) this.rows.delete(this.rows.keys().next().value!);
    return { rounds: { dim, count: texts.length, data }, query: queryRow };
  }
}

/** The static GloVe embedder of this page, resolved against `baseUrl`. */
export function staticVectorCache(baseUrl: string = document.baseURI): VectorCache {
  const url = new URL(STATIC_MODEL_PATH, baseUrl).href;
  return new VectorCache(() => loadEmbedder({ id: STATIC_EMBEDDER_ID, url }));
}
