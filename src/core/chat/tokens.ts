/**
 * @file Token counting for chat memory. The real count depends on the model's tokenizer, which
 * core does not know, so callers inject a counter (`countTokens` in the planner's input); this
 * estimate is the default.
 */
import { countWords } from '../fragment';

/** Counts the tokens of a text in the unit the budget is measured in. */
export type TokenCounter = (text: string) => number;

/**
 * Default estimate: ceil(words * 4 / 3), words being runs of non-whitespace. English prose runs
 * about 0.75 words per token with BPE tokenizers (GPT-style, Llama), so this is near for English
 * and low for code, numbers and most other languages, which split into more tokens per word;
 * inject the model's tokenizer where the budget is tight.
 */
export function estimateTokens(text: string): number {
  return Math.ceil((countWords(text) * 4) / 3);
}
