import { describe, expect, it } from 'vitest';
import { isHubModelId, statsOf } from './engine';

describe('the ONNX engine', () => {
  it('loads only hub model names of the form owner/name', () => {
    expect(isHubModelId('HuggingFaceTB/SmolLM2-135M-Instruct')).toBe(true);
    expect(isHubModelId('a/b')).toBe(true);
    for (const bad of ['', 'name', 'a/b/c', 'https://h.co/a/b', '../a', 'a /b', 'a/b?x=1'])
      expect(isHubModelId(bad)).toBe(false);
  });

  it("reports the worker's timings as prompt and writing speeds", () => {
    // 456 prompt tokens; the first token after 4 s; 21 tokens in all, the last after 5 s.
    const s = statsOf(
      {
        promptTokens: 456,
        cachedPromptTokens: 0,
        completionTokens: 21,
        firstTokenMs: 4000,
        elapsedMs: 5000,
      },
      5100,
    );
    expect(s).toEqual({
      elapsedMs: 5100,
      promptTokens: 456,
      completionTokens: 21,
      firstTokenMs: 4000,
      promptTokensPerSecond: 114,
      tokensPerSecond: 20,
    });
    // Nothing written: no first token and no speeds to claim.
    expect(
      statsOf(
        {
          promptTokens: 10,
          cachedPromptTokens: 0,
          completionTokens: 0,
          firstTokenMs: 300,
          elapsedMs: 300,
        },
        310,
      ),
    ).toEqual({ elapsedMs: 310, promptTokens: 10, completionTokens: 0 });
    // 400 of 456 tokens from the cache: the speed is of the 56 read.
    const cached = statsOf(
      {
        promptTokens: 456,
        cachedPromptTokens: 400,
        completionTokens: 5,
        firstTokenMs: 500,
        elapsedMs: 700,
      },
      720,
    );
    expect(cached).toMatchObject({ cachedPromptTokens: 400, promptTokensPerSecond: 112 });
  });
});
