/**
 * @file What a document's index is made with (the embedder, the fragment size, the semantic
 * relation's k, the hub host for transformer embedders), the embedders offered, and the spec an
 * embedder is loaded from. The library service recomputes what a changed setting invalidates
 * (library-service.ts).
 */
import {
  DISTILLED_EMBEDDER_ID,
  DISTILLED_MODEL_PATH,
  STATIC_EMBEDDER_ID,
  STATIC_MODEL_PATH,
} from '../../core/embed/static';
import { retrievalPreset } from '../../core/retrieval/presets';
import { EMBEDDING_MODELS } from '../../models/catalogue';
import type { EmbedderSpec } from '../../models/embedder';
import { DEFAULT_HUB_HOST } from '../../models/settings';

export interface IndexSettings {
  embedderId: string;
  wordsPerFragment: number;
  /** Neighbours per fragment in the semantic relation (Eq. 6). */
  semanticK: number;
  /** Hub host for transformer embedders (a mirror in the hub's layout works too). */
  hubHost: string;
}

export const defaultIndexSettings: Readonly<IndexSettings> = Object.freeze({
  embedderId: STATIC_EMBEDDER_ID,
  // The measured book preset's fragment size (core/retrieval/presets.ts).
  wordsPerFragment: retrievalPreset('prose', 'measured').wordsPerFragment ?? 500,
  semanticK: 16,
  hubHost: DEFAULT_HUB_HOST,
});

/** The transformer embedder offered as the upgrade from the offline word vectors. */
export const RECOMMENDED_EMBEDDER = 'all-MiniLM-L6-v2';

export const EMBEDDER_CHOICES = [
  { id: STATIC_EMBEDDER_ID, label: 'Offline word vectors (GloVe 100-d, no download)' },
  {
    id: DISTILLED_EMBEDDER_ID,
    label: 'Offline vectors distilled from MiniLM (256-d, no download)',
  },
  ...EMBEDDING_MODELS.filter((m) => !m.testOnly).map((m) => ({
    id: m.key,
    // all-MiniLM-L6-v2 is the one whose meaning we proved with real weights (docs/models.md).
    label: `${m.key === RECOMMENDED_EMBEDDER ? 'Recommended upgrade: ' : ''}${m.label}, ~${m.approxMB[m.dtypes[0]] ?? '?'} MB download`,
  })),
];

export function embedderSpec(
  settings: IndexSettings,
  baseUrl: string = document.baseURI,
): EmbedderSpec {
  if (settings.embedderId === STATIC_EMBEDDER_ID) {
    return { id: STATIC_EMBEDDER_ID, url: new URL(STATIC_MODEL_PATH, baseUrl).href };
  }
  if (settings.embedderId === DISTILLED_EMBEDDER_ID) {
    return { id: DISTILLED_EMBEDDER_ID, url: new URL(DISTILLED_MODEL_PATH, baseUrl).href };
  }
  return { id: settings.embedderId, modelId: settings.embedderId, host: settings.hubHost };
}
