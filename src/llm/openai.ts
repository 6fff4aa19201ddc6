/**
 * @file OpenAI-compatible chat completions (`POST {baseUrl}/chat/completions`, `stream: true`):
 * OpenAI, OpenRouter, and local servers (Ollama, LM Studio, llama.cpp's llama-server, vLLM).
 *
 * Stream: `data: {choices: [{delta: {content}, finish_reason}]}` events, then `data: [DONE]`.
 * OpenRouter may send `data: {error: {...}}` mid-stream and `: OPENROUTER PROCESSING` comments;
 * reasoning models may send `delta.reasoning_content`, which is not part of the answer.
 */
import type { PromptMessage } from '../core/prompt';
import { streamError } from './errors';
import { HttpEngine, joinUrl, jsonOf, type StreamProtocol, type StreamStep } from './http';
import type { FinishReason, GenerateOutcome, GenerateRequest, LlmEngine } from './types';

function finishOf(reason: unknown): FinishReason | undefined {
  if (reason === 'length') return 'length';
  if (typeof reason === 'string' && reason) return 'stop';
  return undefined;
}

/**
 * baseUrl: e.g. https://api.openai.com/v1, http://localhost:11434/v1; the key is sent as
 * `Authorization: Bearer` (local servers usually need none).
 */
export class OpenAiCompatibleEngine extends HttpEngine implements LlmEngine {
  readonly kind = 'openai' as const;

  async generate(request: GenerateRequest): Promise<GenerateOutcome> {
    const first = await this.send(request, 'max_tokens');
    // Newer OpenAI models refuse `max_tokens` and want `max_completion_tokens`; older and
    // local servers know only the former. Ask again once with the other name.
    if (
      !first.ok &&
      first.error.code === 'bad-request' &&
      first.text === '' &&
      /max_completion_tokens/.test(first.error.detail ?? '')
    ) {
      return this.send(request, 'max_completion_tokens');
    }
    return first;
  }

  private send(
    request: GenerateRequest,
    limitName: 'max_tokens' | 'max_completion_tokens',
  ): Promise<GenerateOutcome> {
    const { settings, host, key } = this;
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      Accept: 'text/event-stream',
    };
    if (key) headers.Authorization = `Bearer ${key}`;
    const body: Record<string, unknown> = {
      model: settings.model,
      messages: request.messages.map(({ role, content }: PromptMessage) => ({ role, content })),
      stream: true,
      [limitName]: request.maxTokens,
    };
    if (request.temperature !== undefined) body.temperature = request.temperature;
    const protocol: StreamProtocol = {
      url: joinUrl(settings.baseUrl, 'chat/completions'),
      headers,
      body,
      onEvent: (event): StreamStep => {
        if (event.data.trim() === '[DONE]') return { done: true };
        const json = jsonOf(event) as
          | {
              error?: unknown;
              choices?: Array<{ delta?: { content?: unknown }; finish_reason?: unknown }>;
              usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
            }
          | undefined;
        if (!json) return {};
        if (json.error) return { error: streamError(host, event.data) };
        const choice = json.choices?.[0];
        const step: StreamStep = {};
        if (typeof choice?.delta?.content === 'string') step.text = choice.delta.content;
        const finish = finishOf(choice?.finish_reason);
        if (finish) step.finish = finish;
        if (json.usage) {
          if (typeof json.usage.prompt_tokens === 'number')
            step.promptTokens = json.usage.prompt_tokens;
          if (typeof json.usage.completion_tokens === 'number')
            step.completionTokens = json.usage.completion_tokens;
        }
        return step;
      },
      fromJson: (json) => {
        const choice = (
          json as { choices?: Array<{ message?: { content?: unknown }; finish_reason?: unknown }> }
        )?.choices?.[0];
        const content = choice?.message?.content;
        if (typeof content !== 'string') return null;
        return { text: content, finish: finishOf(choice?.finish_reason) ?? 'stop' };
      },
    };
    return this.stream(protocol, request);
  }
}
