import { describe, expect, it } from 'vitest';
import { linkedSignal } from '../core/pipelines/limit';
import { testSignal } from '../core/pipelines/testing';
import { domSignal, pipelineLlm } from './pipeline-llm';
import type { GenerateRequest, LlmEngine } from './types';

describe('pipelineLlm', () => {
  it('hands the engine a real AbortSignal that follows the core signal', async () => {
    const stop = testSignal();
    const linked = linkedSignal(stop.signal);
    const dom = domSignal(linked.signal);
    expect(dom).toBeInstanceOf(AbortSignal);
    expect(dom.aborted).toBe(false);
    stop.abort();
    expect(dom.aborted).toBe(true);
    const real = new AbortController().signal;
    expect(domSignal(real)).toBe(real);
  });

  it('maps a generation to a chat result with the engine counts and errors', async () => {
    const seen: GenerateRequest[] = [];
    let fail = false;
    const engine = {
      kind: 'openai',
      label: 'api',
      contextLimit: 4096,
      promptStyle: 'chat',
      exactTokenCounts: false,
      countTokens: async () => 1,
      async generate(r: GenerateRequest) {
        seen.push(r);
        return fail
          ? {
              ok: false,
              text: 'par',
              error: { code: 'server', message: 'down' },
              stats: { elapsedMs: 1 },
            }
          : {
              ok: true,
              text: 'yes',
              finish: 'stop',
              stats: { elapsedMs: 1, promptTokens: 12, completionTokens: 1, cachedPromptTokens: 9 },
            };
      },
      async dispose() {},
    } as unknown as LlmEngine;
    const llm = pipelineLlm(engine);
    expect(llm.concurrency).toBe(4);
    const signal = testSignal().signal;
    expect(
      await llm.chat([{ role: 'user', content: 'q' }], {
        maxTokens: 8,
        signal,
        tag: 't',
        temperature: 0,
      }),
    ).toEqual({
      ok: true,
      text: 'yes',
      finish: 'stop',
      tokensIn: 12,
      tokensOut: 1,
      // Of the 12, those the engine took from its cache (shown in the trace).
      tokensReused: 9,
    });
    expect(seen[0]).toMatchObject({ text: 'q', maxTokens: 8, temperature: 0 });
    expect(seen[0].signal).toBeInstanceOf(AbortSignal);
    fail = true;
    expect(
      await llm.chat([{ role: 'user', content: 'q' }], { maxTokens: 8, signal, tag: 't' }),
    ).toMatchObject({
      ok: false,
      text: 'par',
      error: { code: 'server' },
    });
  });
});
