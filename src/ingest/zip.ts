/**
 * @file Reading a ZIP archive from a Blob without holding it whole: the end-of-archive record and
 * the central directory are read from the end of the file, and each wanted entry's compressed bytes
 * are sliced from the Blob and inflated by fflate's streaming `Inflate` in small chunks, counting
 * the bytes that come out, so an entry that inflates past its limit is stopped early (zip bombs).
 *
 * The central directory is the authority (it is what unzip tools trust): entry names, sizes,
 * offsets and CRCs come from it; local headers only give where the data starts. Zip64 fields are
 * read. Methods: stored (0) and deflate (8); other methods and encrypted entries are reported,
 * not read. Every inflated entry is checked against its declared size and CRC-32: a mismatch
 * means a damaged (or forged) archive.
 */
import { Inflate, inflateSync } from 'fflate';

export type ZipErrorCode = 'zip-broken' | 'zip-bomb';

/** A ZIP-level failure; `message` is for people (the caller adds the file name). */
export class ZipError extends Error {
  override name = 'ZipError';
  constructor(
    readonly code: ZipErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface ZipEntry {
  /** Name as stored ('/' separators as written; may be unsafe: check before use). */
  name: string;
  compressedSize: number;
  uncompressedSize: number;
  method: number;
  /** General purpose flags (bit 0: encrypted, bit 11: UTF-8 name). */
  flags: number;
  crc32: number;
  /** Offset of the local file header. */
  offset: number;
  isDirectory: boolean;
  isSymlink: boolean;
  encrypted: boolean;
}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
/** Largest comment after the end record (65535) plus the record (22). */
const TAIL_BYTES = 65535 + 22;
/** Compressed bytes pushed at a time: deflate expands at most ~1032x, so <= 8.5 MB per push. */
const INFLATE_CHUNK = 8192;

/**
 * Entries of at most this many compressed bytes are inflated in one call into a buffer of their
 * declared size: a streaming Inflate per entry costs more than a small file's inflation (30,000
 * small files: docs/scale.md section 6). Bounded work: deflate expands at most ~1032x, so at most
 * ~17 MB of output is decoded (and dropped past the buffer) for a forged entry.
 */
const ONE_SHOT_COMPRESSED = 16 * 1024;

async function slice(blob: Blob, start: number, end: number): Promise<Uint8Array> {
  return new Uint8Array(await blob.slice(start, end).arrayBuffer());
}

/** Smallest and largest window a BlobRanges reads at once. */
const MIN_WINDOW = 64 * 1024;
const MAX_WINDOW = 16 * 1024 * 1024;

/**
 * Byte ranges of a Blob through one cached window. Each Blob read is an asynchronous round trip
 * (in Chromium a blob-registry request, about a millisecond), so reading a 30,000-entry archive
 * with two reads per entry spent most of its time waiting; entries lie one after another, so a
 * window of several megabytes serves many reads. The window grows while consecutive reads hit it
 * and shrinks when they do not (entries read far out of archive order), so the cost stays near
 * one read per entry at worst and the memory at most MAX_WINDOW besides the entry being read.
 */
export class BlobRanges {
  private start = 0;
  private bytes: Uint8Array = new Uint8Array(0);
  private window = 1024 * 1024;
  private hits = 0;
  /** Blob reads made (for tests and benchmarks). */
  reads = 0;

  constructor(readonly blob: Blob) {}

  get size(): number {
    return this.blob.size;
  }

  /** Bytes [start, end) of the blob (clamped to its end); a view: do not modify it. */
  async read(start: number, end: number): Promise<Uint8Array> {
    end = Math.min(end, this.blob.size);
    if (start >= this.start && end <= this.start + this.bytes.length) {
      this.hits++;
      return this.bytes.subarray(start - this.start, end - this.start);
    }
    // A miss: widen the window after a well-used one, narrow it after a wasted one.
    this.window =
      this.hits >= 4
        ? Math.min(MAX_WINDOW, this.window * 2)
        : this.hits === 0
          ? Math.max(MIN_WINDOW, this.window / 4)
          : this.window;
    this.hits = 0;
    this.reads++;
    if (end - start >= this.window) return slice(this.blob, start, end);
    this.bytes = await slice(this.blob, start, Math.min(this.blob.size, start + this.window));
    this.start = start;
    return this.bytes.subarray(0, end - start);
  }
}

function rangesOf(source: Blob | BlobRanges): BlobRanges {
  return source instanceof BlobRanges ? source : new BlobRanges(source);
}

function u16(b: Uint8Array, at: number): number {
  return b[at] | (b[at + 1] << 8);
}
function u32(b: Uint8Array, at: number): number {
  return (b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (b[at + 3] << 24)) >>> 0;
}
function u64(b: Uint8Array, at: number): number {
  // Exact below 2^53, which covers any archive a browser can hold.
  return u32(b, at) + u32(b, at + 4) * 0x100000000;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
/** CP437, the ZIP default for names without the UTF-8 flag (upper half). */
const CP437_HIGH =
  'ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u00a0';

function decodeName(bytes: Uint8Array, flags: number): string {
  try {
    return utf8.decode(bytes);
  } catch {
    if (flags & 0x800) return new TextDecoder('utf-8').decode(bytes);
    let s = '';
    for (const b of bytes) s += b < 128 ? String.fromCharCode(b) : CP437_HIGH[b - 128];
    return s;
  }
}

let crcTable: Int32Array | null = null;
/** CRC-32 (IEEE 802.3), as ZIP stores it; `crc` continues a running value. */
export function crc32(data: Uint8Array, crc = 0): number {
  if (!crcTable) {
    crcTable = new Int32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c;
    }
  }
  let c = ~crc;
  for (let i = 0; i < data.length; i++) c = crcTable[(c ^ data[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

function broken(why: string): never {
  throw new ZipError('zip-broken', why);
}

/** The central directory of the ZIP archive in `blob`. Throws a ZipError when it is not a ZIP. */
export async function readZipDirectory(blob: Blob, maxEntries = Infinity): Promise<ZipEntry[]> {
  const size = blob.size;
  if (size < 22) broken('it is too short to be a ZIP archive');
  const tailStart = Math.max(0, size - TAIL_BYTES);
  const tail = await slice(blob, tailStart, size);
  let eocd = -1;
  for (let i = tail.length - 22; i >= 0; i--) {
    if (u32(tail, i) === EOCD && i + 22 + u16(tail, i + 20) <= tail.length) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) {
    const head = await slice(blob, 0, Math.min(4, size));
    broken(
      u32(head, 0) === LOCAL
        ? 'its end is missing (the download or copy was cut short)'
        : 'it is not a ZIP archive',
    );
  }
  let count = u16(tail, eocd + 10);
  let cdSize = u32(tail, eocd + 12);
  let cdOffset = u32(tail, eocd + 16);
  if (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) {
    const loc = eocd - 20;
    if (loc < 0 || u32(tail, loc) !== ZIP64_LOCATOR) broken('its Zip64 end record is missing');
    const recordAt = u64(tail, loc + 8);
    if (recordAt + 56 > size) broken('its Zip64 end record points outside the file');
    const record = await slice(blob, recordAt, recordAt + 56);
    if (u32(record, 0) !== ZIP64_EOCD) broken('its Zip64 end record is damaged');
    count = u64(record, 32);
    cdSize = u64(record, 40);
    cdOffset = u64(record, 48);
  }
  if (count > maxEntries) {
    throw new ZipError(
      'zip-bomb',
      `it lists ${count.toLocaleString('en')} entries, more than the ${maxEntries.toLocaleString('en')} allowed`,
    );
  }
  if (cdOffset + cdSize > size) broken('its table of contents points outside the file');
  const cd = await slice(blob, cdOffset, cdOffset + cdSize);
  const entries: ZipEntry[] = [];
  let at = 0;
  for (let k = 0; k < count; k++) {
    if (at + 46 > cd.length || u32(cd, at) !== CENTRAL) broken('its table of contents is damaged');
    const madeBy = u16(cd, at + 4);
    const flags = u16(cd, at + 8);
    const method = u16(cd, at + 10);
    const crc = u32(cd, at + 16);
    let compressedSize = u32(cd, at + 20);
    let uncompressedSize = u32(cd, at + 24);
    const nameLength = u16(cd, at + 28);
    const extraLength = u16(cd, at + 30);
    const commentLength = u16(cd, at + 32);
    const externalAttributes = u32(cd, at + 38);
    let offset = u32(cd, at + 42);
    const end = at + 46 + nameLength + extraLength + commentLength;
    if (end > cd.length) broken('its table of contents is damaged');
    const name = decodeName(cd.subarray(at + 46, at + 46 + nameLength), flags);
    // Zip64 extra field: the 64-bit values of the fields saturated above, in this order.
    let e = at + 46 + nameLength;
    const extraEnd = e + extraLength;
    while (e + 4 <= extraEnd) {
      const id = u16(cd, e);
      const len = u16(cd, e + 2);
      if (id === 0x0001) {
        let p = e + 4;
        if (uncompressedSize === 0xffffffff && p + 8 <= e + 4 + len) {
          uncompressedSize = u64(cd, p);
          p += 8;
        }
        if (compressedSize === 0xffffffff && p + 8 <= e + 4 + len) {
          compressedSize = u64(cd, p);
          p += 8;
        }
        if (offset === 0xffffffff && p + 8 <= e + 4 + len) offset = u64(cd, p);
      }
      e += 4 + len;
    }
    const unixMode = madeBy >> 8 === 3 ? externalAttributes >>> 16 : 0;
    entries.push({
      name,
      compressedSize,
      uncompressedSize,
      method,
      flags,
      crc32: crc,
      offset,
      isDirectory: name.endsWith('/') || name.endsWith('\\'),
      isSymlink: (unixMode & 0o170000) === 0o120000,
      encrypted: (flags & 1) !== 0,
    });
    at = end;
  }
  return entries;
}

/**
 * The bytes of one entry, inflated with at most `limit` bytes of output (the entry's declared size
 * must already be within it). Throws a ZipError when the data is damaged, does not match its
 * declared size or CRC, or would pass the limit.
 */
export async function readZipEntry(
  source: Blob | BlobRanges,
  entry: ZipEntry,
  limit: number = entry.uncompressedSize,
): Promise<Uint8Array> {
  const blob = rangesOf(source);
  const header = await blob.read(entry.offset, entry.offset + 30);
  if (header.length < 30 || u32(header, 0) !== LOCAL)
    broken(`the entry “${entry.name}” is damaged`);
  const dataStart = entry.offset + 30 + u16(header, 26) + u16(header, 28);
  const dataEnd = dataStart + entry.compressedSize;
  if (dataEnd > blob.size) broken(`the entry “${entry.name}” runs past the end of the file`);
  const expected = entry.uncompressedSize;
  let out: Uint8Array;
  if (entry.method === 0) {
    if (entry.compressedSize !== expected)
      broken(`the stored entry “${entry.name}” has inconsistent sizes`);
    // A copy: the window it came from is reused.
    out = (await blob.read(dataStart, dataEnd)).slice();
  } else if (entry.method === 8 && entry.compressedSize <= ONE_SHOT_COMPRESSED) {
    const cap = Math.min(expected, limit);
    const compressed = await blob.read(dataStart, dataEnd);
    // One byte of room past the declared size: output reaching it inflates past the declaration.
    const room = new Uint8Array(cap + 1);
    try {
      out = inflateSync(compressed, { out: room });
    } catch (error) {
      broken(
        `the entry “${entry.name}” is damaged (${error instanceof Error ? error.message : String(error)})`,
      );
    }
    if (out.length > cap) {
      throw new ZipError(
        'zip-bomb',
        `the entry “${entry.name}” inflates to more than its declared ${expected.toLocaleString('en')} bytes`,
      );
    }
    if (out.length !== expected)
      broken(`the entry “${entry.name}” does not match its declared size`);
  } else if (entry.method === 8) {
    const cap = Math.min(expected, limit);
    out = new Uint8Array(cap);
    let produced = 0;
    let finished = false;
    let overflow = false;
    const inflate = new Inflate((chunk, final) => {
      if (produced + chunk.length > cap) {
        overflow = true;
        return;
      }
      out.set(chunk, produced);
      produced += chunk.length;
      if (final) finished = true;
    });
    // Read the compressed bytes in moderate slices, inflate them in small chunks.
    const READ = 1 << 20;
    for (let pos = dataStart; pos < dataEnd && !overflow; pos += READ) {
      const part = await blob.read(pos, Math.min(dataEnd, pos + READ));
      for (let c = 0; c < part.length && !overflow; c += INFLATE_CHUNK) {
        const last = pos + c + INFLATE_CHUNK >= dataEnd;
        try {
          inflate.push(part.subarray(c, Math.min(part.length, c + INFLATE_CHUNK)), last);
        } catch (error) {
          broken(
            `the entry “${entry.name}” is damaged (${error instanceof Error ? error.message : String(error)})`,
          );
        }
      }
    }
    if (overflow) {
      throw new ZipError(
        'zip-bomb',
        `the entry “${entry.name}” inflates to more than its declared ${expected.toLocaleString('en')} bytes`,
      );
    }
    if (!finished && expected > 0) broken(`the entry “${entry.name}” is cut short`);
    if (produced !== expected) broken(`the entry “${entry.name}” does not match its declared size`);
  } else {
    throw new Error(`compression method ${entry.method} is not supported`);
  }
  if (crc32(out) !== entry.crc32) broken(`the entry “${entry.name}” fails its checksum`);
  return out;
}
