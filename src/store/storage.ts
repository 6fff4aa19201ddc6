/**
 * @file The browser's storage manager (`navigator.storage`), where it exists. Node and some
 * browsing modes have none: every function here then reports that instead of throwing.
 */

export interface StorageEstimate {
  /** Bytes this site uses. */
  usage: number;
  /** Bytes this site may use. */
  quota: number;
}

function storageManager(): StorageManager | undefined {
  return typeof navigator !== 'undefined' && navigator.storage ? navigator.storage : undefined;
}

/** `navigator.storage.estimate()`, or undefined where unavailable or failing. */
export async function estimateStorage(): Promise<StorageEstimate | undefined> {
  const manager = storageManager();
  if (!manager || typeof manager.estimate !== 'function') return undefined;
  try {
    const { usage, quota } = await manager.estimate();
    if (typeof usage !== 'number' || typeof quota !== 'number') return undefined;
    return { usage, quota };
  } catch {
    return undefined;
  }
}

export interface PersistResult {
  /** Whether the browser offers `navigator.storage.persist()`. */
  supported: boolean;
  /** Whether the library's storage is now persistent (not evicted under storage pressure). */
  persisted: boolean;
}

/**
 * Ask the browser to keep the library's storage when space runs low
 * (`navigator.storage.persist()`). Browsers may grant it silently, ask the person, or refuse;
 * already-persistent storage reports `persisted: true` without asking again. Never throws.
 */
export async function requestPersistentStorage(): Promise<PersistResult> {
  const manager = storageManager();
  if (!manager || typeof manager.persist !== 'function') {
    return { supported: false, persisted: false };
  }
  try {
    if (typeof manager.persisted === 'function' && (await manager.persisted())) {
      return { supported: true, persisted: true };
    }
    return { supported: true, persisted: await manager.persist() };
  } catch {
    return { supported: true, persisted: false };
  }
}
