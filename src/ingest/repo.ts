/**
 * @file A dropped code repository (a .zip, or a folder as a list of files) to one repository
 * document: its source files' texts laid end to end (src/core/code/layout.ts), plus the report of
 * every file left out and why, for the UI to show.
 *
 * What is left out, checked in this order (the first reason wins):
 *   1. unsafe paths: absolute (`/x`, `C:\x`, `\\server`), with `..`, control characters, longer
 *      than `maxPathLength` characters or deeper than `maxPathDepth` directories ('unsafe-path');
 *      symbolic links ('symlink'); a second entry with a path already seen ('duplicate');
 *   2. OS and archive metadata: `__MACOSX/`, `.DS_Store`, `Thumbs.db`, `desktop.ini` ('metadata');
 *   3. vendored and tool directories: VENDORED_DIRECTORIES below ('vendored');
 *   4. .gitignore rules (gitignore.ts) of every .gitignore in the repository ('gitignored');
 *   5. generated files by name: lock files, minified and bundled files, source maps, generated
 *      protobuf code, and build output directories (GENERATED_* below) ('generated');
 *   6. binary files by extension, without reading them ('binary');
 *   7. files over `maxFileBytes` (default 1 MiB: larger "source" files are nearly always data or
 *      generated) ('too-large');
 *   8. after reading: binary content (decode.ts's sniffing) ('binary'); empty or blank ('empty');
 *      generated content: a "@generated" / "DO NOT EDIT" / "Code generated" marker in the first
 *      lines, or minified text (a line over 5,000 characters, or an average over 300 per line in
 *      a file over 2 KB) ('generated');
 *   9. what would push the kept text past `maxRepositoryBytes` (default 64 MiB) ('limit');
 *      unsupported ZIP compression or encryption ('unsupported').
 * Directories left out whole (1-5) appear once in the report, as `dir/` with a count.
 *
 * Zip bombs: the archive is refused (nothing is returned) when it lists more than `maxEntries`
 * entries, when the sizes it declares add up to more than `maxTotalBytes`, when an entry of at
 * least `ratioMinBytes` declares more than `maxRatio` times its compressed size, or when an
 * entry inflates past its declared size; inflation counts real output bytes (zip.ts), so
 * forged headers cannot get past the limits. A damaged archive is refused too, with a message.
 */
import { AbortError } from '../core/abort';
import { createCheckpoint, throwIfAborted } from './abort';
import { decodeText, isBlank, looksBinary, normalizeNewlines } from './decode';
import { formatBytes, quoted } from './errors';
import { MAX_STORED_TEXT_BYTES } from './storable';
import { GitignoreMatcher } from './gitignore';
import { sha256Hex } from './sha256';
import { BlobRanges, readZipDirectory, readZipEntry, ZipError, type ZipEntry } from './zip';
import { layoutRepository } from '../core/code/layout';
import { languageOfPath, type CodeLanguage } from '../core/code/syntax';
import type { Progress } from '../core/types';

export interface RepoLimits {
  /** Largest source file kept, in bytes. */
  maxFileBytes: number;
  /**
   * Most entries a ZIP may list (files and directories), or files a folder may hold. What it
   * guards: the listing itself (about 200 bytes an entry before anything is read) and the per-file
   * work after it; the text kept is bounded apart by `maxRepositoryBytes` and the stored code
   * relation by src/ingest/storable.ts. 100,000 ("a folder of 100,000"); it was 50,000.
   */
  maxEntries: number;
  /** Largest total uncompressed size a ZIP may declare, in bytes. */
  maxTotalBytes: number;
  /** Largest uncompressed / compressed ratio of a ZIP entry of at least `ratioMinBytes`. */
  maxRatio: number;
  ratioMinBytes: number;
  /** Largest total text kept, in bytes of source. */
  maxRepositoryBytes: number;
  /**
   * Largest text, in bytes as the browser stores it, once it holds a character above U+00FF: such a
   * string is stored as UTF-16, 2 bytes a character, and Chromium refuses one IndexedDB value
   * over 133,169,152 bytes. 64 MiB of source is up to 128 MiB so: a folder of 100,000 small files
   * (15,064 such characters in 64 MiB) failed to save, its transaction aborted ("The transaction
   * has finished"). 120 MiB leaves room for the final newlines the layout adds.
   */
  maxStoredTextBytes: number;
  maxPathLength: number;
  maxPathDepth: number;
}

export const defaultRepoLimits: Readonly<RepoLimits> = Object.freeze({
  maxFileBytes: 1024 * 1024,
  maxEntries: 100_000,
  maxTotalBytes: 2 * 1024 * 1024 * 1024,
  maxRatio: 100,
  ratioMinBytes: 1024 * 1024,
  maxRepositoryBytes: 64 * 1024 * 1024,
  maxStoredTextBytes: MAX_STORED_TEXT_BYTES,
  maxPathLength: 1024,
  maxPathDepth: 64,
});

export type SkipReason =
  | 'unsafe-path'
  | 'symlink'
  | 'duplicate'
  | 'metadata'
  | 'vendored'
  | 'gitignored'
  | 'generated'
  | 'binary'
  | 'too-large'
  | 'empty'
  | 'unsupported'
  | 'limit';

export interface SkippedFile {
  /** The path (a directory skipped whole ends with '/'). */
  path: string;
  reason: SkipReason;
  /** For people: which rule, how large, how many files. */
  detail: string;
}

export interface RepositoryFile {
  /** '/'-separated, relative to the repository root (a single top folder is removed). */
  path: string;
  /** Span of the file's text in `RepositoryDocument.text`. */
  start: number;
  end: number;
  /** Size of the file's bytes. */
  bytes: number;
  /** Grammar by extension, or null (the file still becomes windows). */
  language: CodeLanguage | null;
  encoding: string;
}

export interface RepositoryDocument {
  /** The dropped zip's or folder's name. */
  name: string;
  kind: 'code';
  format: 'zip' | 'folder';
  /** Every kept file's text ('\n' line endings, each ending with '\n'), in path order. */
  text: string;
  files: RepositoryFile[];
  /** Files left out, in path order. */
  skipped: SkippedFile[];
  /** The top folder removed from every path ('' when there was none). */
  root: string;
  /** Size of the dropped zip, or total size of the folder's files, in bytes. */
  bytes: number;
  /** SHA-256 of the kept paths and texts: the same sources dropped twice hash alike. */
  sha256: string;
}

export type RepoIngestErrorCode =
  'zip-broken' | 'zip-bomb' | 'too-many-files' | 'empty' | 'unreadable';

/** Why a repository could not be read at all; `message` names it and says what to do. */
export interface RepoIngestError {
  file: string;
  code: RepoIngestErrorCode;
  message: string;
}

export type RepoIngestResult =
  | { ok: true; document: RepositoryDocument }
  | { ok: false; error: RepoIngestError; skipped: SkippedFile[] };

export interface RepoIngestProgress extends Progress {
  stage: 'read';
  /** The file being read now. */
  file?: string;
}

export interface RepoIngestOptions {
  signal?: AbortSignal;
  onProgress?: (progress: RepoIngestProgress) => void;
  limits?: Partial<RepoLimits>;
}

/** Directory names whose contents are someone else's code or tool state. */
export const VENDORED_DIRECTORIES: ReadonlySet<string> = new Set([
  '.git',
  '.hg',
  '.svn',
  '.bzr',
  '_darcs',
  'CVS',
  'node_modules',
  'bower_components',
  'jspm_packages',
  'web_modules',
  '.yarn',
  '.pnpm-store',
  'vendor',
  'third_party',
  'third-party',
  'thirdparty',
  '.venv',
  'venv',
  'site-packages',
  'Pods',
  'Carthage',
  '.idea',
  '.vs',
]);

/** Build and cache output directories. */
export const GENERATED_DIRECTORIES: ReadonlySet<string> = new Set([
  'dist',
  'build',
  'out',
  'target',
  '.next',
  '.nuxt',
  '.svelte-kit',
  '.turbo',
  '.parcel-cache',
  '.cache',
  'coverage',
  'htmlcov',
  '__pycache__',
  '.pytest_cache',
  '.mypy_cache',
  '.ruff_cache',
  '.tox',
  '.nox',
  '.eggs',
  '.gradle',
  '.terraform',
  'DerivedData',
]);

/** Lock files and other generated files by exact name. */
export const GENERATED_FILES: ReadonlySet<string> = new Set([
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'bun.lockb',
  'bun.lock',
  'Cargo.lock',
  'poetry.lock',
  'Pipfile.lock',
  'uv.lock',
  'pdm.lock',
  'composer.lock',
  'Gemfile.lock',
  'go.sum',
  'flake.lock',
  'mix.lock',
  'pubspec.lock',
  'Podfile.lock',
  'packages.lock.json',
  'gradle.lockfile',
]);

/** Generated files by name pattern. */
const GENERATED_PATTERNS: readonly RegExp[] = [
  /\.min\.(js|mjs|cjs|css)$/i,
  /[.-]bundle\.(js|mjs)$/i,
  /\.(js|css|mjs|cjs)\.map$/i,
  /\.map$/i,
  /\.pb\.(go|cc|h)$/i,
  /_pb2(_grpc)?\.pyi?$/i,
  /\.egg-info$/i,
];

const METADATA_FILES = new Set(['.DS_Store', 'Thumbs.db', 'desktop.ini', 'Icon\r']);

/** Extensions of files that are binary (read never). */
export const BINARY_EXTENSIONS: ReadonlySet<string> = new Set(
  (
    'png jpg jpeg gif bmp ico icns webp tif tiff psd xcf heic avif ' +
    'pdf zip gz tgz bz2 xz zst 7z rar tar jar war ear aar apk ipa dmg iso ' +
    'class dll so dylib a o obj lib exe bin elf wasm pyc pyo pyd whl egg ' +
    'mp3 mp4 m4a wav ogg oga flac aac avi mov mkv webm wmv ' +
    'woff woff2 ttf otf eot ttc ' +
    'db sqlite sqlite3 mdb npy npz pkl pickle pt pth ckpt safetensors onnx h5 hdf5 tflite ' +
    'parquet arrow feather avro orc xls xlsx doc docx ppt pptx odt ods odp key numbers pages ' +
    'jks keystore p12 pfx der ' +
    'blend fbx glb stl'
  ).split(' '),
);

function extensionOf(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
}

/** A path made safe, or why it cannot be. */
export function sanitizePath(
  raw: string,
  limits: Pick<RepoLimits, 'maxPathLength' | 'maxPathDepth'> = defaultRepoLimits,
): { path: string } | { problem: string } {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(raw)) return { problem: 'its name holds control characters' };
  const path = raw.replace(/\\/g, '/');
  if (path.startsWith('/')) return { problem: 'it is an absolute path' };
  if (/^[A-Za-z]:/.test(path)) return { problem: 'it starts with a drive letter' };
  if (path.length > limits.maxPathLength) {
    return { problem: `its path is longer than ${limits.maxPathLength} characters` };
  }
  const parts: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') return { problem: 'its path climbs out of the repository (..)' };
    if (part.length > 255) return { problem: 'a name in its path is longer than 255 characters' };
    parts.push(part);
  }
  if (parts.length === 0) return { problem: 'its path is empty' };
  if (parts.length > limits.maxPathDepth) {
    return { problem: `its path is deeper than ${limits.maxPathDepth} directories` };
  }
  return { path: parts.join('/') };
}

/** One file of the repository before reading. */
interface Candidate {
  /** Safe path relative to the repository root. */
  path: string;
  /** Declared or known size in bytes. */
  size: number;
  read(): Promise<Uint8Array>;
}

/** Whole directories left out: report each once (the outermost), with a count of files. */
class SkipReport {
  private readonly files: SkippedFile[] = [];
  private readonly dirs = new Map<string, { reason: SkipReason; detail: string; count: number }>();

  file(path: string, reason: SkipReason, detail: string): void {
    this.files.push({ path, reason, detail });
  }

  directory(dir: string, reason: SkipReason, detail: string): void {
    const hit = this.dirs.get(dir);
    if (hit) hit.count++;
    else this.dirs.set(dir, { reason, detail, count: 1 });
  }

  list(): SkippedFile[] {
    const out = [...this.files];
    for (const [dir, { reason, detail, count }] of this.dirs) {
      const files = `${count.toLocaleString('en')} file${count === 1 ? '' : 's'}`;
      out.push({ path: `${dir}/`, reason, detail: detail ? `${detail}; ${files}` : files });
    }
    return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }
}

/** The outermost directory of `path` that is vendored, generated or metadata, if any. */
function skippedDirectory(
  path: string,
): { dir: string; reason: SkipReason; detail: string } | null {
  const parts = path.split('/');
  for (let k = 0; k < parts.length - 1; k++) {
    const name = parts[k];
    const dir = parts.slice(0, k + 1).join('/');
    if (name === '__MACOSX') return { dir, reason: 'metadata', detail: 'macOS archive metadata' };
    if (VENDORED_DIRECTORIES.has(name)) {
      return { dir, reason: 'vendored', detail: 'dependencies or tool files' };
    }
    if (GENERATED_DIRECTORIES.has(name) || /\.egg-info$/i.test(name)) {
      return { dir, reason: 'generated', detail: 'build or cache output' };
    }
  }
  return null;
}

/** Generated content: a marker near the top, or minified text. */
function generatedContent(text: string): string | null {
  const head = text.slice(0, 2000).split('\n', 5).join('\n');
  if (/@generated\b|\bDO NOT EDIT\b|^\s*(\/\/|#)\s*Code generated\b/im.test(head)) {
    return 'marked as generated';
  }
  let longest = 0;
  let lines = 0;
  let from = 0;
  while (from <= text.length) {
    let to = text.indexOf('\n', from);
    if (to < 0) to = text.length;
    longest = Math.max(longest, to - from);
    lines++;
    from = to + 1;
  }
  if (longest > 5000) return `minified (a line of ${longest.toLocaleString('en')} characters)`;
  if (text.length > 2048 && text.length / lines > 300) return 'minified (very long lines)';
  return null;
}

/** Remove a single top folder shared by every path (zips of repositories usually have one). */
function commonRoot(paths: readonly string[]): string {
  if (paths.length === 0) return '';
  const first = paths[0];
  const slash = first.indexOf('/');
  if (slash < 0) return '';
  const root = first.slice(0, slash + 1);
  return paths.every((p) => p.startsWith(root)) ? root.slice(0, -1) : '';
}

function errorText(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)) || 'unknown error';
}

interface Prepared {
  candidates: Candidate[];
  report: SkipReport;
  root: string;
}

/**
 * Steps 1-7 of the file comment over raw entries (path as stored, size, reader), reading only the
 * .gitignore files.
 */
async function prepare(
  entries: readonly { raw: string; size: number; symlink?: boolean; read(): Promise<Uint8Array> }[],
  limits: RepoLimits,
  checkpoint: () => Promise<void>,
): Promise<Prepared> {
  const report = new SkipReport();
  const safe: { path: string; size: number; read(): Promise<Uint8Array> }[] = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    const checked = sanitizePath(entry.raw, limits);
    if ('problem' in checked) {
      report.file(entry.raw, 'unsafe-path', `left out because ${checked.problem}`);
      continue;
    }
    if (entry.symlink) {
      report.file(checked.path, 'symlink', 'a symbolic link, not a file');
      continue;
    }
    if (seen.has(checked.path)) {
      report.file(
        checked.path,
        'duplicate',
        'the archive holds this path more than once; the first is kept',
      );
      continue;
    }
    seen.add(checked.path);
    safe.push({ path: checked.path, size: entry.size, read: entry.read });
  }
  const root = commonRoot(safe.map((e) => e.path));
  if (root) for (const e of safe) e.path = e.path.slice(root.length + 1);

  // .gitignore files first: they decide about the others.
  const ignoreFiles: { path: string; text: string }[] = [];
  for (const e of safe) {
    if (e.path !== '.gitignore' && !e.path.endsWith('/.gitignore')) continue;
    if (skippedDirectory(e.path) || e.size > limits.maxFileBytes) continue;
    await checkpoint();
    try {
      ignoreFiles.push({ path: e.path, text: normalizeNewlines(decodeText(await e.read()).text) });
    } catch (error) {
      if (error instanceof ZipError) throw error;
      // An unreadable .gitignore ignores nothing; the file itself is reported below if it fails.
    }
  }
  const gitignore = new GitignoreMatcher(ignoreFiles);

  const candidates: Candidate[] = [];
  for (const e of safe) {
    const path = e.path;
    const name = path.slice(path.lastIndexOf('/') + 1);
    const dir = skippedDirectory(path);
    if (dir) {
      report.directory(dir.dir, dir.reason, dir.detail);
      continue;
    }
    if (METADATA_FILES.has(name)) {
      report.file(path, 'metadata', 'operating-system metadata');
      continue;
    }
    const verdict = gitignore.ignores(path);
    if (verdict.ignored && verdict.rule) {
      const why = `matches “${verdict.rule.pattern}” (${verdict.rule.source})`;
      if (verdict.directory) report.directory(verdict.directory, 'gitignored', why);
      else report.file(path, 'gitignored', why);
      continue;
    }
    if (GENERATED_FILES.has(name)) {
      report.file(path, 'generated', 'a lock file');
      continue;
    }
    const pattern = GENERATED_PATTERNS.find((re) => re.test(name));
    if (pattern) {
      report.file(path, 'generated', 'minified, bundled, source map or generated code (by name)');
      continue;
    }
    const ext = extensionOf(path);
    if (BINARY_EXTENSIONS.has(ext)) {
      report.file(path, 'binary', `a .${ext} file`);
      continue;
    }
    if (e.size > limits.maxFileBytes) {
      report.file(
        path,
        'too-large',
        `${formatBytes(e.size)}, over the ${formatBytes(limits.maxFileBytes)} limit per file`,
      );
      continue;
    }
    candidates.push({ path, size: e.size, read: e.read });
  }
  return { candidates, report, root };
}

/** Least time between two progress reports of the read stage. */
const PROGRESS_MS = 50;

function now(): number {
  return typeof performance !== 'undefined' ? performance.now() : Date.now();
}

/** A character the browser stores in UTF-16 (a string without one is stored 1 byte a character). */
const WIDE_CHARACTER = /[\u0100-\uffff]/;

/** Files of a folder read at once (a zip's entries are read one by one through its window). */
const FOLDER_READ_AHEAD = 32;

/** Step 8-9: read, decode and keep; then lay out the document. */
async function finish(
  name: string,
  format: 'zip' | 'folder',
  bytes: number,
  prepared: Prepared,
  limits: RepoLimits,
  options: RepoIngestOptions,
  checkpoint: () => Promise<void>,
  readAhead = 1,
): Promise<RepoIngestResult> {
  const { candidates, report, root } = prepared;
  candidates.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  // Reads started ahead of the one being decoded (a folder's files: each read is a round trip to
  // the browser's file system; one at a time, 100,000 small files took over a minute). Results
  // are still taken in path order, so the text and the report are the same.
  const reads: (Promise<Uint8Array> | undefined)[] = new Array(candidates.length);
  const startRead = (i: number) => {
    if (i >= candidates.length || reads[i]) return;
    const read = candidates[i].read();
    read.catch(() => {}); // handled when its turn comes
    reads[i] = read;
  };
  const kept: { path: string; text: string; bytes: number; encoding: string }[] = [];
  let keptBytes = 0;
  let keptChars = 0;
  let wide = false;
  // Progress at most every PROGRESS_MS: one message per file (30,000 of them) cost the UI thread
  // a re-render each.
  let reportedAt = -Infinity;
  for (let i = 0; i < candidates.length; i++) {
    const c = candidates[i];
    const t = now();
    if (t - reportedAt >= PROGRESS_MS) {
      reportedAt = t;
      options.onProgress?.({ stage: 'read', done: i, total: candidates.length, file: c.path });
    }
    await checkpoint();
    for (let a = i; a < i + readAhead; a++) startRead(a);
    let data: Uint8Array;
    try {
      const read = reads[i]!;
      reads[i] = undefined;
      data = await read;
    } catch (error) {
      if (error instanceof ZipError || error instanceof AbortError) throw error;
      report.file(c.path, 'unsupported', `could not be read (${errorText(error)})`);
      continue;
    }
    if (data.length === 0) {
      report.file(c.path, 'empty', 'an empty file');
      continue;
    }
    if (looksBinary(data)) {
      report.file(c.path, 'binary', 'binary content');
      continue;
    }
    const decoded = decodeText(data);
    const text = normalizeNewlines(decoded.text);
    if (isBlank(text)) {
      report.file(c.path, 'empty', 'only white space');
      continue;
    }
    const generated = generatedContent(text);
    if (generated) {
      report.file(c.path, 'generated', generated);
      continue;
    }
    if (keptBytes + data.length > limits.maxRepositoryBytes) {
      report.file(
        c.path,
        'limit',
        `the repository's text passed the ${formatBytes(limits.maxRepositoryBytes)} limit`,
      );
      continue;
    }
    const wideText: boolean = wide || WIDE_CHARACTER.test(text);
    if (wideText && 2 * (keptChars + text.length) > limits.maxStoredTextBytes) {
      report.file(
        c.path,
        'limit',
        `the repository's text passed the ${formatBytes(limits.maxStoredTextBytes)} the browser can store of it (as UTF-16)`,
      );
      continue;
    }
    wide = wideText;
    keptBytes += data.length;
    keptChars += text.length;
    kept.push({ path: c.path, text, bytes: data.length, encoding: decoded.encoding });
  }
  throwIfAborted(options.signal);
  options.onProgress?.({ stage: 'read', done: candidates.length, total: candidates.length });
  const skipped = report.list();
  if (kept.length === 0) {
    return {
      ok: false,
      skipped,
      error: {
        file: name,
        code: 'empty',
        message:
          `${quoted(name)} holds no source files to index` +
          (skipped.length > 0
            ? ` (all ${skipped.length.toLocaleString('en')} entries were left out; see the list)`
            : '') +
          '. Drop the repository’s source folder, or a zip of it.',
      },
    };
  }
  const layout = layoutRepository(kept);
  const files: RepositoryFile[] = kept.map((k, i) => ({
    path: k.path,
    start: layout.files[i].start,
    end: layout.files[i].end,
    bytes: k.bytes,
    language: languageOfPath(k.path),
    encoding: k.encoding,
  }));
  const identity = new TextEncoder().encode(
    `${files.map((f) => f.path).join('\n')}\n\0${layout.text}`,
  );
  return {
    ok: true,
    document: {
      name,
      kind: 'code',
      format,
      text: layout.text,
      files,
      skipped,
      root,
      bytes,
      sha256: await sha256Hex(identity),
    },
  };
}

function limitsOf(options: RepoIngestOptions): RepoLimits {
  return { ...defaultRepoLimits, ...options.limits };
}

function zipFailure(name: string, error: ZipError, skipped: SkippedFile[] = []): RepoIngestResult {
  const what =
    error.code === 'zip-bomb'
      ? `${quoted(name)} was not opened: ${error.message}. It looks like a “zip bomb” (an archive built to fill memory). If it is a real repository, unzip it and drop the folder instead.`
      : `${quoted(name)} could not be read as a ZIP archive: ${error.message}. Nothing was imported. Zip the repository again (or download it again) and drop the new file.`;
  return { ok: false, skipped, error: { file: name, code: error.code, message: what } };
}

/** A dropped .zip of a repository. Rejects only with an AbortError. */
export async function ingestRepositoryZip(
  zip: Blob & { readonly name?: string },
  options: RepoIngestOptions = {},
): Promise<RepoIngestResult> {
  const name = zip.name || 'repository.zip';
  const limits = limitsOf(options);
  const checkpoint = createCheckpoint(options.signal);
  throwIfAborted(options.signal);
  try {
    const entries = await readZipDirectory(zip, limits.maxEntries);
    await checkpoint();
    let declared = 0;
    for (const e of entries) {
      declared += e.uncompressedSize;
      if (
        e.uncompressedSize >= limits.ratioMinBytes &&
        e.uncompressedSize > limits.maxRatio * Math.max(1, e.compressedSize)
      ) {
        throw new ZipError(
          'zip-bomb',
          `the entry “${e.name}” would expand ${Math.round(e.uncompressedSize / Math.max(1, e.compressedSize)).toLocaleString('en')} times, to ${formatBytes(e.uncompressedSize)} (the limit is ${limits.maxRatio} times)`,
        );
      }
    }
    if (declared > limits.maxTotalBytes) {
      throw new ZipError(
        'zip-bomb',
        `its entries add up to ${formatBytes(declared)} unpacked, over the ${formatBytes(limits.maxTotalBytes)} limit`,
      );
    }
    // One windowed reader for every entry: entries lie in order, so most reads hit its window.
    const ranges = new BlobRanges(zip);
    const unsupported: { entry: ZipEntry; why: string }[] = [];
    const files = entries
      .filter((e) => !e.isDirectory)
      .filter((e) => {
        if (e.encrypted) unsupported.push({ entry: e, why: 'encrypted (password-protected)' });
        else if (e.method !== 0 && e.method !== 8) {
          unsupported.push({
            entry: e,
            why: `compressed with method ${e.method}, which is not supported (re-zip with “deflate”)`,
          });
        } else return true;
        return false;
      });
    const prepared = await prepare(
      [
        ...files.map((e) => ({
          raw: e.name,
          size: e.uncompressedSize,
          symlink: e.isSymlink,
          read: () => readZipEntry(ranges, e, limits.maxFileBytes),
        })),
      ],
      limits,
      checkpoint,
    );
    for (const u of unsupported) {
      const checked = sanitizePath(u.entry.name, limits);
      const path =
        'path' in checked
          ? checked.path.slice(prepared.root ? prepared.root.length + 1 : 0)
          : u.entry.name;
      prepared.report.file(path, 'unsupported', u.why);
    }
    return await finish(name, 'zip', zip.size, prepared, limits, options, checkpoint);
  } catch (error) {
    if (error instanceof ZipError) return zipFailure(name, error);
    if (options.signal?.aborted || (error instanceof Error && error.name === 'AbortError'))
      throw error;
    return {
      ok: false,
      skipped: [],
      error: {
        file: name,
        code: 'unreadable',
        message: `${quoted(name)} could not be read (${errorText(error)}). Check that it still exists and opens in another program, then drop it again.`,
      },
    };
  }
}

/** One file of a dropped folder: its path inside the folder (the folder's own name first or not). */
export interface FolderEntry {
  path: string;
  file: Blob;
}

/** A dropped folder (its files, e.g. from webkitRelativePath). Rejects only with an AbortError. */
export async function ingestRepositoryFolder(
  name: string,
  entries: readonly FolderEntry[],
  options: RepoIngestOptions = {},
): Promise<RepoIngestResult> {
  const limits = limitsOf(options);
  const checkpoint = createCheckpoint(options.signal);
  throwIfAborted(options.signal);
  if (entries.length > limits.maxEntries) {
    return {
      ok: false,
      skipped: [],
      error: {
        file: name,
        code: 'too-many-files',
        message: `${quoted(name)} holds ${entries.length.toLocaleString('en')} files, more than the ${limits.maxEntries.toLocaleString('en')} FragRel Lens reads. Drop the source folder inside it rather than the whole project.`,
      },
    };
  }
  const prepared = await prepare(
    entries.map((e) => ({
      raw: e.path,
      size: e.file.size,
      read: async () => new Uint8Array(await e.file.arrayBuffer()),
    })),
    limits,
    checkpoint,
  );
  const bytes = entries.reduce((n, e) => n + e.file.size, 0);
  return finish(name, 'folder', bytes, prepared, limits, options, checkpoint, FOLDER_READ_AHEAD);
}
