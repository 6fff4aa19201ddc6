/**
 * @file Where the ONNX model's time goes per operator, natively: onnxruntime-node's own profiler
 * (session option `enableProfiling`, one event per node run) over one read of the llm-speed
 * prompt, through transformers.js as the onnx-native rows run it. The wasm build of ONNX Runtime
 * has no function names and its profiler's file stays inside the wasm, so this is the per-operator
 * view of the same graph; the Chromium sampling profile of the browser run sits beside it.
 */
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import {
  AutoModelForCausalLM,
  AutoTokenizer,
  type PreTrainedModel,
} from '@huggingface/transformers';
import { withLocalModel } from './onnx-native';

/** One node run from ONNX Runtime's profile (the fields read here). */
export interface OrtProfileEvent {
  cat: string;
  name: string;
  dur: number;
  args?: { op_name?: string; input_type_shape?: Record<string, number[]>[] };
}

export interface OpShare {
  /** linear (a MatMul/Gemm against a weight matrix), attention (scores, softmax, the mix of values), or the op's name. */
  group: string;
  ms: number;
  share: number;
}

/**
 * Self time per group. A MatMul whose inputs are both of rank 4 is `attention` (the hand-built
 * graph's queries × keys and probabilities × values, with the scale when ONNX Runtime fuses it:
 * FusedMatMul), as is Softmax; a MatMul or Gemm against a rank-2 weight is `linear` (MLAS sgemm).
 * Any other operator is its own group, marked "on heads" when it works on rank-4 tensors (the
 * rotary products and the mask's addition), which belong to attention too.
 */
export function opShares(events: readonly OrtProfileEvent[]): OpShare[] {
  const ms = new Map<string, number>();
  let total = 0;
  for (const e of events) {
    if (e.cat !== 'Node' || !e.name.endsWith('_kernel_time')) continue;
    const op = e.args?.op_name ?? '?';
    const shapes = (e.args?.input_type_shape ?? []).map((s) => Object.values(s)[0] ?? []);
    const rank4 = shapes.length > 0 && shapes[0].length === 4;
    let group = rank4 ? `${op} on heads` : op;
    if (op === 'MatMul' || op === 'FusedMatMul' || op === 'Gemm')
      group = rank4 && shapes[1]?.length === 4 ? 'attention' : 'linear';
    else if (op === 'Softmax') group = 'attention';
    const d = e.dur / 1000;
    total += d;
    ms.set(group, (ms.get(group) ?? 0) + d);
  }
  return [...ms]
    .map(([group, t]) => ({ group, ms: t, share: total ? t / total : 0 }))
    .sort((a, b) => b.ms - a.ms);
}

/** Read `prompt` once (one token written) with ONNX Runtime's profiler on; the profile's events. */
export async function profileOnnxNative(opts: {
  modelDir: string;
  modelId: string;
  prompt: string;
  threads: number;
}): Promise<{ events: OrtProfileEvent[]; promptTokens: number; ms: number }> {
  return withLocalModel(opts.modelDir, opts.modelId, async (root) => {
    const prefix = path.join(root, 'ort-profile');
    const tokenizer = await AutoTokenizer.from_pretrained(opts.modelId);
    const model = await AutoModelForCausalLM.from_pretrained(opts.modelId, {
      dtype: 'fp32',
      device: 'cpu',
      session_options: {
        intraOpNumThreads: opts.threads,
        interOpNumThreads: 1,
        enableProfiling: true,
        profileFilePrefix: prefix,
      },
    });
    const inputs = tokenizer(opts.prompt, { add_special_tokens: false, return_tensor: true }) as {
      input_ids: { dims: number[] };
    };
    const started = performance.now();
    await model.generate({
      ...inputs,
      max_new_tokens: 1,
      do_sample: false,
    } as Parameters<PreTrainedModel['generate']>[0]);
    const ms = performance.now() - started;
    // The profile file is written when the session ends.
    await model.dispose();
    const file = readdirSync(root).find((f) => f.startsWith('ort-profile') && f.endsWith('.json'));
    if (!file) throw new Error('onnxruntime-node wrote no profile.');
    const events = JSON.parse(readFileSync(path.join(root, file), 'utf8')) as OrtProfileEvent[];
    rmSync(path.join(root, file));
    return { events, promptTokens: Number(inputs.input_ids.dims.at(-1)), ms };
  });
}
