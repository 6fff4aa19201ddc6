/**
 * @file Failures of the API engines turned into `LlmError` values a person can act on: an HTTP
 * status with the provider's own words, a connection that could not be made or broke off, an
 * error event inside a stream.
 */
import type { LlmError, LlmErrorCode } from './types';

export type Provider = 'openai' | 'anthropic';

/** Seconds from a Retry-After header: delta-seconds or an HTTP date. */
export function parseRetryAfter(
  value: string | null | undefined,
  now: number = Date.now(),
): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.ceil(Number(trimmed));
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

/** Retry-After, or OpenAI's `retry-after-ms`, or the rate-limit reset of some providers. */
export function retryAfterOf(headers: Headers, now: number = Date.now()): number | undefined {
  const seconds = parseRetryAfter(headers.get('retry-after'), now);
  if (seconds !== undefined) return seconds;
  const ms = headers.get('retry-after-ms');
  if (ms && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.ceil(Number(ms) / 1000);
  return undefined;
}

interface ProviderError {
  message?: string;
  /** OpenAI `code` / `type`, Anthropic `error.type`. */
  type?: string;
}

/**
 * The error inside a provider's JSON body: OpenAI `{error: {message, type, code}}`, Anthropic
 * `{type: 'error', error: {type, message}}`, Ollama and others `{error: "text"}`.
 */
export function providerError(body: string): ProviderError {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    const text = body.trim();
    return text && text.length < 300 && !text.startsWith('<') ? { message: text } : {};
  }
  if (!json || typeof json !== 'object') return {};
  const error = (json as { error?: unknown }).error;
  if (typeof error === 'string') return { message: error };
  if (error && typeof error === 'object') {
    const e = error as { message?: unknown; type?: unknown; code?: unknown };
    return {
      message: typeof e.message === 'string' ? e.message : undefined,
      type: typeof e.code === 'string' ? e.code : typeof e.type === 'string' ? e.type : undefined,
    };
  }
  const message = (json as { message?: unknown }).message;
  return typeof message === 'string' ? { message } : {};
}

const CONTEXT_WORDS =
  /context.length|context_length|maximum context|context window|too many tokens|prompt is too long|exceeds the (available )?context|request_too_large|reduce the length/i;

function looksLikeContextOverflow(status: number, e: ProviderError): boolean {
  return status === 413 || CONTEXT_WORDS.test(`${e.type ?? ''} ${e.message ?? ''}`);
}

export interface HttpFailure {
  status: number;
  headers: Headers;
  body: string;
  /** Host the request went to, for the message: "api.openai.com". */
  host: string;
  model: string;
  /** Whether a key was sent. */
  hadKey: boolean;
  now?: number;
}

function withDetail(message: string, e: ProviderError): string {
  return e.message ? `${message} The server said: “${e.message.trim()}”` : message;
}

/** An HTTP error answer, as a value. */
export function httpError(f: HttpFailure): LlmError {
  const e = providerError(f.body);
  const base = { status: f.status, ...(e.message ? { detail: e.message } : {}) };
  const { status, host, model } = f;
  if (looksLikeContextOverflow(status, e)) {
    return {
      ...base,
      code: 'context-length',
      message: withDetail(
        `The prompt is longer than model “${model}” at ${host} accepts (${status}). Lower the ` +
          `context window setting (or the retrieval budget) and try again.`,
        e,
      ),
    };
  }
  if (status === 401) {
    return {
      ...base,
      code: 'auth',
      message: withDetail(
        f.hadKey
          ? `${host} rejected the API key (401). Check the key in the engine settings, or enter a new one.`
          : `${host} needs an API key (401). Enter your key in the engine settings.`,
        e,
      ),
    };
  }
  if (status === 403) {
    return {
      ...base,
      code: 'auth',
      message: withDetail(
        `${host} refused the request (403): the key may not have access to model “${model}”, ` +
          `or the account may be restricted.`,
        e,
      ),
    };
  }
  if (status === 429) {
    if (e.type === 'insufficient_quota') {
      return {
        ...base,
        code: 'rate-limit',
        message: withDetail(
          `The account at ${host} has run out of credit (429). Check its billing page; retrying will not help.`,
          e,
        ),
      };
    }
    const retryAfterSeconds = retryAfterOf(f.headers, f.now);
    const wait =
      retryAfterSeconds !== undefined
        ? `Try again in ${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'}.`
        : 'Wait a little and try again.';
    return {
      ...base,
      code: 'rate-limit',
      message: withDetail(`${host} is limiting requests (429). ${wait}`, e),
      ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
    };
  }
  if (status === 404) {
    return {
      ...base,
      code: 'bad-request',
      message: withDetail(
        `${host} has no such model or endpoint (404). Check the base URL (OpenAI-compatible ` +
          `servers usually end in /v1) and the model name “${model}”.`,
        e,
      ),
    };
  }
  if (status >= 400 && status < 500) {
    return {
      ...base,
      code: 'bad-request',
      message: withDetail(
        `${host} refused the request (${status}). Check the model name “${model}” and the settings.`,
        e,
      ),
    };
  }
  const overloaded = status === 503 || status === 529 || e.type === 'overloaded_error';
  const retryAfterSeconds = retryAfterOf(f.headers, f.now);
  return {
    ...base,
    code: 'server',
    message: withDetail(
      overloaded
        ? `${host} is overloaded (${status}). Try again in a moment.`
        : `${host} had a server error (${status}). The problem is on its side; try again in a moment.`,
      e,
    ),
    ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
  };
}

/** A fetch that failed before any answer: the server is down, the URL is wrong, or CORS. */
export function connectError(host: string, cause: unknown): LlmError {
  return {
    code: 'network',
    message:
      `Could not reach ${host}. Check the base URL and your connection, that the server is ` +
      `running, and that it accepts requests from this page (CORS; for Ollama, set OLLAMA_ORIGINS).`,
    detail: errorText(cause),
  };
}

/** The answer's stream broke off (connection dropped, or it ended without its end marker). */
export function brokenStreamError(host: string, cause?: unknown): LlmError {
  return {
    code: 'network',
    message:
      `The connection to ${host} broke off before the answer was complete. ` +
      `The part that arrived is kept; try again.`,
    ...(cause !== undefined ? { detail: errorText(cause) } : {}),
  };
}

export const STOPPED: LlmError = Object.freeze({ code: 'aborted', message: 'Stopped.' });

/** An error event inside a stream (OpenRouter `{error}` chunks, Anthropic `event: error`). */
export function streamError(host: string, body: string): LlmError {
  const e = providerError(body);
  const type = e.type ?? '';
  let code: LlmErrorCode = 'server';
  if (/rate_limit/.test(type)) code = 'rate-limit';
  else if (/authentication|permission/.test(type)) code = 'auth';
  else if (/invalid_request|not_found/.test(type)) code = 'bad-request';
  if (CONTEXT_WORDS.test(`${type} ${e.message ?? ''}`)) code = 'context-length';
  const what =
    type === 'overloaded_error'
      ? `${host} became overloaded while answering.`
      : `${host} reported an error while answering.`;
  return {
    code,
    message: withDetail(`${what} The part that arrived is kept; try again.`, e),
    ...(e.message ? { detail: e.message } : {}),
  };
}

export function isAbort(error: unknown): boolean {
  return (
    (error instanceof Error || (typeof error === 'object' && error !== null)) &&
    (error as { name?: unknown }).name === 'AbortError'
  );
}

export function errorText(error: unknown): string {
  if (typeof error === 'string') return error;
  if (error instanceof Error) return error.message;
  return String(error);
}

/** Host of a URL for messages; the URL itself when it does not parse. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
