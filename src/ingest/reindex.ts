/**
 * @file Incremental re-index of a repository: when a newer zip or folder of a
 * repository already in the library is dropped, only the files whose content changed are parsed
 * again and only the windows whose text is new are embedded; everything else is taken from what
 * the library stored for the previous version.
 *
 * What is reused, and why the result equals a full re-index:
 * - **Parses**, per file, when the path and the SHA-256 of the file's text as laid out are those
 *   of a stored parse. tree-sitter's syntax of a file depends only on its text and its grammar
 *   (chosen by the path's extension), and the syntax's offsets are file-local, so a file that
 *   moved within the concatenated text keeps a valid parse.
 * - **Vectors**, per window, when a window of the previous index had exactly the same text and
 *   the previous vectors were made by the same embedder. The word-vector embedder embeds each
 *   text on its own (a batch equals its texts embedded alone; src/core/embed/static.test.ts), so
 *   a reused row is the row a full re-index would compute. Transformer embedders pad a batch to
 *   its longest text; with the attention mask the rows agree up to float rounding.
 * - **Nothing of the relations**: the code graph has cross-file edges (a call in one file to a
 *   definition in another), so an edit in one file can change the strength between windows of
 *   two other files. The graph and both relations (code, Eq. 8; semantic kNN, Eq. 6) are rebuilt
 *   from the reused and new parses and vectors, which is what makes the result equal, exactly,
 *   to a full re-index. The relation build is the part an edit cannot avoid.
 *
 * Pure apart from hashing (Web Crypto or the JavaScript fallback): tested in Node.
 */
import type { FileSyntax } from '../core/code/syntax';
import type { VectorSet } from '../core/types';
import { sha256Hex } from './sha256';

/** One file's parse as the library stores it (store's CodeSyntaxFileRecord). */
export interface FileParse {
  path: string;
  /** Hex SHA-256 of the file's text as laid out. */
  sha256: string;
  syntax: FileSyntax | null;
  /** Why the file could not be parsed, when it could not (the message shown to people). */
  problem?: string;
}

/** What a repository was last indexed with, as the library stored it. */
export interface PreviousRepositoryIndex {
  /** The stored text (files end to end). */
  text: string;
  /** The stored windows' spans in `text`. */
  starts: Uint32Array;
  ends: Uint32Array;
  /** The stored vectors of the embedder now asked for, if the library has them. */
  vectors?: VectorSet;
  embedderId?: string;
  /** The stored parses (empty for a repository indexed before they were kept). */
  parses: readonly FileParse[];
}

/** How much of the previous index was reused: what the person is told. */
export interface ReindexCounts {
  filesParsed: number;
  filesReused: number;
  windowsEmbedded: number;
  windowsReused: number;
}

interface ParseOutcome {
  syntax: (FileSyntax | null)[];
  problems: { path: string; message: string }[];
}

/** SHA-256 of each file's text as laid out (UTF-8). */
export async function fileHashes(files: readonly { text: string }[]): Promise<string[]> {
  const encoder = new TextEncoder();
  return Promise.all(files.map((f) => sha256Hex(encoder.encode(f.text))));
}

/**
 * Parse the files whose path and hash have no stored parse (`parseSome`, with the parser's own
 * progress and cancel checkpoints), take the others' parses as stored. Returns, in file order,
 * each file's syntax, the parse problems (as a full parse reports them), the parses to store, and
 * how many files were parsed and reused.
 */
export async function parseChangedFiles(
  files: readonly { path: string; text: string }[],
  previous: readonly FileParse[],
  parseSome: (files: { path: string; text: string }[]) => Promise<ParseOutcome>,
): Promise<ParseOutcome & { parses: FileParse[]; filesParsed: number; filesReused: number }> {
  const hashes = await fileHashes(files);
  const stored = new Map(previous.map((p) => [`${p.path}\0${p.sha256}`, p]));
  const parses: (FileParse | null)[] = files.map(
    (f, k) => stored.get(`${f.path}\0${hashes[k]}`) ?? null,
  );
  const changed = files.flatMap((f, k) => (parses[k] ? [] : [k]));
  const fresh = await parseSome(changed.map((k) => files[k]));
  const problemOf = new Map(fresh.problems.map((p) => [p.path, p.message]));
  changed.forEach((k, i) => {
    const problem = problemOf.get(files[k].path);
    parses[k] = {
      path: files[k].path,
      sha256: hashes[k],
      syntax: fresh.syntax[i],
      ...(problem !== undefined ? { problem } : {}),
    };
  });
  const done = parses as FileParse[];
  return {
    syntax: done.map((p) => p.syntax),
    problems: done.flatMap((p) =>
      p.problem !== undefined ? [{ path: p.path, message: p.problem }] : [],
    ),
    parses: done,
    filesParsed: changed.length,
    filesReused: files.length - changed.length,
  };
}

/**
 * For each new window, the row of a previous window with the same text (-1: embed it), when the
 * previous vectors were made by `embedderId`.
 */
export function reusableRows(
  previous: PreviousRepositoryIndex | undefined,
  embedderId: string,
  texts: readonly string[],
): Int32Array {
  const rows = new Int32Array(texts.length).fill(-1);
  const vectors = previous?.vectors;
  if (!previous || !vectors || previous.embedderId !== embedderId) return rows;
  if (vectors.count !== previous.starts.length) return rows;
  const byText = new Map<string, number>();
  for (let i = 0; i < previous.starts.length; i++) {
    const text = previous.text.slice(previous.starts[i], previous.ends[i]);
    if (!byText.has(text)) byText.set(text, i);
  }
  texts.forEach((t, i) => {
    rows[i] = byText.get(t) ?? -1;
  });
  return rows;
}

/**
 * The vectors of every window: reused rows copied from the previous vectors, the others taken in
 * order from `embedded` (the vectors of the windows whose row is -1).
 */
export function assembleVectors(
  rows: Int32Array,
  previous: VectorSet | undefined,
  embedded: VectorSet | null,
): VectorSet {
  const dim = embedded?.dim ?? previous?.dim;
  if (dim === undefined) throw new Error('No vectors to assemble: nothing was embedded or reused.');
  const data = new Float32Array(rows.length * dim);
  let next = 0;
  for (let i = 0; i < rows.length; i++) {
    const from = rows[i];
    if (from >= 0) {
      data.set(previous!.data.subarray(from * dim, (from + 1) * dim), i * dim);
    } else {
      data.set(embedded!.data.subarray(next * dim, (next + 1) * dim), i * dim);
      next++;
    }
  }
  return { dim, count: rows.length, data };
}

/**
 * Whether a repository dropped under the name of one in the library is a version of it rather
 * than another repository that happens to share the name (folders are often called `src`): at
 * least half of the paths of the smaller of the two file lists appear in the other.
 */
export function sameRepository(
  earlier: readonly { path: string }[],
  dropped: readonly { path: string }[],
): boolean {
  if (earlier.length === 0 || dropped.length === 0) return false;
  const [small, large] = earlier.length <= dropped.length ? [earlier, dropped] : [dropped, earlier];
  const paths = new Set(large.map((f) => f.path));
  const shared = small.filter((f) => paths.has(f.path)).length;
  return 2 * shared >= small.length;
}

/**
 * The most characters of JSON that a repository's stored parses may take. Chromium refuses an
 * IndexedDB value over 133,169,152 bytes (127 MiB) serialised, and the whole save fails with it
 * (the 30,000-file zip's failed so, on its code relation: src/ingest/storable.ts). The parses are
 * one record; this cap keeps that record under the limit for any repository. A structured clone
 * is at most about twice the JSON of the same data. Not measured to bind on the 30k-file zip.
 */
export const MAX_STORED_PARSE_CHARS = 32 * 1024 * 1024;

/**
 * The parses to store with a repository: all of them while they fit `budget` characters of JSON,
 * else the first ones (path order) that fit. A file whose parse is not stored is simply parsed
 * again at the next re-index (reuse goes by content hash), so the cap costs time, never meaning.
 */
export function parsesToStore(
  parses: readonly FileParse[],
  budget: number = MAX_STORED_PARSE_CHARS,
): { parses: FileParse[]; left: number; chars: number } {
  const kept: FileParse[] = [];
  let used = 0;
  for (const p of parses) {
    const size = JSON.stringify(p).length;
    if (used + size > budget) break;
    used += size;
    kept.push(p);
  }
  return { parses: kept, left: parses.length - kept.length, chars: used };
}
