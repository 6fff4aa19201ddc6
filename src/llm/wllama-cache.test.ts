/**
 * The prompt is read once: counting a chat prompt reads it as the answer will (template
 * included), and the answer to the same prompt takes it from llama.cpp's cache. The stand-in
 * below keeps the last prompt's tokens as llama.cpp's server does for a slot and reports what a
 * call took from the cache (`timings.cache_n`) and what it read (`timings.prompt_n`).
 */
import { describe, expect, it } from 'vitest';
import { storyQaPrompt, type PromptFragment } from '../core/prompt';
import { fitPromptToEngine } from './fit';
import { WllamaEngine, type WllamaLike } from './wllama';

/** A chat template: role markers around each message, then the assistant's turn. */
function render(messages: Array<{ role: string; content: string }>): string[] {
  return [
    ...messages.flatMap((m) => [`<|${m.role}|>`, ...m.content.split(/\s+/).filter(Boolean)]),
    '<|assistant|>',
  ];
}

function cachingWllama() {
  let cached: string[] = [];
  const read: number[] = [];
  const call = (tokens: string[], opts: { stream?: boolean; onData?: (c: unknown) => void }) => {
    let common = 0;
    while (common < tokens.length && common < cached.length && tokens[common] === cached[common])
      common++;
    // llama.cpp always reads the prompt's last token again, for its logits.
    const reused = Math.min(common, tokens.length - 1);
    cached = tokens;
    read.push(tokens.length - reused);
    const timings = {
      cache_n: reused,
      prompt_n: tokens.length - reused,
      prompt_per_second: 100,
      predicted_n: 1,
      predicted_per_second: 10,
    };
    const usage = { prompt_tokens: tokens.length };
    if (opts.stream) {
      // As wllama streams a chat answer: timings, no usage.
      opts.onData?.({ choices: [{ finish_reason: 'stop', delta: { content: 'Yes.' } }], timings });
      return Promise.resolve(undefined);
    }
    return Promise.resolve({ usage, timings });
  };
  const w = {
    createChatCompletion: (opts: {
      messages: Array<{ role: string; content: string }>;
      stream?: boolean;
      onData?: (c: unknown) => void;
    }) => call(render(opts.messages), opts),
    createCompletion: (opts: { prompt: string; stream?: boolean; onData?: (c: unknown) => void }) =>
      call(opts.prompt.split(/\s+/).filter(Boolean), opts),
    exit: () => Promise.resolve(),
    getLoadedContextInfo: () => ({}),
  };
  return { wllama: w as unknown as WllamaLike, read };
}

const model = {
  name: 'chat.gguf',
  size: 1,
  contextLimit: 700,
  trainedContext: 700,
  threads: 1,
  chatTemplate: true,
};

const fragments: PromptFragment[] = Array.from({ length: 8 }, (_, i) => ({
  index: i,
  rank: i,
  location: `chapter ${i + 1}`,
  text: Array.from({ length: 60 }, (_, w) => `w${i}_${w}`).join(' '),
}));

describe('wllama reads each prompt once', () => {
  it('counts a chat prompt with its template, and the answer reuses that reading', async () => {
    const { wllama, read } = cachingWllama();
    const engine = new WllamaEngine(wllama, model);
    const fitted = await fitPromptToEngine(
      engine,
      (budget) => storyQaPrompt({ question: 'Who is it?', fragments }, budget),
      100,
    );
    expect(fitted.ok).toBe(true);
    if (!fitted.ok) return;
    const size = render(fitted.prompt.messages).length;
    // The exact count is the templated prompt's size, not the contents' size plus an allowance.
    expect(fitted.prompt.tokens).toBe(size);
    const before = read.reduce((a, b) => a + b, 0);
    const outcome = await engine.generate({
      messages: fitted.prompt.messages,
      text: fitted.prompt.text,
      maxTokens: 100,
      temperature: 0,
    });
    expect(outcome.ok).toBe(true);
    expect(outcome.stats.promptTokens).toBe(size);
    // Everything but the last token came from the cache.
    expect(outcome.stats.cachedPromptTokens).toBe(size - 1);
    expect(read.at(-1)).toBe(1);
    // Counting and answering together read the prompt once (plus that one token), however many
    // rounds the fitting took: each round reread only what changed.
    expect(before + 1).toBeLessThan(2 * size);
  });

  it('reports what a follow-up with the same beginning took from the cache', async () => {
    const { wllama } = cachingWllama();
    const engine = new WllamaEngine(wllama, model);
    const system = { role: 'system' as const, content: 'Answer from the passages. '.repeat(20) };
    const ask = (q: string) =>
      engine.generate({
        messages: [system, { role: 'user', content: q }],
        text: q,
        maxTokens: 10,
      });
    const first = await ask('Who is the Cheshire Cat?');
    expect(first.stats.cachedPromptTokens).toBe(0);
    const second = await ask('Where does Alice go?');
    // The system message and the user marker: 1 + 80 + 1 tokens.
    expect(second.stats.cachedPromptTokens).toBe(82);
  });
});
