/**
 * @file Defaults of the transformer embedding path, and pure helpers on them.
 *
 * Kept apart from transformers-env.ts so the UI thread can read them without pulling
 * transformers.js and ONNX Runtime into its bundle.
 */

export const DEFAULT_HUB_HOST = 'https://huggingface.co/';
/** The hub's layout, `/{model}/resolve/{revision}/{file}`; transformers.js fills it in. */
export const DEFAULT_REMOTE_PATH_TEMPLATE = '{model}/resolve/{revision}/';
/** Texts per model call. Bigger batches pad more; 16 is a good middle for short fragments. */
export const DEFAULT_BATCH_SIZE = 16;

/** `huggingface.co` → `https://huggingface.co/`; always ends in one slash. Throws on non-http(s). */
export function normaliseHost(host: string): string {
  const trimmed = host.trim() || DEFAULT_HUB_HOST;
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new Error(`The hub host "${host}" is not a URL. Use e.g. ${DEFAULT_HUB_HOST}.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new Error(`The hub host "${host}" must be an http(s) URL, e.g. ${DEFAULT_HUB_HOST}.`);
  }
  return url.href.endsWith('/') ? url.href : `${url.href}/`;
}

/**
 * wasm threads: only with cross-origin isolation (SharedArrayBuffer). Half the cores, at most 4:
 * on a 2-core machine a second thread made ORT slower (../shared/PLATFORM.md).
 */
export function chooseThreads(isolated: boolean, cores: number): number {
  if (!isolated) return 1;
  return Math.max(1, Math.min(4, Math.floor(cores / 2)));
}
