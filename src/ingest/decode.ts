/**
 * @file Bytes to text: encoding detection, binary detection, line-ending normalisation.
 *
 * Encoding, in order: an encoding the user chose wins; else a byte-order mark (UTF-8, UTF-16 LE,
 * UTF-16 BE); else UTF-16 without a BOM when its commonest characters show (below; before UTF-8
 * because ASCII in UTF-16 is valid UTF-8 full of NULs); else the bytes are tried as UTF-8 with
 * `fatal: true` (valid UTF-8 is almost never an accident); else a charset the file declares (HTML `<meta charset>`, XML `encoding=`) if TextDecoder knows
 * it; else the legacy encoding the `chardet` detector names (Shift_JIS, EUC-JP, GB18030/GBK,
 * Big5, EUC-KR, KOI8-R, Windows-125x, ISO-8859-x); else Windows-1252, the usual encoding of
 * older Western text files (it is also what browsers use for "latin1" and "iso-8859-1", and it
 * decodes any byte sequence).
 *
 * Why chardet: it is the maintained JavaScript port of ICU's CharsetDetector (n-gram and
 * multi-byte grammar recognisers per encoding), pure JS with no Node APIs on the detection path,
 * so it runs in the index worker; jschardet (a port of Mozilla's older detector) covers the same
 * encodings with a larger bundle. chardet does not recognise UTF-16 without a BOM, so that case is
 * the structural check `detectUtf16WithoutBom`: text in UTF-16 is full of line feeds, spaces,
 * commas and full stops (or 、。 in CJK) at even offsets in one byte order and hardly any in the
 * other; single-byte text cannot hold them at all (they need a zero byte or a control byte), and
 * binary data fails to decode (lone surrogates) or holds NUL code units.
 */
import { analyse } from 'chardet';

/** How many leading bytes the binary check reads. */
export const BINARY_SNIFF_BYTES = 8192;

/** Share of control characters in the sniffed bytes above which a file counts as binary. */
export const BINARY_CONTROL_SHARE = 0.1;

export interface DecodedText {
  text: string;
  /** WHATWG encoding name: 'utf-8', 'utf-16le', 'utf-16be', 'windows-1252', ... */
  encoding: string;
  /**
   * Set when the encoding is a guess from the bytes' statistics (UTF-16 without a BOM, the
   * detector, the Windows-1252 fallback), which the reader should be shown and may change.
   */
  guessed?: true;
}

export { encodingLabel, READABLE_ENCODINGS } from './encodings';

/** How many leading bytes the detectors read (enough for a stable guess, bounded time). */
export const DETECT_SNIFF_BYTES = 65536;

/**
 * Code units that nearly every text holds and that a text in the other byte order (or any
 * single-byte text, which has no zero bytes) almost never shows at an even offset: line feed,
 * carriage return, space, comma, full stop, and the CJK comma and full stops 、。，.
 */
function isUtf16Marker(unit: number): boolean {
  // Comparisons, not a Set: this runs twice per code unit of every file read (a Set lookup made
  // it a third of reading 10,000 small files).
  return (
    unit === 0x000a ||
    unit === 0x000d ||
    unit === 0x0020 ||
    unit === 0x002c ||
    unit === 0x002e ||
    unit === 0x3001 ||
    unit === 0x3002 ||
    unit === 0xff0c
  );
}
/** Markers the sniffed start must hold, as a share of its code units, to call it UTF-16. */
const UTF16_MIN_MARKER_SHARE = 0.01;
/** How many times more markers one byte order must show than the other. */
const UTF16_ORDER_MARGIN = 4;

/**
 * UTF-16 without a byte-order mark, by its commonest characters (see the file comment): null
 * when the start of the file does not look like UTF-16 or does not decode as it.
 */
export function detectUtf16WithoutBom(bytes: Uint8Array): 'utf-16le' | 'utf-16be' | null {
  const n = Math.min(bytes.length, BINARY_SNIFF_BYTES) & ~1;
  if (n < 2) return null;
  let le = 0;
  let be = 0;
  for (let i = 0; i < n; i += 2) {
    // A code unit 0x0000 is no text.
    if (bytes[i] === 0 && bytes[i + 1] === 0) return null;
    if (isUtf16Marker(bytes[i] | (bytes[i + 1] << 8))) le++;
    if (isUtf16Marker((bytes[i] << 8) | bytes[i + 1])) be++;
  }
  const units = n / 2;
  let guess: 'utf-16le' | 'utf-16be';
  if (le >= UTF16_MIN_MARKER_SHARE * units && le >= UTF16_ORDER_MARGIN * be) guess = 'utf-16le';
  else if (be >= UTF16_MIN_MARKER_SHARE * units && be >= UTF16_ORDER_MARGIN * le) {
    guess = 'utf-16be';
  } else return null;
  try {
    // Lone surrogates mean it is not UTF-16. The sniffed window may cut a surrogate pair at its
    // end, so its last unit is left out.
    new TextDecoder(guess, { fatal: true }).decode(bytes.subarray(0, n >= 4 ? n - 2 : n));
  } catch {
    return null;
  }
  return guess;
}

/** chardet's names to the WHATWG encodings TextDecoder takes, where they differ. */
const CHARDET_TO_WHATWG: Readonly<Record<string, string>> = {
  'ISO-8859-1': 'windows-1252',
  GB18030: 'gb18030',
  Shift_JIS: 'shift_jis',
  'EUC-JP': 'euc-jp',
  'EUC-KR': 'euc-kr',
  Big5: 'big5',
  'KOI8-R': 'koi8-r',
  'ISO-2022-JP': 'iso-2022-jp',
};

/**
 * The legacy encoding chardet finds most likely for bytes that are not UTF-8, as a WHATWG name
 * TextDecoder knows, or null. Unicode answers are ignored: the caller has ruled those out.
 */
export function detectLegacyEncoding(bytes: Uint8Array): string | null {
  const sample = bytes.subarray(0, DETECT_SNIFF_BYTES);
  for (const match of analyse(sample)) {
    if (/^UTF-/i.test(match.name)) continue;
    const label = knownLabel(CHARDET_TO_WHATWG[match.name] ?? match.name.toLowerCase());
    if (label && label !== 'replacement' && label !== 'x-user-defined') return label;
  }
  return null;
}

/** Decode with a WHATWG encoding, Windows-1252 the same in every environment. */
export function decodeAs(bytes: Uint8Array, encoding: string): string {
  if (encoding === 'windows-1252') return decodeWindows1252(bytes);
  return new TextDecoder(encoding).decode(bytes);
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
  const utf16 =
    bom === 'utf-16le' || bom === 'utf-16be' ? bom : bom ? null : detectUtf16WithoutBom(bytes);
  if (utf16) {
    const skip = bom ? 2 : 0;
    const sample = bytes.subarray(skip, skip + (BINARY_SNIFF_BYTES & ~1));
    const chars = new TextDecoder(utf16).decode(sample);
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

/** How a text's bytes are to be decoded, decided from its first bytes (`planDecoding`). */
export interface DecodingPlan {
  encoding: string;
  guessed?: true;
  /**
   * The bytes are UTF-8 only if all of them are valid UTF-8 (decode with `fatal: true`); where
   * they are not, `fallbackDecoding` says what they are.
   */
  ifValidUtf8?: true;
}

/**
 * The first steps of the order of guesses (file comment), which need only the first bytes of the
 * file (up to DETECT_SNIFF_BYTES): the reader's choice, a BOM, UTF-16 without a BOM, else UTF-8
 * if all of the bytes turn out to be valid. Throws when `chosen` is not an encoding TextDecoder
 * knows.
 */
export function planDecoding(head: Uint8Array, chosen?: string): DecodingPlan {
  const picked = knownLabel(chosen);
  if (chosen && !picked) {
    throw new Error(`“${chosen}” is not an encoding this browser can read.`);
  }
  // The reader's choice; a BOM of that very encoding is still dropped by TextDecoder.
  if (picked) return { encoding: picked };
  // TextDecoder removes the BOM itself. A broken sequence after a BOM becomes U+FFFD.
  const bom = detectBom(head);
  if (bom) return { encoding: bom };
  // Before UTF-8: ASCII text in UTF-16 is valid UTF-8 too (full of NULs).
  const utf16 = detectUtf16WithoutBom(head);
  if (utf16) return { encoding: utf16, guessed: true };
  return { encoding: 'utf-8', ifValidUtf8: true };
}

/**
 * The encoding of bytes that are not valid UTF-8 (and not UTF-16): a declared encoding, else the
 * detector's guess on the first bytes, else Windows-1252 (file comment).
 */
export function fallbackDecoding(head: Uint8Array, declared?: string): DecodingPlan {
  const label = knownLabel(declared);
  if (label && !NOT_A_FALLBACK.has(label)) return { encoding: label };
  const detected = detectLegacyEncoding(head);
  if (detected && !NOT_A_FALLBACK.has(detected)) return { encoding: detected, guessed: true };
  return { encoding: 'windows-1252', guessed: true };
}

/**
 * A decoder for a text that arrives in chunks: call it with each chunk in order, then once with
 * none to end. Multi-byte sequences and surrogate pairs cut between chunks come out whole, so the
 * pieces joined are `decodeAs` of the whole. `fatal`: throw on bytes that are not valid.
 */
export function chunkDecoder(encoding: string, fatal = false): (chunk?: Uint8Array) => string {
  // A single-byte encoding: each chunk decodes on its own.
  if (encoding === 'windows-1252') return (chunk) => (chunk ? decodeWindows1252(chunk) : '');
  const decoder = new TextDecoder(encoding, { fatal });
  return (chunk) => (chunk ? decoder.decode(chunk, { stream: true }) : decoder.decode());
}

/**
 * Decode a text file (see the file comment for the order of guesses). `declared` is a charset the
 * file names for itself, used only when the bytes are not UTF-8; `chosen` an encoding the reader
 * picked (a WHATWG label), which wins over everything.
 */
export function decodeText(bytes: Uint8Array, declared?: string, chosen?: string): DecodedText {
  let plan = planDecoding(bytes, chosen);
  if (plan.ifValidUtf8) {
    try {
      return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), encoding: 'utf-8' };
    } catch {
      plan = fallbackDecoding(bytes, declared);
    }
  }
  const decoded: DecodedText = { text: decodeAs(bytes, plan.encoding), encoding: plan.encoding };
  if (plan.guessed) decoded.guessed = true;
  return decoded;
}

/** CRLF and lone CR become LF. */
export function normalizeNewlines(text: string): string {
  return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
}

/** True when the text holds nothing but white space. */
export function isBlank(text: string): boolean {
  return !/\S/.test(text);
}
