import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { BlobRanges, readZipDirectory, readZipEntry } from './zip';

/** Text that deflate cannot shrink much (a linear congruential stream of letters). */
function noisyText(bytes: number, seed = 7): Uint8Array {
  const out = new Uint8Array(bytes);
  let x = seed;
  for (let i = 0; i < bytes; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out[i] = i % 61 === 60 ? 10 : 97 + ((x >>> 16) % 26);
  }
  return out;
}

/** Byte equality (vitest's deep equality is slow on large arrays). */
function same(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function blobOf(bytes: Uint8Array): Blob {
  return new Blob([bytes as Uint8Array<ArrayBuffer>]);
}

/** A Blob that counts how often it is sliced (each slice is one read of the file). */
function countingBlob(bytes: Uint8Array): { blob: Blob; slices: () => number } {
  const blob = blobOf(bytes);
  let slices = 0;
  const slice = blob.slice.bind(blob);
  blob.slice = (...args: Parameters<Blob['slice']>) => {
    slices++;
    return slice(...args);
  };
  return { blob, slices: () => slices };
}

describe('BlobRanges', () => {
  it('serves every range with the bytes of the blob, in order and out of order', async () => {
    const bytes = noisyText(300_000);
    const ranges = new BlobRanges(blobOf(bytes));
    const spans: [number, number][] = [];
    for (let at = 0; at < bytes.length; at += 997)
      spans.push([at, Math.min(at + 1500, bytes.length)]);
    // Forward, then in a scrambled order, then one range running past the end.
    const order = [...spans, ...spans.map((_, i) => spans[(i * 7919) % spans.length])];
    for (const [start, end] of order) {
      expect(same(await ranges.read(start, end), bytes.subarray(start, end))).toBe(true);
    }
    expect(await ranges.read(bytes.length - 10, bytes.length + 50)).toEqual(
      bytes.subarray(bytes.length - 10),
    );
  });

  it('reads the blob a few times for many consecutive entries, not once per entry', async () => {
    const files: Record<string, Uint8Array> = {};
    for (let i = 0; i < 2000; i++)
      files[`src/f${String(i).padStart(4, '0')}.py`] = strToU8(`x = ${i}\n`);
    const { blob, slices } = countingBlob(zipSync(files));
    const entries = await readZipDirectory(blob);
    const before = slices();
    const ranges = new BlobRanges(blob);
    for (const [i, e] of entries.entries()) {
      expect(new TextDecoder().decode(await readZipEntry(ranges, e))).toBe(`x = ${i}\n`);
    }
    // 2,000 entries in a ~200 KB archive: one window covers them (the old reader sliced twice per entry).
    expect(slices() - before).toBeLessThanOrEqual(3);
  });
});

describe('readZipEntry', () => {
  it('inflates small (one call) and large (streamed) entries alike, checked by CRC', async () => {
    const small = strToU8('def f():\n    return 1\n'.repeat(40));
    const large = noisyText(200_000); // compresses to far more than the one-call limit
    const zip = zipSync({ 'small.py': small, 'large.txt': large });
    const blob = blobOf(zip);
    const entries = await readZipDirectory(blob);
    const byName = new Map(entries.map((e) => [e.name, e]));
    expect(byName.get('large.txt')!.compressedSize).toBeGreaterThan(16 * 1024);
    const ranges = new BlobRanges(blob);
    expect(same(await readZipEntry(ranges, byName.get('small.py')!), small)).toBe(true);
    expect(same(await readZipEntry(ranges, byName.get('large.txt')!), large)).toBe(true);
  });

  it('stops a streamed entry that inflates past a forged declared size', async () => {
    const zip = zipSync({ 'large.txt': noisyText(100_000) });
    const entries = await readZipDirectory(blobOf(zip));
    const forged = { ...entries[0], uncompressedSize: 50_000 };
    await expect(readZipEntry(blobOf(zip), forged)).rejects.toThrow(
      /inflates to more than its declared 50,000 bytes/,
    );
  });

  it('refuses a small entry whose data is cut short', async () => {
    const zip = zipSync({ 'a.py': strToU8('value = 1\n'.repeat(300)) });
    const entries = await readZipDirectory(blobOf(zip));
    const short = { ...entries[0], compressedSize: entries[0].compressedSize - 8 };
    await expect(readZipEntry(blobOf(zip), short)).rejects.toThrow(/damaged|cut short|size/);
  });
});
