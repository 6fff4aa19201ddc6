/**
 * @file A repository's code structure: its layout (files end to end in the stored text), each
 * file's parse (tree-sitter; on the pool's members for many files), the 20-line windows, the code
 * graph and the nodes covering each window. The repository pipeline (repo.ts) builds it while
 * indexing; the retrieval worker builds it again from the stored text to explain a window
 * (`buildCodeIndex`: the syntax and graph are not stored, see repo.ts).
 */
import { buildCodeGraph, type CodeGraph } from '../core/code/graph';
import { coverWindows, type WindowCover } from '../core/code/cover';
import {
  fileText,
  repositoryWindows,
  type CodeWindow,
  type RepositoryLayout,
} from '../core/code/layout';
import type { FileSyntax } from '../core/code/syntax';
import type { Fragment, Progress } from '../core/types';
import { createCheckpoint } from '../ingest/abort';
import { CodeParser, parseRepository, type ParseProblem } from '../models/code-syntax';
import { splitRanges, TASKS_PER_MEMBER, type IndexPool } from './pool';
import type { RepositoryFileSpan } from './types';

/** A stored repository's text and files as the code layout (files lie end to end in the text). */
export function repositoryLayout(
  text: string,
  files: readonly RepositoryFileSpan[],
): RepositoryLayout {
  return { text, files: files.map((f) => ({ path: f.path, start: f.start, end: f.end })) };
}

/** Everything of a repository's code structure that the relation and its explanations need. */
export interface CodeIndex {
  layout: RepositoryLayout;
  fragments: Fragment[];
  windows: CodeWindow[];
  graph: CodeGraph;
  cover: WindowCover;
  problems: ParseProblem[];
}

/** Parse every file of the layout (stage 'parse'), giving the event loop a turn between files. */
export async function parseLayout(
  layout: RepositoryLayout,
  parser: CodeParser,
  signal: AbortSignal,
  progress: (p: Progress) => void,
) {
  const files = layout.files.map((f, k) => ({ path: f.path, text: fileText(layout, k) }));
  return { files, ...(await parseFiles(files, parser, signal, progress)) };
}

/**
 * Parse the given files on the pool's members, in shares of about equal text, merged in file
 * order (the same syntax and problems as parseFiles).
 */
export async function parseFilesOnPool(
  files: readonly { path: string; text: string }[],
  pool: IndexPool,
  signal: AbortSignal,
  progress: (p: Progress) => void,
) {
  progress({ stage: 'parse', done: 0, total: files.length });
  const shares = splitRanges(
    files.length,
    pool.size * TASKS_PER_MEMBER,
    (i) => files[i].text.length + 256,
  ).map((r) => ({ files: files.slice(r.from, r.to) }));
  const parts = await pool.map('parse', shares, {
    signal,
    onProgress: (done) => progress({ stage: 'parse', done, total: files.length }),
    units: (share) => share.files.length,
  });
  return {
    syntax: parts.flatMap((p) => p.syntax),
    problems: parts.flatMap((p) => p.problems),
  };
}

/** Parse the given files (stage 'parse'), giving the event loop a turn between files. */
export async function parseFiles(
  files: readonly { path: string; text: string }[],
  parser: CodeParser,
  signal: AbortSignal,
  progress: (p: Progress) => void,
) {
  const checkpoint = createCheckpoint(signal);
  progress({ stage: 'parse', done: 0, total: files.length });
  const parsed = await parseRepository(files, parser, {
    checkpoint,
    onProgress: (done, total) => progress({ stage: 'parse', done, total }),
  });
  return parsed;
}

/** The code graph and the covering nodes of each window (stage 'graph'). */
export function graphOf(
  files: readonly { path: string; text: string }[],
  syntax: readonly (FileSyntax | null)[],
  windows: readonly CodeWindow[],
  progress: (p: Progress) => void,
): { graph: CodeGraph; cover: WindowCover } {
  progress({ stage: 'graph', done: 0, total: 1 });
  const graph = buildCodeGraph(files.map((f, k) => ({ ...f, syntax: syntax[k] })));
  const cover = coverWindows(
    graph,
    files.map((f) => f.text),
    windows,
  );
  progress({ stage: 'graph', done: 1, total: 1 });
  return { graph, cover };
}

/**
 * Parse, split and graph a stored repository: what the retrieval worker needs to explain a
 * window (the syntax and graph are not stored; see the file comment).
 */
export async function buildCodeIndex(
  docId: string,
  layout: RepositoryLayout,
  parser: CodeParser,
  signal: AbortSignal,
  progress: (p: Progress) => void = () => {},
): Promise<CodeIndex> {
  const { files, syntax, problems } = await parseLayout(layout, parser, signal, progress);
  const { fragments, windows } = repositoryWindows(docId, layout);
  const { graph, cover } = graphOf(files, syntax, windows, progress);
  return { layout, fragments, windows, graph, cover, problems };
}
