/**
 * @file Back to the last working embedder when a newly chosen one cannot be loaded (without it,
 * after a failed download the selection stayed on the failed model and every question failed
 * until it was switched back by hand).
 */
import { isAbortError } from '../../workers/protocol';
import { EMBEDDER_CHOICES, type IndexSettings } from '../library-service';

export interface EmbedderFallback {
  /** Set once the new embedder failed: the remaining documents are not tried with it. */
  failed: boolean;
  /**
   * For an error while re-indexing with the new settings: the settings to return to and the
   * message, or null when the error is not the new embedder's (or was a cancel).
   */
  onError(error: unknown): { settings: IndexSettings; message: string } | null;
}

function labelOf(id: string): string {
  return EMBEDDER_CHOICES.find((c) => c.id === id)?.label ?? id;
}

export function embedderFallback(previous: IndexSettings, next: IndexSettings): EmbedderFallback {
  const state: EmbedderFallback = {
    failed: false,
    onError(error) {
      if (previous.embedderId === next.embedderId || isAbortError(error)) return null;
      state.failed = true;
      const reason = error instanceof Error ? error.message : String(error);
      return {
        settings: { ...next, embedderId: previous.embedderId },
        message: `The embedder “${labelOf(next.embedderId)}” could not be used: ${reason} Back to “${labelOf(previous.embedderId)}”, the last one that worked.`,
      };
    },
  };
  return state;
}
