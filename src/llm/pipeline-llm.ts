/**
 * @file The narrow LLM the answer pipelines talk to (src/core/pipelines/types.ts), over one of the
 * product's streaming engines. In-browser engines run one call at a time; an API engine takes a
 * few at once (LongRAG's filters, SEGMENT+'s notes), which is why the limit is per kind.
 */
import type { AbortSignalLike } from '../core/abort';
import type { PipelineLlm } from '../core/pipelines/types';
import { renderMessagesAsText } from '../core/pipelines/messages';
import { fitPromptToEngine } from './fit';
import type { EngineKind, LlmEngine } from './types';

/** Calls one engine of this kind may run at once. */
export const DEFAULT_CONCURRENCY: Record<EngineKind, number> = {
  openai: 4,
  anthropic: 4,
  wllama: 1,
  webllm: 1,
  onnx: 1,
};

/**
 * A real AbortSignal following the core's signal: `fetch` and the engines' workers accept only
 * a genuine one, and the pipelines' run signal is the core's own (src/core/pipelines/limit.ts).
 */
export function domSignal(signal: AbortSignalLike): AbortSignal;
export function domSignal(signal: AbortSignalLike | undefined): AbortSignal | undefined;
export function domSignal(signal: AbortSignalLike | undefined): AbortSignal | undefined {
  if (!signal || signal instanceof AbortSignal) return signal as AbortSignal | undefined;
  const controller = new AbortController();
  if (signal.aborted) controller.abort();
  else signal.addEventListener('abort', () => controller.abort(), { once: true });
  return controller.signal;
}

export function pipelineLlm(
  engine: LlmEngine,
  concurrency = DEFAULT_CONCURRENCY[engine.kind],
): PipelineLlm {
  return {
    label: engine.label,
    contextLimit: engine.contextLimit,
    promptStyle: engine.promptStyle,
    exactTokenCounts: engine.exactTokenCounts,
    concurrency,
    countTokens: (text, signal) => engine.countTokens(text, domSignal(signal)),
    fitPrompt: (build, answerTokens, signal) =>
      fitPromptToEngine(engine, build, answerTokens, domSignal(signal)),
    async chat(messages, options) {
      const outcome = await engine.generate({
        messages,
        text: options.text ?? renderMessagesAsText(messages),
        maxTokens: options.maxTokens,
        temperature: options.temperature,
        signal: domSignal(options.signal),
        onToken: options.onToken,
      });
      const tokens = {
        ...(outcome.stats.promptTokens !== undefined
          ? { tokensIn: outcome.stats.promptTokens }
          : {}),
        ...(outcome.stats.completionTokens !== undefined
          ? { tokensOut: outcome.stats.completionTokens }
          : {}),
        ...(outcome.stats.cachedPromptTokens !== undefined
          ? { tokensReused: outcome.stats.cachedPromptTokens }
          : {}),
      };
      if (outcome.ok) return { ok: true, text: outcome.text, finish: outcome.finish, ...tokens };
      return { ok: false, text: outcome.text, error: outcome.error, ...tokens };
    },
  };
}
