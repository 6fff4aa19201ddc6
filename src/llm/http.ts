/**
 * @file The part the HTTP engines share: send one streaming request, read its server-sent
 * events through a provider's event handler, and turn every way it can end into a
 * `GenerateOutcome`.
 *
 * Requests carry no cookies and no referrer: the only thing the endpoint learns is what the
 * person chose to send it (the prompt, and the key in a header).
 */
import { readSse, type SseEvent } from './sse';
import { brokenStreamError, connectError, hostOf, httpError, isAbort, STOPPED } from './errors';
import { estimateTokens } from './tokens';
import type {
  FinishReason,
  GenerateOutcome,
  GenerateRequest,
  GenerateStats,
  LlmError,
} from './types';

/** What one event of the stream means. */
export interface StreamStep {
  text?: string;
  finish?: FinishReason;
  /** The stream's end marker ([DONE], message_stop). */
  done?: boolean;
  error?: LlmError;
  promptTokens?: number;
  completionTokens?: number;
}

export interface StreamProtocol {
  url: string;
  headers: Record<string, string>;
  body: unknown;
  onEvent(event: SseEvent): StreamStep;
  /** The answer when a server ignores `stream: true` and sends one JSON document. */
  fromJson(json: unknown): { text: string; finish: FinishReason } | null;
}

export interface RequestMeta {
  host: string;
  model: string;
  hadKey: boolean;
}

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export function defaultFetch(): FetchLike {
  return (input, init) => globalThis.fetch(input, init);
}

/** Join a base URL and a path with exactly one slash. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

export async function streamChat(
  fetchFn: FetchLike,
  protocol: StreamProtocol,
  request: GenerateRequest,
  meta: RequestMeta,
  now: () => number = () => performance.now(),
): Promise<GenerateOutcome> {
  const started = now();
  let text = '';
  let firstAt: number | undefined;
  let promptTokens: number | undefined;
  let completionTokens: number | undefined;
  const stats = (): GenerateStats => {
    const end = now();
    const s: GenerateStats = { elapsedMs: end - started };
    if (firstAt !== undefined) s.firstTokenMs = firstAt - started;
    if (promptTokens !== undefined) s.promptTokens = promptTokens;
    // Only the server knows its token counts; stream pieces are not tokens.
    if (completionTokens !== undefined) {
      s.completionTokens = completionTokens;
      if (firstAt !== undefined && completionTokens > 1 && end > firstAt) {
        s.tokensPerSecond = ((completionTokens - 1) * 1000) / (end - firstAt);
      }
    }
    return s;
  };
  const fail = (error: LlmError): GenerateOutcome => ({ ok: false, text, error, stats: stats() });
  const { signal } = request;
  if (signal?.aborted) return fail(STOPPED);

  let response: Response;
  try {
    response = await fetchFn(protocol.url, {
      method: 'POST',
      headers: protocol.headers,
      body: JSON.stringify(protocol.body),
      signal,
      mode: 'cors',
      credentials: 'omit',
      cache: 'no-store',
      referrerPolicy: 'no-referrer',
    });
  } catch (error) {
    return fail(isAbort(error) || signal?.aborted ? STOPPED : connectError(meta.host, error));
  }

  if (!response.ok) {
    let body = '';
    try {
      body = await response.text();
    } catch (error) {
      if (isAbort(error) || signal?.aborted) return fail(STOPPED);
    }
    return fail(
      httpError({
        status: response.status,
        headers: response.headers,
        body,
        host: meta.host,
        model: meta.model,
        hadKey: meta.hadKey,
      }),
    );
  }

  const type = response.headers.get('content-type') ?? '';
  if (!type.includes('text/event-stream') || !response.body) {
    try {
      const answer = protocol.fromJson(await response.json());
      if (!answer) return fail(brokenStreamError(meta.host, 'The answer had no text.'));
      firstAt = now();
      text = answer.text;
      if (text) request.onToken?.(text);
      return { ok: true, text, finish: answer.finish, stats: stats() };
    } catch (error) {
      if (isAbort(error) || signal?.aborted) return fail(STOPPED);
      return fail(brokenStreamError(meta.host, error));
    }
  }

  let finish: FinishReason | undefined;
  let done = false;
  try {
    for await (const event of readSse(response.body)) {
      const step = protocol.onEvent(event);
      if (step.promptTokens !== undefined) promptTokens = step.promptTokens;
      if (step.completionTokens !== undefined) completionTokens = step.completionTokens;
      if (step.error) return fail(step.error);
      if (step.text) {
        firstAt ??= now();
        text += step.text;
        request.onToken?.(step.text);
      }
      if (step.finish) finish = step.finish;
      if (step.done) {
        done = true;
        break;
      }
    }
  } catch (error) {
    if (isAbort(error) || signal?.aborted) return fail(STOPPED);
    return fail(brokenStreamError(meta.host, error));
  }
  if (signal?.aborted) return fail(STOPPED);
  if (!done && !finish) return fail(brokenStreamError(meta.host));
  return { ok: true, text, finish: finish ?? 'stop', stats: stats() };
}

/** Parse an event's JSON data; undefined when it is not JSON. */
export function jsonOf(event: SseEvent): unknown {
  try {
    return JSON.parse(event.data);
  } catch {
    return undefined;
  }
}

/** What every HTTP engine's settings hold. */
export interface HttpEngineSettings {
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** The model's context window in tokens (APIs do not say; the person sets it). */
  contextLimit: number;
}

/**
 * The part of an API engine that does not depend on the provider: chat prompts, estimated token
 * counts (an API has no tokenizer the page can call), the label and host named in messages, and
 * nothing to dispose of. A provider adds its `kind` and `generate` (openai.ts, anthropic.ts).
 */
export abstract class HttpEngine<S extends HttpEngineSettings = HttpEngineSettings> {
  readonly promptStyle = 'chat' as const;
  readonly exactTokenCounts = false;
  readonly contextLimit: number;
  readonly label: string;
  protected readonly host: string;

  constructor(
    protected readonly settings: S,
    protected readonly fetchFn: FetchLike = defaultFetch(),
  ) {
    this.contextLimit = settings.contextLimit;
    this.host = hostOf(settings.baseUrl);
    this.label = `${settings.model} at ${this.host}`;
  }

  /** The key, trimmed ('' when none): sent in the provider's header when there is one. */
  protected get key(): string {
    return this.settings.apiKey?.trim() ?? '';
  }

  /** One streaming request in the provider's protocol, ended as a `GenerateOutcome`. */
  protected stream(protocol: StreamProtocol, request: GenerateRequest): Promise<GenerateOutcome> {
    const { host, settings } = this;
    return streamChat(this.fetchFn, protocol, request, {
      host,
      model: settings.model,
      hadKey: this.key !== '',
    });
  }

  async countTokens(text: string): Promise<number> {
    return estimateTokens(text);
  }

  async dispose(): Promise<void> {}
}
