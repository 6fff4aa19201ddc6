/**
 * @file Types of ingestion: the documents made from dropped files, the errors a person sees when a
 * file cannot be read, and the options of `ingestFiles`.
 */
import type { ProseSpans } from '../core/fragment';
import type { Progress } from '../core/types';

/** File formats read as prose. Code arrives via zip in a later issue; chat is made elsewhere. */
export type IngestFormat = 'txt' | 'md' | 'html' | 'epub' | 'pdf';

/** A piece of a document's structure: `text.slice(start, end)` is its text. */
export interface Section {
  /** What a person sees: the chapter title, the heading, `Page 12`. */
  title: string;
  /** Character span into `IngestedDocument.text`, half-open [start, end). */
  start: number;
  end: number;
  kind: 'chapter' | 'page' | 'heading';
}

/** One document made from one file. Nothing half-made is ever returned. */
export interface IngestedDocument {
  /** The file name as dropped (`book.epub`). */
  name: string;
  format: IngestFormat;
  kind: 'prose';
  /** The whole plain text, line endings `\n`: the source that fragments index into. */
  text: string;
  /**
   * Structure, sorted by `start` (outer before inner at the same start). Sections may nest (a
   * chapter holds its headings; see each format's notes) but never cross: the innermost section
   * holding a position is the last one in the list whose span contains it.
   */
  sections: Section[];
  /** Size of the file in bytes. */
  bytes: number;
  /** How the bytes were decoded (text formats only): 'utf-8', 'utf-16le', 'utf-16be', 'windows-1252'. */
  encoding?: string;
  /** The encoding was guessed from the bytes (detector, UTF-16 pattern, fallback). */
  encodingGuessed?: boolean;
  /** SHA-256 of the file's bytes, lower-case hex: the same file dropped twice has the same hash. */
  sha256: string;
  /** The book's own title where the file names one (EPUB dc:title, a Gutenberg "Title:" line). */
  title?: string;
  /**
   * The prose fragments of `text`, split as the file streamed in: only for plain text and
   * Markdown, and only when `IngestOptions.split` asked. Not stored with the document.
   */
  fragments?: ProseSpans;
}

export type IngestErrorCode =
  | 'empty'
  | 'binary'
  | 'too-large'
  | 'pdf-no-text'
  | 'pdf-encrypted'
  | 'epub-encrypted'
  | 'epub-broken'
  | 'unsupported'
  | 'decode';

/** Why one file could not be read. `message` names the file and says what to do next. */
export interface IngestError {
  /** The file name as dropped. */
  file: string;
  code: IngestErrorCode;
  message: string;
}

export interface IngestResult {
  /** The documents, in the order their files were given. */
  documents: IngestedDocument[];
  /** One entry per file that could not be read, in the order the files were given. */
  errors: IngestError[];
}

/** Progress of `ingestFiles`: `done` of `total` files read, and pages of the PDF being read. */
export interface IngestProgress extends Progress {
  stage: 'read';
  /** Files finished (read or failed). Never decreases. */
  done: number;
  /** Files given. */
  total: number;
  /** The file being read now; absent in the final report. */
  file?: string;
  /** Pages of the PDF being read now: `done` of `total`. */
  pages?: { done: number; total: number };
  /** Bytes of the file being read now from disk: `done` of `total` (stream-read.ts). */
  bytes?: { done: number; total: number };
}

/** What `ingestFiles` accepts: a `File`, or any `Blob` with a name. A bare `Blob` is 'untitled'. */
export type IngestInput = Blob & { readonly name?: string };
