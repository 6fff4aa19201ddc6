// @vitest-environment happy-dom
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { describe, expect, it } from 'vitest';
import {
  KNEE_PASSAGE_TOKENS,
  STARTING_PASSAGE_TOKENS,
  WHOLE_WINDOW,
  readingBudget,
  type ReadingBudget,
} from '../../llm/reading-budget';
import {
  ReadingBudgetLine,
  localModelName,
  measuredSpeed,
  noteAnswerSpeed,
  readingBudgetText,
} from './ReadingBudget';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const MODEL = 'SmolLM2-135M-Instruct.Q4_1.gguf';
const window4k = { contextLimit: 4096, answerTokens: 512 };
const at = (scale: number, promptTokensPerSecond?: number) =>
  readingBudget({ ...window4k, scale, promptTokensPerSecond });

function mount(used: ReadingBudget, next: ReadingBudget) {
  const div = document.createElement('div');
  document.body.append(div);
  const root = createRoot(div);
  const scales: number[] = [];
  act(() =>
    root.render(
      <ReadingBudgetLine used={used} next={next} model={MODEL} onScale={(s) => scales.push(s)} />,
    ),
  );
  const line = div.querySelector<HTMLElement>('[data-testid="reading-budget"]')!;
  const button = (name: RegExp) =>
    [...line.querySelectorAll('button')].find((b) => name.test(b.textContent ?? '')) ?? null;
  return { line, button, scales };
}

describe('the reading budget line', () => {
  it('says the starting budget is used until the model is measured here', () => {
    const { line } = mount(at(1), at(1));
    expect(line.textContent).toContain(
      `Passages: up to about ${STARTING_PASSAGE_TOKENS} tokens: the starting budget, until ${MODEL}'s reading speed here is measured`,
    );
  });

  it('says what the model reads in about 10 s at its measured speed, and what the next answer gets', () => {
    const { line } = mount(at(1, 42), at(1, 42));
    expect(line.textContent).toContain(
      `Passages: up to about 420 tokens: what ${MODEL} reads in about 10 s here (measured 42 tokens/s).`,
    );
    expect(line.textContent).not.toContain('next answer');
    // The first answer measured it: this answer had the starting budget, the next gets 600.
    expect(mount(at(1), at(1, 60)).line.textContent).toContain(
      'The next answer gets about 600 tokens (measured 60 tokens/s).',
    );
  });

  it('gives more with a button: twice the budget, or the whole window, and back', () => {
    const { button, scales } = mount(at(1, 42), at(1, 42));
    const more = button(/Give it more/)!;
    expect(more.textContent).toBe('Give it more (about 840 tokens)');
    expect(more.type).toBe('button'); // a real button: focusable, Enter and Space press it
    act(() => more.click());
    act(() => button(/whole window/)!.click());
    expect(scales).toEqual([2, WHOLE_WINDOW]);
    expect(button(/Back to/)).toBeNull();

    const doubled = mount(at(2, 42), at(2, 42));
    expect(doubled.line.textContent).toContain('up to about 840 tokens: twice what');
    act(() => doubled.button(/Back to about 10 s/)!.click());
    expect(doubled.scales).toEqual([1]);

    const whole = mount(at(WHOLE_WINDOW, 42), at(WHOLE_WINDOW, 42));
    expect(whole.line.textContent).toContain('as many as the context window holds, as you asked');
    expect(whole.button(/Give it more|whole window/)).toBeNull();
    expect(whole.button(/Back to/)).not.toBeNull();
  });

  it('says when the knee, not the 10 s, sets the budget of a slow reader', () => {
    // 20 tokens/s reads 200 tokens in 10 s, below the measured knee: the knee's tokens are given.
    const { line } = mount(at(1, 20), at(1, 20));
    expect(line.textContent).toContain(
      `Passages: up to about ${KNEE_PASSAGE_TOKENS} tokens: the fewest a small model still answers from`,
    );
    expect(line.textContent).toContain(
      `${MODEL} reads them in about ${Math.round(KNEE_PASSAGE_TOKENS / 20)} s here (measured 20 tokens/s).`,
    );
  });

  it('words each case', () => {
    expect(readingBudgetText(at(4), MODEL)).toContain(
      `four times the starting budget (${STARTING_PASSAGE_TOKENS})`,
    );
    // A budget that already reaches the window (a small window, a fast model).
    const small = readingBudget({
      contextLimit: 512,
      answerTokens: 128,
      scale: 1,
      promptTokensPerSecond: 300,
    });
    expect(readingBudgetText(small, MODEL)).toContain(
      'as many as the context window holds: that is less than',
    );
  });
});

describe('the speeds a reading budget is measured from', () => {
  it('are kept per model file from answers that read enough of their prompt', () => {
    const model = `test-${Math.random()}.gguf`;
    expect(measuredSpeed(model)).toBeNull();
    // A prompt taken from the cache says nothing about the reading speed.
    noteAnswerSpeed(model, {
      elapsedMs: 900,
      promptTokens: 400,
      cachedPromptTokens: 399,
      promptTokensPerSecond: 3,
      tokensPerSecond: 8,
    });
    expect(measuredSpeed(model)).toBeNull();
    noteAnswerSpeed(model, {
      elapsedMs: 20_000,
      promptTokens: 330,
      promptTokensPerSecond: 24,
      tokensPerSecond: 8,
    });
    expect(measuredSpeed(model)).toMatchObject({ promptTokensPerSecond: 24, tokensPerSecond: 8 });
    expect(measuredSpeed(`other-${model}`)).toBeNull();
  });

  it('name a GGUF model by its file', () => {
    const options = { contextSize: 4096 };
    expect(
      localModelName({
        kind: 'wllama',
        source: { kind: 'url', url: `http://hub.test/a/b/resolve/main/${MODEL}` },
        options,
      }),
    ).toBe(MODEL);
    const file = new File(['GGUF'], 'mine.gguf');
    expect(localModelName({ kind: 'wllama', source: { kind: 'file', file }, options })).toBe(
      'mine.gguf',
    );
    expect(localModelName({ kind: 'webllm', modelId: 'x' })).toBeNull();
    expect(localModelName(null)).toBeNull();
  });
});
