/**
 * @file Fit a task prompt (src/core/prompt.ts) to an engine's context window.
 *
 * The core fits with a synchronous token counter. For engines without a tokenizer in the page
 * that counter is the estimate (tokens.ts) and one pass is all there is. For engines that can
 * count exactly (wllama), the estimate is calibrated: build with the estimate scaled by the
 * ratio seen so far, count the result exactly, and rebuild when the exact count overflows (or
 * leaves much room while fragments were dropped). A few rounds settle it.
 */
import {
  MESSAGE_OVERHEAD_TOKENS,
  REPLY_OVERHEAD_TOKENS,
  type Prompt,
  type PromptBudget,
  type PromptResult,
} from '../core/prompt';
import { estimateTokens } from './tokens';
import type { LlmEngine } from './types';

const MAX_ROUNDS = 4;

/**
 * A prompt whose estimate times this is within the limit is not counted exactly. The estimate
 * (tokens.ts) is within about 30% of real tokenizers on English and code; 2 leaves room for
 * scripts it knows less well.
 */
const SAFE_ESTIMATE_FACTOR = 2;

/** Prompts sent on the estimate alone (see `fitPromptToEngine`). */
const estimated = new WeakSet<Prompt>();

/** Whether a fitted prompt's token count is the engine's own count (not the estimate). */
export function countedExactly(engine: LlmEngine, prompt: Prompt): boolean {
  return engine.exactTokenCounts && !estimated.has(prompt);
}

function shrunkPrompt(prompt: Prompt): boolean {
  return prompt.dropped.length > 0 || prompt.truncated.length > 0;
}

/** The exact size of a built prompt in the engine's own tokens (plus the chat allowance). */
export async function exactPromptTokens(
  engine: LlmEngine,
  prompt: Prompt,
  signal?: AbortSignal,
): Promise<number> {
  // The engine's own count of the whole prompt, read as the answer will read it (so the answer
  // reuses that reading): the template's real size, no allowance.
  if (engine.countPromptTokens) return engine.countPromptTokens(prompt, signal);
  if (prompt.style === 'text') return engine.countTokens(prompt.text, signal);
  const contents = prompt.messages.map((m) => m.content).join('\n');
  const overhead = REPLY_OVERHEAD_TOKENS + prompt.messages.length * MESSAGE_OVERHEAD_TOKENS;
  return (await engine.countTokens(contents, signal)) + overhead;
}

/**
 * Build the prompt for `engine`, leaving `answerTokens` free. `build` is one of the core's
 * prompt builders with its input bound.
 */
export async function fitPromptToEngine(
  engine: LlmEngine,
  build: (budget: PromptBudget) => PromptResult,
  answerTokens: number,
  signal?: AbortSignal,
): Promise<PromptResult> {
  const budgetWith = (scale: number): PromptBudget => ({
    contextLimit: engine.contextLimit,
    answerTokens,
    style: engine.promptStyle,
    countTokens: (text) => Math.ceil(estimateTokens(text) * scale),
  });
  let scale = 1;
  let result = build(budgetWith(scale));
  if (!engine.exactTokenCounts || !result.ok) return result;
  // Counting exactly costs an in-browser model a read of the prompt (wllama 3.8 has no tokenizer
  // call: the count is a one-token completion of the prompt, which the answer then reuses from
  // the cache). Far below the limit the estimate is safe and nothing is counted.
  // A prompt shrunk to a reading budget (`passageCap`) is as long as it is meant to be: counting
  // it exactly would only cost a read, unless it could overflow the window.
  if (
    result.prompt.tokens * SAFE_ESTIMATE_FACTOR <= result.prompt.limit &&
    (!shrunkPrompt(result.prompt) || result.prompt.passageCap !== undefined)
  ) {
    estimated.add(result.prompt);
    return result;
  }

  let best: PromptResult | null = null;
  for (let round = 0; round < MAX_ROUNDS && result.ok; round++) {
    const exact = await exactPromptTokens(engine, result.prompt, signal);
    const fits = exact <= result.prompt.limit;
    if (fits) {
      const fitted: PromptResult = { ok: true, prompt: { ...result.prompt, tokens: exact } };
      if (!best || (best.ok && keptMore(fitted.prompt, best.prompt))) best = fitted;
      const shrunk = shrunkPrompt(result.prompt);
      // Close enough to the limit, nothing left out, or left out for the reading budget: done.
      if (!shrunk || result.prompt.passageCap !== undefined || exact >= result.prompt.limit * 0.9)
        break;
    }
    const ratio = exact / Math.max(1, result.prompt.tokens);
    // Overflowing: aim a little under. Room to spare: aim at the limit.
    const next = scale * ratio * (fits ? 1 : 1.03);
    if (Math.abs(next - scale) / scale < 0.01 && fits) break;
    scale = next;
    result = build(budgetWith(scale));
  }
  if (best) return best;
  if (!result.ok) return result;
  return {
    ok: false,
    reason:
      `The prompt could not be made to fit the ${engine.contextLimit.toLocaleString('en')}-token ` +
      `context of ${engine.label}. Lower the answer length or the retrieval budget.`,
    tokens: result.prompt.tokens,
    limit: result.prompt.limit,
  };
}

function keptMore(a: Prompt, b: Prompt): boolean {
  if (a.sources.length !== b.sources.length) return a.sources.length > b.sources.length;
  return a.tokens > b.tokens;
}
