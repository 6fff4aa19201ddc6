import { describe, expect, it } from 'vitest';
import { STATIC_EMBEDDER_ID } from '../../core/embed/static';
import { AbortError } from '../../workers/protocol';
import { defaultIndexSettings, EMBEDDER_CHOICES } from '../library-service';
import { embedderFallback } from './embedder-fallback';

describe('embedder fallback', () => {
  const transformer = EMBEDDER_CHOICES.find((c) => c.id !== STATIC_EMBEDDER_ID)!;
  const previous = { ...defaultIndexSettings, embedderId: STATIC_EMBEDDER_ID };
  const next = { ...previous, embedderId: transformer.id, wordsPerFragment: 200 };

  it('returns to the last working embedder, keeping the other new settings, with a message', () => {
    const fallback = embedderFallback(previous, next);
    expect(fallback.failed).toBe(false);
    const back = fallback.onError(new Error('Failed to fetch model.onnx (HTTP 404).'));
    expect(back!.settings).toEqual({ ...next, embedderId: STATIC_EMBEDDER_ID });
    expect(back!.message).toContain('Failed to fetch model.onnx (HTTP 404).');
    expect(back!.message).toContain(transformer.label);
    expect(back!.message).toMatch(/Back to “Offline word vectors/);
    expect(fallback.failed).toBe(true);
  });

  it('leaves a cancel, and an error with the embedder unchanged, to the caller', () => {
    expect(embedderFallback(previous, next).onError(new AbortError())).toBeNull();
    const same = { ...previous, wordsPerFragment: 800 };
    expect(embedderFallback(previous, same).onError(new Error('disk full'))).toBeNull();
  });
});
