/**
 * @file Budgets in the engine's own tokens (PIPELINES.md section 1, "Recommended"): measure
 * texts with the engine's counter, pack whole items in order, cut a text to a token budget.
 */
import type { AbortSignalLike } from '../abort';
import type { PipelineLlm } from './types';
import { TEMPLATE_OVERHEAD_TOKENS } from './types';

export async function countEach(
  llm: PipelineLlm,
  texts: readonly string[],
  signal?: AbortSignalLike,
): Promise<number[]> {
  const out: number[] = [];
  for (const t of texts) out.push(await llm.countTokens(t, signal));
  return out;
}

/**
 * Whole items in order while they fit `budget`; an item that does not fit is dropped and the
 * next ones are still tried (a later, shorter item may fit). `separator` is added per item.
 */
export function packInOrder(
  sizes: readonly number[],
  budget: number,
  separator = 0,
): { kept: number[]; dropped: number[]; used: number } {
  const kept: number[] = [];
  const dropped: number[] = [];
  let used = 0;
  sizes.forEach((size, i) => {
    if (used + size + separator <= budget) {
      kept.push(i);
      used += size + separator;
    } else dropped.push(i);
  });
  return { kept, dropped, used };
}

/**
 * The longest prefix of `text`, in whole words, within `maxTokens` (binary search with the
 * engine's counter; a few counts). `cut` says whether anything was left out.
 */
export async function cutToTokens(
  llm: PipelineLlm,
  text: string,
  maxTokens: number,
  signal?: AbortSignalLike,
): Promise<{ text: string; tokens: number; cut: boolean }> {
  const whole = await llm.countTokens(text, signal);
  if (whole <= maxTokens) return { text, tokens: whole, cut: false };
  const words = text.match(/\S+\s*/g) ?? [];
  let lo = 0;
  let hi = words.length;
  let best = { text: '', tokens: 0 };
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    const candidate = words.slice(0, mid).join('').trimEnd() + '…';
    const tokens = await llm.countTokens(candidate, signal);
    if (tokens <= maxTokens) {
      best = { text: candidate, tokens };
      lo = mid;
    } else hi = mid - 1;
    if (lo === hi) break;
  }
  return { ...best, cut: true };
}

/** What the input of one call may use: context - output - template overhead. */
export function inputBudget(llm: PipelineLlm, maxTokens: number): number {
  return llm.contextLimit - maxTokens - TEMPLATE_OVERHEAD_TOKENS;
}
