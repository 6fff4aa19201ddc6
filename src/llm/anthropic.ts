/**
 * @file Anthropic's Messages API (`POST {baseUrl}/v1/messages`, `stream: true`), called from the
 * browser directly: Anthropic answers browser requests only with the header
 * `anthropic-dangerous-direct-browser-access: true`, which says the page knowingly holds the
 * key. Here the key is the person's own and goes nowhere else.
 *
 * Stream events: message_start (input usage), content_block_start, content_block_delta
 * (`delta.type` 'text_delta' with `text`), content_block_stop, message_delta (`stop_reason`,
 * output usage), message_stop, ping, and error (`{type: 'error', error: {type, message}}`).
 */
import { streamError } from './errors';
import { HttpEngine, joinUrl, jsonOf, type StreamProtocol, type StreamStep } from './http';
import type { FinishReason, GenerateOutcome, GenerateRequest, LlmEngine } from './types';

export const ANTHROPIC_VERSION = '2023-06-01';

function finishOf(reason: unknown): FinishReason | undefined {
  if (reason === 'max_tokens') return 'length';
  if (typeof reason === 'string' && reason) return 'stop';
  return undefined;
}

/** `{base}/v1/messages`, whether or not the base already ends in /v1. */
export function messagesUrl(baseUrl: string): string {
  return /\/v1\/*$/.test(baseUrl) ? joinUrl(baseUrl, 'messages') : joinUrl(baseUrl, 'v1/messages');
}

/** baseUrl: https://api.anthropic.com (a proxy with the same API works too). */
export class AnthropicEngine extends HttpEngine implements LlmEngine {
  readonly kind = 'anthropic' as const;

  generate(request: GenerateRequest): Promise<GenerateOutcome> {
    const { settings, host, key } = this;
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'anthropic-version': ANTHROPIC_VERSION,
      'anthropic-dangerous-direct-browser-access': 'true',
    };
    if (key) headers['x-api-key'] = key;
    // The API takes the system prompt apart from the turns.
    const system = request.messages
      .filter((m) => m.role === 'system')
      .map((m) => m.content)
      .join('\n\n');
    const body: Record<string, unknown> = {
      model: settings.model,
      max_tokens: request.maxTokens,
      messages: request.messages
        .filter((m) => m.role !== 'system')
        .map(({ role, content }) => ({ role, content })),
      stream: true,
    };
    if (system) body.system = system;
    if (request.temperature !== undefined) body.temperature = request.temperature;

    const protocol: StreamProtocol = {
      url: messagesUrl(settings.baseUrl),
      headers,
      body,
      onEvent: (event): StreamStep => {
        const json = jsonOf(event) as
          | {
              type?: string;
              delta?: { type?: string; text?: unknown; stop_reason?: unknown };
              message?: { usage?: { input_tokens?: number } };
              usage?: { output_tokens?: number };
            }
          | undefined;
        const type = json?.type ?? event.event;
        switch (type) {
          case 'error':
            return { error: streamError(host, event.data) };
          case 'message_start': {
            const input = json?.message?.usage?.input_tokens;
            return typeof input === 'number' ? { promptTokens: input } : {};
          }
          case 'content_block_delta':
            return json?.delta?.type === 'text_delta' && typeof json.delta.text === 'string'
              ? { text: json.delta.text }
              : {};
          case 'message_delta': {
            const step: StreamStep = {};
            const finish = finishOf(json?.delta?.stop_reason);
            if (finish) step.finish = finish;
            if (typeof json?.usage?.output_tokens === 'number')
              step.completionTokens = json.usage.output_tokens;
            return step;
          }
          case 'message_stop':
            return { done: true };
          default:
            // ping, content_block_start/stop, and event types added later.
            return {};
        }
      },
      fromJson: (json) => {
        const message = json as {
          content?: Array<{ type?: string; text?: unknown }>;
          stop_reason?: unknown;
        };
        if (!Array.isArray(message?.content)) return null;
        const text = message.content
          .filter((c) => c.type === 'text' && typeof c.text === 'string')
          .map((c) => c.text as string)
          .join('');
        return { text, finish: finishOf(message.stop_reason) ?? 'stop' };
      },
    };
    return this.stream(protocol, request);
  }
}
