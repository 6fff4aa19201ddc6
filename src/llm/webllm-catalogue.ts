/**
 * @file The WebLLM models offered in the settings: small instruction-tuned models from WebLLM's
 * prebuilt list (its `prebuiltAppConfig`, version 0.2.86), each in a 16-bit-float build (needs
 * the WebGPU `shader-f16` feature; smaller and faster) and a 32-bit-float build (runs on any
 * WebGPU adapter), with its licence.
 *
 * Which models (checked against the installed web-llm's list, November 2026): the newest small
 * instruct model of each family web-llm builds, from 0.36B to 8B parameters. Gemma 4 E2B replaces
 * Gemma 2 2B and Phi-4-mini replaces Phi-3.5-mini (same size, newer). Qwen3 and Qwen3.5 are in
 * web-llm's list but left out: they write a thinking block (<think>…</think>) before the answer
 * by default, which the answer panel would show as the answer and which costs hundreds of tokens
 * on a small GPU. Nothing here says how fast a model answers: none of them was measured on a GPU
 * by us (docs/llm.md).
 *
 * Download sizes are estimates: parameters x bits per weight. WebLLM's q4 builds store 4-bit
 * weights in groups of 32 with one scale each, 4.5 bits per weight with f16 scales and 5 with
 * f32 scales; the model library (a few MB of compiled shaders) comes on top. `vramMB` is
 * WebLLM's own figure. A unit test checks every id and figure against the installed web-llm.
 */

export interface WebLlmModel {
  /** WebLLM's model_id. */
  id: string;
  label: string;
  /** Parameters, in billions. */
  billions: number;
  /** Needs the WebGPU `shader-f16` feature. */
  f16: boolean;
  /** WebLLM's estimate of the GPU memory it needs. */
  vramMB: number;
  /** Context window WebLLM configures for it. */
  contextLimit: number;
  /** The weights' licence, as the model's publisher states it. */
  licence: string;
}

const BITS_PER_WEIGHT = { f16: 4.5, f32: 5 } as const;

/** Estimated download in MB (10^6 bytes). */
export function downloadMB(model: WebLlmModel): number {
  return Math.round((model.billions * 1000 * BITS_PER_WEIGHT[model.f16 ? 'f16' : 'f32']) / 8);
}

const APACHE = 'Apache-2.0';

function pair(
  base: string,
  label: string,
  billions: number,
  vram: { f16: number; f32: number },
  licence: string,
  contextLimit = 4096,
): WebLlmModel[] {
  const common = { label, billions, licence, contextLimit };
  return [
    { id: `${base}-q4f16_1-MLC`, ...common, f16: true, vramMB: vram.f16 },
    { id: `${base}-q4f32_1-MLC`, ...common, f16: false, vramMB: vram.f32 },
  ];
}

export const WEBLLM_MODELS: readonly WebLlmModel[] = Object.freeze([
  ...pair(
    'SmolLM2-360M-Instruct',
    'SmolLM2 360M Instruct',
    0.362,
    { f16: 376.06, f32: 579.61 },
    APACHE,
  ),
  ...pair(
    'Qwen2.5-0.5B-Instruct',
    'Qwen2.5 0.5B Instruct',
    0.494,
    { f16: 944.62, f32: 1060.2 },
    APACHE,
  ),
  ...pair(
    'Llama-3.2-1B-Instruct',
    'Llama 3.2 1B Instruct',
    1.236,
    { f16: 879.04, f32: 1128.82 },
    'Llama 3.2 Community License',
  ),
  ...pair(
    'Qwen2.5-1.5B-Instruct',
    'Qwen2.5 1.5B Instruct',
    1.544,
    { f16: 1629.75, f32: 1888.97 },
    APACHE,
  ),
  ...pair(
    'SmolLM2-1.7B-Instruct',
    'SmolLM2 1.7B Instruct',
    1.711,
    { f16: 1774.19, f32: 2692.38 },
    APACHE,
  ),
  ...pair(
    'Llama-3.2-3B-Instruct',
    'Llama 3.2 3B Instruct',
    3.213,
    { f16: 2263.69, f32: 2951.51 },
    'Llama 3.2 Community License',
  ),
  ...pair(
    'Phi-4-mini-instruct',
    'Phi-4-mini Instruct',
    3.836,
    { f16: 3437.58, f32: 4220.59 },
    'MIT',
  ),
  // "E2B": 2B parameters at work per token; the download holds all of them with the per-layer
  // embeddings, about 5.1B (Google's memory table: 2.9 GB at 4 bits).
  ...pair('gemma-4-E2B-it', 'Gemma 4 E2B Instruct', 5.1, { f16: 3387.37, f32: 3862.72 }, APACHE),
  ...pair(
    'Llama-3.1-8B-Instruct',
    'Llama 3.1 8B Instruct',
    8.03,
    { f16: 5001, f32: 6101.01 },
    'Llama 3.1 Community License',
  ),
]);

export const DEFAULT_WEBLLM_MODEL = 'Qwen2.5-1.5B-Instruct-q4f16_1-MLC';

export function webLlmModel(id: string): WebLlmModel | undefined {
  return WEBLLM_MODELS.find((m) => m.id === id);
}

/** "Qwen2.5 1.5B Instruct · 16-bit · about 869 MB download · 1.6 GB GPU memory · Apache-2.0". */
export function describeWebLlmModel(model: WebLlmModel): string {
  const mb = downloadMB(model);
  const size = mb >= 1000 ? `${(mb / 1000).toFixed(1)} GB` : `${mb} MB`;
  const vram =
    model.vramMB >= 1000
      ? `${(model.vramMB / 1000).toFixed(1)} GB`
      : `${Math.round(model.vramMB)} MB`;
  return `${model.label} · ${model.f16 ? '16-bit (needs shader-f16)' : '32-bit'} · about ${size} download · ${vram} GPU memory · ${model.licence}`;
}
