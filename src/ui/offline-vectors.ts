/**
 * @file Which offline vectors this build has: the static embedder distilled from MiniLM
 * (scripts/distill-static.mjs writes it when `npm run models` fetched the weights) or, without
 * it, GloVe. Books are embedded with the distilled vectors by default when they are there.
 */
import {
  DISTILLED_EMBEDDER_ID,
  DISTILLED_MODEL_PATH,
  STATIC_EMBEDDER_ID,
} from '../core/embed/static';

export type OfflineVectors = 'distilled' | 'glove';

/** Asks the server whether the distilled asset was built (a HEAD request, no download). */
export async function detectOfflineVectors(
  baseUrl: string = document.baseURI,
): Promise<OfflineVectors> {
  const url = new URL(DISTILLED_MODEL_PATH, baseUrl).href;
  try {
    const r = await fetch(url, { method: 'HEAD' });
    // A server with a single-page fallback answers a missing file with index.html.
    const type = r.headers.get('content-type') ?? '';
    return r.ok && !type.includes('text/html') ? 'distilled' : 'glove';
  } catch {
    // Offline: the service worker precached the asset if the build had it (its key carries a
    // revision parameter, hence ignoreSearch).
    try {
      const hit = await globalThis.caches?.match(url, { ignoreSearch: true });
      return hit ? 'distilled' : 'glove';
    } catch {
      return 'glove';
    }
  }
}

/** The offline choice that is not in use: the list offers one kind of offline vectors. */
function otherOffline(offline: OfflineVectors): string {
  return offline === 'distilled' ? STATIC_EMBEDDER_ID : DISTILLED_EMBEDDER_ID;
}

/** The embedder choices this build can serve: the transformers and its one offline kind. */
export function embedderChoicesFor<T extends { id: string }>(
  choices: readonly T[],
  offline: OfflineVectors,
): T[] {
  return choices.filter((c) => c.id !== otherOffline(offline));
}

/** Stored settings naming the other offline vectors move to the ones this build has. */
export function withOfflineVectors<T extends { embedderId: string }>(
  settings: T,
  offline: OfflineVectors,
): T {
  return settings.embedderId === otherOffline(offline)
    ? { ...settings, embedderId: offlineEmbedderId(offline) }
    : settings;
}

/** The embedder id of the offline vectors. */
export function offlineEmbedderId(offline: OfflineVectors): string {
  return offline === 'distilled' ? DISTILLED_EMBEDDER_ID : STATIC_EMBEDDER_ID;
}

/** One line for the settings panel: which offline vectors are in use, and why. */
export function offlineVectorsNote(offline: OfflineVectors): string {
  return offline === 'distilled'
    ? 'Offline vectors: distilled from MiniLM (256-d static word vectors, no download).'
    : 'Offline vectors: GloVe 100-d. The vectors distilled from MiniLM are not in this build (run "npm run models" before building).';
}
