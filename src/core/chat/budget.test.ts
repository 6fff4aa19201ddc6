import { describe, expect, it } from 'vitest';
import { selectByBudget } from '../fragrel';
import { mergeByScore, planChatMemory, shareBudget, type ChatRound } from './index';

const chat = {
  final: Float64Array.of(0.9, 0.5, 0.2),
  costs: [10, 10, 10],
  maxSelected: 8,
};
const documents = { final: [0.8, 0.7, 0.1], costs: [10, 10, 10] };

describe('sharing the budget between chat memory and documents', () => {
  it("'merge': one ranking by final score over both memories", () => {
    // 0.9 (round 0), 0.8 (doc 0), 0.7 (doc 1), 0.5 (round 1); then the budget of 40 is full.
    const { chat: c, documents: d } = mergeByScore(chat, documents, 40);
    expect(Array.from(c.ranked)).toEqual([0, 1]);
    expect(Array.from(d.ranked)).toEqual([0, 1]);
    expect(c.used + d.used).toBe(40);
  });

  it("'merge': skips what does not fit and honours each side's cap", () => {
    const costly = { final: [0.8, 0.7, 0.1], costs: [25, 10, 10] };
    // 0.9 round (10), 0.8 doc does not fit 20 left, 0.7 doc (10), 0.5 round (10).
    const a = mergeByScore(chat, costly, 30);
    expect(Array.from(a.chat.ranked)).toEqual([0, 1]);
    expect(Array.from(a.documents.ranked)).toEqual([1]);
    const capped = mergeByScore({ ...chat, maxSelected: 1 }, { ...documents, maxSelected: 2 }, 1e9);
    expect(Array.from(capped.chat.ranked)).toEqual([0]);
    expect(Array.from(capped.documents.ranked)).toEqual([0, 1]);
  });

  it("'merge': ties go to the chat round", () => {
    const tie = mergeByScore(
      { final: Float64Array.of(0.5), costs: [10], maxSelected: 8 },
      { final: [0.5], costs: [10] },
      10,
    );
    expect(tie.chat.used).toBe(10);
    expect(tie.documents.used).toBe(0);
  });

  it("'merge' without documents is plain Eq. 11", () => {
    const alone = mergeByScore(chat, { final: [], costs: [] }, 20);
    const plain = selectByBudget(chat.final, chat.costs, 20, { maxSelected: 8 });
    expect(alone.chat).toEqual(plain);
  });

  it("'share': the chat gets its share, documents the rest including what the chat left", () => {
    // Budget 40, share 0.25: 10 for the chat (round 0), 30 for documents (all three).
    const a = shareBudget(chat, documents, 40, 0, 'share', 0.25);
    expect(Array.from(a.chat.ranked)).toEqual([0]);
    expect(Array.from(a.documents.ranked)).toEqual([0, 1, 2]);
    expect(a.split).toMatchObject({ rule: 'share', chat: 10, documents: 30, unused: 0 });
    // Reserved (recent) rounds count against the chat's share: 20 reserved of a share of 20.
    const b = shareBudget(chat, documents, 40, 20, 'share', 0.5);
    expect(b.chat.used).toBe(0);
    expect(b.documents.used).toBe(20);
    expect(b.split).toMatchObject({ reserved: 20, retrieved: 0, chat: 20, documents: 20 });
    // A chat that needs less than its share leaves the rest to the documents.
    const small = shareBudget(
      { final: Float64Array.of(0.9), costs: [5], maxSelected: 8 },
      { final: [0.8, 0.7, 0.6, 0.5], costs: [10, 10, 10, 10] },
      40,
      0,
      'share',
      0.5,
    );
    expect(small.split).toMatchObject({ chat: 5, documents: 30, unused: 5 });
  });

  it('plans a chat with documents: recent rounds first, then the split is reported', () => {
    const rounds: ChatRound[] = Array.from({ length: 12 }, (_, k) => ({
      user: k === 1 ? 'the lighthouse keeper and his lamp' : `small talk number ${k} here`,
      assistant: 'ok',
    }));
    // ceil(words * 4 / 3): 8 tokens a small-talk round (6 words), 10 the lighthouse round (7).
    const docs = { final: [1.2, 0.9, 0.05], costs: [20, 20, 20] };
    const plan = planChatMemory(
      { rounds, message: 'what about the lighthouse keeper?', documents: docs },
      { budget: 60 },
    );
    expect(plan.mode).toBe('memory');
    expect(plan.tokens.recent).toBe(16);
    expect(plan.split?.rule).toBe('merge');
    expect(plan.split?.reserved).toBe(16);
    expect(plan.split!.chat + plan.split!.documents).toBeLessThanOrEqual(60);
    expect(plan.retrieved).toContain(1);
    expect(plan.documents && Array.from(plan.documents.ranked)).toEqual([0]);
    expect(plan.tokens.documents).toBe(20);
    expect(plan.tokens.total).toBe(plan.tokens.memory + 20 + plan.tokens.message);

    const shared = planChatMemory(
      { rounds, message: 'what about the lighthouse keeper?', documents: docs },
      { budget: 80, budgetSplit: 'share', chatShare: 0.5 },
    );
    expect(shared.split).toMatchObject({ rule: 'share', documents: 40 });
    expect(shared.split!.chat).toBeLessThanOrEqual(40);
  });

  it('while memory is off the whole history goes in first; documents get what is left', () => {
    const rounds: ChatRound[] = [{ user: 'one two three', assistant: 'four five six' }];
    const plan = planChatMemory(
      { rounds, message: 'x', documents: { final: [0.5, 0.4], costs: [10, 10] } },
      { budget: 20 },
    );
    expect(plan.mode).toBe('full-history');
    expect(plan.split).toMatchObject({ rule: 'history-first', reserved: 8, documents: 10 });
  });

  it('flags recent rounds that alone exceed the budget', () => {
    const rounds: ChatRound[] = Array.from({ length: 12 }, (_, k) => ({ user: `round ${k}` }));
    const plan = planChatMemory({ rounds, message: 'x' }, { budget: 5 });
    expect(plan.recent).toEqual([10, 11]);
    expect(plan.retrieved).toEqual([]);
    expect(plan.tokens.overBudget).toBe(true);
  });
});
