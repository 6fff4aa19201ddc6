/**
 * @file The ONNX engine's recommended model: the one the panel offers with one click.
 *
 * SmolLM2-135M-Instruct: the same model as the GGUF catalogue's recommended file, here as the
 * hub's ONNX layout (config.json, tokenizer.json, onnx/model.onnx with a KV cache). On
 * huggingface.co the files are the model authors' own export; `npm run models` writes the same
 * layout from the pinned GGUF for the local mirror (scripts/gguf-to-onnx.py, docs/models.md).
 * Its size is what the browser downloads once and keeps; the speed is measured on the person's
 * machine after the first answer (reading-budget.ts's speed store), not claimed here.
 */
export interface OnnxModel {
  /** Hub model id. */
  id: string;
  label: string;
  licence: string;
  /**
   * Download in MB at most: huggingface.co's float32 export (538 MB for SmolLM2 135M); the
   * mirror's copy from `npm run models` is the 8-bit file (164 MB).
   */
  downloadMB: number;
}

export const RECOMMENDED_ONNX_MODEL: OnnxModel = Object.freeze({
  id: 'HuggingFaceTB/SmolLM2-135M-Instruct',
  label: 'SmolLM2 135M Instruct',
  licence: 'Apache-2.0',
  downloadMB: 540,
});

/**
 * The graph files the engine looks for in a model's `onnx/` folder, in order of preference; it
 * loads the first the host has. `model_w8a8` is ours (scripts/gguf-to-onnx.py `--weights w8a8`,
 * written by `npm run models` for the mirror): 8-bit weights, one 8-bit scale per token for the
 * activations, integer matrix products. It reads a prompt about 1.4x faster than float32 in ONNX
 * Runtime Web and changes the next-token loss on a page of Alice by about 0.3%; per-tensor 8-bit
 * (the kind optimum exports as model_int8/model_quantized) changed answers and is not looked for
 * (BENCHMARKS.md, "The ONNX engine: 8-bit"). huggingface.co's model repositories have no
 * `model_w8a8`: there the engine reads `model` (float32).
 */
export const ONNX_MODEL_FILES: readonly { file: string; weights: string }[] = Object.freeze([
  { file: 'model_w8a8', weights: '8-bit' },
  { file: 'model', weights: 'float32' },
]);
