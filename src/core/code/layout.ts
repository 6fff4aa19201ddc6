/**
 * @file A repository as one document: its files' texts laid end to end (so fragments are spans of
 * one source, like every other document), and its code windows (splitCode per file: 20 lines
 * sliding by 10, never across a file boundary), labelled `path:11-30`.
 */
import { splitCode } from '../fragment';
import type { FragmentOptions } from '../options';
import type { Fragment } from '../types';

export interface RepositoryLayoutFile {
  path: string;
  /** Span of the file's text in `RepositoryLayout.text`, half-open. */
  start: number;
  end: number;
}

export interface RepositoryLayout {
  /** Every file's text, in the order given, each ending with '\n'. */
  text: string;
  files: RepositoryLayoutFile[];
}

/** A code window in file-local terms: what the code relation works with. */
export interface CodeWindow {
  /** File index (order of the layout's files). */
  file: number;
  /** Character span in the file's text, half-open. */
  start: number;
  end: number;
}

/** Text as the layout stores it: a non-empty text that lacks a final '\n' gets one. */
export function withFinalNewline(text: string): string {
  return text.length > 0 && !text.endsWith('\n') ? text + '\n' : text;
}

/**
 * Lay files end to end. Each file's span holds its text plus a final '\n' when it had none, so a
 * window never runs from one file into the next; `fileText` gives the text back exactly as laid.
 */
export function layoutRepository(
  files: readonly { path: string; text: string }[],
): RepositoryLayout {
  const parts: string[] = [];
  const out: RepositoryLayoutFile[] = [];
  let at = 0;
  for (const f of files) {
    const text = withFinalNewline(f.text);
    parts.push(text);
    out.push({ path: f.path, start: at, end: at + text.length });
    at += text.length;
  }
  return { text: parts.join(''), files: out };
}

/** File k's text as laid out (what parsing and the code graph must see, so offsets agree). */
export function fileText(layout: RepositoryLayout, k: number): string {
  const f = layout.files[k];
  return layout.text.slice(f.start, f.end);
}

/**
 * The repository's code windows: splitCode over each file, as fragments of the whole document
 * (global offsets, ordinals across files, labels `path:first-last`) and as file-local windows.
 */
export function repositoryWindows(
  docId: string,
  layout: RepositoryLayout,
  options?: Partial<FragmentOptions>,
): { fragments: Fragment[]; windows: CodeWindow[] } {
  const fragments: Fragment[] = [];
  const windows: CodeWindow[] = [];
  layout.files.forEach((file, k) => {
    const text = layout.text.slice(file.start, file.end);
    for (const w of splitCode(docId, text, options)) {
      fragments.push({
        docId,
        ordinal: fragments.length,
        start: file.start + w.start,
        end: file.start + w.end,
        label: `${file.path}:${w.label}`,
        words: w.words,
      });
      windows.push({ file: k, start: w.start, end: w.end });
    }
  });
  return { fragments, windows };
}
