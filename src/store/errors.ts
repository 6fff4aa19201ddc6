/**
 * @file Typed store errors. The UI switches on `code`; the message is written for people.
 *
 * - `quota`: the browser refused a write for lack of space. The message says how much the write
 *   needed, what the library could give back, and what the browser reports as used and available.
 * - `blocked`: another tab holds an older version of the library open, so an upgrade waits.
 * - `unavailable`: IndexedDB is missing or refused (private mode, disabled storage), or this
 *   connection was closed because another tab upgraded or deleted the library.
 * - `version`: the stored library is newer than this code (another tab runs a newer app).
 */

export type StoreErrorCode = 'quota' | 'blocked' | 'unavailable' | 'version';

/** A document that could be deleted to make room, with its estimated size in the library. */
export interface DeletionCandidate {
  id: string;
  name: string;
  storedBytes: number;
}

/** What a `quota` error knows, for a UI that wants more than the message. */
export interface QuotaDetails {
  /** Estimated bytes the refused write needed. */
  neededBytes: number;
  /** The largest documents in the library, largest first. */
  largest: DeletionCandidate[];
  /** `navigator.storage.estimate()`, when the browser offers it. */
  usage?: number;
  quota?: number;
}

export class StoreError extends Error {
  override name = 'StoreError';
  readonly code: StoreErrorCode;
  readonly details?: QuotaDetails;

  constructor(
    code: StoreErrorCode,
    message: string,
    options: { cause?: unknown; details?: QuotaDetails } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    if (options.details) this.details = options.details;
  }
}

export function isStoreError(error: unknown, code?: StoreErrorCode): error is StoreError {
  return error instanceof StoreError && (code === undefined || error.code === code);
}

function errorName(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'name' in error) {
    const name = (error as { name: unknown }).name;
    return typeof name === 'string' ? name : undefined;
  }
  return undefined;
}

/**
 * Whether `error` is the browser refusing a write for lack of space: a DOMException named
 * `QuotaExceededError` (Chrome and Safari; Chrome now throws a subclass with the same name),
 * Firefox's older `NS_ERROR_DOM_QUOTA_REACHED`, or the legacy code 22.
 */
export function isQuotaExceeded(error: unknown): boolean {
  const name = errorName(error);
  if (name === 'QuotaExceededError' || name === 'NS_ERROR_DOM_QUOTA_REACHED') return true;
  return (
    typeof DOMException !== 'undefined' &&
    error instanceof DOMException &&
    error.code === 22 /* QUOTA_EXCEEDED_ERR */
  );
}

/** Bytes for people, in SI units: `950 B`, `12.3 kB`, `4.56 MB`, `1.20 GB`. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 1000) return `${Math.max(0, Math.round(bytes))} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  const digits = value >= 100 ? 0 : value >= 10 ? 1 : 2;
  return `${value.toFixed(digits)} ${units[unit]}`;
}

/** The message of a `quota` error. `what` names the refused write: `saving "Moby Dick"`. */
export function quotaMessage(what: string, details: QuotaDetails): string {
  const parts = [
    `FragRel store: not enough storage space for ${what}; the write needed about ${formatBytes(details.neededBytes)}.`,
  ];
  if (details.usage !== undefined && details.quota !== undefined) {
    parts.push(
      `The browser reports ${formatBytes(details.usage)} used of ${formatBytes(details.quota)} available to this site.`,
    );
  }
  if (details.largest.length > 0) {
    const list = details.largest
      .map((d) => `"${d.name}" (${formatBytes(d.storedBytes)})`)
      .join(', ');
    parts.push(`Deleting documents frees space; the largest in the library are ${list}.`);
  } else {
    parts.push(
      'The library holds no other documents to delete; free space in the browser or use a smaller file.',
    );
  }
  return parts.join(' ');
}

/** Map an error from opening (or upgrading) the database to a StoreError. */
export function openError(error: unknown, name: string, version: number): StoreError {
  if (error instanceof StoreError) return error;
  const errName = errorName(error);
  if (errName === 'VersionError') {
    return new StoreError(
      'version',
      `FragRel store: the library "${name}" was written by a newer version of the app than this one (which knows schema version ${version}). Reload the page to get the newer app.`,
      { cause: error },
    );
  }
  if (isQuotaExceeded(error)) {
    return new StoreError(
      'quota',
      `FragRel store: the browser has no space left to open or upgrade the library "${name}".`,
      { cause: error, details: { neededBytes: 0, largest: [] } },
    );
  }
  const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return new StoreError(
    'unavailable',
    `FragRel store: could not open the library "${name}" (${detail}). Storage may be disabled, full, or unavailable in this browsing mode.`,
    { cause: error },
  );
}
