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
   * mirror's copy from `npm run models` stores its weights as float16 (269 MB).
   */
  downloadMB: number;
}

export const RECOMMENDED_ONNX_MODEL: OnnxModel = Object.freeze({
  id: 'HuggingFaceTB/SmolLM2-135M-Instruct',
  label: 'SmolLM2 135M Instruct',
  licence: 'Apache-2.0',
  downloadMB: 540,
});
