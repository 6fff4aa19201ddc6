import { describe, expect, it } from 'vitest';
import { loadGloveFromDisk } from '../../../test/glove';
import { embedTexts } from '../embed/static';
import { topK } from '../heap';
import type { VectorSet } from '../types';
import {
  defaultChatMemoryOptions,
  estimateTokens,
  memoryQuery,
  memorySwitch,
  planChatMemory,
  roundText,
  type ChatEmbedder,
  type ChatRound,
} from './index';
import { UNRELATED_ROUNDS } from './testing';

/** 14 rounds on unrelated topics; round index 1 (the 2nd) is about a trip to Kyoto. */
const conversation: ChatRound[] = [
  {
    user: 'Can you suggest a name for my new puppy? She is a golden retriever.',
    assistant: 'How about Honey, Maple or Sunny? Golden retrievers suit warm names.',
  },
  {
    user: 'I am planning a trip to Kyoto in April to see the cherry blossoms. Which temples should I visit?',
    assistant:
      'Kiyomizu-dera, the Fushimi Inari shrine and the temples along the Philosopher\u2019s Path are lovely when the cherry trees bloom.',
  },
  ...UNRELATED_ROUNDS,
  {
    user: 'Recommend a science fiction novel.',
    assistant: 'Try The Left Hand of Darkness by Ursula K. Le Guin.',
  },
  {
    user: 'Who wrote Dune?',
    assistant: 'Frank Herbert, in 1965.',
  },
];
const newMessage =
  'Back to my Kyoto trip: do the cherry blossoms usually peak in early April, and are the temples crowded then?';

const glove = loadGloveFromDisk();
const gloveEmbed: ChatEmbedder = (texts) => embedTexts(glove, texts);

function rounds(count: number, words = 5): ChatRound[] {
  return Array.from({ length: count }, (_, k) => ({
    user: Array.from({ length: words }, (_, w) => `u${k}w${w}`).join(' '),
    assistant: '',
  }));
}

describe('token estimate', () => {
  it('is ceil(words * 4 / 3)', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('one two three')).toBe(4);
    expect(estimateTokens('a b c d e f')).toBe(8);
  });
});

describe('the switch from full history to memory', () => {
  it('has the paper defaults', () => {
    expect(defaultChatMemoryOptions).toMatchObject({
      memoryAfterTokens: 1000,
      memoryAfterRounds: 10,
      topTurns: 8,
      wRel: 0.8,
      alpha: 0.5,
      recentTurns: 2,
    });
  });

  it('switches by rounds: 10 rounds go in whole, the 11th turns memory on', () => {
    expect(memorySwitch(10, 100)).toEqual({ active: false, reason: 'short' });
    expect(memorySwitch(11, 100)).toEqual({ active: true, reason: 'rounds' });

    const ten = planChatMemory({ rounds: rounds(10), message: 'next' });
    expect(ten.mode).toBe('full-history');
    expect(ten.included).toEqual([...Array(10).keys()]);
    expect(ten.rounds.every((r) => r.inPrompt && r.reason === 'full-history')).toBe(true);
    expect(ten.recent).toEqual([]);
    expect(ten.tokens.memory).toBe(ten.tokens.history);

    const eleven = planChatMemory({ rounds: rounds(11), message: 'next' });
    expect(eleven.mode).toBe('memory');
    expect(eleven.switchReason).toBe('rounds');
    // 2 recent + 8 of the 9 older rounds.
    expect(eleven.recent).toEqual([9, 10]);
    expect(eleven.retrieved).toHaveLength(8);
    expect(eleven.included).toHaveLength(10);
    expect(eleven.rounds.filter((r) => !r.inPrompt)).toHaveLength(1);
  });

  it('switches by tokens: 1000 tokens go in whole, more turn memory on', () => {
    // 3 rounds of 250 words = 3 * ceil(250 * 4 / 3) = 3 * 334 = 1002 tokens.
    const long = planChatMemory({ rounds: rounds(3, 250), message: 'next' });
    expect(long.tokens.history).toBe(1002);
    expect(long.mode).toBe('memory');
    expect(long.switchReason).toBe('tokens');

    const justUnder = planChatMemory({ rounds: rounds(4, 186), message: 'next' });
    expect(justUnder.tokens.history).toBe(4 * 248);
    expect(justUnder.mode).toBe('full-history');
  });

  it('counts tokens with the injected counter', () => {
    const history = rounds(3);
    const fewTokens = planChatMemory({ rounds: history, message: 'm' });
    expect(fewTokens.mode).toBe('full-history');
    const manyTokens = planChatMemory({
      rounds: history,
      message: 'm',
      countTokens: (text) => text.length * 100,
    });
    expect(manyTokens.mode).toBe('memory');
    expect(manyTokens.switchReason).toBe('tokens');
    expect(manyTokens.tokens.message).toBe(100);
  });

  it('switches when the history alone does not fit the budget, and can be forced', () => {
    const history = rounds(4); // 4 * 7 = 28 tokens
    expect(planChatMemory({ rounds: history, message: 'm' }, { budget: 20 }).switchReason).toBe(
      'budget',
    );
    expect(planChatMemory({ rounds: history, message: 'm' }, { memory: 'on' }).mode).toBe('memory');
    const off = planChatMemory({ rounds: rounds(30), message: 'm' }, { memory: 'off' });
    expect(off.mode).toBe('full-history');
    expect(off.included).toHaveLength(30);
  });

  it('handles an empty conversation', () => {
    const plan = planChatMemory({ rounds: [], message: 'hello there' });
    expect(plan.mode).toBe('full-history');
    expect(plan.query).toBe('hello there');
    expect(plan.rounds).toEqual([]);
    expect(plan.tokens.total).toBe(3);
  });
});

describe('retrieval and time reordering on a hand-made conversation', () => {
  for (const [name, extra] of [
    ['BM25', {}],
    ['dense (GloVe)', { embed: gloveEmbed }],
    ['hybrid (GloVe + BM25)', { embed: gloveEmbed }],
  ] as const) {
    it(`${name}: retrieves the early round the message refers back to, in time order`, () => {
      const scoring = name.startsWith('hybrid') ? 'hybrid' : 'auto';
      const plan = planChatMemory(
        { rounds: conversation, message: newMessage, ...extra },
        {
          scoring,
        },
      );
      expect(plan.scoring).toBe(
        name === 'BM25' ? 'bm25' : scoring === 'hybrid' ? 'hybrid' : 'dense',
      );
      expect(plan.mode).toBe('memory');
      expect(plan.query).toBe(`${roundText(conversation[13])}\n${newMessage}`);
      // The Kyoto round is the best retrievable round.
      expect(plan.selection.ranked[0]).toBe(1);
      expect(plan.rounds[1]).toMatchObject({ inPrompt: true, reason: 'retrieved' });
      // 8 retrieved, reordered by time; the 2 recent rounds always in, verbatim.
      expect(plan.retrieved).toHaveLength(8);
      expect(plan.retrieved).toEqual([...plan.retrieved].sort((a, b) => a - b));
      expect(Array.from(plan.selection.ranked)).not.toEqual(plan.retrieved);
      expect(plan.recent).toEqual([12, 13]);
      expect(plan.rounds[12].reason).toBe('recent');
      expect(plan.rounds[13].reason).toBe('recent');
      expect(plan.included).toEqual([...plan.retrieved, 12, 13]);
      expect(plan.retrieved).not.toContain(12);
      // Every past round carries its three scores, Eq. 10 holding for each.
      for (const r of plan.rounds) {
        expect(r.final).toBeCloseTo(r.independent + 0.5 * r.environment, 12);
      }
      expect(plan.rounds.filter((r) => !r.inPrompt)).toHaveLength(4);
      expect(plan.explanations[0].index).toBe(1);
      expect(plan.explanations[0].rank).toBe(plan.rounds[1].rank);
    });
  }

  it('keeps the recent rounds even when they score lowest', () => {
    const plan = planChatMemory(
      { rounds: conversation, message: 'cherry blossoms in Kyoto temples' },
      { recentTurns: 3, topTurns: 2 },
    );
    expect(plan.recent).toEqual([11, 12, 13]);
    expect(plan.retrieved).toHaveLength(2);
    expect(plan.retrieved).toContain(1);
    expect(plan.included).toEqual([...plan.retrieved, 11, 12, 13]);
  });

  it('environment is Eq. 9 over all other past rounds (recent ones included), w = 0.8^|i-j|', () => {
    const plan = planChatMemory({ rounds: conversation, message: newMessage });
    const s = plan.scores.independent;
    for (const i of [0, 1, 7, 13]) {
      let num = 0;
      let den = 0;
      for (let j = 0; j < s.length; j++) {
        if (j === i) continue;
        num += 0.8 ** Math.abs(i - j) * s[j];
        den += 0.8 ** Math.abs(i - j);
      }
      expect(plan.rounds[i].environment).toBeCloseTo(num / den, 12);
    }
  });

  it('alpha = 0 (or w_rel = 0) equals plain retrieval', () => {
    for (const extra of [{}, { embed: gloveEmbed }]) {
      for (const options of [{ alpha: 0 }, { wRel: 0 }]) {
        const plan = planChatMemory(
          { rounds: conversation, message: newMessage, ...extra },
          options,
        );
        expect(Array.from(plan.scores.final)).toEqual(Array.from(plan.scores.independent));
        // Plain retrieval: the 8 best older rounds by independent score alone.
        const plain = topK(plan.scores.independent.subarray(0, 12), 8);
        expect(Array.from(plan.selection.ranked)).toEqual(Array.from(plain));
        expect(plan.retrieved).toEqual(Array.from(plain).sort((a, b) => a - b));
      }
    }
  });

  it('precomputed vectors give the same plan as the embedder', () => {
    const texts = conversation.map(roundText);
    const query = memoryQuery(conversation, newMessage);
    const all = embedTexts(glove, [...texts, query]);
    const roundVectors: VectorSet = {
      dim: all.dim,
      count: texts.length,
      data: all.data.slice(0, texts.length * all.dim),
    };
    const viaVectors = planChatMemory({
      rounds: conversation,
      message: newMessage,
      vectors: { rounds: roundVectors, query: all.data.slice(texts.length * all.dim) },
    });
    const viaEmbed = planChatMemory({
      rounds: conversation,
      message: newMessage,
      embed: gloveEmbed,
    });
    expect(viaVectors.rounds).toEqual(viaEmbed.rounds);
  });

  it('lays the rounds out as one transcript with a fragment per round', () => {
    const plan = planChatMemory({ rounds: conversation, message: newMessage });
    expect(plan.fragments).toHaveLength(14);
    plan.fragments.forEach((f, k) => {
      expect(plan.transcript.text.slice(f.start, f.end).trimEnd()).toBe(roundText(conversation[k]));
    });
  });

  it('refuses what it cannot do with a readable error', () => {
    expect(() =>
      planChatMemory({ rounds: conversation, message: 'x' }, { scoring: 'dense' }),
    ).toThrow(/needs an embedder/);
    expect(() =>
      planChatMemory({ rounds: conversation, message: 'x' }, { topTurn: 3 } as never),
    ).toThrow(/unknown chat memory option "topTurn"/);
    expect(() =>
      planChatMemory({ rounds: conversation, message: 'x' }, { recentTurns: -1 }),
    ).toThrow(/recentTurns/);
    expect(() =>
      planChatMemory({
        rounds: conversation,
        message: 'x',
        vectors: {
          rounds: { dim: 2, count: 3, data: new Float32Array(6) },
          query: new Float32Array(2),
        },
      }),
    ).toThrow(/3 round vectors for 14 rounds/);
  });
});
