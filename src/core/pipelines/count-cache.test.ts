import { describe, expect, it } from 'vitest';
import { withCountCache } from './count-cache';
import { longragPipeline, defaultLongRagSettings } from './longrag';
import { fakeLlm, libraryOf, testSignal } from './testing';

describe('withCountCache', () => {
  it('asks the engine once per text and returns the same counts', async () => {
    const asked: string[] = [];
    const base = fakeLlm();
    const llm = withCountCache({
      ...base,
      countTokens: (t) => {
        asked.push(t);
        return base.countTokens(t);
      },
    });
    expect(await llm.countTokens('one two three')).toBe(3);
    expect(await llm.countTokens('one two three')).toBe(3);
    expect(await llm.countTokens('four')).toBe(1);
    expect(asked).toEqual(['one two three', 'four']);
    expect(llm.countCache).toEqual({ counted: 2, reused: 1 });
  });

  it('forgets a failed count', async () => {
    let fail = true;
    const llm = withCountCache({
      ...fakeLlm(),
      countTokens: () => (fail ? Promise.reject(new Error('stopped')) : Promise.resolve(7)),
    });
    await expect(llm.countTokens('x')).rejects.toThrow('stopped');
    fail = false;
    expect(await llm.countTokens('x')).toBe(7);
  });

  it('LongRAG gives the same trace with fewer engine counts', async () => {
    const text = Array.from(
      { length: 12 },
      (_, i) => `Paragraph ${i} tells of the key ${i} and the door ${i}.`,
    ).join('\n\n');
    const question = 'Where is the key?';
    const run = async (cache: boolean) => {
      const fake = fakeLlm({ fallback: '{"status": "True"}' });
      let counts = 0;
      const counting = {
        ...fake,
        countTokens: (t: string) => {
          counts++;
          return fake.countTokens(t);
        },
      };
      const out = await longragPipeline({
        question,
        library: libraryOf([{ name: 'keys.txt', text }], question),
        llm: cache ? withCountCache(counting) : counting,
        settings: { ...defaultLongRagSettings, topK2: 3 },
        signal: testSignal().signal,
        clock: fake.clock,
      });
      return { out, counts, prompts: fake.calls.map((c) => c.prompt) };
    };
    const plain = await run(false);
    const cached = await run(true);
    expect(cached.out.status).toBe('done');
    expect(cached.prompts).toEqual(plain.prompts);
    expect(cached.out.answer).toBe(plain.out.answer);
    expect(cached.counts).toBeLessThan(plain.counts);
  });
});
