/**
 * @file How much of the book an in-browser model is given to read: the reading budget.
 *
 * A model on this machine's CPU reads a prompt at its own speed, and the person waits for all of
 * it before the first word. SmolLM2-135M in wllama reads 15-27 tokens/s on 2 cores (BENCHMARKS.md),
 * so filling a 4,096-token window means minutes before the answer starts. The passages are
 * therefore capped at what the model reads in about `READING_TARGET_SECONDS` on this machine, at
 * the prompt speed measured on its earlier answers; before any measurement, at
 * `STARTING_PASSAGE_TOKENS`. The person can give it more (`scale`), up to the whole window. API
 * engines are not capped: their servers read thousands of tokens a second.
 *
 * Pure: the measured speed comes in, a number of tokens goes out.
 */

/**
 * Excerpt tokens a local model gets before its speed on this machine is known (its first answer
 * here). Conservative on purpose: at the idle prompt speed measured here for the recommended
 * model (about 15 tokens/s on one thread), 200 tokens are read in about 13 s. Where answers stop
 * improving with more passages (the correctness-against-budget knee measured with native
 * llama.cpp, bench/results/answer-knee.json) decides the final figure. That knee is counted in
 * PROMPT tokens (instructions and question included); this constant counts PASSAGE tokens only:
 * for SmolLM2 the story prompt's instructions and a short question take about 80 tokens (a cap of
 * 200 gave 282-token prompts in bench/results/first-answer.json), so a knee of 500 prompt tokens
 * is about 420 here.
 */
export const STARTING_PASSAGE_TOKENS = 200;

/** Seconds of reading the passages are sized to, at the model's measured prompt speed. */
export const READING_TARGET_SECONDS = 10;

/** Fewer passage tokens than this are never worth an answer; a slower model still gets them. */
export const MIN_BUDGET_TOKENS = 64;

/** `scale` for "the whole context window": no cap. */
export const WHOLE_WINDOW = 0;

/** The largest `scale` offered; beyond it the person asks for the whole window. */
export const MAX_SCALE = 64;

export interface ReadingBudgetInput {
  /** Prompt tokens per second measured for this model on this machine, if any. */
  promptTokensPerSecond?: number | null;
  /** Tokens the model reads and writes in one request. */
  contextLimit: number;
  /** Tokens kept for the answer. */
  answerTokens: number;
  /** The person's choice: 1 = the budget, 2 = twice it, …; `WHOLE_WINDOW` (0) = no cap. */
  scale: number;
  targetSeconds?: number;
  startingTokens?: number;
}

export interface ReadingBudget {
  /** Passage tokens at most; null = the whole window (no cap). */
  tokens: number | null;
  /**
   * Why: 'measured' (the target seconds at the measured speed), 'starting' (no measurement
   * yet), 'window' (the person asked for the whole window, or the budget reaches it anyway).
   */
  basis: 'measured' | 'starting' | 'window';
  /** The budget before the person's scale (what one press of "less" goes back to). */
  baseTokens: number;
  scale: number;
  targetSeconds: number;
  promptTokensPerSecond: number | null;
}

const ok = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x) && x > 0;

/** A scale as stored: a power of two from 1 to `MAX_SCALE`, or `WHOLE_WINDOW`. */
export function normalizeScale(value: unknown): number {
  if (value === WHOLE_WINDOW) return WHOLE_WINDOW;
  if (!ok(value)) return 1;
  const power = 2 ** Math.round(Math.log2(value));
  return Math.min(MAX_SCALE, Math.max(1, power));
}

/** The next scale up: doubled, or the whole window once doubling would reach or pass it. */
export function raisedScale(budget: ReadingBudget): number {
  if (budget.tokens === null || budget.scale === WHOLE_WINDOW) return WHOLE_WINDOW;
  return budget.scale * 2 > MAX_SCALE ? WHOLE_WINDOW : budget.scale * 2;
}

/** The reading budget for an in-browser model (see the file's comment). */
export function readingBudget(input: ReadingBudgetInput): ReadingBudget {
  const targetSeconds = input.targetSeconds ?? READING_TARGET_SECONDS;
  const speed = ok(input.promptTokensPerSecond) ? input.promptTokensPerSecond : null;
  const baseTokens = Math.max(
    MIN_BUDGET_TOKENS,
    speed !== null
      ? roundTokens(speed * targetSeconds)
      : (input.startingTokens ?? STARTING_PASSAGE_TOKENS),
  );
  const scale = normalizeScale(input.scale);
  const common = { baseTokens, scale, targetSeconds, promptTokensPerSecond: speed };
  // What the window leaves the passages: a cap at or above it caps nothing.
  const room = Math.max(0, input.contextLimit - input.answerTokens - INSTRUCTION_TOKENS);
  const tokens = baseTokens * (scale === WHOLE_WINDOW ? Infinity : scale);
  if (tokens >= room) return { tokens: null, basis: 'window', ...common };
  return { tokens, basis: speed !== null ? 'measured' : 'starting', ...common };
}

/** Tokens rounded to a figure a person reads easily: tens below 1,000, fifties above. */
function roundTokens(n: number): number {
  const step = n < 1000 ? 10 : 50;
  return Math.max(step, Math.round(n / step) * step);
}

/** Tokens a typical answer is written with (a sentence or two with its citations). */
export const TYPICAL_ANSWER_TOKENS = 60;
/**
 * The story prompt's instructions and a short question, without passages, in SmolLM2's tokens:
 * 282-token prompts from a 200-token passage cap (bench/results/first-answer.json).
 */
export const INSTRUCTION_TOKENS = 80;

/**
 * Seconds a typical answer takes at measured speeds: the instructions and the passages of the
 * reading budget read at `promptTokensPerSecond`, `TYPICAL_ANSWER_TOKENS` written at
 * `tokensPerSecond`. Null without both speeds.
 */
export function secondsPerAnswer(speed: {
  promptTokensPerSecond?: number | null;
  tokensPerSecond?: number | null;
}): number | null {
  const { promptTokensPerSecond: read, tokensPerSecond: write } = speed;
  if (!ok(read) || !ok(write)) return null;
  const passages = Math.max(MIN_BUDGET_TOKENS, roundTokens(read * READING_TARGET_SECONDS));
  return (INSTRUCTION_TOKENS + passages) / read + TYPICAL_ANSWER_TOKENS / write;
}
