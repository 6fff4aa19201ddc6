import { describe, expect, it } from 'vitest';
import {
  MAX_SCALE,
  KNEE_PASSAGE_TOKENS,
  STARTING_PASSAGE_TOKENS,
  TYPICAL_ANSWER_TOKENS,
  INSTRUCTION_TOKENS,
  WHOLE_WINDOW,
  normalizeScale,
  raisedScale,
  readingBudget,
  secondsPerAnswer,
} from './reading-budget';

const window4k = { contextLimit: 4096, answerTokens: 512 };

describe('readingBudget', () => {
  it('starts from the starting budget before the model was measured here', () => {
    const b = readingBudget({ ...window4k, scale: 1 });
    expect(b).toMatchObject({ tokens: STARTING_PASSAGE_TOKENS, basis: 'starting' });
    expect(readingBudget({ ...window4k, scale: 1, promptTokensPerSecond: 0 }).basis).toBe(
      'starting',
    );
    expect(readingBudget({ ...window4k, scale: 1, promptTokensPerSecond: NaN }).basis).toBe(
      'starting',
    );
  });

  it('is the target seconds at the measured prompt speed, rounded', () => {
    const b = readingBudget({ ...window4k, scale: 1, promptTokensPerSecond: 42.3 });
    expect(b).toMatchObject({ tokens: 420, basis: 'measured', promptTokensPerSecond: 42.3 });
    expect(
      readingBudget({ ...window4k, scale: 1, promptTokensPerSecond: 60, targetSeconds: 8 }).tokens,
    ).toBe(480);
    // Fast machines: rounded to fifties above 1,000.
    expect(readingBudget({ ...window4k, scale: 1, promptTokensPerSecond: 123.4 }).tokens).toBe(
      1250,
    );
  });

  it('never goes under the knee, however slow the model, and says so', () => {
    const b = readingBudget({ ...window4k, scale: 1, promptTokensPerSecond: 0.5 });
    expect(b).toMatchObject({ tokens: KNEE_PASSAGE_TOKENS, basis: 'knee' });
    // 20 tokens/s: 200 in the target seconds, the knee's 420 given.
    expect(readingBudget({ ...window4k, scale: 1, promptTokensPerSecond: 20 })).toMatchObject({
      tokens: KNEE_PASSAGE_TOKENS,
      basis: 'knee',
      baseTokens: KNEE_PASSAGE_TOKENS,
    });
    // Before any measurement the knee is the start.
    expect(STARTING_PASSAGE_TOKENS).toBe(KNEE_PASSAGE_TOKENS);
  });

  it('is raised by the scale, and becomes the whole window where it reaches it', () => {
    const speed = { ...window4k, promptTokensPerSecond: 42 };
    expect(readingBudget({ ...speed, scale: 2 }).tokens).toBe(840);
    expect(readingBudget({ ...speed, scale: 8 }).tokens).toBe(3360);
    expect(readingBudget({ ...speed, scale: 16 })).toMatchObject({ tokens: null, basis: 'window' });
    expect(readingBudget({ ...speed, scale: WHOLE_WINDOW })).toMatchObject({
      tokens: null,
      basis: 'window',
      baseTokens: 420,
    });
    // A small window: the budget alone already fills it.
    expect(
      readingBudget({ contextLimit: 512, answerTokens: 256, scale: 1, promptTokensPerSecond: 42 }),
    ).toMatchObject({ tokens: null, basis: 'window' });
  });

  it('raises by doubling, then to the whole window', () => {
    const at = (scale: number) => readingBudget({ ...window4k, scale, promptTokensPerSecond: 50 });
    expect(raisedScale(at(1))).toBe(2);
    expect(raisedScale(at(2))).toBe(4);
    expect(raisedScale(at(MAX_SCALE))).toBe(WHOLE_WINDOW);
    // 500 tokens × 64 passes the 3,584 the window leaves: already the window.
    expect(raisedScale(at(WHOLE_WINDOW))).toBe(WHOLE_WINDOW);
  });

  it('reads a stored scale as a power of two within range, anything else as 1', () => {
    expect(normalizeScale(WHOLE_WINDOW)).toBe(WHOLE_WINDOW);
    expect(normalizeScale(4)).toBe(4);
    expect(normalizeScale(3.1)).toBe(4);
    expect(normalizeScale(1000)).toBe(MAX_SCALE);
    expect(normalizeScale(-2)).toBe(1);
    expect(normalizeScale('8')).toBe(1);
    expect(normalizeScale(undefined)).toBe(1);
  });
});

describe('secondsPerAnswer', () => {
  it('adds reading the instructions and the budgeted passages to writing a typical answer', () => {
    // 20 tokens/s: the knee's 420 passage tokens (10 s would be 200) + the instructions read,
    // 60 tokens written at 8/s.
    expect(secondsPerAnswer({ promptTokensPerSecond: 20, tokensPerSecond: 8 })).toBeCloseTo(
      (INSTRUCTION_TOKENS + KNEE_PASSAGE_TOKENS) / 20 + TYPICAL_ANSWER_TOKENS / 8,
    );
    // 60 tokens/s: 600 passage tokens in the 10 s.
    expect(secondsPerAnswer({ promptTokensPerSecond: 60, tokensPerSecond: 8 })).toBeCloseTo(
      (INSTRUCTION_TOKENS + 600) / 60 + TYPICAL_ANSWER_TOKENS / 8,
    );
    expect(secondsPerAnswer({ promptTokensPerSecond: 20 })).toBeNull();
    expect(secondsPerAnswer({ promptTokensPerSecond: 0, tokensPerSecond: 8 })).toBeNull();
  });
});
