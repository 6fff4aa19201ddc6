/**
 * @file Prompts of the pipelines as chat messages, and the same prompt as one text for base
 * models that only continue text (the engines' `promptStyle` 'text').
 */
import type { PromptMessage } from '../prompt';

/** One user message: every pipeline call is `LLM(p)` with a single prompt (PIPELINES.md conventions). */
export function userMessage(content: string): PromptMessage[] {
  return [{ role: 'user', content }];
}

/** The messages as one text to continue (each pipeline prompt ends with its own cue). */
export function renderMessagesAsText(messages: readonly PromptMessage[]): string {
  return messages.map((m) => m.content).join('\n\n');
}
