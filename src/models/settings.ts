/**
 * @file Defaults of the transformer embedding path, and pure helpers on them.
 *
 * Kept apart from transformers-env.ts so the UI thread can read them without pulling
 * transformers.js and ONNX Runtime into its bundle.
 */

const HUGGING_FACE = 'https://huggingface.co/';

/**
 * The hub host models come from unless the person sets another: the one a deployment was built
 * with (`VITE_MODEL_HUB`, docs/deploy.md: a mirror in the hub's layout, as a URL or as a path on
 * the app's own origin such as `/models/`), else huggingface.co. A value that is not an http(s)
 * URL falls back to huggingface.co with an error in the console (the build refuses it first,
 * vite.config.ts).
 */
export function hubHostFromBuild(value: string | undefined, origin: string | undefined): string {
  const text = value?.trim();
  if (!text) return HUGGING_FACE;
  try {
    if (text.startsWith('/')) {
      if (!origin) return HUGGING_FACE; // outside a page or worker (Node): no origin to lean on
      return normaliseHost(new URL(text, origin).href);
    }
    return normaliseHost(text);
  } catch (error) {
    console.error(`FragRel: VITE_MODEL_HUB ignored: ${(error as Error).message}`);
    return HUGGING_FACE;
  }
}

export const DEFAULT_HUB_HOST = hubHostFromBuild(
  import.meta.env?.VITE_MODEL_HUB as string | undefined,
  globalThis.location?.origin,
);
/** The hub's layout, `/{model}/resolve/{revision}/{file}`; transformers.js fills it in. */
export const DEFAULT_REMOTE_PATH_TEMPLATE = '{model}/resolve/{revision}/';
/** Texts per model call at most; long texts go fewer a call (batches.ts caps the padded tokens). */
export const DEFAULT_BATCH_SIZE = 16;

/** `huggingface.co` → `https://huggingface.co/`; always ends in one slash. Throws on non-http(s). */
export function normaliseHost(host: string): string {
  const trimmed = host.trim() || DEFAULT_HUB_HOST;
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new Error(`The hub host "${host}" is not a URL. Use e.g. ${HUGGING_FACE}.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new Error(`The hub host "${host}" must be an http(s) URL, e.g. ${HUGGING_FACE}.`);
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
