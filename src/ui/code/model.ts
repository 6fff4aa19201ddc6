/**
 * @file What the code panel draws, computed from a retrieval result and the stored repository:
 * the file tree with each file's best final score (its heat), the windows of a file, the lines
 * of a file, and a completion's inputs (the text before the cursor, the query, the retrieved
 * windows as prompt fragments). Plain functions, tested in Node.
 */
import type { PromptFragment } from '../../core/prompt';
import { parseWindowLabel } from '../../core/run';
import { promptFragments } from '../answer/fragments';
import type { DocumentRecord } from '../../store';
import { COMPLETION_QUERY_LINES, type RetrievalResult } from '../../workers/retrieval-types';

/** A file of a stored repository: a span of its source text. */
export interface RepoFile {
  docId: string;
  path: string;
  start: number;
  end: number;
}

/** The files of a repository document (its sections of kind 'file'), in path order. */
export function repositoryFilesOf(doc: Pick<DocumentRecord, 'id' | 'sections'>): RepoFile[] {
  return doc.sections
    .filter((s) => s.kind === 'file')
    .map((s) => ({ docId: doc.id, path: s.title, start: s.start, end: s.end }));
}

/** A code window of the run with its place in its file. */
export interface RunWindow {
  /** Index in the run. */
  index: number;
  docId: string;
  path: string;
  /** 1-based inclusive lines. */
  first: number;
  last: number;
}

/** Every code window of the run, by document and file: `${docId}\0${path}` -> windows in order. */
export function windowsByFile(result: RetrievalResult): Map<string, RunWindow[]> {
  const out = new Map<string, RunWindow[]>();
  for (const d of result.documents) {
    for (let i = d.offset; i < d.offset + d.count; i++) {
      const w = parseWindowLabel(result.labels[i]);
      if (!w) continue;
      const key = fileKey(d.docId, w.path);
      let list = out.get(key);
      if (!list) out.set(key, (list = []));
      list.push({ index: i, docId: d.docId, ...w });
    }
  }
  return out;
}

/** The last run layout's windows by file (`cachedWindowsByFile`). */
export interface LayoutCache {
  key: string;
  /** The labels the key was computed from (a re-rank hands the same array back). */
  labels: readonly string[] | null;
  byFile: Map<string, RunWindow[]> | null;
}

export function newLayoutCache(): LayoutCache {
  return { key: '', labels: null, byFile: null };
}

/**
 * `windowsByFile`, reused while the run's layout stays the same: a re-rank (a slider move) of
 * the same documents sends the same windows with new scores, and parsing every label again
 * cost a large repository a main-thread task per move.
 */
export function cachedWindowsByFile(
  result: RetrievalResult,
  cache: LayoutCache,
): Map<string, RunWindow[]> {
  if (cache.byFile && cache.labels === result.labels) return cache.byFile;
  // A repository updated in place keeps its id: its labels stand in (a hash of them all).
  let hash = 0x811c9dc5;
  for (const label of result.labels) {
    for (let k = 0; k < label.length; k++) hash = Math.imul(hash ^ label.charCodeAt(k), 0x01000193);
    hash = Math.imul(hash ^ 10, 0x01000193);
  }
  const key = JSON.stringify([
    result.documents.map((d) => [d.docId, d.offset, d.count]),
    result.labels.length,
    hash >>> 0,
  ]);
  if (cache.key !== key || !cache.byFile) {
    cache.key = key;
    cache.byFile = windowsByFile(result);
  }
  cache.labels = result.labels;
  return cache.byFile;
}

export function fileKey(docId: string, path: string): string {
  return `${docId}\u0000${path}`;
}

/** One file's heat: its best final score (Eq. 10) and how many of its windows were selected. */
export interface FileHeat {
  best: number;
  bestWindow: number;
  selected: number;
}

export function fileHeat(
  result: RetrievalResult,
  byFile: Map<string, RunWindow[]>,
): Map<string, FileHeat> {
  // Marks by run index, not Sets: a slider move on a million lines looks up 94,378 windows.
  const n = result.final.length;
  const selected = new Uint8Array(n);
  for (const i of result.selected) selected[i] = 1;
  const excluded = new Uint8Array(n);
  for (const i of result.excluded ?? []) excluded[i] = 1;
  const out = new Map<string, FileHeat>();
  for (const [key, windows] of byFile) {
    let best = -Infinity;
    let bestWindow = -1;
    let count = 0;
    for (const w of windows) {
      if (selected[w.index] === 1) count++;
      if (excluded[w.index] === 1) continue;
      const f = result.final[w.index];
      if (f > best) {
        best = f;
        bestWindow = w.index;
      }
    }
    out.set(key, { best: bestWindow < 0 ? 0 : best, bestWindow, selected: count });
  }
  return out;
}

/** A directory of the file tree. */
export interface TreeDir {
  name: string;
  /** '' for the root. */
  path: string;
  dirs: TreeDir[];
  files: { name: string; path: string }[];
}

/**
 * Names in the order a person expects: numbers by value (f2 before f10), letters ignoring case,
 * code-point order only to break a tie ("a" and "A").
 */
const NATURAL = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });
export function naturalCompare(a: string, b: string): number {
  return NATURAL.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);
}

/** The directory tree of a repository's files (directories first, then files, in natural order). */
export function fileTree(paths: readonly string[]): TreeDir {
  const root: TreeDir = { name: '', path: '', dirs: [], files: [] };
  for (const path of paths) {
    const parts = path.split('/');
    let dir = root;
    for (let k = 0; k < parts.length - 1; k++) {
      const sub = parts.slice(0, k + 1).join('/');
      let next = dir.dirs.find((d) => d.path === sub);
      if (!next) dir.dirs.push((next = { name: parts[k], path: sub, dirs: [], files: [] }));
      dir = next;
    }
    dir.files.push({ name: parts[parts.length - 1], path });
  }
  const sort = (d: TreeDir) => {
    d.dirs.sort((a, b) => naturalCompare(a.name, b.name));
    d.files.sort((a, b) => naturalCompare(a.name, b.name));
    d.dirs.forEach(sort);
  };
  sort(root);
  return root;
}

const README = /^readme(\.[a-z]+)?$/i;
const ENTRY = /^(index|main|lib|mod|app)\.[a-z]+$/i;
// Files a person rarely opens to learn what a repository does.
const BOILERPLATE =
  /^(licen[cs]e|copying|notice|authors|contributors|changelog|changes|history)(\.[a-z]+)?$|^\./i;

/**
 * The file the code view opens before the person picks one: the README nearest the root (what
 * the repository says it is), else an entry point (index, main, lib) nearest the root, else the
 * first file in the tree that is not a licence, change log or dotfile. Not LICENSE because it
 * sorts first.
 */
export function firstFileToOpen(paths: readonly string[]): string | null {
  const depth = (p: string) => p.split('/').length;
  const base = (p: string) => p.slice(p.lastIndexOf('/') + 1);
  const nearest = (test: (name: string) => boolean) =>
    paths
      .filter((p) => test(base(p)))
      .sort((a, b) => depth(a) - depth(b) || naturalCompare(a, b))[0];
  return (
    nearest((n) => README.test(n)) ??
    nearest((n) => ENTRY.test(n)) ??
    [...paths].sort(naturalCompare).find((p) => !BOILERPLATE.test(base(p))) ??
    paths[0] ??
    null
  );
}

/** The lines of a file's text (its final '\n' does not start an extra line). */
export function linesOf(text: string): string[] {
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** The text before a cursor at the start of `line` (1-based): lines 1 .. line - 1, each with '\n'. */
export function textBeforeLine(lines: readonly string[], line: number): string {
  const n = Math.max(0, Math.min(line - 1, lines.length));
  return n === 0 ? '' : lines.slice(0, n).join('\n') + '\n';
}

/** A completion's query: the last COMPLETION_QUERY_LINES lines before the cursor (RepoCoder). */
export function completionQuery(lines: readonly string[], line: number): string {
  const end = Math.max(0, Math.min(line - 1, lines.length));
  return lines.slice(Math.max(0, end - COMPLETION_QUERY_LINES), end).join('\n');
}

/**
 * The selected windows as the code completion prompt takes them: in document order, with their
 * rank by final score and their `path:first-last` location. Null while a source is loading.
 */
export function retrievedWindows(
  result: RetrievalResult,
  sources: ReadonlyMap<string, string>,
): PromptFragment[] | null {
  return promptFragments(result, sources, {
    span: (span) => `${span.path}:${span.first}-${span.last}`,
    fragment: (index, doc) => result.labels[index] || `window ${index - doc.offset + 1}`,
  });
}

/** Heat as a colour's opacity in [0, 1]: the file's best final score over the run's best. */
export function heatLevel(best: number, max: number): number {
  if (!(max > 0) || !(best > 0)) return 0;
  return Math.min(1, best / max);
}
