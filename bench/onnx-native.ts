/**
 * @file The ONNX engine's model read natively (the llm-speed benchmark's `onnx-native` rows): the
 * same onnx/model.onnx and tokenizer the app's ONNX engine loads, through transformers.js in Node,
 * where it runs onnxruntime-node (native CPU kernels, MLAS sgemm with AVX2) instead of ONNX Runtime
 * Web's WebAssembly. The same generation loop as the engine's worker (src/workers/llm-onnx.worker.ts):
 * the prompt read as plain text, greedy, an end-of-text token held back until `generate` tokens
 * are written, timings around the first and the last token, after a short warm-up read. Beside the browser's row it gives the
 * wasm build's own cost on the same graph.
 */
import {
  AutoModelForCausalLM,
  AutoTokenizer,
  TextStreamer,
  env,
  type PreTrainedModel,
  type Tensor,
} from '@huggingface/transformers';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LlmSpeedRow } from './llm-speed';

/** What to measure: which model and graph file, which prompt, how many threads and tokens. */
export interface OnnxNativeRun {
  /** The model's folder in the hub layout (`…/owner/name/resolve/main`). */
  modelDir: string;
  modelId: string;
  /** The graph file in onnx/, without `.onnx` (default `model`). */
  modelFile?: string;
  prompt: string;
  threads: readonly number[];
  generate: number;
}

/** Read `prompt` with `threads` intra-op threads (ONNX Runtime's `intraOpNumThreads`). */
export async function measureOnnxNative(opts: OnnxNativeRun): Promise<LlmSpeedRow[]> {
  return withLocalModel(opts.modelDir, opts.modelId, () => measureFrom(opts));
}

/**
 * Run `fn` with transformers.js reading `modelId` from `modelDir` (the hub layout's
 * `…/owner/name/resolve/main`): in Node it hands onnxruntime-node a file path, so the model is a
 * local folder (`<root>/owner/name`), here a link to the cached files, read in place. `fn` gets
 * the temporary root, removed afterwards.
 */
export async function withLocalModel<T>(
  modelDir: string,
  modelId: string,
  fn: (root: string) => Promise<T>,
): Promise<T> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'fragrel-onnx-native-'));
  const [owner, name] = modelId.split('/');
  mkdirSync(path.join(root, owner));
  symlinkSync(modelDir, path.join(root, owner, name));
  env.allowLocalModels = true;
  env.allowRemoteModels = false;
  env.localModelPath = root;
  env.useFSCache = false;
  try {
    return await fn(root);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function measureFrom(opts: OnnxNativeRun): Promise<LlmSpeedRow[]> {
  const tokenizer = await AutoTokenizer.from_pretrained(opts.modelId);
  const rows: LlmSpeedRow[] = [];
  for (const threads of opts.threads) {
    const model = await AutoModelForCausalLM.from_pretrained(opts.modelId, {
      dtype: 'fp32',
      model_file_name: opts.modelFile ?? 'model',
      device: 'cpu',
      session_options: { intraOpNumThreads: threads, interOpNumThreads: 1 },
    });
    try {
      const inputs = tokenizer(opts.prompt, { add_special_tokens: false, return_tensor: true }) as {
        input_ids: Tensor;
        attention_mask: Tensor;
      };
      const promptTokens = Number(inputs.input_ids.dims.at(-1));
      // Warm-up, as the llama.cpp rows have one: a short read (the prompt's last words, as on the
      // page), one token.
      const warmStart = performance.now();
      await model.generate({
        ...(tokenizer(opts.prompt.split(' ').slice(-24).join(' '), {
          add_special_tokens: false,
          return_tensor: true,
        }) as object),
        max_new_tokens: 1,
        do_sample: false,
      } as Parameters<PreTrainedModel['generate']>[0]);
      const warmupMs = performance.now() - warmStart;
      let first = 0;
      let n = 0;
      const streamer = new TextStreamer(tokenizer, {
        skip_prompt: true,
        callback_function: () => {}, // (else it prints the text)
        token_callback_function: () => {
          if (n++ === 0) first = performance.now();
        },
      });
      const cpu = process.cpuUsage();
      const started = performance.now();
      await model.generate({
        ...inputs,
        max_new_tokens: opts.generate,
        min_new_tokens: opts.generate,
        do_sample: false,
        streamer,
      } as Parameters<PreTrainedModel['generate']>[0]);
      const end = performance.now();
      const used = process.cpuUsage(cpu);
      rows.push({
        model: `${opts.modelId.split('/').pop()}/onnx/${opts.modelFile ?? 'model'}.onnx`,
        engine: 'onnx-native',
        threads,
        promptTokens,
        promptTokensPerS: (promptTokens * 1000) / (first - started),
        generationTokensPerS: ((n - 1) * 1000) / (end - first),
        firstTokenMs: first - started,
        generatedTokens: n,
        cpuSeconds: (used.user + used.system) / 1e6,
        warmupMs,
      });
    } finally {
      await model.dispose();
    }
  }
  return rows;
}
