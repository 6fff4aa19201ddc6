/**
 * @file Bytes to text: encoding detection, binary detection, line-ending normalisation.
 *
 * Encoding, in order: a byte-order mark (UTF-8, UTF-16 LE, UTF-16 BE) wins; else the bytes are
 * tried as UTF-8 with `fatal: true` (valid UTF-8 is almost never an accident); else a charset the
 * file declares (HTML `<meta charset>`, XML `encoding=`) if TextDecoder knows it; else
 * Windows-1252, the usual encoding of older Western text files (it is also what browsers use for
 * "latin1" and "iso-8859-1", and it decodes any byte sequence).
 */

/** How many leading bytes the binary check reads. */
export const BINARY_SNIFF_BYTES = 8192;

/** Share of control characters in the sniffed bytes above which a file counts as binary. */
export const BINARY_CONTROL_SHARE = 0.1;

export interface DecodedText {
  text: string;
  /** WHATWG encoding name: 'utf-8', 'utf-16le', 'utf-16be', 'windows-1252', ... */
  encoding: string;
}

/**
 * Windows-1252's characters for bytes 0x80..0x9F (the rest of the range is Latin-1). Needed on
 * top of TextDecoder because Node 20's 'windows-1252' decoder is plain Latin-1 there.
 */
export const WINDOWS_1252_C1: Readonly<Record<number, number>> = {
  0x80: 0x20ac,
  0x82: 0x201a,
  0x83: 0x0192,
  0x84: 0x201e,
  0x85: 0x2026,
  0x86: 0x2020,
  0x87: 0x2021,
  0x88: 0x02c6,
  0x89: 0x2030,
  0x8a: 0x0160,
  0x8b: 0x2039,
  0x8c: 0x0152,
  0x8e: 0x017d,
  0x91: 0x2018,
  0x92: 0x2019,
  0x93: 0x201c,
  0x94: 0x201d,
  0x95: 0x2022,
  0x96: 0x2013,
  0x97: 0x2014,
  0x98: 0x02dc,
  0x99: 0x2122,
  0x9a: 0x0161,
  0x9b: 0x203a,
  0x9c: 0x0153,
  0x9e: 0x017e,
  0x9f: 0x0178,
};

/** Windows-1252 bytes to text, the same in every environment. */
export function decodeWindows1252(bytes: Uint8Array): string {
  return new TextDecoder('windows-1252').decode(bytes).replace(/[\u0080-\u009f]/g, (c) => {
    const mapped = WINDOWS_1252_C1[c.charCodeAt(0)];
    return mapped === undefined ? c : String.fromCharCode(mapped);
  });
}

type Bom = 'utf-8' | 'utf-16le' | 'utf-16be';

export function detectBom(bytes: Uint8Array): Bom | null {
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    return 'utf-8';
  }
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  return null;
}

/** A control character that does not occur in text: not tab, line feed, form feed or return. */
function isStrayControl(code: number): boolean {
  return code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0c && code !== 0x0d;
}

/**
 * Whether the start of a would-be text file is binary data: any NUL, or more than
 * BINARY_CONTROL_SHARE control characters in the first BINARY_SNIFF_BYTES. UTF-16 files (with a
 * BOM) are full of zero bytes, so they are judged on their decoded characters instead.
 */
export function looksBinary(bytes: Uint8Array): boolean {
  const bom = detectBom(bytes);
  if (bom === 'utf-16le' || bom === 'utf-16be') {
    const sample = bytes.subarray(2, 2 + (BINARY_SNIFF_BYTES & ~1));
    const chars = new TextDecoder(bom).decode(sample);
    let stray = 0;
    for (let i = 0; i < chars.length; i++) {
      const code = chars.charCodeAt(i);
      if (code === 0) return true;
      if (isStrayControl(code)) stray++;
    }
    return chars.length > 0 && stray / chars.length > BINARY_CONTROL_SHARE;
  }
  const n = Math.min(bytes.length, BINARY_SNIFF_BYTES);
  let stray = 0;
  for (let i = 0; i < n; i++) {
    const b = bytes[i];
    if (b === 0) return true;
    if (isStrayControl(b)) stray++;
  }
  return n > 0 && stray / n > BINARY_CONTROL_SHARE;
}

/** What a binary file probably is, from its first bytes, for a helpful message. */
export function sniffBinaryKind(bytes: Uint8Array): string | null {
  const starts = (...sig: number[]) => sig.every((b, i) => bytes[i] === b);
  if (starts(0x25, 0x50, 0x44, 0x46, 0x2d)) return 'a PDF';
  if (starts(0x50, 0x4b, 0x03, 0x04)) {
    // An EPUB's first entry is the uncompressed file "mimetype" holding "application/epub+zip".
    const head = new TextDecoder('latin1').decode(bytes.subarray(30, 80));
    return head.startsWith('mimetypeapplication/epub+zip') ? 'an EPUB' : 'a ZIP archive';
  }
  if (starts(0x89, 0x50, 0x4e, 0x47)) return 'a PNG image';
  if (starts(0xff, 0xd8, 0xff)) return 'a JPEG image';
  if (starts(0x47, 0x49, 0x46, 0x38)) return 'a GIF image';
  if (starts(0xd0, 0xcf, 0x11, 0xe0)) return 'an old Microsoft Office file';
  return null;
}

/**
 * Declared encodings not taken when the bytes are not UTF-8: the Unicode ones (the declaration is
 * wrong), Windows-1252 (decoded by decodeWindows1252) and the WHATWG 'replacement' and
 * 'x-user-defined' encodings, which would turn the book into one U+FFFD or private-use noise.
 */
const NOT_A_FALLBACK = new Set([
  'utf-8',
  'utf-16le',
  'utf-16be',
  'windows-1252',
  'replacement',
  'x-user-defined',
]);

/** A charset label TextDecoder understands, or null. */
function knownLabel(label: string | undefined): string | null {
  if (!label) return null;
  try {
    return new TextDecoder(label.trim()).encoding;
  } catch {
    return null;
  }
}

/**
 * Decode a text file (see the file comment for the order of guesses). `declared` is a charset the
 * file names for itself, used only when the bytes are not UTF-8.
 */
export function decodeText(bytes: Uint8Array, declared?: string): DecodedText {
  const bom = detectBom(bytes);
  if (bom) {
    // TextDecoder removes the BOM itself. A broken sequence after a BOM becomes U+FFFD.
    return { text: new TextDecoder(bom).decode(bytes), encoding: bom };
  }
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), encoding: 'utf-8' };
  } catch {
    // Not UTF-8: fall through to a declared single-byte encoding, then Windows-1252.
  }
  const label = knownLabel(declared);
  if (label && !NOT_A_FALLBACK.has(label)) {
    return { text: new TextDecoder(label).decode(bytes), encoding: label };
  }
  return { text: decodeWindows1252(bytes), encoding: 'windows-1252' };
}

/** CRLF and lone CR become LF. */
export function normalizeNewlines(text: string): string {
  return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
}

/** True when the text holds nothing but white space. */
export function isBlank(text: string): boolean {
  return !/\S/.test(text);
}
