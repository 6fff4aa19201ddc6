/**
 * @file PDF to text with pdf.js, the library injected: the browser passes the modern build with
 * its worker (pdf-browser.ts), Node passes the legacy build (pdf-node.ts). Both fit `PdfjsLib`,
 * the small part of pdf.js used here.
 *
 * Text per page is pdf.js's text items in order, with a line break wherever pdf.js reports one
 * (`hasEOL`); pages are joined by a blank line and each page with text is a 'page' section
 * ("Page 12", or the PDF's own page label such as "Page iv"). A PDF whose pages yield no text is
 * a scan ('pdf-no-text'); one that needs a password is 'pdf-encrypted'. PDFs with only an owner
 * password (printing or copying restrictions) open without one and are read.
 */
import { abortable, throwIfAborted } from './abort';
import { fail, IngestFailure, quoted } from './errors';
import { normalizeNewlines } from './decode';
import type { Section } from './types';

/** Parameters of `getDocument` used here; the rest of pdf.js's are optional. */
export interface PdfSource {
  data: Uint8Array;
  /** 0: errors only. */
  verbosity?: number;
  isEvalSupported?: boolean;
  disableFontFace?: boolean;
  stopAtErrors?: boolean;
}

export interface PdfTextItemLike {
  str: string;
  hasEOL: boolean;
}

export interface PdfPageLike {
  getTextContent(): Promise<{ items: readonly (PdfTextItemLike | { type: string })[] }>;
  cleanup(): unknown;
}

export interface PdfDocumentLike {
  numPages: number;
  getPage(pageNumber: number): Promise<PdfPageLike>;
  getPageLabels(): Promise<string[] | null>;
  destroy(): Promise<void>;
}

export interface PdfLoadingTaskLike {
  promise: Promise<PdfDocumentLike>;
  destroy(): Promise<void>;
}

/** The part of pdf.js this module uses (both the modern and the legacy build fit it). */
export interface PdfjsLib {
  getDocument(src: PdfSource): PdfLoadingTaskLike;
}

/** Resolves pdf.js for this environment; called only when a PDF is dropped. */
export type PdfjsLoader = () => Promise<PdfjsLib>;

export interface PdfOptions {
  pdfjs: PdfjsLoader;
  signal?: AbortSignal;
  /** Pages read so far of the document's total. */
  onPage?: (done: number, total: number) => void;
  /** Called between pages: throws on abort and yields to the event loop now and then. */
  checkpoint: () => Promise<void>;
}

export interface PdfText {
  text: string;
  sections: Section[];
}

const PAGE_SEPARATOR = '\n\n';

function errorName(error: unknown): string {
  return error instanceof Error || (typeof error === 'object' && error !== null && 'name' in error)
    ? String((error as { name: unknown }).name)
    : '';
}

function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'object' && error !== null && 'message' in error) {
    return String((error as { message: unknown }).message);
  }
  return String(error);
}

function rethrowAsIngestError(file: string, error: unknown): never {
  const name = errorName(error);
  if (name === 'AbortError') throw error;
  if (name === 'PasswordException') {
    fail(
      file,
      'pdf-encrypted',
      `${quoted(file)} is protected by a password. Open it in a PDF reader, save or print an ` +
        'unprotected copy, and drop that.',
    );
  }
  const detail = errorMessage(error).replace(/\.$/, '') || 'unknown error';
  fail(
    file,
    'decode',
    `${quoted(file)} is not a readable PDF (${detail}). Try opening it in a PDF reader and ` +
      'saving a new copy, or drop a text version.',
  );
}

/** The text of one page from pdf.js's text items. */
export function pageText(items: readonly (PdfTextItemLike | { type: string })[]): string {
  let text = '';
  for (const item of items) {
    if (!('str' in item)) continue;
    text += item.str;
    if (item.hasEOL) text += '\n';
  }
  // Unmapped glyphs come out as NUL; trailing spaces and breaks say nothing.
  return normalizeNewlines(text.replaceAll('\u0000', '')).replace(/\s+$/, '');
}

/** Read a PDF. `data` may be handed to pdf.js's worker and must not be used afterwards. */
export async function readPdf(
  data: Uint8Array,
  file: string,
  options: PdfOptions,
): Promise<PdfText> {
  const { signal } = options;
  let lib: PdfjsLib;
  try {
    lib = await abortable(options.pdfjs(), signal);
  } catch (error) {
    if (errorName(error) === 'AbortError') throw error;
    return fail(
      file,
      'decode',
      `${quoted(file)} could not be read because the PDF reader failed to load ` +
        `(${errorMessage(error)}). Reload the page and try again.`,
    );
  }
  throwIfAborted(signal);
  const task = lib.getDocument({
    data,
    verbosity: 0,
    isEvalSupported: false,
    disableFontFace: true,
    stopAtErrors: false,
  });
  try {
    const doc = await abortable(task.promise, signal, () => void task.destroy().catch(() => {}));
    const total = doc.numPages;
    let labels: string[] | null = null;
    try {
      labels = await abortable(doc.getPageLabels(), signal);
    } catch (error) {
      if (errorName(error) === 'AbortError') throw error;
    }
    options.onPage?.(0, total);
    const parts: string[] = [];
    const sections: Section[] = [];
    let length = 0;
    for (let n = 1; n <= total; n++) {
      await options.checkpoint();
      const page = await abortable(doc.getPage(n), signal);
      const content = await abortable(page.getTextContent(), signal);
      page.cleanup();
      const text = pageText(content.items);
      if (/\S/.test(text)) {
        if (parts.length > 0) {
          parts.push(PAGE_SEPARATOR);
          length += PAGE_SEPARATOR.length;
        }
        const label = labels?.[n - 1]?.trim();
        sections.push({
          title: `Page ${label || n}`,
          start: length,
          end: length + text.length,
          kind: 'page',
        });
        parts.push(text);
        length += text.length;
      }
      options.onPage?.(n, total);
    }
    if (sections.length === 0) {
      fail(
        file,
        'pdf-no-text',
        `${quoted(file)} has no text layer (it is probably a scanned image). Run it through OCR ` +
          'first, or drop a text version.',
      );
    }
    return { text: parts.join(''), sections };
  } catch (error) {
    if (error instanceof IngestFailure) throw error;
    return rethrowAsIngestError(file, error);
  } finally {
    // Destroying the task also destroys the document and its worker.
    await task.destroy().catch(() => {});
  }
}
