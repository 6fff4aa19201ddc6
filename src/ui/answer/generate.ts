/**
 * @file The one way the UI runs a generation: fit the task's prompt to the engine's context,
 * then stream the answer. Shared by the answer panel, code completion and the chat.
 */
import type { Prompt, PromptBudget, PromptResult } from '../../core/prompt';
import { countedExactly, fitPromptToEngine } from '../../llm/fit';
import type { GenerateOutcome, GenerateStats, LlmEngine, LlmError } from '../../llm/types';

export type FitAndGenerate =
  /** Nothing was generated: stopped while measuring, unmeasurable, or too long to fit. */
  | { ok: false; error: LlmError }
  /** The prompt that was sent and how the generation ended (which may itself be an error). */
  | { ok: true; prompt: Prompt; outcome: GenerateOutcome };

export interface FitAndGenerateOptions {
  /** Tokens reserved for the answer. */
  answerTokens: number;
  signal: AbortSignal;
  temperature?: number;
  /** The fitted prompt, before the first token. */
  onPrompt: (prompt: Prompt) => void;
  /** New text, batched so the page paints at most once per animation frame. */
  onText: (piece: string) => void;
}

export async function fitAndGenerate(
  llm: LlmEngine,
  build: (budget: PromptBudget) => PromptResult,
  options: FitAndGenerateOptions,
): Promise<FitAndGenerate> {
  const { answerTokens, signal } = options;
  let fitted: PromptResult;
  try {
    fitted = await fitPromptToEngine(llm, build, answerTokens, signal);
  } catch (e) {
    if (signal.aborted) return { ok: false, error: { code: 'aborted', message: 'Stopped.' } };
    return {
      ok: false,
      error: {
        code: 'engine',
        message: 'The prompt could not be measured for this model.',
        detail: (e as Error).message,
      },
    };
  }
  if (!fitted.ok) return { ok: false, error: { code: 'context-length', message: fitted.reason } };
  const prompt = fitted.prompt;
  options.onPrompt(prompt);

  // Tokens arrive faster than the screen redraws: gather them and paint once per frame.
  let pending = '';
  let frame = 0;
  const flush = () => {
    frame = 0;
    if (!pending) return;
    const piece = pending;
    pending = '';
    options.onText(piece);
  };
  const outcome = await llm.generate({
    messages: prompt.messages,
    text: prompt.text,
    maxTokens: Math.max(16, Math.min(answerTokens, llm.contextLimit - prompt.tokens)),
    temperature: options.temperature,
    signal,
    onToken: (t) => {
      pending += t;
      frame ||= requestAnimationFrame(flush);
    },
  });
  if (frame) cancelAnimationFrame(frame);
  flush();
  return { ok: true, prompt, outcome };
}

/** How a finished generation leaves its run: done, stopped (keeping its text), or failed. */
export function settledRun(outcome: GenerateOutcome) {
  if (outcome.ok) return { status: 'done' as const, text: outcome.text, stats: outcome.stats };
  const stopped = outcome.error.code === 'aborted';
  return {
    status: stopped ? ('stopped' as const) : ('error' as const),
    error: stopped ? null : outcome.error,
    text: outcome.text,
    stats: outcome.stats,
  };
}

/** A streamed run as the answer panel and the code completion keep it in their state. */
interface StreamedRun {
  id: number;
  status: string;
  text: string;
  prompt: Prompt | null;
  exactCounts: boolean;
}

/** A generation's fields before anything is known (spread into a new run's state). */
export const NOTHING_YET = {
  text: '',
  prompt: null,
  exactCounts: false,
  engineLabel: '',
  error: null,
  stats: null,
} as const;

/** A generation as a view keeps it (the answer panel's run, a code completion). */
export interface GenerationRun<Status extends string> extends StreamedRun {
  status: Status;
  engineLabel: string;
  error: LlmError | null;
  stats: GenerateStats | null;
}

/**
 * fitAndGenerate's `onPrompt` and `onText` for the run of this id in `setRun`'s state: the
 * prompt (and whether its counts are exact) as the run starts streaming, then the text as it
 * arrives. A newer run in the state is left alone.
 */
export function streamInto<R extends StreamedRun>(
  llm: LlmEngine,
  id: number,
  setRun: (next: (run: R | null) => R | null) => void,
): Pick<FitAndGenerateOptions, 'onPrompt' | 'onText'> {
  return {
    onPrompt: (prompt) =>
      setRun((r) =>
        r && r.id === id
          ? { ...r, status: 'streaming', prompt, exactCounts: countedExactly(llm, prompt) }
          : r,
      ),
    onText: (piece) => setRun((r) => (r && r.id === id ? { ...r, text: r.text + piece } : r)),
  };
}
