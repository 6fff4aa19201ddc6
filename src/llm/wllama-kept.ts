/**
 * @file Whether a GGUF model from a URL is kept in this browser (wllama's cache, in the origin's
 * private file system), so that loading it again reads the disk and downloads nothing. After a
 * reload the page holds no model; a kept one can be loaded when the person asks, without a click
 * on Load, because nothing leaves the machine.
 */

/** True when wllama's cache holds the whole file of `url` (a download cut short does not count). */
export async function keptInBrowser(url: string): Promise<boolean> {
  try {
    const { CacheManager } = await import('@wllama/wllama/esm/index.js');
    const cache = new CacheManager();
    const name = await cache.getNameFromURL(url);
    const size = await cache.getSize(name);
    if (size <= 0) return false;
    const meta = await cache.getMetadata(name);
    return !meta?.originalSize || meta.originalSize === size;
  } catch {
    // No private file system (some private windows), or no cache yet: not kept.
    return false;
  }
}

/** The kept file of `url` as a Blob (read from the browser's disk on demand), or null. */
export async function cachedModelBlob(url: string): Promise<Blob | null> {
  try {
    const { CacheManager } = await import('@wllama/wllama/esm/index.js');
    return await new CacheManager().open(url);
  } catch {
    return null;
  }
}
