/**
 * @file How texts are grouped into model calls for a transformer embedder.
 *
 * Two caps, both needed:
 * - texts per call (`maxTexts`): few texts per call waste the matrix kernels on short inputs;
 * - padded tokens per call (`maxTokens`: texts times the batch's longest, since every text of a
 *   call is padded to it). Attention's activations grow with batch × length², so a call of
 *   sixteen 512-piece fragments (8,192 padded tokens) runs slower per token than four calls of
 *   four: measured in Chromium on this project's 2-core machine, idle, MiniLM int8 on 2 threads,
 *   500-word War and Peace fragments cut at 512 pieces: 16 a call 15.6 s, 4 a call 10.6 s, 1 a
 *   call 11.2 s for the same 32 fragments (BENCHMARKS.md, "Embedding speed"). Short fragments
 *   still go 16 at a time (16 × 128 pieces is 2,048).
 *
 * Texts are taken longest first, so each call holds texts of similar length (little padding);
 * the caller puts the rows back in its own order.
 */

/** Padded tokens per model call by default (see the file comment for the measurement). */
export const DEFAULT_BATCH_TOKENS = 2048;

/** A text's length in model tokens, estimated from characters: about 4 a piece, plus 2 markers. */
export function estimatePieces(text: string, maxPieces: number): number {
  return Math.min(maxPieces, Math.ceil(text.length / 4) + 2);
}

/**
 * Batches of indices into `pieces` (each text's estimated length in tokens), longest first:
 * each batch has at most `maxTexts` texts and, padded to its longest, at most `maxTokens`
 * tokens, but always at least one text. `maxTokens` of 0 or Infinity means no token cap.
 */
export function planBatches(
  pieces: readonly number[],
  maxTexts: number,
  maxTokens: number,
): number[][] {
  const cap = maxTokens > 0 ? maxTokens : Infinity;
  const order = pieces.map((_, i) => i).sort((a, b) => pieces[b] - pieces[a] || a - b);
  const batches: number[][] = [];
  let at = 0;
  while (at < order.length) {
    // The first text of a batch is its longest: every text is padded to it.
    const longest = pieces[order[at]];
    const n = Math.max(1, Math.min(maxTexts, Math.floor(cap / longest)));
    batches.push(order.slice(at, at + n));
    at += n;
  }
  return batches;
}
