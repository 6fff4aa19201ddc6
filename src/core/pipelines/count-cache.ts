/**
 * @file The engine's token counter, remembered per text for one run.
 *
 * An in-browser engine without a tokenizer API counts by reading the text (wllama: a one-token
 * completion, src/llm/wllama.ts), which costs as much as reading a prompt: on a 135M model on two
 * cores, seconds per chunk. The pipelines count the same texts more than once (a chunk when it is
 * ranked, again as its own paragraph, again when a prompt is cut to fit), so the first count of
 * each text is kept and reused. Counts are exact either way: a text always has the same count.
 */
import type { AbortSignalLike } from '../abort';
import type { PipelineLlm } from './types';

export interface CountCache {
  /** Texts counted by the engine (misses). */
  readonly counted: number;
  /** Counts answered from memory. */
  readonly reused: number;
}

/** `llm` with `countTokens` remembered per text; everything else passes through. */
export function withCountCache(llm: PipelineLlm): PipelineLlm & { countCache: CountCache } {
  const known = new Map<string, Promise<number>>();
  const stats = { counted: 0, reused: 0 };
  const countTokens = (text: string, signal?: AbortSignalLike): Promise<number> => {
    const hit = known.get(text);
    if (hit) {
      stats.reused++;
      return hit;
    }
    stats.counted++;
    const counting = llm.countTokens(text, signal);
    known.set(text, counting);
    // A failed or stopped count is not remembered: the next one asks the engine again.
    counting.catch(() => known.delete(text));
    return counting;
  };
  return { ...llm, countTokens, countCache: stats };
}
