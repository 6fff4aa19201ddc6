import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ELLIPSIS,
  MESSAGE_OVERHEAD_TOKENS,
  REPLY_OVERHEAD_TOKENS,
  chatMemoryPrompt,
  codeCompletionPrompt,
  commentPrefixFor,
  promptAsSent,
  promptTokens,
  storyQaPrompt,
  truncateToFit,
  type Prompt,
  type PromptBudget,
  type PromptFragment,
  type PromptResult,
} from './prompt';

/** One token per whitespace-separated word: easy to reason about in tests. */
const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

function budget(contextLimit: number, style: PromptBudget['style'] = 'text'): PromptBudget {
  return { contextLimit, answerTokens: 10, countTokens: words, style };
}

function ok(result: PromptResult): Prompt {
  if (!result.ok) throw new Error(`expected a prompt, got: ${result.reason}`);
  return result.prompt;
}

/** Fragments in document order; `ranks[i]` is fragment i's rank. */
function fragments(ranks: number[], wordsEach = 20): PromptFragment[] {
  return ranks.map((rank, i) => ({
    index: 100 + i,
    rank,
    location: `book.txt · chapter ${i + 1}`,
    text: Array.from({ length: wordsEach }, (_, w) => `f${i}w${w}`).join(' '),
  }));
}

const QUESTION = 'What did the Mock Turtle learn at school?';

describe('story QA prompt', () => {
  it('labels the fragments [1]..[K] in document order with their location, then asks', () => {
    const p = ok(
      storyQaPrompt({ question: QUESTION, fragments: fragments([2, 0, 1]) }, budget(1000)),
    );
    expect(p.sources.map((s) => [s.label, s.index])).toEqual([
      [1, 100],
      [2, 101],
      [3, 102],
    ]);
    expect(p.text).toContain('[1] (book.txt · chapter 1)\nf0w0');
    expect(p.text.indexOf('[2] (book.txt · chapter 2)')).toBeGreaterThan(p.text.indexOf('[1]'));
    expect(p.text.trimEnd().endsWith(`Question: ${QUESTION}\nAnswer:`)).toBe(true);
    expect(p.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(p.messages[0].content).toMatch(/cite/i);
    expect(p.messages[1].content).toContain('[3] (book.txt · chapter 3)');
    expect(p.messages[1].content.endsWith(`Question: ${QUESTION}`)).toBe(true);
    expect(p.dropped).toEqual([]);
    expect(p.truncated).toEqual([]);
    expect(p.tokens).toBe(words(p.text));
    expect(p.limit).toBe(990);
  });

  it('drops the lowest-ranked fragments first and relabels what is left in document order', () => {
    const all = fragments([3, 0, 2, 1]);
    const full = ok(storyQaPrompt({ question: QUESTION, fragments: all }, budget(10_000)));
    // Room for two fragments of 20 words (each block adds 20 words + label + location).
    const limit = full.tokens - 2 * 25 + 10;
    const p = ok(storyQaPrompt({ question: QUESTION, fragments: all }, budget(limit)));
    expect(p.tokens).toBeLessThanOrEqual(p.limit);
    expect(p.sources.map((s) => s.index)).toEqual([101, 103]); // ranks 0 and 1, document order
    expect(p.sources.map((s) => s.label)).toEqual([1, 2]);
    expect(p.dropped.map((d) => d.index)).toEqual([102, 100]); // rank 2, then rank 3
    expect(p.text).not.toContain('f0w0');
    expect(p.text).toContain('[1] (book.txt · chapter 2)');
  });

  it('cuts the best fragment only when it alone does not fit, and says so', () => {
    const big = fragments([1, 0], 400);
    const p = ok(storyQaPrompt({ question: QUESTION, fragments: big }, budget(150)));
    expect(p.sources).toHaveLength(1);
    expect(p.sources[0]).toMatchObject({ index: 101, truncated: true });
    expect(p.dropped.map((d) => d.index)).toEqual([100]);
    expect(p.truncated).toEqual([
      {
        part: 'fragment',
        index: 101,
        keptChars: expect.any(Number),
        originalChars: big[1].text.length,
      },
    ]);
    expect(p.truncated[0].keptChars).toBeLessThan(big[1].text.length);
    expect(p.text).toContain(`f1w0`);
    expect(p.text).toContain(ELLIPSIS);
    expect(p.tokens).toBeLessThanOrEqual(140);
    // The cut keeps as much as fits: one more word would not.
    expect(p.tokens).toBeGreaterThan(140 - 3);
  });

  it('keeps the excerpts within a passage cap, best first, and says the cap decided', () => {
    // 5 fragments of 20 words (about 24 tokens each with their label lines); a window that holds
    // them all, and a cap of 50 excerpt tokens: the two best-ranked fit, in document order.
    const input = { question: QUESTION, fragments: fragments([3, 0, 4, 1, 2]) };
    const whole = ok(storyQaPrompt(input, budget(10_000)));
    expect(whole.sources).toHaveLength(5);
    expect(whole.passageCap).toBeUndefined();
    // A cap of nothing still leaves the best fragment, cut to the smallest cap honoured.
    const long = { question: QUESTION, fragments: fragments([1, 0], 60) };
    const least = ok(storyQaPrompt(long, { ...budget(10_000), passageTokens: 0 }));
    expect(least.sources.map((s) => s.index)).toEqual([101]);
    expect(least.truncated).toHaveLength(1);
    expect(least.passageCap).toBe(0);
    const capped = ok(storyQaPrompt(input, { ...budget(10_000), passageTokens: 50 }));
    expect(capped.sources.map((s) => s.index)).toEqual([101, 103]);
    expect(capped.dropped.map((d) => d.rank)).toEqual([2, 3, 4]);
    expect(capped.passageCap).toBe(50);
    expect(capped.limit).toBe(whole.limit);
    expect(capped.tokens).toBeLessThan(whole.tokens);
    // A cap the excerpts fit under changes nothing and is not reported.
    const roomy = ok(storyQaPrompt(input, { ...budget(10_000), passageTokens: 5_000 }));
    expect(roomy).toEqual(whole);
    // The window still rules when it is the smaller limit.
    const tight = ok(storyQaPrompt(input, { ...budget(120), passageTokens: 5_000 }));
    expect(tight.passageCap).toBeUndefined();
    expect(tight.dropped.length).toBeGreaterThan(0);
  });

  it('fails with a readable reason when the question alone is too long', () => {
    const long = Array.from({ length: 500 }, () => 'why').join(' ');
    const r = storyQaPrompt({ question: long, fragments: fragments([0]) }, budget(100));
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.reason).toMatch(/only 90/);
      expect(r.reason).toMatch(/larger context window/);
      expect(r.tokens).toBeGreaterThan(r.limit);
    }
    const none = storyQaPrompt({ question: QUESTION, fragments: [] }, budget(100));
    expect(none.ok).toBe(false);
  });

  it('measures chat prompts with the per-message allowance', () => {
    const p = ok(
      storyQaPrompt({ question: QUESTION, fragments: fragments([0]) }, budget(500, 'chat')),
    );
    const expected =
      REPLY_OVERHEAD_TOKENS +
      p.messages.reduce((s, m) => s + words(m.content) + MESSAGE_OVERHEAD_TOKENS, 0);
    expect(p.tokens).toBe(expected);
    expect(promptTokens(p, 'chat', words)).toBe(expected);
    expect(promptAsSent(p)).toBe(
      `[system]\n${p.messages[0].content}\n\n[user]\n${p.messages[1].content}`,
    );
    expect(promptAsSent({ ...p, style: 'text' })).toBe(p.text);
  });

  it('keeps a prefix of the ranking and always fits (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 60 }), { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 40, max: 600 }),
        fc.constantFrom<PromptBudget['style']>('text', 'chat'),
        (sizes, limit, style) => {
          // Ranks are a permutation: fragment i has rank (i * 7) mod n, made unique below.
          const n = sizes.length;
          const ranks = sizes.map((_, i) => i).sort((a, b) => ((a * 7) % n) - ((b * 7) % n));
          const input = sizes.map((size, i) => ({
            ...fragments([0], size)[0],
            index: i,
            rank: ranks.indexOf(i),
            text: Array.from({ length: size }, (_, w) => `w${w}`).join(' '),
          }));
          const r = storyQaPrompt({ question: QUESTION, fragments: input }, budget(limit, style));
          if (!r.ok) return;
          const p = r.prompt;
          expect(p.tokens).toBeLessThanOrEqual(p.limit);
          expect(p.sources.length + p.dropped.length).toBe(n);
          const kept = p.sources.map((s) => input[s.index].rank);
          const dropped = p.dropped.map((d) => d.rank);
          if (kept.length && dropped.length) {
            expect(Math.max(...kept)).toBeLessThan(Math.min(...dropped));
          }
          // Document order, labels 1..K.
          expect(p.sources.map((s) => s.index)).toEqual(
            [...p.sources.map((s) => s.index)].sort((a, b) => a - b),
          );
          expect(p.sources.map((s) => s.label)).toEqual(p.sources.map((_, i) => i + 1));
          expect(p.dropped.map((d) => d.rank)).toEqual([...dropped].sort((a, b) => a - b));
        },
      ),
    );
  });
});

describe('truncateToFit', () => {
  const text = 'one two three four five six seven eight nine ten';
  it('keeps the beginning, ends at a word, and marks the cut', () => {
    const cut = truncateToFit(text, (t) => t.length <= 20, 'start');
    expect(cut.length).toBeLessThanOrEqual(20);
    expect(cut.endsWith(ELLIPSIS)).toBe(true);
    expect(text.startsWith(cut.slice(0, -2))).toBe(true);
  });
  it('keeps the end, starting at a line when one is near', () => {
    const code = 'line1\nline2\nline3\nline4\n';
    const cut = truncateToFit(code, (t) => t.length <= 13, 'end');
    expect(cut).toBe('line3\nline4\n');
  });
  it('returns the text when it fits and nothing when nothing does', () => {
    expect(truncateToFit(text, () => true, 'start')).toBe(text);
    expect(truncateToFit(text, (t) => t.length === 0, 'start')).toBe('');
  });
});

describe('code completion prompt (RepoCoder layout)', () => {
  const windows: PromptFragment[] = [
    {
      index: 7,
      rank: 1,
      location: 'pkg/io.py:1-20',
      text: 'def read(path):\n    return open(path).read()',
    },
    {
      index: 9,
      rank: 0,
      location: 'pkg/util.py:11-30',
      text: 'def slug(s):\n\n    return s.lower()',
    },
  ];
  const currentFile = {
    path: 'pkg/main.py',
    textBeforeCursor: 'import pkg\n\ndef main():\n    data = ',
  };

  it('comments each window with its label and location, then ends with the file up to the cursor', () => {
    const p = ok(codeCompletionPrompt({ fragments: windows, currentFile }, budget(1000)));
    expect(p.text).toContain(
      '# [1] from pkg/io.py:1-20:\n# def read(path):\n#     return open(path).read()\n# ---',
    );
    expect(p.text).toContain(
      '# [2] from pkg/util.py:11-30:\n# def slug(s):\n#\n#     return s.lower()',
    );
    expect(p.text.indexOf('[1] from pkg/io.py')).toBeLessThan(
      p.text.indexOf('[2] from pkg/util.py'),
    );
    expect(p.text.endsWith(`# File: pkg/main.py\n${currentFile.textBeforeCursor}`)).toBe(true);
    expect(p.messages[1].content).toBe(p.text);
    expect(p.messages[0].content).toMatch(/only the code/);
    expect(p.sources.map((s) => s.index)).toEqual([7, 9]);
  });

  it('uses the comment marker of the language', () => {
    expect(commentPrefixFor('a/b.ts')).toBe('//');
    expect(commentPrefixFor('Main.java')).toBe('//');
    expect(commentPrefixFor('x.py')).toBe('#');
    expect(commentPrefixFor('q.sql')).toBe('--');
    expect(commentPrefixFor('Makefile')).toBe('#');
    const p = ok(
      codeCompletionPrompt(
        { fragments: windows, currentFile: { path: 'src/a.ts', textBeforeCursor: 'const x = ' } },
        budget(1000),
      ),
    );
    expect(p.text).toContain('// [1] from pkg/io.py:1-20:\n// def read(path):');
  });

  it('drops windows from the lowest rank, then cuts the file from the top', () => {
    const full = ok(codeCompletionPrompt({ fragments: windows, currentFile }, budget(1000)));
    const oneLess = ok(
      codeCompletionPrompt({ fragments: windows, currentFile }, budget(full.tokens + 9)),
    );
    expect(oneLess.sources.map((s) => s.index)).toEqual([9]);
    expect(oneLess.dropped.map((d) => d.index)).toEqual([7]);

    const longFile = {
      path: 'pkg/main.py',
      textBeforeCursor: Array.from({ length: 200 }, (_, i) => `x${i} = ${i}`).join('\n') + '\ny = ',
    };
    const p = ok(codeCompletionPrompt({ fragments: windows, currentFile: longFile }, budget(60)));
    expect(p.sources).toEqual([]);
    expect(p.dropped.map((d) => d.index)).toEqual([9, 7]);
    expect(p.truncated).toEqual([
      {
        part: 'current-file',
        keptChars: expect.any(Number),
        originalChars: longFile.textBeforeCursor.length,
      },
    ]);
    expect(p.text.endsWith('x199 = 199\ny = ')).toBe(true);
    expect(p.text).not.toContain('x0 = 0');
    expect(p.tokens).toBeLessThanOrEqual(50);
  });
});

describe('chat with memory prompt', () => {
  const evidence: PromptFragment[] = [
    { index: 3, rank: 1, location: 'turn 2', text: 'user: my dog is called Rex' },
    { index: 8, rank: 0, location: 'turn 5', text: 'user: Rex is afraid of cats' },
  ];
  const history = [
    { role: 'user' as const, content: 'I am going to the park.' },
    { role: 'assistant' as const, content: 'Have fun at the park!' },
  ];

  it('puts related evidence in the system message, then the recent dialog, then the message', () => {
    const p = ok(
      chatMemoryPrompt(
        { evidence, history, message: 'What is my dog afraid of?' },
        budget(1000, 'chat'),
      ),
    );
    expect(p.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(p.messages[0].content).toContain('[1] (turn 2)\nuser: my dog is called Rex');
    expect(p.messages[0].content).toContain('[2] (turn 5)');
    expect(p.messages[3].content).toBe('What is my dog afraid of?');
    expect(p.text).toContain(
      'Recent conversation:\nUser: I am going to the park.\nAssistant: Have fun',
    );
    expect(p.text.endsWith('User: What is my dog afraid of?\nAssistant:')).toBe(true);
  });

  it('drops evidence first, then the oldest turns, and never cuts the message', () => {
    const input = { evidence, history, message: 'What is my dog afraid of?' };
    const full = ok(chatMemoryPrompt(input, budget(1000)));
    const lessEvidence = ok(chatMemoryPrompt(input, budget(full.tokens + 10 - 6)));
    expect(lessEvidence.sources.map((s) => s.index)).toEqual([8]);
    expect(lessEvidence.droppedTurns).toEqual([]);

    const noMemory = ok(chatMemoryPrompt({ ...input, evidence: [] }, budget(1000)));
    const tight = ok(chatMemoryPrompt(input, budget(noMemory.tokens + 10 - 5)));
    expect(tight.sources).toEqual([]);
    expect(tight.dropped.map((d) => d.index)).toEqual([8, 3]);
    expect(tight.droppedTurns).toEqual([0]);
    expect(tight.text).not.toContain('going to the park');
    expect(tight.text).toContain('Have fun at the park!');

    const r = chatMemoryPrompt({ ...input, message: 'word '.repeat(300) }, budget(100));
    expect(r.ok).toBe(false);
  });
});
