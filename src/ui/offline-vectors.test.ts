import { describe, expect, it } from 'vitest';
import { DISTILLED_EMBEDDER_ID, STATIC_EMBEDDER_ID } from '../core/embed/static';
import { defaultIndexSettings, EMBEDDER_CHOICES } from './library-service';
import {
  embedderChoicesFor,
  offlineEmbedderId,
  offlineVectorsNote,
  withOfflineVectors,
} from './offline-vectors';

describe('offline vectors: distilled when the build has them, else GloVe', () => {
  it('offers exactly one kind of offline vectors, with the transformers', () => {
    const distilled = embedderChoicesFor(EMBEDDER_CHOICES, 'distilled').map((c) => c.id);
    const glove = embedderChoicesFor(EMBEDDER_CHOICES, 'glove').map((c) => c.id);
    expect(distilled).toContain(DISTILLED_EMBEDDER_ID);
    expect(distilled).not.toContain(STATIC_EMBEDDER_ID);
    expect(glove).toContain(STATIC_EMBEDDER_ID);
    expect(glove).not.toContain(DISTILLED_EMBEDDER_ID);
    expect(distilled.length).toBe(EMBEDDER_CHOICES.length - 1);
    expect(distilled).toContain('all-MiniLM-L6-v2');
  });

  it('moves stored settings to the offline vectors this build has, and leaves a transformer', () => {
    const glove = { ...defaultIndexSettings, embedderId: STATIC_EMBEDDER_ID };
    expect(withOfflineVectors(glove, 'distilled').embedderId).toBe(DISTILLED_EMBEDDER_ID);
    expect(withOfflineVectors(glove, 'glove')).toBe(glove);
    const distilled = { ...glove, embedderId: DISTILLED_EMBEDDER_ID };
    expect(withOfflineVectors(distilled, 'glove').embedderId).toBe(STATIC_EMBEDDER_ID);
    const minilm = { ...glove, embedderId: 'all-MiniLM-L6-v2' };
    expect(withOfflineVectors(minilm, 'distilled')).toBe(minilm);
    expect(offlineEmbedderId('distilled')).toBe(DISTILLED_EMBEDDER_ID);
  });

  it('says which offline vectors are in use', () => {
    expect(offlineVectorsNote('distilled')).toMatch(/distilled from MiniLM/);
    expect(offlineVectorsNote('glove')).toMatch(/GloVe.*npm run models/);
  });
});
