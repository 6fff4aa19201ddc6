/**
 * The ONNX files `npm run models` converts from SmolLM2's Q4_1 GGUF (scripts/gguf-to-onnx.py,
 * served as `HuggingFaceTB/SmolLM2-135M-Instruct`) read and answer as llama.cpp reads and answers
 * the GGUF itself: checked against node-llama-cpp's native build on the same file.
 *
 * - tokenizer.json (rebuilt from the GGUF's vocabulary and merges) gives llama.cpp's token ids on
 *   3,000 words of Alice, numbers, punctuation, accents, CJK, emoji, code and a ChatML prompt;
 * - tokenizer_config.json's chat template is the GGUF's, and renders the same text;
 * - the ONNX decoder's next-token probabilities match llama.cpp's along llama.cpp's greedy path
 *   (32 tokens after two short chat prompts and one of about 1,000 tokens: far positions exercise
 *   the rotary embedding and the KV cache), and through transformers.js, as the app's engine runs
 *   it, it writes llama.cpp's greedy answers.
 *
 * Why not token-for-token greedy equality everywhere: llama.cpp multiplies Q4_1 weights with
 * activations it first rounds to 8 bits (its Q8_1 blocks), while the ONNX file holds the Q4_1
 * values dequantised (stored as float16: against a float32 conversion the logits move by at most
 * 0.023, BENCHMARKS.md). The two disagree by a few hundredths of a nat on most tokens and up to
 * about 0.3 on a few, so where llama.cpp's top two tokens are nearly tied the greedy choice can differ (the
 * first token after the France prompt without a system message: llama.cpp "L" at p 0.157 against
 * "The" at 0.123; the ONNX decoder puts "The" first by 0.08 logits). The tests therefore compare
 * the chosen token's probability on every step, and greedy choices where the ONNX decoder's top
 * token leads its second by more than 0.6 nats, more than the two engines may disagree by.
 *
 * The files are loaded through the local hub mirror, by the hub id the app's catalogue names, so
 * this is the layout the browser loads.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PreTrainedTokenizer, PreTrainedModel } from '@huggingface/transformers';
import { datasetPath } from '../test/datasets';
import { decoderSteps } from '../test/onnx-decoder';
import { realModelPath, realModelsHub, requireRealModel } from '../test/real-models';
import { startHubMirror, type HubMirror } from '../e2e/support/hub-mirror';

const gguf = requireRealModel('SmolLM2-135M-Instruct');
const onnx = requireRealModel('SmolLM2-135M-Instruct-ONNX');
const GGUF_FILE = realModelPath(gguf.hubId, 'SmolLM2-135M-Instruct.Q4_1.gguf');

type Llama = Awaited<ReturnType<typeof import('node-llama-cpp').getLlama>>;
type LlamaModel = Awaited<ReturnType<Llama['loadModel']>>;

/** The opening `words` words of Alice (the copy starts at the book's first sentence). */
function alice(words: number): string {
  const book = readFileSync(datasetPath('gutenberg', 'pg11.txt'), 'utf8');
  const parts = book.split(/(\s+)/);
  let count = 0;
  let end = 0;
  while (end < parts.length && count < words) {
    if (parts[end].trim()) count++;
    end++;
  }
  return parts.slice(0, end).join('');
}

let mirror: HubMirror;
let llama: Llama;
let native: LlamaModel;
let tokenizer: PreTrainedTokenizer;
let model: PreTrainedModel;
/** onnxruntime-node's session on the converted file, for the step-by-step logits. */
let session: Promise<import('onnxruntime-node').InferenceSession> | undefined;

beforeAll(async () => {
  const { getLlama } = await import('node-llama-cpp');
  // The prebuilt CPU binary from npm; nothing is compiled.
  llama = await getLlama({ gpu: false, build: 'never' });
  native = await llama.loadModel({ modelPath: GGUF_FILE });
  mirror = await startHubMirror([realModelsHub]);
  const transformers = await import('@huggingface/transformers');
  const { env } = transformers;
  env.allowLocalModels = false;
  env.allowRemoteModels = true;
  env.remoteHost = mirror.url;
  // In Node transformers.js hands ONNX Runtime a file path, so it needs its file cache: beside
  // the fetched weights, outside the repository.
  env.useFSCache = true;
  env.cacheDir = join(realModelsHub, '..', 'transformers-node-cache');
  env.useBrowserCache = false;
  tokenizer = await transformers.AutoTokenizer.from_pretrained(onnx.hubId);
  // dtype fp32 names onnx/model.onnx, the file the app's catalogue entry loads.
  model = await transformers.AutoModelForCausalLM.from_pretrained(onnx.hubId, {
    dtype: 'fp32',
    device: 'cpu',
  });
}, 180_000);

afterAll(async () => {
  await (await session)?.release();
  await model?.dispose();
  await native?.dispose();
  await llama?.dispose();
  await mirror?.close();
});

const encode = (text: string): number[] => tokenizer.encode(text);
const nativeIds = (text: string): number[] => Array.from(native.tokenize(text, true));

const chat = (question: string, system?: string) => [
  ...(system ? [{ role: 'system', content: system }] : []),
  { role: 'user', content: question },
];

function render(messages: { role: string; content: string }[]): string {
  return tokenizer.apply_chat_template(messages, {
    tokenize: false,
    add_generation_prompt: true,
  }) as string;
}

describe('the ONNX tokenizer converted from the SmolLM2 GGUF', () => {
  it('gives llama.cpp token ids on 3,000 words of Alice and on awkward text', () => {
    const texts = [
      alice(3000),
      'In 1865, 42 cats ate 3.14159 pies at 12:30; 1,000,000 — or 1e6? «Ça va?» naïve café',
      '東京 and Москва 😀👍🏽 tabs\tand\n\n\nnewlines   with  runs of   spaces \r\n',
      "DON'T, don't, I'll, we've, she's, THEY'RE; 'quoted' \"double\" (parens) [x] {y} <z>",
      'function f(x) { return x * 2 + 10; } // comment\n    snake_case = [1,2,3]',
      render(chat('Who is the Cheshire Cat?', 'You answer from the passages.')) +
        'The Cheshire Cat grins.<|im_end|>\n',
    ];
    for (const text of texts) expect(encode(text)).toEqual(nativeIds(text));
    // Not a constant: the first text alone is thousands of tokens, and special tokens are one id.
    expect(encode(texts[0]).length).toBeGreaterThan(3000);
    const chatIds = encode(texts[5]);
    expect(chatIds.filter((id) => id === native.tokens.bos)).toHaveLength(3);
  });

  it('holds the GGUF chat template, which renders the text llama.cpp renders', async () => {
    const { JinjaTemplateChatWrapper } = await import('node-llama-cpp');
    const ggufTemplate = (native.fileInfo.metadata as { tokenizer: { chat_template: string } })
      .tokenizer.chat_template;
    const config = JSON.parse(
      readFileSync(realModelPath(onnx.hubId, 'tokenizer_config.json'), 'utf8'),
    ) as { chat_template: string };
    expect(config.chat_template).toBe(ggufTemplate);
    const wrapper = new JinjaTemplateChatWrapper({ template: ggufTemplate });
    for (const system of [undefined, 'You answer from the passages.']) {
      const messages = chat('Who is the Cheshire Cat?', system);
      const { contextText } = wrapper.generateContextState({
        chatHistory: [
          ...(system ? [{ type: 'system' as const, text: system }] : []),
          { type: 'user', text: 'Who is the Cheshire Cat?' },
          { type: 'model', response: [] },
        ],
      });
      const rendered = render(messages);
      expect(rendered).toBe(contextText.toString());
      expect(rendered.endsWith('<|im_start|>assistant\n')).toBe(true);
    }
  });
});

interface NativeStep {
  token: number;
  /** llama.cpp's probability of the token it chose. */
  confidence: number;
}

/** llama.cpp's greedy path after `prompt` at temperature 0, with the chosen token's probability
 * (remembered: both tests walk the same paths). */
const nativePaths = new Map<string, Promise<NativeStep[]>>();
function nativeGreedy(prompt: number[], count: number): Promise<NativeStep[]> {
  const key = `${count}:${prompt.join(',')}`;
  if (!nativePaths.has(key)) nativePaths.set(key, walkNative(prompt, count));
  return nativePaths.get(key)!;
}

async function walkNative(prompt: number[], count: number): Promise<NativeStep[]> {
  const context = await native.createContext({ contextSize: 2048, threads: 2 });
  try {
    const out: NativeStep[] = [];
    const steps = context
      .getSequence()
      .evaluateWithMetadata(prompt as never, { confidence: true }, { temperature: 0 });
    for await (const step of steps) {
      out.push({ token: step.token, confidence: step.confidence });
      if (native.isEogToken(step.token) || out.length >= count) break;
    }
    return out;
  } finally {
    await context.dispose();
  }
}

/** Greedy ids after `prompt` from the ONNX decoder through transformers.js's generate. */
async function onnxGreedy(prompt: number[], count: number): Promise<number[]> {
  const { Tensor } = await import('@huggingface/transformers');
  const ids = new Tensor('int64', BigInt64Array.from(prompt.map(BigInt)), [1, prompt.length]);
  const mask = new Tensor('int64', new BigInt64Array(prompt.length).fill(1n), [1, prompt.length]);
  const out = (await model.generate({
    input_ids: ids,
    attention_mask: mask,
    max_new_tokens: count,
    do_sample: false,
  } as never)) as { data: BigInt64Array };
  return Array.from(out.data.slice(prompt.length), Number);
}

/**
 * The ONNX decoder's log-probabilities for each next token along a given path (teacher forcing):
 * the prompt in one run, then one token a run with the KV cache, in onnxruntime-node directly.
 */
async function onnxLogProbsAlong(prompt: number[], path: number[]): Promise<Float32Array[]> {
  const ort = await import('onnxruntime-node');
  session ??= ort.InferenceSession.create(realModelPath(onnx.hubId, 'onnx/model.onnx'), {
    intraOpNumThreads: 2,
  });
  const step = decoderSteps(await session, realModelPath(onnx.hubId, 'config.json'));
  const out: Float32Array[] = [];
  for (const chunk of [prompt, ...path.slice(0, -1).map((t) => [t])]) {
    const logits = await step(chunk);
    let max = -Infinity;
    for (const v of logits) max = Math.max(max, v);
    let sum = 0;
    for (const v of logits) sum += Math.exp(v - max);
    out.push(logits.map((v) => v - max - Math.log(sum)));
  }
  return out;
}

/** The indices of the two largest values. */
function top2(values: Float32Array): [number, number] {
  let [first, second] = values[0] >= values[1] ? [0, 1] : [1, 0];
  for (let i = 2; i < values.length; i++) {
    if (values[i] > values[first]) [first, second] = [i, first];
    else if (values[i] > values[second]) second = i;
  }
  return [first, second];
}

const prompts = () => ({
  // No system message: the template adds its own ("You are a helpful AI assistant named SmolLM").
  france: nativeIds(render(chat('What is the capital of France?'))),
  briefly: nativeIds(render(chat('What is the capital of France?', 'You answer briefly.'))),
  alice: nativeIds(
    render(
      chat(
        `${alice(700)}\n\nQuestion: What did Alice see run close by her?`,
        'Answer from the passage in one sentence.',
      ),
    ),
  ),
});

describe('the ONNX decoder converted from the SmolLM2 GGUF', () => {
  it('gives llama.cpp’s next-token probabilities along llama.cpp’s greedy path', async () => {
    let clear = 0;
    const gaps: number[] = [];
    for (const [name, prompt] of Object.entries(prompts())) {
      const steps = await nativeGreedy(prompt, 32);
      const path = steps.map((s) => s.token);
      const ours = await onnxLogProbsAlong(prompt, path);
      steps.forEach((step, i) => {
        // The same distribution: llama.cpp's chosen token is as likely under the ONNX weights.
        const gap = Math.abs(ours[i][step.token] - Math.log(step.confidence));
        gaps.push(gap);
        expect(gap, `${name} step ${i}`).toBeLessThan(0.4);
        // Where the ONNX decoder's top token leads its second by more than 0.6 (beyond the 0.4
        // the engines may disagree by), llama.cpp made the same greedy choice.
        const [first, second] = top2(ours[i]);
        if (ours[i][first] - ours[i][second] > 0.6) {
          clear++;
          expect(first, `${name} step ${i}`).toBe(step.token);
        }
      });
    }
    gaps.sort((a, b) => a - b);
    expect(gaps.reduce((a, b) => a + b, 0) / gaps.length).toBeLessThan(0.06);
    // Most steps are clear ones (measured: 58 of 71), so the greedy check is not vacuous. Measured
    // gaps: median 0.014, mean 0.041, largest 0.31.
    expect(clear).toBeGreaterThan(40);
  }, 240_000);

  it('writes llama.cpp’s greedy answer through transformers.js, as the app runs it', async () => {
    for (const [name, prompt] of Object.entries(prompts())) {
      if (name === 'france') continue;
      const theirs = (await nativeGreedy(prompt, 32)).map((s) => s.token);
      const ours = await onnxGreedy(prompt, 32);
      // transformers.js keeps the end-of-turn token it stopped at; llama.cpp does not yield it.
      expect(
        ours.filter((t) => t !== native.tokens.eos),
        name,
      ).toEqual(theirs);
    }
  }, 240_000);
});

/**
 * Along a text (teacher forcing): the prompt in `pieces` (token counts), then one token a run; the
 * log-probability of each true next token and the top choice at each step.
 */
async function readAlong(
  file: string,
  ids: number[],
  pieces: number[],
): Promise<{ logProbs: number[]; top: number[]; last: Float32Array<ArrayBufferLike> }> {
  const ort = await import('onnxruntime-node');
  const s = await ort.InferenceSession.create(realModelPath(onnx.hubId, file), {
    intraOpNumThreads: 2,
  });
  try {
    const step = decoderSteps(s, realModelPath(onnx.hubId, 'config.json'));
    let at = 0;
    let logits: Float32Array<ArrayBufferLike> = new Float32Array(0);
    for (const n of pieces) {
      logits = await step(ids.slice(at, at + n));
      at += n;
    }
    const logProbs: number[] = [];
    const top: number[] = [];
    for (; at < ids.length; at++) {
      let max = -Infinity;
      for (const v of logits) max = Math.max(max, v);
      let sum = 0;
      for (const v of logits) sum += Math.exp(v - max);
      logProbs.push(logits[ids[at]] - max - Math.log(sum));
      top.push(top2(logits)[0]);
      if (at + 1 < ids.length) logits = await step([ids[at]]);
    }
    return { logProbs, top, last: logits };
  } finally {
    await s.release();
  }
}

describe('the 8-bit file (onnx/model_w8a8.onnx) and reading a prompt in pieces', () => {
  it('predicts the next tokens of Alice almost as the float file does', async () => {
    // 400 tokens read at once, then 200 next tokens one a step.
    const ids = encode(alice(700)).slice(0, 600);
    const float = await readAlong('onnx/model.onnx', ids, [400]);
    const w8a8 = await readAlong('onnx/model_w8a8.onnx', ids, [400]);
    const nll = (r: { logProbs: number[] }) =>
      -r.logProbs.reduce((a, b) => a + b, 0) / r.logProbs.length;
    const agree = float.top.filter((t, i) => t === w8a8.top[i]).length / float.top.length;
    // Measured here: next-token loss 2.693 (float) against 2.720 nats (8-bit), +1.0%; the same top
    // token on 86.5% of steps. On a later page of Alice, per-tensor 8-bit (onnxruntime's
    // quantize_dynamic, which changed answers) gave +3.2% and 78% where this file gave +0.3% and
    // 87%: these bounds tell the two apart.
    expect(nll(float)).toBeGreaterThan(2);
    expect(nll(w8a8) / nll(float)).toBeLessThan(1.02);
    expect(agree).toBeGreaterThan(0.82);
  }, 240_000);

  it('gives the same next-token logits whether the prompt is read at once or in pieces', async () => {
    const ids = encode(alice(700)).slice(0, 700);
    const once = await readAlong('onnx/model_w8a8.onnx', ids, [700]);
    // As the engine's worker reads it (src/llm/onnx/prefill.ts): pieces of 256, then the rest.
    const pieces = await readAlong('onnx/model_w8a8.onnx', ids, [256, 256, 188]);
    let largest = 0;
    for (let i = 0; i < once.last.length; i++)
      largest = Math.max(largest, Math.abs(once.last[i] - pieces.last[i]));
    expect(once.last.length).toBeGreaterThan(40_000);
    // Measured: identical to the bit (each row of every product is summed in the same order).
    expect(largest).toBeLessThan(0.05);
    expect(top2(pieces.last)[0]).toBe(top2(once.last)[0]);
  }, 240_000);
});
