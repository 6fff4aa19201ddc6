import { describe, expect, it } from 'vitest';
import { storyQaPrompt, type PromptFragment } from '../core/prompt';
import { countedExactly, exactPromptTokens, fitPromptToEngine } from './fit';
import { estimateTokens } from './tokens';
import {
  LlmFailure,
  streamTokens,
  type GenerateOutcome,
  type GenerateRequest,
  type LlmEngine,
} from './types';

/** An engine whose tokenizer counts `perWord` tokens per word: the estimate is off by a factor. */
function countingEngine(
  perWord: number,
  exact = true,
  style: 'chat' | 'text' = 'text',
): LlmEngine & { counted: number } {
  const engine = {
    kind: 'wllama' as const,
    label: 'test model',
    contextLimit: 600,
    promptStyle: style,
    exactTokenCounts: exact,
    counted: 0,
    async countTokens(text: string) {
      engine.counted++;
      return Math.ceil(text.split(/\s+/).filter(Boolean).length * perWord);
    },
    async generate(): Promise<GenerateOutcome> {
      throw new Error('not used');
    },
    async dispose() {},
  };
  return engine;
}

const fragments: PromptFragment[] = Array.from({ length: 8 }, (_, i) => ({
  index: i,
  rank: (i * 3) % 8,
  location: `chapter ${i + 1}`,
  text: Array.from({ length: 40 }, (_, w) => `word${w}`).join(' '),
}));
const build = (budget: Parameters<typeof storyQaPrompt>[1]) =>
  storyQaPrompt({ question: 'Who is it?', fragments }, budget);

describe('fitPromptToEngine', () => {
  it('sends a prompt cut to a reading budget on the estimate: no exact count, no extra read', async () => {
    const engine = { ...countingEngine(1), contextLimit: 4096 };
    const capped = (budget: Parameters<typeof storyQaPrompt>[1]) =>
      storyQaPrompt({ question: 'Who is it?', fragments }, { ...budget, passageTokens: 100 });
    const r = await fitPromptToEngine(engine, capped, 100);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(engine.counted).toBe(0);
    expect(r.prompt.passageCap).toBe(100);
    expect(r.prompt.sources.length).toBeGreaterThan(0);
    expect(r.prompt.sources.length).toBeLessThan(fragments.length);
    expect(countedExactly(engine, r.prompt)).toBe(false);
    // Without the cap the same fragments fill the window, and nothing is left out.
    const whole = await fitPromptToEngine(engine, build, 100);
    expect(whole.ok && whole.prompt.sources.length).toBe(fragments.length);
  });

  it('skips the exact count when the estimate is far below the limit, and says so', async () => {
    const engine = { ...countingEngine(1), contextLimit: 4096 };
    let counted = 0;
    engine.countTokens = async (text: string) => {
      counted++;
      return text.split(/\s+/).length;
    };
    const small = (budget: Parameters<typeof storyQaPrompt>[1]) =>
      storyQaPrompt({ question: 'Who is it?', fragments: fragments.slice(0, 1) }, budget);
    const r = await fitPromptToEngine(engine, small, 100);
    expect(r.ok).toBe(true);
    expect(counted).toBe(0);
    if (r.ok) expect(countedExactly(engine, r.prompt)).toBe(false);

    // Near the limit the same engine counts exactly.
    const near = countingEngine(1);
    const r2 = await fitPromptToEngine(near, build, 100);
    expect(near.counted).toBeGreaterThan(0);
    if (r2.ok) expect(countedExactly(near, r2.prompt)).toBe(true);
  });

  it('uses the estimate alone for engines without a tokenizer', async () => {
    const engine = countingEngine(1, false);
    const r = await fitPromptToEngine(engine, build, 100);
    expect(r.ok).toBe(true);
    expect(engine.counted).toBe(0);
    if (r.ok) expect(r.prompt.tokens).toBe(estimateTokens(r.prompt.text));
  });

  it('calibrates against exact counts until the prompt fits', async () => {
    // Each word costs 3 model tokens: far more than the estimate assumes.
    const engine = countingEngine(3);
    const r = await fitPromptToEngine(engine, build, 100);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const exact = await exactPromptTokens(engine, r.prompt);
    expect(r.prompt.tokens).toBe(exact);
    expect(exact).toBeLessThanOrEqual(500);
    expect(r.prompt.dropped.length).toBeGreaterThan(0);
    // Not wasteful: one more fragment would not have fitted.
    const blockTokens = 3 * 43;
    expect(exact + blockTokens).toBeGreaterThan(500);
  });

  it('takes more fragments when the model counts fewer tokens than estimated', async () => {
    const cheap = countingEngine(0.2);
    const r = await fitPromptToEngine(cheap, build, 100);
    expect(r.ok && r.prompt.dropped).toEqual([]);
  });

  it('adds the chat allowance to exact counts of chat prompts', async () => {
    const engine = countingEngine(1, true, 'chat');
    const r = build({
      contextLimit: 10_000,
      answerTokens: 10,
      countTokens: estimateTokens,
      style: 'chat',
    });
    if (!r.ok) throw new Error(r.reason);
    const words = r.prompt.messages
      .map((m) => m.content)
      .join('\n')
      .split(/\s+/)
      .filter(Boolean).length;
    expect(await exactPromptTokens(engine, r.prompt)).toBe(words + 3 + 2 * 4);
  });
});

describe('streamTokens', () => {
  function scripted(pieces: string[], outcome: (text: string) => GenerateOutcome): LlmEngine {
    return {
      ...countingEngine(1),
      async generate(request: GenerateRequest) {
        for (const p of pieces) {
          await Promise.resolve();
          request.onToken?.(p);
        }
        return outcome(pieces.join(''));
      },
    };
  }
  const request = { messages: [], text: 'x', maxTokens: 5 };

  it('yields each piece and returns the outcome', async () => {
    const engine = scripted(['a', 'b', 'c'], (text) => ({
      ok: true,
      text,
      finish: 'stop',
      stats: { elapsedMs: 1 },
    }));
    const seen: string[] = [];
    for await (const t of streamTokens(engine, request)) seen.push(t);
    expect(seen).toEqual(['a', 'b', 'c']);
  });

  it('throws the error value after the pieces that arrived', async () => {
    const engine = scripted(['a'], (text) => ({
      ok: false,
      text,
      error: { code: 'network', message: 'broke off' },
      stats: { elapsedMs: 1 },
    }));
    const seen: string[] = [];
    const run = async () => {
      for await (const t of streamTokens(engine, request)) seen.push(t);
    };
    await expect(run()).rejects.toBeInstanceOf(LlmFailure);
    expect(seen).toEqual(['a']);
  });
});
