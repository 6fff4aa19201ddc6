/**
 * @file One streaming interface for every generation engine (DESIGN.md section 5): API engines
 * (OpenAI-compatible, Anthropic) and in-browser engines (wllama on the CPU, WebLLM on WebGPU).
 *
 * Failures are values: `generate` resolves with `{ ok: false, error }` carrying a message a
 * person can act on, and whatever text had already arrived. Nothing an engine does throws to
 * the UI except programming errors.
 */
import type { PromptMessage, PromptStyle } from '../core/prompt';

export type EngineKind = 'openai' | 'anthropic' | 'wllama' | 'webllm' | 'onnx';

export type LlmErrorCode =
  /** The key is missing, wrong, or lacks permission (401, 403). */
  | 'auth'
  /** Too many requests or out of quota (429); `retryAfterSeconds` when the server said. */
  | 'rate-limit'
  /** The server failed or is overloaded (5xx, 529, an error event in the stream). */
  | 'server'
  /** The server could not be reached, refused this page (CORS), or the connection dropped. */
  | 'network'
  /** The person stopped it. Not an error to show. */
  | 'aborted'
  /** This browser lacks what the engine needs (WebGPU, shader-f16, WebAssembly). */
  | 'unsupported'
  /** The request was refused as malformed: unknown model, bad parameter, wrong URL (400, 404, 422). */
  | 'bad-request'
  /** The prompt is longer than the model's context window. */
  | 'context-length'
  /** A model file could not be downloaded or read. */
  | 'model-load'
  /** The GPU device was lost (often out of memory); the model must be loaded again. */
  | 'device-lost'
  /** An in-browser model failed while generating. */
  | 'engine';

export interface LlmError {
  code: LlmErrorCode;
  /** What happened and what to do next, in plain words. */
  message: string;
  /** From a 429's Retry-After (or the provider's own field). */
  retryAfterSeconds?: number;
  /** HTTP status, when there was one. */
  status?: number;
  /** The server's or library's own words, for the curious. */
  detail?: string;
}

export interface GenerateRequest {
  /** The prompt for chat engines. */
  messages: readonly PromptMessage[];
  /** The same prompt as one text, for engines whose `promptStyle` is 'text'. */
  text: string;
  /** Most tokens to generate. */
  maxTokens: number;
  /** Sampling temperature; engines' defaults when absent. */
  temperature?: number;
  signal?: AbortSignal;
  /** Called with each piece of text as it arrives. */
  onToken?: (text: string) => void;
}

export interface GenerateStats {
  /** From the first byte of the request to the end. */
  elapsedMs: number;
  /** From the request to the first token. */
  firstTokenMs?: number;
  /** Tokens of the prompt, all of them (read now or taken from the cache). */
  promptTokens?: number;
  /**
   * Of `promptTokens`, those an in-browser engine took from its cache (a prefix it had read in
   * an earlier call: the count before this answer, a pipeline's shared instructions) instead of
   * reading again.
   */
  cachedPromptTokens?: number;
  completionTokens?: number;
  /** Generation speed after the first token, as the engine reports it or as measured. */
  tokensPerSecond?: number;
  /** How fast the prompt was read (in-browser engines report it); prompt tokens per second. */
  promptTokensPerSecond?: number;
  /** Times an in-browser engine was restarted during the call because it stopped answering. */
  restarts?: number;
}

export type FinishReason = 'stop' | 'length';

export type GenerateOutcome =
  | { ok: true; text: string; finish: FinishReason; stats: GenerateStats }
  | { ok: false; text: string; error: LlmError; stats: GenerateStats };

export interface LlmEngine {
  readonly kind: EngineKind;
  /** Model and where it runs, for people: "gpt-4o-mini at api.openai.com". */
  readonly label: string;
  /** Tokens the model reads and writes in one request. */
  readonly contextLimit: number;
  /** Whether the engine is sent `messages` (chat) or `text` (a base model continuing text). */
  readonly promptStyle: PromptStyle;
  /** True when `countTokens` uses the model's own tokenizer, false for an estimate. */
  readonly exactTokenCounts: boolean;
  /** Tokens of a text in this model (exact or estimated, see `exactTokenCounts`). */
  countTokens(text: string, signal?: AbortSignal): Promise<number>;
  /**
   * The exact size of a whole prompt as the engine will read it (chat template included), where
   * counting it means reading it: the engine keeps what it read, so the answer to the same
   * prompt that follows reads it once, not twice. Engines without it are counted on the text.
   */
  countPromptTokens?(
    prompt: { messages: readonly PromptMessage[]; text: string },
    signal?: AbortSignal,
  ): Promise<number>;
  generate(request: GenerateRequest): Promise<GenerateOutcome>;
  /** Free the model and its worker. The engine is unusable afterwards. */
  dispose(): Promise<void>;
}

/** Download or load progress of an in-browser model. `loaded` never decreases within a load. */
export interface LoadProgress {
  /** What is happening, for people: "Downloading stories260K.gguf". */
  text: string;
  loaded: number;
  /** 0 when unknown. */
  total: number;
}

/** Thrown by `streamTokens` when generation fails; carries the error value. */
export class LlmFailure extends Error {
  constructor(
    readonly error: LlmError,
    readonly partialText: string,
  ) {
    super(error.message);
    this.name = error.code === 'aborted' ? 'AbortError' : 'LlmFailure';
  }
}

/**
 * The same generation as an async iterator of text pieces, for code that prefers `for await`.
 * Ends normally at the end of the answer; throws `LlmFailure` (name 'AbortError' when stopped).
 */
export async function* streamTokens(
  engine: LlmEngine,
  request: Omit<GenerateRequest, 'onToken'>,
): AsyncGenerator<string, GenerateOutcome, void> {
  const queue: string[] = [];
  let wake: (() => void) | null = null;
  let outcome: GenerateOutcome | null = null;
  const done = engine
    .generate({
      ...request,
      onToken: (t) => {
        queue.push(t);
        wake?.();
      },
    })
    .then((o) => {
      outcome = o;
      wake?.();
    });
  while (true) {
    if (queue.length) {
      yield queue.shift()!;
      continue;
    }
    if (outcome) break;
    await new Promise<void>((resolve) => (wake = resolve));
    wake = null;
  }
  await done;
  const result = outcome as unknown as GenerateOutcome;
  if (!result.ok) throw new LlmFailure(result.error, result.text);
  return result;
}
