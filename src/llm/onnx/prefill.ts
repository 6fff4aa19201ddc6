/**
 * @file How the ONNX engine reads a long prompt: in pieces, each a model call that extends the
 * KV cache, the last piece read by the generation loop itself.
 *
 * Why: the decoder graph scores every query against every key of its call and masks the later
 * half away, so one call over L tokens does L² of attention arithmetic of which half is thrown
 * away. Pieces of c tokens do about L²/2 + L·c/2: on 1,000 tokens in pieces of 256, a third less
 * attention arithmetic, and the matrix products of the linear layers stay large enough for ONNX
 * Runtime's kernels to run at full speed. The results are the same (the same keys and values,
 * attended to in the same order); only float rounding of the sums may differ.
 * BENCHMARKS.md "Reading a prompt in pieces" has the measured effect and the chosen size.
 */

/** Tokens per piece the engine reads a prompt in; 0 reads it in one call. */
export const PREFILL_CHUNK_TOKENS = 256;

/**
 * The ends (exclusive token positions) of the pieces read before generation starts, for a prompt
 * of `total` tokens whose first `cached` are already in the KV cache. What is left after the
 * last end, 1 to `chunk` tokens, is read by the generation loop's first step (it gives the first
 * token's logits). Empty when the rest fits one piece or `chunk` is 0.
 */
export function prefillEnds(cached: number, total: number, chunk: number): number[] {
  if (!(chunk > 0)) return [];
  const ends: number[] = [];
  for (let end = cached + chunk; end < total; end += chunk) ends.push(end);
  return ends;
}
