/**
 * @file Read a file's bytes as a stream, with progress and cancel inside the read (issue 16).
 *
 * `Blob.arrayBuffer()` is one step: a 100 MB file reports nothing until it is all in, and an
 * abort can only stop waiting for it, not the read. Here the chunks of `Blob.stream()` land in
 * one buffer of the file's size (so memory is the file once, as before, with no list of chunks
 * to join), progress is reported per chunk, and an abort cancels the stream itself: no more
 * bytes are read and the caller gets an AbortError at once.
 */
import { AbortError } from '../workers/protocol';

/** Bytes read so far of the file's size. */
export type ReadProgress = (bytesRead: number, bytesTotal: number) => void;

/**
 * How often progress is reported at most, in bytes (the stream's chunks are 64 KB to 1 MB);
 * files smaller than this report none.
 */
const PROGRESS_STEP = 1 << 20;

export async function readBytesStreaming(
  file: Blob,
  signal?: AbortSignal,
  onProgress?: ReadProgress,
): Promise<Uint8Array<ArrayBuffer>> {
  if (signal?.aborted) throw new AbortError();
  const total = file.size;
  if (typeof file.stream !== 'function') {
    // Old engines without Blob.stream(): one step, as before.
    const all = new Uint8Array(await file.arrayBuffer());
    onProgress?.(all.length, total);
    return all;
  }
  const reader = file.stream().getReader();
  const onAbort = () => {
    reader.cancel(new AbortError()).catch(() => {});
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    let out = new Uint8Array(total);
    let at = 0;
    let reported = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (signal?.aborted) throw new AbortError();
      if (done) break;
      if (at + value.length > out.length) {
        // The file grew while being read: keep every byte, growing by doubling.
        const grown = new Uint8Array(Math.max(out.length * 2, at + value.length));
        grown.set(out.subarray(0, at));
        out = grown;
      }
      out.set(value, at);
      at += value.length;
      if (at - reported >= PROGRESS_STEP) {
        reported = at;
        onProgress?.(at, total);
      }
    }
    // A file under one step is read in a blink: no report of its bytes at all.
    if (reported > 0) onProgress?.(at, total);
    return at === out.length ? out : out.slice(0, at);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    reader.releaseLock();
  }
}
