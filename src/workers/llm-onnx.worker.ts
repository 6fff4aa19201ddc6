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
  Tensor as HfTensor,
  TextStreamer,
  env,
  type PreTrainedModel,
  type PreTrainedTokenizer,
  type Tensor,
} from '@huggingface/transformers';
import { configureTransformers, ortNumThreads, setHubHost } from '../models/transformers-env';
import { createDownloadProgress } from '../models/load-progress';
import type { FromOnnxWorker, OnnxCallStats, ToOnnxWorker } from '../llm/onnx/protocol';
import { PREFILL_CHUNK_TOKENS, prefillEnds } from '../llm/onnx/prefill';
import { ONNX_MODEL_FILES } from '../llm/onnx/catalogue';

let tokenizer: PreTrainedTokenizer | null = null;
let model: PreTrainedModel | null = null;
/**
 * A call's stop switch: set by a 'stop' message, or read from the page's shared stop flag. The
 * flag is what makes Stop work during a call: reading and writing run ONNX Runtime without
 * returning to this worker's event loop, so a 'stop' message waits until the call is over.
 */
class StopSwitch extends InterruptableStoppingCriteria {
  constructor(private readonly id: number) {
    super();
  }
  get stopped(): boolean {
    return this.interrupted || (stopFlag !== null && Atomics.load(stopFlag, 0) === this.id);
  }
  override _call(inputIds: number[][]): boolean[] {
    return new Array<boolean>(inputIds.length).fill(this.stopped);
  }
}

/** The stop switch of the call in progress, by its id. */
const running = new Map<number, StopSwitch>();
/** The page's stop flag (an Int32Array over shared memory: the id of the call to stop), if any. */
let stopFlag: Int32Array | null = null;
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
/** Tokens per piece a prompt is read in (src/llm/onnx/prefill.ts); the speed check may set it. */
let prefillChunk = PREFILL_CHUNK_TOKENS;

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

async function load({
  modelId,
  host,
  threads,
  session,
  stop,
}: Extract<ToOnnxWorker, { type: 'load' }>) {
  stopFlag = stop ?? null;
  try {
    await configureTransformers(threads || undefined);
    const { prefillChunk: chunk, modelFile, ...sessionOptions } = session ?? {};
    if (chunk !== undefined) prefillChunk = chunk;
    const hub = setHubHost(host);
    // transformers.js reports a missing model as whatever its first missing file breaks
    // ("reading 'tokenizer_class'"): ask for the config first, to say plainly that it is not there.
    const files = `${hub.replace(/\/+$/, '')}/${modelId}/resolve/main`;
    const configUrl = `${files}/config.json`;
    // Offline, the request fails: the model may still be in the browser's cache, so the load goes on.
    const head = await fetch(configUrl, { method: 'HEAD' }).catch(() => null);
    if (head && (head.status === 404 || head.status === 401)) {
      post({ type: 'load-error', detail: `config.json: HTTP ${head.status}`, notFound: true });
      return;
    }
    const graph = await chooseGraph(files, modelFile);
    const progress = createDownloadProgress((p) =>
      post({ type: 'progress', text: `Downloading ${modelId}`, loaded: p.done, total: p.total }),
    );
    tokenizer = await AutoTokenizer.from_pretrained(modelId, { progress_callback: progress });
    // dtype fp32 with the chosen file name: onnx/{file}.onnx as it is (no dtype suffix). ONNX
    // Runtime's 4-bit and 16-bit kernels measured slower here (BENCHMARKS.md).
    model = await AutoModelForCausalLM.from_pretrained(modelId, {
      dtype: 'fp32',
      model_file_name: graph.file,
      device: 'wasm',
      progress_callback: progress,
      ...(Object.keys(sessionOptions).length ? { session_options: sessionOptions } : {}),
    });
    const config = model.config as unknown as { max_position_embeddings?: number };
    post({
      type: 'loaded',
      contextLimit: config.max_position_embeddings ?? 2048,
      chat: Boolean((tokenizer as unknown as { chat_template?: unknown }).chat_template),
      threads: ortNumThreads(),
      file: graph.file,
      weights: graph.weights,
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

/**
 * The graph file to load: the one named (the speed check page), else the first of
 * ONNX_MODEL_FILES the host has (a HEAD request each; the float32 `model` is the last resort and
 * is not asked about: its absence is reported by the load itself).
 */
async function chooseGraph(
  base: string,
  named: string | undefined,
): Promise<(typeof ONNX_MODEL_FILES)[number]> {
  const known = ONNX_MODEL_FILES.find((f) => f.file === named);
  if (named) return known ?? { file: named, weights: 'as named' };
  const kept = await caches.open(env.cacheKey).catch(() => null);
  for (const candidate of ONNX_MODEL_FILES.slice(0, -1)) {
    const url = `${base}/onnx/${candidate.file}.onnx`;
    // Kept by the browser from an earlier load (so offline too), or on the host.
    if (await kept?.match(url).catch(() => undefined)) return candidate;
    const head = await fetch(url, { method: 'HEAD' }).catch(() => null);
    if (head?.ok) return candidate;
  }
  return ONNX_MODEL_FILES[ONNX_MODEL_FILES.length - 1];
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
  const stop = new StopSwitch(id);
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
    let past = reusable(ids);
    cachedPromptTokens = past?.get_seq_length() ?? 0;
    kept = null; // consumed: the call extends it, or it is stale after a failure
    for (const end of prefillEnds(cachedPromptTokens, ids.length, prefillChunk)) {
      if (stop.stopped) break;
      past = await extend(ids, end, past);
    }
    if (stop.stopped) {
      // Stopped while reading: nothing written. What was read is kept, so a next prompt that
      // starts the same way (the same instructions, the question asked again) does not read it
      // again.
      if (past) kept = { ids: ids.slice(0, past.get_seq_length()), cache: past };
      post({ type: 'done', id, text, finish: 'stop', stopped: true, stats: stats() });
      return;
    }
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
      stopped: stop.stopped,
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
 * Reads the prompt's tokens from where `past` ends up to `end` in one model call, and returns the
 * cache extended by them (the call's logits are not needed: only the last piece's are).
 */
async function extend(
  ids: readonly number[],
  end: number,
  past: DynamicCache | null,
): Promise<DynamicCache> {
  const start = past?.get_seq_length() ?? 0;
  const piece = ids.slice(start, end).map(BigInt);
  const outputs = (await model!.forward({
    input_ids: new HfTensor('int64', BigInt64Array.from(piece), [1, piece.length]),
    attention_mask: new HfTensor('int64', new BigInt64Array(end).fill(1n), [1, end]),
    ...(past ? { past_key_values: past } : {}),
  })) as Record<string, Tensor>;
  const entries: Record<string, Tensor> = {};
  for (const [name, tensor] of Object.entries(outputs))
    if (name.startsWith('present')) entries[name.replace('present', 'past_key_values')] = tensor;
  return new DynamicCache(entries);
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
