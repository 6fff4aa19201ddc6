import { describe, expect, it } from 'vitest';
import type { GenerateOutcome, LlmEngine } from '../../llm/types';
import { recordingSpeed, recordSpeed, speedKey, speedOf } from './engine-speed';

describe('engine speed for the cost estimate', () => {
  it('is unknown until measured, then the mean of the answers (hand-computed)', () => {
    const key = speedKey('wllama', 'a.gguf');
    expect(speedOf(key)).toBeNull();
    recordSpeed(key, { elapsedMs: 1, promptTokensPerSecond: 20, tokensPerSecond: 4 });
    // No prompt rate reported: 300 prompt tokens before the first token at 10 s is 30 tokens/s.
    recordSpeed(key, { elapsedMs: 1, promptTokens: 300, firstTokenMs: 10_000, tokensPerSecond: 8 });
    // Without a generation rate an answer says nothing about the speed.
    recordSpeed(key, { elapsedMs: 1, promptTokensPerSecond: 999 });
    expect(speedOf(key)).toEqual({ promptTokensPerSecond: 25, tokensPerSecond: 6, calls: 2 });
    expect(speedOf(speedKey('wllama', 'b.gguf'))).toBeNull();
  });

  it('records what an engine reports with each answer, and passes everything else through', async () => {
    const stats = { elapsedMs: 5, promptTokensPerSecond: 100, tokensPerSecond: 10 };
    const engine = {
      kind: 'openai',
      label: 'scripted',
      contextLimit: 4096,
      generate: async (): Promise<GenerateOutcome> => ({
        ok: true,
        text: 'A',
        finish: 'stop',
        stats,
      }),
      countTokens: async (text: string) => text.length,
    } as unknown as LlmEngine;
    const key = speedKey('openai', 'm');
    const wrapped = recordingSpeed(engine, key);
    expect(wrapped.label).toBe('scripted');
    expect(await wrapped.countTokens('abcd')).toBe(4);
    const outcome = await wrapped.generate({ messages: [], maxTokens: 1 } as never);
    expect(outcome.ok && outcome.text).toBe('A');
    expect(speedOf(key)).toEqual({ promptTokensPerSecond: 100, tokensPerSecond: 10, calls: 1 });
  });
});
