/**
 * @file An ONNX decoder (the hub's layout, as scripts/gguf-to-onnx.py writes it) run step by step
 * with its KV cache in onnxruntime-node, as transformers.js feeds it: each call reads a chunk of
 * token ids after the ones before, and gives the next token's logits. For the tests and benches
 * that look at the model itself rather than through transformers.js.
 */
import { readFileSync } from 'node:fs';
import * as ort from 'onnxruntime-node';

/** The shape of a decoder's cache, from its config.json. */
interface DecoderConfig {
  num_hidden_layers: number;
  num_key_value_heads: number;
  head_dim: number;
}

const int64 = (values: number[]) =>
  new ort.Tensor('int64', BigInt64Array.from(values.map(BigInt)), [1, values.length]);

/**
 * A reader of `session`'s decoder whose cache starts empty: call it with the prompt, then with
 * each next token; it resolves with the logits for the token after the chunk.
 */
export function decoderSteps(
  session: ort.InferenceSession,
  configPath: string,
): (chunk: number[]) => Promise<Float32Array> {
  const config = JSON.parse(readFileSync(configPath, 'utf8')) as DecoderConfig;
  let past: Record<string, ort.Tensor> = {};
  for (let i = 0; i < config.num_hidden_layers; i++) {
    for (const kind of ['key', 'value']) {
      past[`past_key_values.${i}.${kind}`] = new ort.Tensor('float32', new Float32Array(0), [
        1,
        config.num_key_value_heads,
        0,
        config.head_dim,
      ]);
    }
  }
  let seen = 0;
  return async (chunk) => {
    const result = await session.run({
      input_ids: int64(chunk),
      attention_mask: int64(new Array<number>(seen + chunk.length).fill(1)),
      position_ids: int64(chunk.map((_, i) => seen + i)),
      ...past,
    });
    seen += chunk.length;
    past = {};
    for (const [name, tensor] of Object.entries(result)) {
      if (name.startsWith('present.')) past[name.replace('present.', 'past_key_values.')] = tensor;
    }
    return result.logits.data as Float32Array;
  };
}
