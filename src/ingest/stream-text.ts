/**
 * @file A plain-text or Markdown file read, hashed, decoded and split as it streams in.
 *
 * Before, the file's bytes were read whole, hashed, decoded whole, normalised whole (CRLF to LF,
 * a second copy of the text) and only then split: a 100 MB book peaked near 7 times its size. Here
 * each chunk of `Blob.stream()` is hashed (Sha256, fed in pieces), decoded by a streaming decoder
 * (sequences cut between chunks come out whole), normalised (a "\r" at a chunk's end waits for
 * the next chunk) and handed to the prose splitter (ProseSplitStream) at once; the bytes are not
 * kept. The text is kept as its decoded pieces and joined once at the end: the one string the
 * document stores.
 *
 * The encoding is decided as before (decode.ts), from the first DETECT_SNIFF_BYTES bytes, which
 * are held back until they are in: the reader's choice, a BOM, UTF-16 without one, else UTF-8 if
 * every byte is valid UTF-8. That last check is only over when the file is: a file that turns out
 * not to be UTF-8 (an invalid byte anywhere) is read again from the start in the encoding of the
 * fallback (declared, detected from the first bytes, else Windows-1252), exactly what decoding the
 * whole file gave.
 *
 * Progress is the read's (bytes of the file; a second read, if any, counts again from 0), and an
 * abort cancels the stream between chunks, that is within the split too.
 */
import { ProseSplitStream, type ProseSpans } from '../core/fragment';
import type { FragmentOptions } from '../core/options';
import {
  chunkDecoder,
  DETECT_SNIFF_BYTES,
  fallbackDecoding,
  looksBinary,
  planDecoding,
  type DecodingPlan,
} from './decode';
import { digestHex, Sha256 } from './sha256';
import { forEachChunk, type ReadProgress } from './stream-read';

export interface StreamTextOptions {
  signal?: AbortSignal;
  onProgress?: ReadProgress;
  /** The encoding the reader chose (a WHATWG label), over any detection. */
  chosen?: string;
  /** Split the text into prose fragments as it arrives, with these options. */
  split?: Partial<FragmentOptions>;
}

export interface StreamedText {
  /** The decoded text, line endings `\n`. */
  text: string;
  encoding: string;
  guessed: boolean;
  /** SHA-256 of the file's bytes, lower-case hex. */
  sha256: string;
  /** The text holds nothing but white space. */
  blank: boolean;
  /** splitProse's fragments of `text`, when `split` was given. */
  fragments?: ProseSpans;
}

/** The file does not look like text (looksBinary); `head` holds its first bytes. */
export class NotText extends Error {
  override name = 'NotText';
  constructor(readonly head: Uint8Array) {
    super('The file holds binary data.');
  }
}

/** Thrown inside a read when the bytes turn out not to be UTF-8: read again in the fallback. */
class NotUtf8 extends Error {}

/** The first bytes of the file, gathered until DETECT_SNIFF_BYTES are in. */
class Head {
  bytes = new Uint8Array(0);
  add(chunk: Uint8Array): void {
    const grown = new Uint8Array(this.bytes.length + chunk.length);
    grown.set(this.bytes);
    grown.set(chunk, this.bytes.length);
    this.bytes = grown;
  }
  get full(): boolean {
    return this.bytes.length >= DETECT_SNIFF_BYTES;
  }
}

/** Decoded pieces in, normalised: kept, checked for text, split. */
class TextSink {
  private pieces: string[] = [];
  private heldCr = false;
  blank = true;
  private readonly splitter: ProseSplitStream | null;

  constructor(split: Partial<FragmentOptions> | undefined) {
    this.splitter = split ? new ProseSplitStream(split) : null;
  }

  /** The next decoded piece; `last`: the text ends with it. */
  add(decoded: string, last = false): void {
    let piece = this.heldCr ? `\r${decoded}` : decoded;
    this.heldCr = !last && piece.endsWith('\r');
    // A "\r" at the end may be the first half of a "\r\n": it waits for the next piece.
    if (this.heldCr) piece = piece.slice(0, -1);
    if (piece.includes('\r')) piece = piece.replace(/\r\n?/g, '\n');
    if (piece.length === 0) return;
    if (this.blank && /\S/.test(piece)) this.blank = false;
    this.pieces.push(piece);
    this.splitter?.push(piece);
  }

  /** The whole text (the pieces are let go) and its fragments. */
  finish(): { text: string; fragments?: ProseSpans } {
    const text = this.pieces.join('');
    this.pieces = [];
    return this.splitter ? { text, fragments: this.splitter.finish() } : { text };
  }
}

/**
 * Read a text file as it streams in (file comment). Rejects with NotText for binary data (unless
 * an encoding was chosen, as before), with an AbortError on abort, with the chosen encoding's
 * error when TextDecoder does not know it (checked first, before any byte is read), and with the
 * stream's error when the file cannot be read.
 */
export async function readTextStreaming(
  file: Blob,
  options: StreamTextOptions = {},
): Promise<StreamedText> {
  const { signal, onProgress, chosen, split } = options;
  // An unknown chosen encoding fails before any byte is read.
  if (chosen) planDecoding(new Uint8Array(0), chosen);

  const head = new Head();
  let plan: DecodingPlan | null = null;
  let hash = new Sha256();
  let sink = new TextSink(split);
  let decode: (chunk?: Uint8Array) => string = () => '';

  const start = (bytes: Uint8Array) => {
    if (!chosen && looksBinary(bytes)) throw new NotText(bytes);
    plan = planDecoding(bytes, chosen);
    decode = chunkDecoder(plan.encoding, plan.ifValidUtf8 === true);
  };
  const feed = (chunk: Uint8Array | undefined) => {
    let decoded: string;
    try {
      decoded = decode(chunk);
    } catch (error) {
      if (plan?.ifValidUtf8) throw new NotUtf8();
      throw error;
    }
    sink.add(decoded, chunk === undefined);
  };

  try {
    await forEachChunk(
      file,
      (chunk) => {
        hash.update(chunk);
        if (plan) return feed(chunk);
        head.add(chunk);
        if (!head.full) return;
        start(head.bytes);
        feed(head.bytes);
      },
      signal,
      onProgress,
    );
    if (!plan) {
      // A file shorter than the sniffed head.
      start(head.bytes);
      feed(head.bytes);
    }
    feed(undefined);
  } catch (error) {
    if (!(error instanceof NotUtf8)) throw error;
    // Not UTF-8 after all: the whole file again, in the fallback's encoding.
    plan = fallbackDecoding(head.bytes);
    decode = chunkDecoder(plan.encoding);
    hash = new Sha256();
    sink = new TextSink(split);
    await forEachChunk(
      file,
      (chunk) => {
        hash.update(chunk);
        feed(chunk);
      },
      signal,
      onProgress,
    );
    feed(undefined);
  }
  const used: DecodingPlan = plan!;
  const { blank } = sink;
  return {
    ...sink.finish(),
    encoding: used.encoding,
    guessed: used.guessed === true,
    sha256: digestHex(hash.digest()),
    blank,
  };
}
