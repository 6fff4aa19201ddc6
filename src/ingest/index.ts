/**
 * @file Public entry of ingestion for the app: `ingestFiles(files, { signal, onProgress })`, with
 * pdf.js's browser build as the default PDF reader. Node code (tests, benchmarks) imports
 * ./ingest and passes `pdfjs: loadPdfjsNode` from ./pdf-node instead, since the browser build
 * is resolved through Vite.
 */
import { ingestFiles as ingestFilesWith, type IngestOptions } from './ingest';
import { loadPdfjsBrowser } from './pdf-browser';
import type { IngestInput, IngestResult } from './types';

export type * from './types';
export type { IngestOptions } from './ingest';
export type { PdfjsLib, PdfjsLoader } from './pdf';
export { MAX_FILE_BYTES, SUPPORTED_EXTENSIONS, formatOf } from './ingest';
export { loadPdfjsBrowser } from './pdf-browser';

/**
 * Turn dropped files (a FileList, an array of File or named Blobs) into documents. Safe on the
 * main thread and in workers. One unreadable file never stops the others: it comes back in
 * `errors` with a message to show. Rejects only with an AbortError when `signal` aborts.
 */
export function ingestFiles(
  files: Iterable<IngestInput> | ArrayLike<IngestInput>,
  options: IngestOptions = {},
): Promise<IngestResult> {
  return ingestFilesWith(files, { ...options, pdfjs: options.pdfjs ?? loadPdfjsBrowser });
}

// Code repositories: a dropped .zip or folder to one repository document.
export {
  BINARY_EXTENSIONS,
  GENERATED_DIRECTORIES,
  GENERATED_FILES,
  VENDORED_DIRECTORIES,
  defaultRepoLimits,
  ingestRepositoryFolder,
  ingestRepositoryZip,
  sanitizePath,
  type FolderEntry,
  type RepoIngestError,
  type RepoIngestErrorCode,
  type RepoIngestOptions,
  type RepoIngestProgress,
  type RepoIngestResult,
  type RepoLimits,
  type RepositoryDocument,
  type RepositoryFile,
  type SkipReason,
  type SkippedFile,
} from './repo';
export {
  GitignoreMatcher,
  parseGitignore,
  type GitignoreRule,
  type IgnoreVerdict,
} from './gitignore';
