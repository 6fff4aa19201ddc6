/**
 * @file A book's own title, where the file names one, so the library can show "Alice's
 * Adventures in Wonderland" rather than "pg11.txt": a Project Gutenberg plain text's "Title:"
 * line (in the header before "*** START OF"), an EPUB's dc:title (read in epub.ts). Titles are
 * data: cleaned of control characters and cut to a sensible length, never markup.
 */

/** Longest title kept, in characters. */
export const MAX_TITLE_CHARS = 200;

/** Only the header is searched: a "Title:" line deep in a book is part of the book. */
const HEADER_CHARS = 20_000;

/** A title as the library shows it, or undefined when nothing is left of it. */
export function cleanTitle(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  const text = raw
    // Control characters (tabs, line ends, NUL) become spaces: a title is one line of text.
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (!text) return undefined;
  return text.length > MAX_TITLE_CHARS ? `${text.slice(0, MAX_TITLE_CHARS - 1)}…` : text;
}

/**
 * The "Title:" of a Project Gutenberg header ("Title: Alice's Adventures in Wonderland"; a title
 * continued on indented lines is joined). Only before the "*** START OF" line, and only in a
 * text that has one, so an ordinary text that happens to begin "Title: …" is left alone.
 */
export function gutenbergTitle(text: string): string | undefined {
  const head = text.slice(0, HEADER_CHARS);
  const start = head.search(/^\*{3}\s*START OF (THE|THIS) PROJECT GUTENBERG/im);
  if (start < 0) return undefined;
  const m = /^Title:[ \t]*(.+(?:\n[ \t]+\S.*)*)/im.exec(head.slice(0, start));
  return cleanTitle(m?.[1]);
}
