/**
 * @file How much of the book an in-browser model is given to read: the reading budget.
 *
 * A model on this machine's CPU reads a prompt at its own speed, and the person waits for all of
 * it before the first word. SmolLM2-135M in wllama reads 15-27 tokens/s on 2 cores (BENCHMARKS.md),
 * so filling a 4,096-token window means minutes before the answer starts. The passages are
 * therefore capped at what the model reads in about `READING_TARGET_SECONDS` on this machine, at
 * the prompt speed measured on its earlier answers, but never below the knee below which a small
 * model's answers fall away (`KNEE_PASSAGE_TOKENS`, measured); before any measurement, at the
 * knee. The person can give it more (`scale`), up to the whole window. API
 * engines are not capped: their servers read thousands of tokens a second.
 *
 * Pure: the measured speed comes in, a number of tokens goes out.
 */

/**
 * The knee: the fewest passage tokens a small local model still answers from. Measured with
 * native llama.cpp on 30 factual questions over ten Gutenberg books, SmolLM2-135M-Instruct
 * (bench/results/answer-knee.json, BENCHMARKS.md "Correctness against prompt budget" and "The GGUF
 * rows again"): 10% right at 250 prompt tokens, 20% at 500, 23% at 1,000, 33% at 2,000 (the Q8_0
 * file; the ONNX engine's 8-bit graph 17% at 500 and 23% at 1,000); 500 is the smallest budget
 * within the noise of the best, 250 is clearly below it. That knee counts PROMPT tokens; for SmolLM2 the
 * story prompt's instructions and a short question take about 80 (`INSTRUCTION_TOKENS`), so 500
 * prompt tokens are about 420 passage tokens. A model is given at least this much, however slowly
 * it reads here: fewer passages answer faster and mostly wrongly. Before its speed here is
 * measured, this is also what it starts with.
 */
export const KNEE_PASSAGE_TOKENS = 420;

/** Passage tokens a local model gets before its speed on this machine is known. */
export const STARTING_PASSAGE_TOKENS = KNEE_PASSAGE_TOKENS;

/** Seconds of reading the passages are sized to, at the model's measured prompt speed. */
export const READING_TARGET_SECONDS = 10;

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
  /** The floor of a measured budget; default `KNEE_PASSAGE_TOKENS`. */
  kneeTokens?: number;
}

export interface ReadingBudget {
  /** Passage tokens at most; null = the whole window (no cap). */
  tokens: number | null;
  /**
   * Why: 'measured' (the target seconds at the measured speed), 'knee' (measured, but the target
   * seconds would give fewer than the knee's tokens), 'starting' (no measurement yet), 'window'
   * (the person asked for the whole window, or the budget reaches it anyway).
   */
  basis: 'measured' | 'knee' | 'starting' | 'window';
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
  const floor = input.kneeTokens ?? KNEE_PASSAGE_TOKENS;
  const inTarget = speed !== null ? roundTokens(speed * targetSeconds) : null;
  const baseTokens =
    inTarget === null
      ? (input.startingTokens ?? STARTING_PASSAGE_TOKENS)
      : Math.max(floor, inTarget);
  const scale = normalizeScale(input.scale);
  const common = { baseTokens, scale, targetSeconds, promptTokensPerSecond: speed };
  // What the window leaves the passages: a cap at or above it caps nothing.
  const room = Math.max(0, input.contextLimit - input.answerTokens - INSTRUCTION_TOKENS);
  const tokens = baseTokens * (scale === WHOLE_WINDOW ? Infinity : scale);
  if (tokens >= room) return { tokens: null, basis: 'window', ...common };
  const basis = inTarget === null ? 'starting' : inTarget < floor ? 'knee' : 'measured';
  return { tokens, basis, ...common };
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
  const passages = Math.max(KNEE_PASSAGE_TOKENS, roundTokens(read * READING_TARGET_SECONDS));
  return (INSTRUCTION_TOKENS + passages) / read + TYPICAL_ANSWER_TOKENS / write;
}
