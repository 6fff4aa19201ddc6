import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from './errors';
import { OpenAiCompatibleEngine } from './openai';
import { fakeFetch, jsonResponse, sseResponse } from './testing';
import type { GenerateRequest } from './types';

const settings = {
  baseUrl: 'https://api.example.test/v1/',
  model: 'test-model',
  apiKey: 'sk-secret',
  contextLimit: 8192,
};

function request(extra: Partial<GenerateRequest> = {}): GenerateRequest & { tokens: string[] } {
  const tokens: string[] = [];
  return {
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Question?' },
    ],
    text: 'unused',
    maxTokens: 64,
    onToken: (t) => tokens.push(t),
    tokens,
    ...extra,
  };
}

const delta = (content: string, finish: string | null = null) =>
  `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content }, finish_reason: finish }] })}\n\n`;

describe('OpenAI-compatible engine', () => {
  it('streams the answer and sends model, messages and key only to the chosen endpoint', async () => {
    const fetch = fakeFetch([
      sseResponse([
        delta('The Mock '),
        delta('Turtle [1].'),
        delta('', 'stop'),
        'data: [DONE]\n\n',
      ]),
    ]);
    const engine = new OpenAiCompatibleEngine(settings, fetch);
    const r = request();
    const outcome = await engine.generate(r);
    expect(outcome).toMatchObject({ ok: true, text: 'The Mock Turtle [1].', finish: 'stop' });
    expect(r.tokens).toEqual(['The Mock ', 'Turtle [1].']);
    expect(fetch.requests).toHaveLength(1);
    const sent = fetch.requests[0];
    expect(sent.url).toBe('https://api.example.test/v1/chat/completions');
    expect(sent.headers.authorization).toBe('Bearer sk-secret');
    expect(sent.init.credentials).toBe('omit');
    expect(sent.body).toEqual({
      model: 'test-model',
      messages: r.messages,
      stream: true,
      max_tokens: 64,
    });
    expect(engine.label).toBe('test-model at api.example.test');
  });

  it('parses events split across chunks, CRLF line ends, comments and a missing space', async () => {
    const text =
      `: OPENROUTER PROCESSING\r\n\r\n${delta('Hel')}${delta('lo')}data:{"choices":[{"delta":{"content":"!"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n`.replace(
        /\n/g,
        '\r\n',
      );
    const chunks = text.match(/[\s\S]{1,7}/g)!;
    const outcome = await new OpenAiCompatibleEngine(
      settings,
      fakeFetch([sseResponse(chunks)]),
    ).generate(request());
    expect(outcome).toMatchObject({ ok: true, text: 'Hello!' });
  });

  it('sends no Authorization header without a key (local servers)', async () => {
    const fetch = fakeFetch([sseResponse([delta('ok', 'stop'), 'data: [DONE]\n\n'])]);
    await new OpenAiCompatibleEngine({ ...settings, apiKey: '  ' }, fetch).generate(request());
    expect(fetch.requests[0].headers.authorization).toBeUndefined();
  });

  it('maps 401 to an auth error with the server’s words', async () => {
    const fetch = fakeFetch([
      jsonResponse(401, {
        error: {
          message: 'Incorrect API key provided',
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      }),
    ]);
    const outcome = await new OpenAiCompatibleEngine(settings, fetch).generate(request());
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error).toMatchObject({
      code: 'auth',
      status: 401,
      detail: 'Incorrect API key provided',
    });
    expect(outcome.error.message).toMatch(/api\.example\.test rejected the API key \(401\)/);
    expect(outcome.error.message).toMatch(/Incorrect API key provided/);
  });

  it('maps 429 with Retry-After to a rate-limit error saying when to retry', async () => {
    const fetch = fakeFetch([
      jsonResponse(
        429,
        { error: { message: 'Rate limit reached', type: 'requests' } },
        { 'retry-after': '7' },
      ),
    ]);
    const outcome = await new OpenAiCompatibleEngine(settings, fetch).generate(request());
    expect(outcome).toMatchObject({
      ok: false,
      error: { code: 'rate-limit', retryAfterSeconds: 7, status: 429 },
    });
    if (!outcome.ok) expect(outcome.error.message).toMatch(/Try again in 7 seconds/);
  });

  it('tells an exhausted quota apart from a rate limit', async () => {
    const fetch = fakeFetch([
      jsonResponse(429, {
        error: { message: 'You exceeded your current quota', code: 'insufficient_quota' },
      }),
    ]);
    const outcome = await new OpenAiCompatibleEngine(settings, fetch).generate(request());
    expect(outcome).toMatchObject({ ok: false, error: { code: 'rate-limit' } });
    if (!outcome.ok) {
      expect(outcome.error.message).toMatch(/run out of credit/);
      expect(outcome.error.retryAfterSeconds).toBeUndefined();
    }
  });

  it('maps 500 and 503 to server errors, and a non-JSON body is kept as detail', async () => {
    const fetch = fakeFetch([
      new Response('upstream exploded', { status: 500 }),
      jsonResponse(503, { error: 'model is loading' }),
    ]);
    const engine = new OpenAiCompatibleEngine(settings, fetch);
    const a = await engine.generate(request());
    expect(a).toMatchObject({
      ok: false,
      error: { code: 'server', status: 500, detail: 'upstream exploded' },
    });
    if (!a.ok) expect(a.error.message).toMatch(/server error \(500\)/);
    const b = await engine.generate(request());
    expect(b).toMatchObject({ ok: false, error: { code: 'server', status: 503 } });
    if (!b.ok) expect(b.error.message).toMatch(/overloaded/);
  });

  it('maps 404, 400 and a context overflow', async () => {
    const fetch = fakeFetch([
      jsonResponse(404, { error: { message: 'The model `nope` does not exist' } }),
      jsonResponse(400, { error: { message: 'Invalid value for temperature' } }),
      jsonResponse(400, {
        error: {
          message: "This model's maximum context length is 8192 tokens",
          code: 'context_length_exceeded',
        },
      }),
    ]);
    const engine = new OpenAiCompatibleEngine(settings, fetch);
    expect(await engine.generate(request())).toMatchObject({
      error: { code: 'bad-request', status: 404 },
    });
    expect(await engine.generate(request())).toMatchObject({
      error: { code: 'bad-request', status: 400 },
    });
    expect(await engine.generate(request())).toMatchObject({ error: { code: 'context-length' } });
  });

  it('asks again with max_completion_tokens when the model wants it', async () => {
    const fetch = fakeFetch([
      jsonResponse(400, {
        error: {
          message:
            "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
        },
      }),
      sseResponse([delta('fine', 'stop'), 'data: [DONE]\n\n']),
    ]);
    const outcome = await new OpenAiCompatibleEngine(settings, fetch).generate(request());
    expect(outcome).toMatchObject({ ok: true, text: 'fine' });
    expect(fetch.requests[1].body.max_completion_tokens).toBe(64);
    expect(fetch.requests[1].body.max_tokens).toBeUndefined();
  });

  it('keeps the partial answer when the connection drops mid-stream', async () => {
    const fetch = fakeFetch([sseResponse([delta('Half '), delta('an answ')], 2)]);
    const outcome = await new OpenAiCompatibleEngine(settings, fetch).generate(request());
    expect(outcome).toMatchObject({ ok: false, text: 'Half an answ', error: { code: 'network' } });
    if (!outcome.ok) expect(outcome.error.message).toMatch(/broke off/);
  });

  it('treats a stream that ends without [DONE] or a finish reason as broken', async () => {
    const fetch = fakeFetch([sseResponse([delta('cut')])]);
    const outcome = await new OpenAiCompatibleEngine(settings, fetch).generate(request());
    expect(outcome).toMatchObject({ ok: false, text: 'cut', error: { code: 'network' } });
  });

  it('reports an error event inside the stream', async () => {
    const fetch = fakeFetch([
      sseResponse([
        delta('Par'),
        `data: ${JSON.stringify({ error: { message: 'Provider disconnected', code: 502 } })}\n\n`,
      ]),
    ]);
    const outcome = await new OpenAiCompatibleEngine(settings, fetch).generate(request());
    expect(outcome).toMatchObject({ ok: false, text: 'Par', error: { code: 'server' } });
    if (!outcome.ok) expect(outcome.error.message).toMatch(/Provider disconnected/);
  });

  it('cannot reach the server: a network error that names the host and CORS', async () => {
    const fetch = fakeFetch([new TypeError('Failed to fetch')]);
    const outcome = await new OpenAiCompatibleEngine(settings, fetch).generate(request());
    expect(outcome).toMatchObject({
      ok: false,
      error: { code: 'network', detail: 'Failed to fetch' },
    });
    if (!outcome.ok)
      expect(outcome.error.message).toMatch(/Could not reach api\.example\.test.*CORS/);
  });

  it('stops on abort, keeping what arrived', async () => {
    const controller = new AbortController();
    const fetch = fakeFetch([
      async (init) => {
        const encoder = new TextEncoder();
        let sent = false;
        const body = new ReadableStream<Uint8Array>({
          pull(c) {
            if (!sent) {
              sent = true;
              c.enqueue(encoder.encode(delta('First ')));
              return;
            }
            return new Promise<void>((_, reject) =>
              init.signal!.addEventListener('abort', () =>
                reject(new DOMException('aborted', 'AbortError')),
              ),
            );
          },
        });
        return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
      },
    ]);
    const r = request({
      signal: controller.signal,
      onToken: () => controller.abort(),
    });
    const outcome = await new OpenAiCompatibleEngine(settings, fetch).generate(r);
    expect(outcome).toMatchObject({ ok: false, text: 'First ', error: { code: 'aborted' } });
  });

  it('reads a plain JSON answer from a server that does not stream', async () => {
    const fetch = fakeFetch([
      jsonResponse(200, {
        choices: [{ message: { content: 'Whole answer' }, finish_reason: 'length' }],
      }),
    ]);
    const r = request();
    const outcome = await new OpenAiCompatibleEngine(settings, fetch).generate(r);
    expect(outcome).toMatchObject({ ok: true, text: 'Whole answer', finish: 'length' });
    expect(r.tokens).toEqual(['Whole answer']);
  });

  it('records usage when the stream reports it', async () => {
    const fetch = fakeFetch([
      sseResponse([
        delta('a'),
        delta('b', 'stop'),
        `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 11, completion_tokens: 2 } })}\n\n`,
        'data: [DONE]\n\n',
      ]),
    ]);
    const outcome = await new OpenAiCompatibleEngine(settings, fetch).generate(request());
    expect(outcome).toMatchObject({ ok: true, text: 'ab' });
    expect(outcome.stats).toMatchObject({ promptTokens: 11, completionTokens: 2 });
    expect(outcome.stats.elapsedMs).toBeGreaterThanOrEqual(0);
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('7')).toBe(7);
    expect(parseRetryAfter('1.2')).toBe(2);
    const now = Date.parse('Wed, 21 Oct 2015 07:28:00 GMT');
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:30 GMT', now)).toBe(30);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:27:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });
});
