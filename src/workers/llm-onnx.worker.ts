/**
 * @file The ONNX engine's worker: a decoder model (an ONNX graph with a KV cache, e.g. SmolLM2
 * from the hub or from `npm run models`) run by ONNX Runtime Web through transformers.js, which
 * brings the tokenizer, the chat template and the generation loop. Its messages are
 * src/llm/onnx/protocol.ts.
 *
 * Why a worker: reading a prompt is seconds of arithmetic that would freeze the page, and ONNX
 * Runtime's own threads need a thread that may block.
 */
import {
  AutoModelForCausalLM,
  AutoTokenizer,
  DynamicCache,
  InterruptableStoppingCriteria,
  TextStreamer,
  type PreTrainedModel,
  type PreTrainedTokenizer,
  type Tensor,
} from '@huggingface/transformers';
import { configureTransformers, ortNumThreads, setHubHost } from '../models/transformers-env';
import { createDownloadProgress } from '../models/load-progress';
import type { FromOnnxWorker, OnnxCallStats, ToOnnxWorker } from '../llm/onnx/protocol';

let tokenizer: PreTrainedTokenizer | null = null;
let model: PreTrainedModel | null = null;
/** The stop switch of the call in progress, by its id. */
const running = new Map<number, InterruptableStoppingCriteria>();
/** Calls run one after another: the model has one KV cache and the CPU has few cores. */
let chain: Promise<unknown> = Promise.resolve();
/**
 * The KV cache of the last call and the tokens it holds (its prompt and answer, less the last
 * token). The next call whose prompt starts with the same tokens reads only the rest: a
 * pipeline's calls share their instructions, a question asked again shares everything.
 */
let kept: { ids: number[]; cache: DynamicCache } | null = null;
/** Fewer shared tokens than this are read again: cropping the cache costs more than it saves. */
const MIN_REUSED_TOKENS = 16;

const post = (message: FromOnnxWorker) => self.postMessage(message);

self.onmessage = (event: MessageEvent<ToOnnxWorker>) => {
  const message = event.data;
  switch (message.type) {
    case 'load':
      void load(message);
      return;
    case 'count':
      if (!tokenizer) return;
      post({ type: 'count', id: message.id, tokens: encode(message.text).length });
      return;
    case 'generate':
      chain = chain.then(() => generate(message));
      return;
    case 'stop':
      running.get(message.id)?.interrupt();
      return;
  }
};

async function load({ modelId, host, threads, session }: Extract<ToOnnxWorker, { type: 'load' }>) {
  try {
    await configureTransformers(threads || undefined);
    const hub = setHubHost(host);
    // transformers.js reports a missing model as whatever its first missing file breaks
    // ("reading 'tokenizer_class'"): ask for the config first, to say plainly that it is not there.
    const configUrl = `${hub.replace(/\/+$/, '')}/${modelId}/resolve/main/config.json`;
    const head = await fetch(configUrl, { method: 'HEAD' });
    if (head.status === 404 || head.status === 401) {
      post({ type: 'load-error', detail: `config.json: HTTP ${head.status}`, notFound: true });
      return;
    }
    const progress = createDownloadProgress((p) =>
      post({ type: 'progress', text: `Downloading ${modelId}`, loaded: p.done, total: p.total }),
    );
    tokenizer = await AutoTokenizer.from_pretrained(modelId, { progress_callback: progress });
    // dtype fp32 is the file onnx/model.onnx: float32 arithmetic, which ONNX Runtime's wasm
    // kernels run fastest (its 4-bit and 16-bit kernels measured slower here, BENCHMARKS.md).
    model = await AutoModelForCausalLM.from_pretrained(modelId, {
      dtype: 'fp32',
      device: 'wasm',
      progress_callback: progress,
      ...(session ? { session_options: { ...session } } : {}),
    });
    const config = model.config as unknown as { max_position_embeddings?: number };
    post({
      type: 'loaded',
      contextLimit: config.max_position_embeddings ?? 2048,
      chat: Boolean((tokenizer as unknown as { chat_template?: unknown }).chat_template),
      threads: ortNumThreads(),
    });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    post({
      type: 'load-error',
      detail,
      notFound: /\b404\b|not found|Could not locate/i.test(detail),
    });
  }
}

function encode(text: string): number[] {
  return tokenizer!.encode(text, { add_special_tokens: false });
}

async function generate(request: Extract<ToOnnxWorker, { type: 'generate' }>) {
  const { id } = request;
  const started = performance.now();
  let firstAt: number | null = null;
  let completionTokens = 0;
  let promptTokens = 0;
  let text = '';
  let cachedPromptTokens = 0;
  const stats = (): OnnxCallStats => ({
    promptTokens,
    cachedPromptTokens,
    completionTokens,
    firstTokenMs: (firstAt ?? performance.now()) - started,
    elapsedMs: performance.now() - started,
  });
  if (!tokenizer || !model) {
    post({ type: 'error', id, detail: 'No model is loaded.', text, stats: stats() });
    return;
  }
  const stop = new InterruptableStoppingCriteria();
  running.set(id, stop);
  try {
    const prompt = request.messages
      ? (tokenizer.apply_chat_template(
          request.messages.map(({ role, content }) => ({ role, content })),
          { add_generation_prompt: true, tokenize: false },
        ) as string)
      : request.text;
    // Tokenised once: the ids for the length check and the cache's shared start, the tensors
    // for the model.
    const inputs = tokenizer(prompt, { add_special_tokens: false, return_tensor: true }) as {
      input_ids: Tensor;
      attention_mask: Tensor;
    };
    const ids = Array.from(inputs.input_ids.data as BigInt64Array, Number);
    promptTokens = ids.length;
    if (ids.length > request.maxPromptTokens) {
      post({ type: 'too-long', id, promptTokens });
      return;
    }
    const streamer = new TextStreamer(tokenizer, {
      skip_prompt: true,
      skip_special_tokens: true,
      callback_function: (piece: string) => {
        if (!piece) return;
        text += piece;
        post({ type: 'token', id, text: piece });
      },
      token_callback_function: () => {
        firstAt ??= performance.now();
        completionTokens++;
      },
    });
    const past = reusable(ids);
    cachedPromptTokens = past?.get_seq_length() ?? 0;
    kept = null; // consumed: the call extends it, or it is stale after a failure
    const greedy = request.temperature <= 0;
    const result = (await model.generate({
      ...inputs,
      max_new_tokens: request.maxTokens,
      ...(request.minTokens ? { min_new_tokens: request.minTokens } : {}),
      do_sample: !greedy,
      ...(greedy ? {} : { temperature: request.temperature }),
      streamer,
      stopping_criteria: [stop],
      return_dict_in_generate: true,
      ...(past ? { past_key_values: past } : {}),
    } as Parameters<PreTrainedModel['generate']>[0])) as unknown as {
      sequences: Tensor;
      past_key_values: DynamicCache;
    };
    const held = result.past_key_values.get_seq_length();
    kept = {
      ids: Array.from(result.sequences.data as BigInt64Array, Number).slice(0, held),
      cache: result.past_key_values,
    };
    const eos = completionTokens < request.maxTokens;
    post({
      type: 'done',
      id,
      text,
      finish: eos ? 'stop' : 'length',
      stopped: stop.interrupted,
      stats: stats(),
    });
  } catch (error) {
    kept = null;
    const detail = error instanceof Error ? error.message : String(error);
    post({ type: 'error', id, detail, text, stats: stats() });
  } finally {
    running.delete(id);
  }
}

/**
 * The kept cache cut to the prompt's longest shared start (at least one token is always read:
 * the model needs it to give the next token's logits), or null when too little is shared.
 */
function reusable(ids: readonly number[]): DynamicCache | null {
  if (!kept) return null;
  const limit = Math.min(kept.ids.length, ids.length - 1);
  let shared = 0;
  while (shared < limit && kept.ids[shared] === ids[shared]) shared++;
  if (shared < MIN_REUSED_TOKENS) return null;
  const entries: Record<string, Tensor> = {};
  for (const [name, tensor] of Object.entries(kept.cache)) {
    if (!name.startsWith('past_key_values.')) continue;
    // [batch, kv heads, tokens, head size]: keep the first `shared` tokens.
    entries[name] = tensor.slice(null, null, [0, shared], null);
  }
  return new DynamicCache(entries);
}
