/**
 * @file The reading budget in the answer panel: one line that says how much of the book the
 * in-browser model was given and why (its prompt speed measured here, or the starting budget
 * before it was measured), with buttons that give it more, up to the whole context window. The
 * choice is kept in the engine settings (`passageScale`) and applies from the next answer.
 *
 * The speeds are the ones the pipelines' cost estimate keeps (src/ui/pipelines/engine-speed.ts,
 * localStorage, per model file), so one answer measured anywhere serves both.
 */
import type { GenerateStats } from '../../llm/types';
import {
  READING_TARGET_SECONDS,
  WHOLE_WINDOW,
  raisedScale,
  secondsPerAnswer,
  type ReadingBudget,
} from '../../llm/reading-budget';
import { recordSpeed, speedKey, speedOf } from '../pipelines/engine-speed';
import type { LocalSource } from './useLocalModel';

const n = (x: number) => x.toLocaleString('en');

/** The file name of a model URL, as the pipelines' estimate names it. */
export const modelFileOf = (url: string): string => url.split('/').pop() ?? url;

/** The file name a GGUF model's speeds are kept under (as the pipelines' estimate names it). */
export function localModelName(source: LocalSource | null): string | null {
  // An ONNX model is named by its hub id, as the pipelines' estimate names it (settingsModel).
  if (source?.kind === 'onnx') return source.source.modelId;
  if (source?.kind !== 'wllama') return null;
  const s = source.source;
  return (s.kind === 'file' ? s.file.name : modelFileOf(s.url)) || null;
}

/**
 * "measured here: about 24 s per answer" for a GGUF model whose speeds this machine has
 * measured (a typical answer: the reading budget's passages read, a short answer written, at the
 * speeds its answers had here); else that it is not measured here yet.
 */
export function measuredAnswerText(model: string, kind: SpeedKind = 'wllama'): string {
  const speed = measuredSpeed(model, kind);
  const seconds = speed ? secondsPerAnswer(speed) : null;
  if (!speed || seconds === null) return 'not measured on this machine yet';
  return (
    `measured here: about ${n(Math.round(seconds))} s per answer ` +
    `(reads ${n(Math.round(speed.promptTokensPerSecond))} tokens/s, writes ${speed.tokensPerSecond.toFixed(1)} tokens/s)`
  );
}

/** The in-browser engines whose reading is budgeted (the speeds are kept per kind and model). */
export type SpeedKind = 'wllama' | 'onnx';

/** The measured prompt and writing speed of an in-browser model on this machine, or null. */
export function measuredSpeed(model: string, kind: SpeedKind = 'wllama') {
  return speedOf(speedKey(kind, model));
}

/** Prompts shorter than this say little about the reading speed (fixed costs dominate). */
const MIN_READ_FOR_SPEED = 64;

/**
 * Keep an answer's speeds for its model, when it read enough of its prompt to tell (an answer
 * whose prompt came from the cache read a handful of tokens).
 */
export function noteAnswerSpeed(
  model: string,
  stats: GenerateStats,
  kind: SpeedKind = 'wllama',
): void {
  const read = (stats.promptTokens ?? 0) - (stats.cachedPromptTokens ?? 0);
  if (read < MIN_READ_FOR_SPEED) return;
  recordSpeed(speedKey(kind, model), stats);
}

const times = (scale: number) =>
  scale === 2 ? 'twice' : scale === 4 ? 'four times' : `${scale} times`;

/** Why the passages are what they are, in one sentence (without the buttons). */
export function readingBudgetText(budget: ReadingBudget, model: string): string {
  const speed = budget.promptTokensPerSecond;
  const measured = speed !== null ? ` (measured ${n(Math.round(speed))} tokens/s)` : '';
  const target = `about ${READING_TARGET_SECONDS} s`;
  if (budget.tokens === null) {
    if (budget.scale === WHOLE_WINDOW)
      return `Passages: as many as the context window holds, as you asked; ${model} reads them at its own speed here${measured}.`;
    return `Passages: as many as the context window holds: that is less than ${model} reads in ${target} here${measured}.`;
  }
  const size = `Passages: up to about ${n(budget.tokens)} tokens`;
  if (budget.promptTokensPerSecond === null) {
    const start =
      budget.scale === 1
        ? 'the starting budget'
        : `${times(budget.scale)} the starting budget (${n(budget.baseTokens)})`;
    return `${size}: ${start}, until ${model}'s reading speed here is measured (its first answer measures it).`;
  }
  if (budget.basis === 'knee') {
    // The target seconds would give fewer: the measured knee holds (reading-budget.ts).
    const base = budget.scale === 1 ? 'the fewest' : `${times(budget.scale)} the fewest`;
    const seconds = Math.round(budget.tokens / (speed ?? 1));
    return (
      `${size}: ${base} a small model still answers from (measured: with half as many, ` +
      `far fewer answers were right); ${model} reads them in about ${n(seconds)} s here${measured}.`
    );
  }
  const what = budget.scale === 1 ? 'what' : `${times(budget.scale)} what`;
  return `${size}: ${what} ${model} reads in ${target} here${measured}.`;
}

/** What the next answer gets when it differs from this one's, in a few words. */
function nextText(next: ReadingBudget): string {
  const size = next.tokens === null ? 'the whole window' : `about ${n(next.tokens)} tokens`;
  const why =
    next.promptTokensPerSecond !== null
      ? ` (measured ${n(Math.round(next.promptTokensPerSecond))} tokens/s)`
      : '';
  return ` The next answer gets ${size}${why}.`;
}

export interface ReadingBudgetLineProps {
  /** This answer's budget. */
  used: ReadingBudget;
  /** The budget the current settings and speeds give the next answer. */
  next: ReadingBudget;
  model: string;
  /** Keep a new scale in the settings. */
  onScale: (scale: number) => void;
  disabled?: boolean;
}

export function ReadingBudgetLine({
  used,
  next,
  model,
  onScale,
  disabled,
}: ReadingBudgetLineProps) {
  const budget = next;
  const more = raisedScale(budget);
  return (
    <p className="stats answer__budget" data-testid="reading-budget">
      {readingBudgetText(used, model)}
      {used.tokens !== next.tokens && nextText(next)}{' '}
      {budget.tokens !== null && (
        <>
          {more !== WHOLE_WINDOW && (
            <button
              type="button"
              className="link"
              disabled={disabled}
              onClick={() => onScale(more)}
            >
              Give it more (about {n(budget.tokens * 2)} tokens)
            </button>
          )}{' '}
          <button
            type="button"
            className="link"
            disabled={disabled}
            onClick={() => onScale(WHOLE_WINDOW)}
          >
            Use the whole window
          </button>
        </>
      )}
      {budget.scale !== 1 && (
        <>
          {' '}
          <button type="button" className="link" disabled={disabled} onClick={() => onScale(1)}>
            Back to about {READING_TARGET_SECONDS} s of reading
          </button>
        </>
      )}
    </p>
  );
}
