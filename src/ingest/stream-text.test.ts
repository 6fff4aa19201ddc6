/**
 * readTextStreaming: a text file decoded and split as it streams in gives exactly what
 * reading it whole gave (decodeText, normalizeNewlines, splitProse, SHA-256 of the bytes), with the
 * file's chunks cut at awkward places: inside UTF-8 and legacy multi-byte sequences, inside a
 * UTF-16 code unit, between "\r" and "\n", mid-word, one byte at a time.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { sharedDatasetPath } from '../../test/glove';
import { JA_BOOK, ZH_TEXT } from '../../test/scripts/samples';
import { splitProse } from '../core/fragment';
import { prng } from '../core/prng';
import { isAbortError } from '../core/abort';
import { decodeText, DETECT_SNIFF_BYTES, normalizeNewlines } from './decode';
import { ingestFiles } from './ingest';
import { NotText, readTextStreaming } from './stream-text';

/** A Blob whose stream yields `bytes` cut at `cuts`; counts the streams opened and chunks pulled. */
function chunkedFile(bytes: Uint8Array, cuts: number[], name = 'book.txt') {
  const seen = { streams: 0, pulled: 0, cancelled: false };
  const ends = [...new Set([...cuts, bytes.length])]
    .filter((c) => c > 0 && c <= bytes.length)
    .sort((a, b) => a - b);
  const blob = new Blob([bytes as Uint8Array<ArrayBuffer>]);
  const file = Object.assign(blob, {
    name,
    stream: () => {
      seen.streams++;
      let k = 0;
      return new ReadableStream<Uint8Array>({
        pull(controller) {
          if (k === ends.length) {
            controller.close();
            return;
          }
          seen.pulled++;
          controller.enqueue(bytes.slice(k === 0 ? 0 : ends[k - 1], ends[k]));
          k++;
        },
        cancel() {
          seen.cancelled = true;
        },
      });
    },
  });
  return { file, seen };
}

/** Random cuts, about `every` bytes apart. */
function randomCuts(length: number, every: number, seed: number): number[] {
  const random = prng(seed);
  const cuts: number[] = [];
  for (let at = 0; at < length;) cuts.push((at += 1 + Math.floor(random() * 2 * every)));
  return cuts;
}

/** A cut after the first byte of every multi-byte UTF-8 sequence (and after every "\r"). */
function awkwardCuts(bytes: Uint8Array): number[] {
  const cuts: number[] = [];
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] >= 0xc0 || bytes[i] === 0x0d) cuts.push(i + 1);
  }
  return cuts;
}

const WORDS = { wordsPerFragment: 100 };

/** What reading the file whole gives. */
function whole(bytes: Uint8Array) {
  const decoded = decodeText(bytes);
  const text = normalizeNewlines(decoded.text);
  const fragments = splitProse('d', text, WORDS);
  return {
    text,
    encoding: decoded.encoding,
    guessed: decoded.guessed === true,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    blank: !/\S/.test(text),
    fragments: {
      starts: Uint32Array.from(fragments, (f) => f.start),
      ends: Uint32Array.from(fragments, (f) => f.end),
      words: Uint32Array.from(fragments, (f) => f.words ?? 0),
    },
  };
}

const book = (name: string) => sharedDatasetPath('gutenberg', name);

describe('readTextStreaming', () => {
  it('War and Peace (UTF-8, cut inside every multi-byte sequence) as read whole', async () => {
    const bytes = new Uint8Array(readFileSync(book('pg2600_war_and_peace.txt')));
    const expected = whole(bytes);
    expect(expected.text).toMatch(/[\u0080-\uffff]/);
    const cuts = [...awkwardCuts(bytes), ...randomCuts(bytes.length, 65536, 1)];
    const { file } = chunkedFile(bytes, cuts);
    expect(await readTextStreaming(file, { split: WORDS })).toEqual(expected);
  });

  it('Dracula (CRLF), cut between every "\\r" and "\\n"', async () => {
    const bytes = new Uint8Array(readFileSync(book('pg345.txt')));
    const expected = whole(bytes);
    expect(expected.text).not.toContain('\r');
    const { file } = chunkedFile(bytes, [
      ...awkwardCuts(bytes),
      ...randomCuts(bytes.length, 997, 2),
    ]);
    expect(await readTextStreaming(file, { split: WORDS })).toEqual(expected);
  });

  it('one byte at a time: UTF-8 with a BOM, UTF-16 LE and BE with and without one', async () => {
    const text = `${JA_BOOK.slice(0, 400)}\r\nMr. Smith 𝄞 said “yes”.\r\r\nThe end.`;
    const utf8 = new TextEncoder().encode(text);
    const sources = [
      new Uint8Array([0xef, 0xbb, 0xbf, ...utf8]),
      new Uint8Array(iconv.encode(text, 'utf-16le', { addBOM: true })),
      new Uint8Array(iconv.encode(text, 'utf-16be', { addBOM: true })),
      new Uint8Array(iconv.encode(text, 'utf-16le')),
      new Uint8Array(iconv.encode(text, 'utf-16be')),
    ];
    for (const bytes of sources) {
      const expected = whole(bytes);
      expect(expected.text).toBe(normalizeNewlines(text));
      const { file } = chunkedFile(
        bytes,
        Array.from(bytes, (_, i) => i + 1),
      );
      expect(await readTextStreaming(file, { split: WORDS })).toEqual(expected);
    }
  });

  it('legacy encodings (Shift_JIS, GBK, Windows-1252) cut inside their sequences', async () => {
    for (const [text, encoding] of [
      [JA_BOOK, 'Shift_JIS'],
      [ZH_TEXT, 'GBK'],
      ["L'été dernier, « c'est génial ! » a dit Hélène à sa sœur. ".repeat(50), 'windows-1252'],
    ]) {
      const bytes = new Uint8Array(iconv.encode(text, encoding));
      const expected = whole(bytes);
      expect(expected.text).toBe(text);
      const { file, seen } = chunkedFile(bytes, randomCuts(bytes.length, 3, 3));
      expect(await readTextStreaming(file, { split: WORDS })).toEqual(expected);
      expect(seen.streams).toBe(2);
    }
  });

  it('a file not UTF-8 only far past its first bytes is read again, in the fallback', async () => {
    const ascii = new TextEncoder().encode('plain words and more words. '.repeat(50_000));
    expect(ascii.length).toBeGreaterThan(4 * DETECT_SNIFF_BYTES);
    const bytes = new Uint8Array([...ascii, 0xe9, 0x74, 0xe9, 0x2e]); // "été." in Windows-1252
    const expected = whole(bytes);
    expect(expected.encoding).toBe('windows-1252');
    expect(expected.text.endsWith('été.')).toBe(true);
    const { file, seen } = chunkedFile(bytes, randomCuts(bytes.length, 65536, 4));
    const progress: number[] = [];
    const read = await readTextStreaming(file, {
      split: WORDS,
      onProgress: (done) => progress.push(done),
    });
    expect(read).toEqual(expected);
    expect(seen.streams).toBe(2);
    // The second read reports its bytes from the start again, up to the whole file.
    expect(progress.filter((done, i) => i > 0 && done <= progress[i - 1])).toHaveLength(1);
    expect(progress.at(-1)).toBe(bytes.length);
  });

  it('an incomplete UTF-8 sequence at the very end is not UTF-8, as read whole', async () => {
    const bytes = new Uint8Array([...new TextEncoder().encode('Ça va. '.repeat(100)), 0xe2, 0x80]);
    const expected = whole(bytes);
    expect(expected.encoding).not.toBe('utf-8');
    const { file } = chunkedFile(bytes, [bytes.length - 1]);
    expect(await readTextStreaming(file, { split: WORDS })).toEqual(expected);
  });

  it('white space only is blank; binary data is NotText with its first bytes', async () => {
    const blank = await readTextStreaming(
      chunkedFile(new TextEncoder().encode(' \r\n\t '), [2]).file,
    );
    expect(blank.blank).toBe(true);
    expect(blank.fragments).toBeUndefined();
    const png = new Uint8Array(100_000).map((_, i) => (i * 7) & 255);
    png.set([0x89, 0x50, 0x4e, 0x47]);
    const { file, seen } = chunkedFile(png, [10, 70_000]);
    const error = await readTextStreaming(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotText);
    expect((error as NotText).head.subarray(0, 4)).toEqual(png.subarray(0, 4));
    // Nothing past the first bytes is read: the stream is cancelled.
    expect(seen.cancelled).toBe(true);
    expect(seen.pulled).toBe(2);
  });

  it('an abort in the middle cancels the stream and stops the split', async () => {
    const bytes = new TextEncoder().encode('Some words. '.repeat(400_000)); // 4.8 MB
    const { file, seen } = chunkedFile(bytes, randomCuts(bytes.length, 65536, 5));
    const controller = new AbortController();
    const run = readTextStreaming(file, {
      split: WORDS,
      signal: controller.signal,
      onProgress: (done) => {
        if (done >= 2 ** 21) controller.abort();
      },
    });
    await expect(run).rejects.toSatisfy(isAbortError);
    expect(seen.cancelled).toBe(true);
    expect(seen.pulled).toBeLessThan(bytes.length / 65536);
  });
});

describe('ingestFiles with `split`', () => {
  it('gives the fragments splitProse gives on the document text, and the bytes hash', async () => {
    const bytes = new Uint8Array(readFileSync(book('pg11.txt')));
    const { file } = chunkedFile(bytes, randomCuts(bytes.length, 4096, 6), 'alice.txt');
    const { documents, errors } = await ingestFiles([file], { split: { wordsPerFragment: 500 } });
    expect(errors).toEqual([]);
    const [doc] = documents;
    const fragments = splitProse('d', doc.text, { wordsPerFragment: 500 });
    expect(Array.from(doc.fragments!.starts)).toEqual(fragments.map((f) => f.start));
    expect(Array.from(doc.fragments!.ends)).toEqual(fragments.map((f) => f.end));
    expect(doc.text).toBe(normalizeNewlines(new TextDecoder().decode(bytes)));
    expect(doc.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(doc.sections.length).toBeGreaterThan(10);
    // Without `split`, no fragments.
    const plain = await ingestFiles([chunkedFile(bytes, []).file]);
    expect(plain.documents[0].fragments).toBeUndefined();
    expect(plain.documents[0].text).toBe(doc.text);
  });
});
