/**
 * @file Test helpers for the HTTP engines: a fake `fetch` that records requests and answers with
 * scripted responses, including streams that break off. Used by the engines' unit tests only.
 */
import type { FetchLike } from './http';

export interface RecordedRequest {
  url: string;
  init: RequestInit;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** A streamed body from text chunks; `breakAfter` errors the stream after that many chunks. */
export function streamBody(chunks: string[], breakAfter?: number): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let at = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (breakAfter !== undefined && at === breakAfter) {
        controller.error(new TypeError('network error'));
        return;
      }
      if (at === chunks.length) {
        controller.close();
        return;
      }
      controller.enqueue(encoder.encode(chunks[at++]));
    },
  });
}

export function sseResponse(chunks: string[], breakAfter?: number): Response {
  return new Response(streamBody(chunks, breakAfter), {
    status: 200,
    headers: { 'content-type': 'text/event-stream; charset=utf-8' },
  });
}

export function jsonResponse(status: number, json: unknown, headers: Record<string, string> = {}) {
  return new Response(JSON.stringify(json), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/** A fetch that answers each call with the next scripted response (or throws it). */
export function fakeFetch(
  answers: Array<Response | Error | ((init: RequestInit) => Promise<Response>)>,
): FetchLike & { requests: RecordedRequest[] } {
  const requests: RecordedRequest[] = [];
  const fn = async (url: string, init: RequestInit) => {
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    requests.push({ url, init, headers, body: JSON.parse(String(init.body)) });
    if (init.signal?.aborted) throw new DOMException('The operation was aborted.', 'AbortError');
    const next = answers.shift();
    if (!next) throw new Error('fakeFetch: no answer scripted');
    if (next instanceof Error) throw next;
    if (typeof next === 'function') return next(init);
    return next;
  };
  return Object.assign(fn, { requests });
}
