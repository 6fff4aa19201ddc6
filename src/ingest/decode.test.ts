import { describe, expect, it } from 'vitest';
import {
  BINARY_SNIFF_BYTES,
  decodeText,
  decodeWindows1252,
  detectBom,
  looksBinary,
  normalizeNewlines,
  sniffBinaryKind,
} from './decode';
import { encodeUtf16, encodeWindows1252 } from './testing/fixtures';

const SAMPLE = 'Anna Pávlovna’s “soirée” — œuvre, 5 € … naïve façade';

describe('decodeText', () => {
  it('reads UTF-8 with and without a BOM', () => {
    const bytes = new TextEncoder().encode(SAMPLE);
    expect(decodeText(bytes)).toEqual({ text: SAMPLE, encoding: 'utf-8' });
    expect(decodeText(new Uint8Array([0xef, 0xbb, 0xbf, ...bytes]))).toEqual({
      text: SAMPLE,
      encoding: 'utf-8',
    });
  });

  it('reads UTF-16 LE and BE by their BOM, including characters outside the BMP', () => {
    const text = `${SAMPLE} 𝄞`;
    expect(decodeText(encodeUtf16(text, 'le'))).toEqual({ text, encoding: 'utf-16le' });
    expect(decodeText(encodeUtf16(text, 'be'))).toEqual({ text, encoding: 'utf-16be' });
  });

  it('falls back to Windows-1252 when the bytes are not UTF-8', () => {
    expect(decodeText(encodeWindows1252(SAMPLE))).toEqual({
      text: SAMPLE,
      encoding: 'windows-1252',
      guessed: true,
    });
  });

  it('maps every Windows-1252 byte 0x80-0x9F as browsers do, in any environment', () => {
    const bytes = new Uint8Array(32).map((_, i) => 0x80 + i);
    const text = decodeWindows1252(bytes);
    expect(text).toBe('€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ');
  });

  it('uses a declared single-byte charset for non-UTF-8 bytes, but never over valid UTF-8', () => {
    // ISO-8859-2: 0xA9 is Š, 0xB9 is š.
    const latin2 = new Uint8Array([0x50, 0x65, 0x74, 0x72, 0x20, 0xa9, 0x74, 0xb9]);
    expect(decodeText(latin2, 'iso-8859-2')).toEqual({ text: 'Petr Štš', encoding: 'iso-8859-2' });
    const utf8 = new TextEncoder().encode('Štš');
    expect(decodeText(utf8, 'iso-8859-2').encoding).toBe('utf-8');
    // Unknown and harmful labels fall back to Windows-1252.
    expect(decodeText(new Uint8Array([0x93, 0x61, 0x94]), 'no-such-charset').text).toBe('“a”');
    expect(decodeText(new Uint8Array([0x93, 0x61, 0x94]), 'iso-2022-kr').text).toBe('“a”');
  });
});

describe('looksBinary', () => {
  it('passes ordinary text, tabs, form feeds and UTF-16 text', () => {
    expect(looksBinary(new TextEncoder().encode('Plain\ttext\r\n\fNext page.'))).toBe(false);
    expect(looksBinary(encodeUtf16('UTF-16 text is full of zero bytes.', 'le'))).toBe(false);
    expect(looksBinary(encodeUtf16('UTF-16 text is full of zero bytes.', 'be'))).toBe(false);
    expect(looksBinary(new Uint8Array(0))).toBe(false);
  });

  it('catches NUL bytes and a high share of control characters in the first 8 KB', () => {
    expect(looksBinary(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]))).toBe(true);
    const controls = new TextEncoder().encode('ab\x01\x02cd\x03\x04ef\x05\x06');
    expect(looksBinary(controls)).toBe(true);
    expect(looksBinary(encodeUtf16('a\u0000b', 'le'))).toBe(true);
    // Only the first 8 KB are read: a NUL further on is not seen.
    const late = new Uint8Array(BINARY_SNIFF_BYTES + 10).fill(0x61);
    late[BINARY_SNIFF_BYTES + 5] = 0;
    expect(looksBinary(late)).toBe(false);
  });

  it('names common binary formats', () => {
    expect(sniffBinaryKind(new TextEncoder().encode('%PDF-1.7\n'))).toBe('a PDF');
    expect(sniffBinaryKind(new Uint8Array([0x89, 0x50, 0x4e, 0x47]))).toBe('a PNG image');
    expect(sniffBinaryKind(new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0, 0]))).toBe('a ZIP archive');
    expect(sniffBinaryKind(new Uint8Array([1, 2, 3]))).toBeNull();
  });
});

describe('normalizeNewlines', () => {
  it('turns CRLF and lone CR into LF', () => {
    expect(normalizeNewlines('a\r\nb\rc\n\r\nd')).toBe('a\nb\nc\n\nd');
    expect(normalizeNewlines('no returns')).toBe('no returns');
  });
});

describe('detectBom', () => {
  it('knows the three BOMs and nothing else', () => {
    expect(detectBom(new Uint8Array([0xef, 0xbb, 0xbf, 0x41]))).toBe('utf-8');
    expect(detectBom(new Uint8Array([0xff, 0xfe]))).toBe('utf-16le');
    expect(detectBom(new Uint8Array([0xfe, 0xff]))).toBe('utf-16be');
    expect(detectBom(new Uint8Array([0x41, 0x42]))).toBeNull();
  });
});
