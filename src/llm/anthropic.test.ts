import { describe, expect, it } from 'vitest';
import { AnthropicEngine, messagesUrl } from './anthropic';
import { fakeFetch, jsonResponse, sseResponse } from './testing';
import type { GenerateRequest } from './types';

const settings = {
  baseUrl: 'https://api.anthropic.test',
  model: 'claude-test',
  apiKey: 'sk-ant-secret',
  contextLimit: 200_000,
};

function request(): GenerateRequest & { tokens: string[] } {
  const tokens: string[] = [];
  return {
    messages: [
      { role: 'system', content: 'Cite excerpts.' },
      { role: 'user', content: 'Who?' },
    ],
    text: 'unused',
    maxTokens: 100,
    onToken: (t) => tokens.push(t),
    tokens,
  };
}

const event = (type: string, data: object) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

const NORMAL = [
  event('message_start', {
    message: { id: 'msg_1', usage: { input_tokens: 25, output_tokens: 1 } },
  }),
  event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
  event('ping', {}),
  event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Alice' } }),
  event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: ' [2].' } }),
  event('content_block_stop', { index: 0 }),
  event('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 4 } }),
  event('message_stop', {}),
];

describe('Anthropic engine', () => {
  it('streams text deltas and sends the browser-access header, version and key', async () => {
    const fetch = fakeFetch([sseResponse(NORMAL.join('').match(/[\s\S]{1,11}/g)!)]);
    const r = request();
    const outcome = await new AnthropicEngine(settings, fetch).generate(r);
    expect(outcome).toMatchObject({
      ok: true,
      text: 'Alice [2].',
      finish: 'stop',
      stats: { promptTokens: 25, completionTokens: 4 },
    });
    expect(r.tokens).toEqual(['Alice', ' [2].']);
    const sent = fetch.requests[0];
    expect(sent.url).toBe('https://api.anthropic.test/v1/messages');
    expect(sent.headers['anthropic-dangerous-direct-browser-access']).toBe('true');
    expect(sent.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent.headers['x-api-key']).toBe('sk-ant-secret');
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.body).toEqual({
      model: 'claude-test',
      max_tokens: 100,
      system: 'Cite excerpts.',
      messages: [{ role: 'user', content: 'Who?' }],
      stream: true,
    });
  });

  it('reports max_tokens as a length finish', async () => {
    const fetch = fakeFetch([
      sseResponse([
        event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Long' } }),
        event('message_delta', { delta: { stop_reason: 'max_tokens' } }),
        event('message_stop', {}),
      ]),
    ]);
    expect(await new AnthropicEngine(settings, fetch).generate(request())).toMatchObject({
      ok: true,
      finish: 'length',
    });
  });

  it('maps an overloaded error event in the stream, keeping the partial text', async () => {
    const fetch = fakeFetch([
      sseResponse([
        NORMAL[3],
        event('error', { error: { type: 'overloaded_error', message: 'Overloaded' } }),
      ]),
    ]);
    const outcome = await new AnthropicEngine(settings, fetch).generate(request());
    expect(outcome).toMatchObject({ ok: false, text: 'Alice', error: { code: 'server' } });
    if (!outcome.ok) expect(outcome.error.message).toMatch(/overloaded/);
  });

  it('maps HTTP errors: 401, 429 with retry-after, 529, 500, 400 too long', async () => {
    const err = (type: string, message: string) => ({ type: 'error', error: { type, message } });
    const fetch = fakeFetch([
      jsonResponse(401, err('authentication_error', 'invalid x-api-key')),
      jsonResponse(
        429,
        err('rate_limit_error', 'Number of requests has exceeded your rate limit'),
        {
          'retry-after': '12',
        },
      ),
      jsonResponse(529, err('overloaded_error', 'Overloaded')),
      jsonResponse(500, err('api_error', 'Internal server error')),
      jsonResponse(
        400,
        err('invalid_request_error', 'prompt is too long: 210000 tokens > 200000 maximum'),
      ),
    ]);
    const engine = new AnthropicEngine(settings, fetch);
    const auth = await engine.generate(request());
    expect(auth).toMatchObject({ ok: false, error: { code: 'auth', detail: 'invalid x-api-key' } });
    const limited = await engine.generate(request());
    expect(limited).toMatchObject({
      ok: false,
      error: { code: 'rate-limit', retryAfterSeconds: 12 },
    });
    if (!limited.ok) expect(limited.error.message).toMatch(/Try again in 12 seconds/);
    const overloaded = await engine.generate(request());
    expect(overloaded).toMatchObject({ ok: false, error: { code: 'server', status: 529 } });
    if (!overloaded.ok) expect(overloaded.error.message).toMatch(/overloaded/);
    const failed = await engine.generate(request());
    expect(failed).toMatchObject({ ok: false, error: { code: 'server', status: 500 } });
    if (!failed.ok) expect(failed.error.message).toMatch(/server error \(500\)/);
    expect(await engine.generate(request())).toMatchObject({ error: { code: 'context-length' } });
  });

  it('treats a stream without message_stop as broken off', async () => {
    const fetch = fakeFetch([sseResponse(NORMAL.slice(0, 4), 4)]);
    const outcome = await new AnthropicEngine(settings, fetch).generate(request());
    expect(outcome).toMatchObject({ ok: false, text: 'Alice', error: { code: 'network' } });
  });

  it('builds the messages URL with or without /v1', () => {
    expect(messagesUrl('https://api.anthropic.com')).toBe('https://api.anthropic.com/v1/messages');
    expect(messagesUrl('https://proxy.test/v1/')).toBe('https://proxy.test/v1/messages');
  });
});
