/**
 * @file Ingestion errors as values: each message names the file and says what to do next.
 * Readers throw an `IngestFailure` carrying the value; `ingestFiles` turns it into an entry of
 * `errors` and goes on with the next file.
 */
import type { IngestError, IngestErrorCode } from './types';

/** Thrown inside ingestion when a file cannot be read; never escapes `ingestFiles`. */
export class IngestFailure extends Error {
  override name = 'IngestFailure';
  constructor(readonly error: IngestError) {
    super(error.message);
  }
}

export function ingestError(file: string, code: IngestErrorCode, message: string): IngestError {
  return { file, code, message };
}

export function fail(file: string, code: IngestErrorCode, message: string): never {
  throw new IngestFailure(ingestError(file, code, message));
}

/** The file name in typographic quotes, as every message shows it. */
export function quoted(file: string): string {
  return `“${file}”`;
}

/** 1536 -> '1.5 KB'; binary units, as file managers on most systems show them. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const digits = value < 10 ? 1 : 0;
  return `${value.toFixed(digits)} ${units[unit]}`;
}
