/**
 * @file Read a file's bytes as a stream, with progress and cancel inside the read.
 *
 * `Blob.arrayBuffer()` is one step: a 100 MB file reports nothing until it is all in, and an
 * abort can only stop waiting for it, not the read. Here the chunks of `Blob.stream()` land in
 * one buffer of the file's size (so memory is the file once, as before, with no list of chunks
 * to join), progress is reported per chunk, and an abort cancels the stream itself: no more
 * bytes are read and the caller gets an AbortError at once.
 */
import { AbortError } from '../core/abort';

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
  let out = new Uint8Array(0);
  let at = 0;
  await forEachChunk(
    file,
    (value) => {
      if (out.length === 0 && at === 0) out = new Uint8Array(file.size);
      if (at + value.length > out.length) {
        // The file grew while being read: keep every byte, growing by doubling.
        const grown = new Uint8Array(Math.max(out.length * 2, at + value.length));
        grown.set(out.subarray(0, at));
        out = grown;
      }
      out.set(value, at);
      at += value.length;
    },
    signal,
    onProgress,
  );
  return at === out.length ? out : out.slice(0, at);
}

/**
 * Hand the file's bytes to `onChunk` as they are read (`Blob.stream()`), in order, reporting
 * progress every PROGRESS_STEP bytes; an abort cancels the stream itself and rejects with an
 * AbortError at once. `onChunk` may keep the chunk. Where `Blob.stream()` is missing the whole
 * file is one chunk.
 */
export async function forEachChunk(
  file: Blob,
  onChunk: (chunk: Uint8Array) => void,
  signal?: AbortSignal,
  onProgress?: ReadProgress,
): Promise<void> {
  if (signal?.aborted) throw new AbortError();
  const total = file.size;
  if (typeof file.stream !== 'function') {
    // Old engines without Blob.stream(): one step, as before.
    const all = new Uint8Array(await file.arrayBuffer());
    if (signal?.aborted) throw new AbortError();
    onProgress?.(all.length, total);
    onChunk(all);
    return;
  }
  const reader = file.stream().getReader();
  const onAbort = () => {
    reader.cancel(new AbortError()).catch(() => {});
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  let finished = false;
  try {
    let at = 0;
    let reported = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (signal?.aborted) throw new AbortError();
      finished = done;
      if (done) break;
      onChunk(value);
      at += value.length;
      if (at - reported >= PROGRESS_STEP) {
        reported = at;
        onProgress?.(at, total);
      }
    }
    // A file under one step is read in a blink: no report of its bytes at all.
    if (reported > 0) onProgress?.(at, total);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    // `onChunk` threw: no more bytes are wanted.
    if (!finished && !signal?.aborted) reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
