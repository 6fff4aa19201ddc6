import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sharedDatasetPath } from '../../test/glove';
import { isAbortError } from '../core/abort';
import { ingestFiles } from './ingest';
import { readBytesStreaming } from './stream-read';
import type { IngestProgress } from './types';

const WAR_AND_PEACE = sharedDatasetPath('gutenberg', 'pg2600_war_and_peace.txt');

/**
 * A Blob whose stream yields `chunks` chunks of `chunkBytes` (byte b of chunk c is (c + b) & 255)
 * and counts how many it was asked for and whether it was cancelled.
 */
function countingBlob(chunks: number, chunkBytes: number) {
  const seen = { pulled: 0, cancelled: false };
  const blob = new Blob([new Uint8Array(chunks * chunkBytes)]);
  const fake = Object.assign(blob, {
    name: 'big.txt',
    stream: () =>
      new ReadableStream<Uint8Array>({
        pull(controller) {
          if (seen.pulled === chunks) {
            controller.close();
            return;
          }
          const chunk = new Uint8Array(chunkBytes);
          for (let b = 0; b < chunkBytes; b++) chunk[b] = (seen.pulled + b) & 255;
          seen.pulled++;
          controller.enqueue(chunk);
        },
        cancel() {
          seen.cancelled = true;
        },
      }),
  });
  return { blob: fake, seen };
}

describe('readBytesStreaming', () => {
  it('reads every byte in order and reports progress up to the size', async () => {
    const { blob, seen } = countingBlob(40, 100_000);
    const progress: number[] = [];
    const bytes = await readBytesStreaming(blob, undefined, (done, total) => {
      expect(total).toBe(4_000_000);
      progress.push(done);
    });
    expect(bytes.length).toBe(4_000_000);
    expect(seen.pulled).toBe(40);
    for (const at of [0, 99_999, 100_000, 2_345_678, 3_999_999]) {
      expect(bytes[at]).toBe((Math.floor(at / 100_000) + (at % 100_000)) & 255);
    }
    // About one report per MiB, never going back, ending at the size.
    expect(progress.length).toBeGreaterThanOrEqual(4);
    expect(progress.every((p, i) => i === 0 || p >= progress[i - 1])).toBe(true);
    expect(progress[progress.length - 1]).toBe(4_000_000);
  });

  it('stops reading and cancels the stream when aborted inside the read', async () => {
    const { blob, seen } = countingBlob(1000, 65_536);
    const controller = new AbortController();
    const read = readBytesStreaming(blob, controller.signal, (done) => {
      if (done >= 2 << 20) controller.abort();
    });
    const error = await read.catch((e: unknown) => e);
    expect(isAbortError(error)).toBe(true);
    expect(seen.cancelled).toBe(true);
    // 2 MiB of a 64 MiB file, give or take the stream's read-ahead.
    expect(seen.pulled).toBeLessThan(100);
  });

  it('gives the same bytes as reading at once (War and Peace), and ingest reports them', async () => {
    const expected = new Uint8Array(readFileSync(WAR_AND_PEACE));
    const file = new File([expected], 'war-and-peace.txt', { type: 'text/plain' });
    const streamed = await readBytesStreaming(file);
    // Buffer.compare: a deep toEqual over 3 MB of elements takes a minute.
    expect(Buffer.compare(streamed, expected)).toBe(0);
    const seen: IngestProgress[] = [];
    const { documents } = await ingestFiles([file], { onProgress: (p) => seen.push(p) });
    expect(documents).toHaveLength(1);
    const bytes = seen.filter((p) => p.bytes).map((p) => p.bytes!);
    expect(bytes.length).toBeGreaterThanOrEqual(2);
    expect(bytes[bytes.length - 1]).toEqual({ done: expected.length, total: expected.length });
  });
});
