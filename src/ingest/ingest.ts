/**
 * @file Files to documents: pick the reader by extension, check size and content, read, hash.
 *
 * Runs on the main thread or in a worker alike: nothing here touches `document` or DOMParser
 * (HTML and XML go through our own tokenizer, markup.ts). On the main thread the long synchronous
 * steps are cut into slices (abort.ts) so the page stays responsive and "Cancel" takes effect
 * between slices; very large books are smoother from a worker. pdf.js is injected (`pdfjs`):
 * index.ts supplies the browser build, Node callers pass pdf-node.ts.
 */
import type { FragmentOptions } from '../core/options';
import { createCheckpoint, abortable, throwIfAborted } from './abort';
import {
  decodeText,
  isBlank,
  looksBinary,
  normalizeNewlines,
  planDecoding,
  sniffBinaryKind,
  type DecodedText,
} from './decode';
import { readEpub } from './epub';
import { gutenbergTitle } from './title';
import { fail, formatBytes, IngestFailure, ingestError, quoted } from './errors';
import { declaredCharset, htmlToText } from './html';
import { readPdf, type PdfjsLoader } from './pdf';
import { outlineSections } from './sections';
import { sha256Hex } from './sha256';
import { readBytesStreaming } from './stream-read';
import { NotText, readTextStreaming, type StreamedText } from './stream-text';
import { markdownSections, plainTextSections } from './text';
import type {
  IngestedDocument,
  IngestError,
  IngestFormat,
  IngestInput,
  IngestProgress,
  IngestResult,
  Section,
} from './types';

/**
 * Largest file read, in bytes (200 MB). Past this a browser tab risks running out of memory: the
 * bytes, the decoded text (two bytes a character) and the fragments' index all live at once.
 * Also the limit on an EPUB's unpacked chapters.
 */
export const MAX_FILE_BYTES = 200 * 1024 * 1024;

/** File extensions read, and their format. */
export const SUPPORTED_EXTENSIONS: Readonly<Record<string, IngestFormat>> = Object.freeze({
  txt: 'txt',
  text: 'txt',
  md: 'md',
  markdown: 'md',
  html: 'html',
  htm: 'html',
  xhtml: 'html',
  epub: 'epub',
  pdf: 'pdf',
});

/** For files without an extension: the browser's MIME type. */
const MIME_FORMATS: Readonly<Record<string, IngestFormat>> = {
  'text/plain': 'txt',
  'text/markdown': 'md',
  'text/x-markdown': 'md',
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'application/epub+zip': 'epub',
  'application/pdf': 'pdf',
};

/** HTML headings that become sections (h1-h3). */
const MAX_HTML_HEADING_LEVEL = 3;

export interface IngestOptions {
  /** Aborting rejects `ingestFiles` with an AbortError (src/workers/protocol.ts) promptly. */
  signal?: AbortSignal;
  onProgress?: (progress: IngestProgress) => void;
  /** Largest file read, in bytes; default MAX_FILE_BYTES. */
  maxBytes?: number;
  /** pdf.js for this environment; required to read PDFs (index.ts defaults it to the browser). */
  pdfjs?: PdfjsLoader;
  /** The encoding the reader chose for text files (a WHATWG label), over any detection. */
  encoding?: string;
  /**
   * Split plain-text and Markdown files into prose fragments as they stream in, with these
   * options (IngestedDocument.fragments); other formats are not split here.
   */
  split?: Partial<FragmentOptions>;
}

function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 && dot < name.length - 1 ? name.slice(dot + 1).toLowerCase() : '';
}

function supportedList(): string {
  return Object.keys(SUPPORTED_EXTENSIONS)
    .map((ext) => `.${ext}`)
    .join(', ');
}

/** The format of a file by its extension, else (no extension) by its MIME type. */
export function formatOf(name: string, mimeType = ''): IngestFormat | null {
  const ext = extensionOf(name);
  if (ext) return SUPPORTED_EXTENSIONS[ext] ?? null;
  return MIME_FORMATS[mimeType.split(';')[0].trim().toLowerCase()] ?? null;
}

function unsupported(name: string): never {
  const ext = extensionOf(name);
  return fail(
    name,
    'unsupported',
    `${quoted(name)} is ${ext ? `a .${ext} file, ` : ''}not a format FragRel Lens reads. ` +
      `Supported: ${supportedList()}. Save or export it as one of these and drop it again.`,
  );
}

function binary(name: string, bytes: Uint8Array): never {
  // Only the first bytes are looked at: a streamed read passes just those.
  const kind = sniffBinaryKind(bytes);
  const hint =
    kind === 'a PDF'
      ? ' Rename it to end in .pdf and drop it again.'
      : kind === 'an EPUB'
        ? ' Rename it to end in .epub and drop it again.'
        : ' Drop the book as .txt, .md, .html, .epub or .pdf.';
  return fail(
    name,
    'binary',
    `${quoted(name)} does not look like text: it holds binary data` +
      `${kind ? ` (it looks like ${kind})` : ''}.${hint}`,
  );
}

function emptyText(name: string, what: string): never {
  return fail(name, 'empty', `${quoted(name)} ${what}. Check that you dropped the right file.`);
}

interface Read {
  text: string;
  sections: Section[];
  title?: string;
  encoding?: string;
  encodingGuessed?: boolean;
}

/** An HTML file, decoded whole (plain text and Markdown stream: ingestStreamedText). */
function readHtml(name: string, bytes: Uint8Array, chosen: string | undefined): Read {
  if (!chosen && looksBinary(bytes)) binary(name, bytes);
  let decoded: DecodedText;
  try {
    decoded = decodeText(bytes, declaredCharset(bytes), chosen);
  } catch (error) {
    fail(name, 'decode', `${quoted(name)} could not be read as chosen: ${errorText(error)}`);
  }
  const source = normalizeNewlines(decoded.text);
  if (isBlank(source)) emptyText(name, 'contains only white space, no text');
  const encoding = { encoding: decoded.encoding, encodingGuessed: decoded.guessed === true };
  const { text, headings } = htmlToText(source);
  if (isBlank(text)) emptyText(name, 'has no visible text (only markup, scripts or styles)');
  const marks = headings
    .filter((h) => h.level <= MAX_HTML_HEADING_LEVEL)
    .map((h) => ({ level: h.level, title: h.title, start: h.start, kind: 'heading' as const }));
  return { text, sections: outlineSections(marks, text), ...encoding };
}

interface FileContext {
  signal: AbortSignal | undefined;
  maxBytes: number;
  pdfjs: PdfjsLoader | undefined;
  checkpoint: () => Promise<void>;
  onPage: (done: number, total: number) => void;
  onBytes: (done: number, total: number) => void;
  encoding: string | undefined;
  split: Partial<FragmentOptions> | undefined;
}

function unreadable(name: string, error: unknown): never {
  return fail(
    name,
    'decode',
    `${quoted(name)} could not be read from disk (${errorText(error)}). Check that it still ` +
      'exists and opens in another program, then drop it again.',
  );
}

/**
 * A plain-text or Markdown file, read, hashed, decoded and (if asked) split as it streams in
 * (stream-text.ts): the bytes are never held whole. Same checks and messages as readHtml.
 */
async function ingestStreamedText(
  file: IngestInput,
  name: string,
  format: 'txt' | 'md',
  ctx: FileContext,
): Promise<IngestedDocument> {
  if (ctx.encoding) {
    try {
      planDecoding(new Uint8Array(0), ctx.encoding);
    } catch (error) {
      fail(name, 'decode', `${quoted(name)} could not be read as chosen: ${errorText(error)}`);
    }
  }
  let read: StreamedText;
  try {
    read = await readTextStreaming(file, {
      signal: ctx.signal,
      onProgress: ctx.onBytes,
      chosen: ctx.encoding,
      split: ctx.split,
    });
  } catch (error) {
    if (ctx.signal?.aborted) throw error;
    if (error instanceof NotText) binary(name, error.head);
    unreadable(name, error);
  }
  if (read.blank) emptyText(name, 'contains only white space, no text');
  await ctx.checkpoint();
  const { text } = read;
  const sections = format === 'txt' ? plainTextSections(text) : markdownSections(text);
  await ctx.checkpoint();
  const doc: IngestedDocument = {
    name,
    format,
    kind: 'prose',
    text,
    sections,
    bytes: file.size,
    sha256: read.sha256,
    encoding: read.encoding,
  };
  if (read.guessed) doc.encodingGuessed = true;
  if (read.fragments) doc.fragments = read.fragments;
  const title = format === 'txt' ? gutenbergTitle(text) : undefined;
  if (title) doc.title = title;
  return doc;
}

/** Read one file into a document, or throw an IngestFailure (or an AbortError). */
async function ingestOne(file: IngestInput, ctx: FileContext): Promise<IngestedDocument> {
  const name = file.name || 'untitled';
  const format = formatOf(name, file.type) ?? unsupported(name);
  if (file.size > ctx.maxBytes) {
    fail(
      name,
      'too-large',
      `${quoted(name)} is ${formatBytes(file.size)}, over the limit of ` +
        `${formatBytes(ctx.maxBytes)} per file. ` +
        // It is plain text already: a plain-text version is no smaller.
        (format === 'txt' || format === 'md'
          ? 'Split it into smaller files (by volume or chapter) and drop those.'
          : 'Split it into smaller files, or drop a plain-text version (much smaller than PDF or EPUB).'),
    );
  }
  if (file.size === 0) emptyText(name, 'is empty (0 bytes)');
  if (format === 'txt' || format === 'md') return ingestStreamedText(file, name, format, ctx);

  let bytes: Uint8Array<ArrayBuffer>;
  try {
    bytes = await readBytesStreaming(file, ctx.signal, ctx.onBytes);
  } catch (error) {
    if (ctx.signal?.aborted) throw error;
    unreadable(name, error);
  }
  // Hash first: pdf.js may take the buffer over.
  const sha256 = await abortable(sha256Hex(bytes), ctx.signal);
  await ctx.checkpoint();

  let read: Read;
  if (format === 'epub') {
    read = await readEpub(bytes, name, { maxBytes: ctx.maxBytes, checkpoint: ctx.checkpoint });
  } else if (format === 'pdf') {
    if (!ctx.pdfjs) {
      fail(
        name,
        'unsupported',
        `${quoted(name)} is a PDF, but no PDF reader is set up here. Drop a text, HTML or EPUB ` +
          'version instead.',
      );
    }
    read = await readPdf(bytes, name, {
      pdfjs: ctx.pdfjs,
      signal: ctx.signal,
      checkpoint: ctx.checkpoint,
      onPage: ctx.onPage,
    });
  } else {
    read = readHtml(name, bytes, ctx.encoding);
  }
  await ctx.checkpoint();

  const doc: IngestedDocument = {
    name,
    format,
    kind: 'prose',
    text: read.text,
    sections: read.sections,
    bytes: file.size,
    sha256,
  };
  if (read.encoding) doc.encoding = read.encoding;
  if (read.encodingGuessed) doc.encodingGuessed = true;
  if (read.title) doc.title = read.title;
  return doc;
}

function errorText(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)) || 'unknown error';
}

function unexpected(name: string, error: unknown): IngestError {
  return ingestError(
    name,
    'decode',
    `${quoted(name)} could not be read (${errorText(error)}). Try saving it again, or drop it ` +
      'in another format.',
  );
}

/**
 * Turn dropped files into documents. Files are read one after another; a file that cannot be read
 * becomes an entry of `errors` and the others still come through. Nothing half-made is returned.
 * Rejects only with an AbortError, when `signal` aborts.
 */
export async function ingestFiles(
  files: Iterable<IngestInput> | ArrayLike<IngestInput>,
  options: IngestOptions = {},
): Promise<IngestResult> {
  const { signal, onProgress } = options;
  const list = Array.from(files);
  const total = list.length;
  const documents: IngestedDocument[] = [];
  const errors: IngestError[] = [];
  const checkpoint = createCheckpoint(signal);
  throwIfAborted(signal);

  for (let i = 0; i < total; i++) {
    const file = list[i];
    const name = file.name || 'untitled';
    onProgress?.({ stage: 'read', done: i, total, file: name });
    try {
      documents.push(
        await ingestOne(file, {
          signal,
          maxBytes: options.maxBytes ?? MAX_FILE_BYTES,
          pdfjs: options.pdfjs,
          encoding: options.encoding,
          split: options.split,
          checkpoint,
          onPage: (pagesDone, pagesTotal) =>
            onProgress?.({
              stage: 'read',
              done: i,
              total,
              file: name,
              pages: { done: pagesDone, total: pagesTotal },
            }),
          onBytes: (bytesDone, bytesTotal) =>
            onProgress?.({
              stage: 'read',
              done: i,
              total,
              file: name,
              bytes: { done: bytesDone, total: bytesTotal },
            }),
        }),
      );
    } catch (error) {
      throwIfAborted(signal);
      if (error instanceof IngestFailure) errors.push(error.error);
      else errors.push(unexpected(name, error));
    }
  }
  throwIfAborted(signal);
  onProgress?.({ stage: 'read', done: total, total });
  return { documents, errors };
}
