/**
 * @file The ONNX engine: a decoder model in ONNX form, run in this page's worker by ONNX Runtime
 * Web (WebAssembly, SIMD, threads where the page is cross-origin isolated) through
 * transformers.js.
 *
 * Why beside wllama: for the same SmolLM2 weights, ONNX Runtime multiplies whole matrices while
 * llama.cpp's WebAssembly build takes one weight row against one token at a time, so this engine
 * reads a prompt about four times as fast on the same CPU and writes faster too (BENCHMARKS.md,
 * "The ONNX engine"). It needs the model as an ONNX graph with a KV cache (the hub's
 * `onnx/model.onnx` layout that transformers.js reads), not a GGUF file; `npm run models` writes
 * SmolLM2's from the pinned GGUF (scripts/gguf-to-onnx.py).
 */
import { STOPPED } from '../errors';
import { estimateTokens } from '../tokens';
import type {
  GenerateOutcome,
  GenerateRequest,
  GenerateStats,
  LlmEngine,
  LlmError,
  LoadProgress,
} from '../types';
import type {
  FromOnnxWorker,
  OnnxCallStats,
  OnnxModelFacts,
  OnnxSessionTuning,
  ToOnnxWorker,
} from './protocol';

export interface OnnxSource {
  /** A hub model id, `owner/name`, whose files follow transformers.js's layout. */
  modelId: string;
  /** The hub host (huggingface.co or a mirror in its layout). */
  host: string;
  /** wasm threads; 0 = automatic (half the cores where threads work). */
  threads: number;
  /** Tokens read and written per request at most (never above the model's own window). */
  contextSize: number;
  /** ONNX Runtime session options to measure (the speed check page); the app leaves them. */
  session?: OnnxSessionTuning;
}

/** Whether `id` looks like a hub model id (`owner/name`), the only thing this engine loads. */
export function isHubModelId(id: string): boolean {
  return /^[A-Za-z0-9][\w.-]*\/[A-Za-z0-9][\w.-]*$/.test(id.trim());
}

function loadError(source: OnnxSource, detail: string, notFound: boolean): LlmError {
  const where = source.host.replace(/^https?:\/\//, '').replace(/\/+$/, '');
  return {
    code: 'model-load',
    message: notFound
      ? `${source.modelId} has no ONNX model at ${where} (the engine reads config.json, tokenizer.json and onnx/model.onnx). Check the model name and the hub host setting.`
      : `Could not load ${source.modelId} from ${where}. Check the connection and the hub host setting.`,
    detail,
  };
}

/**
 * Start a worker and load the model in it. Resolves with the engine or an error value; the
 * signal cancels the load (the worker is stopped).
 */
export async function loadOnnxLlm(
  source: OnnxSource,
  events: { onProgress?: (p: LoadProgress) => void; signal?: AbortSignal } = {},
): Promise<{ ok: true; engine: OnnxLlmEngine } | { ok: false; error: LlmError }> {
  if (!isHubModelId(source.modelId)) {
    return {
      ok: false,
      error: {
        code: 'bad-request',
        message: `“${source.modelId}” is not a model name of the form owner/name.`,
      },
    };
  }
  if (events.signal?.aborted) return { ok: false, error: STOPPED };
  // Stop's shared flag, where memory can be shared (a cross-origin isolated page).
  const stopFlag =
    typeof SharedArrayBuffer !== 'undefined' && globalThis.crossOriginIsolated === true
      ? new Int32Array(new SharedArrayBuffer(4))
      : null;
  const worker = new Worker(new URL('../../workers/llm-onnx.worker.ts', import.meta.url), {
    type: 'module',
  });
  const loaded = await new Promise<
    { ok: true; facts: OnnxModelFacts } | { ok: false; error: LlmError }
  >((resolve) => {
    const onAbort = () => resolve({ ok: false, error: STOPPED });
    events.signal?.addEventListener('abort', onAbort, { once: true });
    worker.onerror = (e) =>
      resolve({ ok: false, error: loadError(source, e.message || 'The worker failed.', false) });
    worker.onmessage = (e: MessageEvent<FromOnnxWorker>) => {
      const m = e.data;
      if (m.type === 'progress')
        events.onProgress?.({ text: m.text, loaded: m.loaded, total: m.total });
      else if (m.type === 'loaded') resolve({ ok: true, facts: m });
      else if (m.type === 'load-error')
        resolve({ ok: false, error: loadError(source, m.detail, m.notFound) });
    };
    const load: ToOnnxWorker = {
      type: 'load',
      modelId: source.modelId.trim(),
      host: source.host,
      threads: source.threads,
      ...(source.session ? { session: source.session } : {}),
      ...(stopFlag ? { stop: stopFlag } : {}),
    };
    worker.postMessage(load);
  });
  if (!loaded.ok) {
    worker.terminate();
    return loaded;
  }
  return { ok: true, engine: new OnnxLlmEngine(worker, source, loaded.facts, stopFlag) };
}

type Pending = {
  onToken?: (text: string) => void;
  resolve: (m: FromOnnxWorker) => void;
};

export class OnnxLlmEngine implements LlmEngine {
  readonly kind = 'onnx' as const;
  readonly exactTokenCounts = true;
  readonly promptStyle: 'chat' | 'text';
  readonly contextLimit: number;
  readonly label: string;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private dead: string | null = null;

  constructor(
    private readonly worker: Worker,
    readonly source: OnnxSource,
    readonly facts: OnnxModelFacts,
    /** Shared with the worker: the id of the call to stop (see protocol.ts). */
    private readonly stopFlag: Int32Array | null = null,
  ) {
    this.promptStyle = facts.chat ? 'chat' : 'text';
    this.contextLimit = Math.min(facts.contextLimit, source.contextSize);
    const name = source.modelId.split('/').pop();
    this.label = `${name} in this browser (ONNX Runtime, ${facts.weights}, ${facts.threads} thread${facts.threads === 1 ? '' : 's'})`;
    worker.onmessage = (e: MessageEvent<FromOnnxWorker>) => this.receive(e.data);
    worker.onerror = (e) => this.fail(e.message || 'The model worker stopped.');
  }

  private receive(m: FromOnnxWorker) {
    if (!('id' in m)) return;
    const call = this.pending.get(m.id);
    if (!call) return;
    if (m.type === 'token') {
      call.onToken?.(m.text);
      return;
    }
    this.pending.delete(m.id);
    call.resolve(m);
  }

  private fail(detail: string) {
    this.dead = detail;
    for (const [id, call] of this.pending) {
      call.resolve({
        type: 'error',
        id,
        detail,
        text: '',
        stats: {
          promptTokens: 0,
          cachedPromptTokens: 0,
          completionTokens: 0,
          firstTokenMs: 0,
          elapsedMs: 0,
        },
      });
    }
    this.pending.clear();
  }

  private call(message: ToOnnxWorker & { id: number }, onToken?: (t: string) => void) {
    return new Promise<FromOnnxWorker>((resolve) => {
      this.pending.set(message.id, { resolve, onToken });
      this.worker.postMessage(message);
    });
  }

  async countTokens(text: string): Promise<number> {
    if (this.dead) return estimateTokens(text);
    const reply = await this.call({ type: 'count', id: this.nextId++, text });
    return reply.type === 'count' ? reply.tokens : estimateTokens(text);
  }

  async generate(request: GenerateRequest): Promise<GenerateOutcome> {
    const started = performance.now();
    const empty: GenerateStats = { elapsedMs: 0 };
    if (request.signal?.aborted) return { ok: false, text: '', error: STOPPED, stats: empty };
    if (this.dead) return { ok: false, text: '', error: this.engineError(this.dead), stats: empty };
    const id = this.nextId++;
    const stop = () => {
      if (this.stopFlag) Atomics.store(this.stopFlag, 0, id);
      this.worker.postMessage({ type: 'stop', id } satisfies ToOnnxWorker);
    };
    request.signal?.addEventListener('abort', stop, { once: true });
    try {
      const reply = await this.call(
        {
          type: 'generate',
          id,
          messages: this.promptStyle === 'chat' ? request.messages : null,
          text: request.text,
          maxTokens: request.maxTokens,
          maxPromptTokens: Math.max(1, this.contextLimit - request.maxTokens),
          temperature: request.temperature ?? 0,
        },
        request.onToken,
      );
      const elapsedMs = performance.now() - started;
      if (reply.type === 'too-long') {
        return {
          ok: false,
          text: '',
          error: {
            code: 'context-length',
            message: `The prompt is ${reply.promptTokens.toLocaleString('en')} tokens and leaves no room for a ${request.maxTokens}-token answer in the ${this.contextLimit.toLocaleString('en')}-token context. Lower the answer length or the passages to read.`,
          },
          stats: { elapsedMs, promptTokens: reply.promptTokens },
        };
      }
      if (reply.type === 'done') {
        const stats = statsOf(reply.stats, elapsedMs);
        if (reply.stopped || request.signal?.aborted)
          return { ok: false, text: reply.text, error: STOPPED, stats };
        return { ok: true, text: reply.text, finish: reply.finish, stats };
      }
      if (reply.type === 'error') {
        const stats = statsOf(reply.stats, elapsedMs);
        if (request.signal?.aborted) return { ok: false, text: reply.text, error: STOPPED, stats };
        return { ok: false, text: reply.text, error: this.engineError(reply.detail), stats };
      }
      return { ok: false, text: '', error: this.engineError('Unexpected reply.'), stats: empty };
    } finally {
      request.signal?.removeEventListener('abort', stop);
    }
  }

  /**
   * The speed check page's run: `text` read as is, without the chat template (the same tokens as
   * a plain completion in llama.cpp), then `maxTokens` written greedily, an end-of-text token
   * held back until then so every engine writes as many. The worker's own timings.
   */
  async measure(
    text: string,
    maxTokens: number,
  ): Promise<{ ok: true; stats: OnnxCallStats; text: string } | { ok: false; detail: string }> {
    if (this.dead) return { ok: false, detail: this.dead };
    const reply = await this.call({
      type: 'generate',
      id: this.nextId++,
      messages: null,
      text,
      maxTokens,
      maxPromptTokens: Math.max(1, this.contextLimit - maxTokens),
      temperature: 0,
      minTokens: maxTokens,
    });
    if (reply.type === 'done') return { ok: true, stats: reply.stats, text: reply.text };
    if (reply.type === 'too-long')
      return {
        ok: false,
        detail: `The prompt is ${reply.promptTokens} tokens: no room for ${maxTokens} more in ${this.contextLimit}.`,
      };
    return { ok: false, detail: reply.type === 'error' ? reply.detail : 'Unexpected reply.' };
  }

  private engineError(detail: string): LlmError {
    return {
      code: 'engine',
      message: `${this.source.modelId} failed while answering. Load it again, or pick another engine.`,
      detail,
    };
  }

  async dispose(): Promise<void> {
    this.fail('The model was unloaded.');
    this.worker.terminate();
  }
}

/** The worker's timings as the engines report them. */
export function statsOf(s: OnnxCallStats, elapsedMs: number): GenerateStats {
  const stats: GenerateStats = {
    elapsedMs,
    promptTokens: s.promptTokens,
    completionTokens: s.completionTokens,
  };
  if (s.cachedPromptTokens > 0) stats.cachedPromptTokens = s.cachedPromptTokens;
  if (s.completionTokens > 0) {
    stats.firstTokenMs = s.firstTokenMs;
    // The first token's time is the prompt's read plus one step: counted as reading, of the
    // tokens actually read (not those taken from the cache).
    const read = s.promptTokens - s.cachedPromptTokens;
    if (s.firstTokenMs > 0 && read > 0)
      stats.promptTokensPerSecond = (read * 1000) / s.firstTokenMs;
  }
  const writing = s.elapsedMs - s.firstTokenMs;
  if (s.completionTokens > 1 && writing > 0)
    stats.tokensPerSecond = ((s.completionTokens - 1) * 1000) / writing;
  return stats;
}
