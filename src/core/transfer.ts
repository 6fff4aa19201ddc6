/**
 * @file The buffers behind typed arrays, for a postMessage transfer list: a word the workers and
 * the indexing pipelines both speak, so it lives on the ground floor (src/workers/protocol.ts
 * re-exports it for its callers).
 */

/** Collect the distinct ArrayBuffers behind typed arrays, for a postMessage transfer list. */
export function buffersOf(...views: ArrayBufferView[]): ArrayBuffer[] {
  const seen = new Set<ArrayBuffer>();
  for (const v of views) {
    if (v.buffer instanceof ArrayBuffer) seen.add(v.buffer);
  }
  return [...seen];
}
