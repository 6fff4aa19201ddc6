import { describe, expect, it } from 'vitest';
import { loadGloveFromDisk } from '../../../test/glove';
import { memoryQuery, roundText, type ChatRound } from '../../core/chat';
import { embedTexts } from '../../core/embed/static';
import { chatMemoryPrompt, promptAsSent } from '../../core/prompt';
import { estimateTokens } from '../../llm/tokens';
import {
  chatPromptParts,
  contextBudget,
  documentCandidates,
  planMessage,
  scorePath,
  scoreRange,
  splitParts,
  switchText,
  timelineX,
  wordsToTokens,
} from './memory';
import { BISCUIT_CHAT, BISCUIT_QUESTION, fakeRetrieval } from './testing';

const glove = loadGloveFromDisk();

function vectorsFor(rounds: readonly ChatRound[], message: string) {
  const all = embedTexts(glove, [...rounds.map(roundText), memoryQuery(rounds, message)]);
  const n = rounds.length;
  return {
    rounds: { dim: all.dim, count: n, data: all.data.slice(0, n * all.dim) },
    query: all.data.slice(n * all.dim),
  };
}

function plan(
  rounds: readonly ChatRound[],
  message: string,
  settings = {},
  budget = 10_000,
  documents?: ReturnType<typeof fakeRetrieval>['result'],
) {
  return planMessage({
    rounds,
    message,
    settings,
    budget,
    countTokens: estimateTokens,
    vectors: vectorsFor(rounds, message),
    documents,
  });
}

describe('the recall budget', () => {
  it('is the context minus the reply, the bare prompt and a margin', () => {
    const b = contextBudget(4096, 512, 'Hello there', 'chat', estimateTokens);
    expect(b.context).toBe(4096);
    expect(b.answer).toBe(512);
    expect(b.fixed).toBeGreaterThan(20);
    expect(b.recall + b.margin + b.fixed + b.answer).toBe(4096);
    expect(b.margin).toBe(Math.ceil((4096 - 512 - b.fixed) * 0.1));
  });

  it('never gives the reply more than half the window, nor goes below zero', () => {
    expect(contextBudget(1000, 900, 'x', 'chat', estimateTokens).answer).toBe(500);
    const tiny = contextBudget(40, 16, 'a long message '.repeat(50), 'text', estimateTokens);
    expect(tiny.recall).toBe(0);
  });
});

describe('library candidates', () => {
  it('cost words × 4/3 tokens and are capped at what the library budget selected', () => {
    const { result } = fakeRetrieval(['one two three', 'a b c d e f'], [0.2, 0.9], 1);
    const c = documentCandidates(result);
    expect(Array.from(c.costs)).toEqual([4, 8]);
    expect(c.maxSelected).toBe(1);
    expect(c.final).toBe(result.final);
    expect(wordsToTokens(3)).toBe(4);
  });
});

describe('the prompt from a plan', () => {
  it('a short chat goes in whole, as dialog, in time order', () => {
    const rounds = BISCUIT_CHAT.slice(0, 3);
    const p = plan(rounds, 'And what about penne?');
    expect(p.mode).toBe('full-history');
    const parts = chatPromptParts(p, rounds, 'And what about penne?');
    expect(parts.input.evidence).toEqual([]);
    expect(parts.input.history.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(parts.input.history[2].content).toBe(rounds[1].user);
    expect(parts.historyRounds).toEqual([0, 0, 1, 1, 2, 2]);
  });

  it('a late message that refers back recalls the early round, in time order, with the recent rounds verbatim', () => {
    const p = plan(BISCUIT_CHAT, BISCUIT_QUESTION);
    expect(p.mode).toBe('memory');
    expect(p.switchReason).toBe('rounds');
    expect(p.recent).toEqual([10, 11]);
    expect(p.retrieved).toHaveLength(8);
    // Round 2 (index 1) is retrieved first: only the last round, which is part of the query,
    // scores higher.
    expect(p.rounds[1].reason).toBe('retrieved');
    expect(p.selection.ranked[0]).toBe(1);
    expect(p.rounds[1].rank).toBeLessThanOrEqual(1);

    const parts = chatPromptParts(p, BISCUIT_CHAT, BISCUIT_QUESTION);
    // Evidence: the retrieved rounds in time order; its rank says which to drop first.
    expect(parts.refs).toEqual(p.retrieved.map((round) => ({ kind: 'round', round })));
    expect(parts.input.evidence.map((e) => e.location)).toEqual(
      p.retrieved.map((i) => `round ${i + 1}`),
    );
    const biscuit = parts.input.evidence.find((e) => e.location === 'round 2')!;
    expect(biscuit.rank).toBe(0);
    expect(biscuit.text).toBe(
      `User: ${BISCUIT_CHAT[1].user}\nAssistant: ${BISCUIT_CHAT[1].assistant}`,
    );
    // Dialog: the two recent rounds.
    expect(parts.historyRounds).toEqual([10, 10, 11, 11]);

    const built = chatMemoryPrompt(parts.input, {
      contextLimit: 4096,
      answerTokens: 256,
      countTokens: estimateTokens,
      style: 'chat',
    });
    expect(built.ok).toBe(true);
    if (!built.ok) return;
    const sent = promptAsSent(built.prompt);
    expect(sent).toContain('lamp room stairs');
    expect(sent.endsWith(BISCUIT_QUESTION)).toBe(true);
    expect(built.prompt.messages.at(-1)).toEqual({ role: 'user', content: BISCUIT_QUESTION });

    // A small window keeps Biscuit's round longest: the weakest evidence goes first.
    const small = chatMemoryPrompt(parts.input, {
      contextLimit: 430,
      answerTokens: 64,
      countTokens: estimateTokens,
      style: 'chat',
    });
    expect(small.ok).toBe(true);
    if (!small.ok) return;
    expect(small.prompt.dropped.length).toBeGreaterThan(0);
    expect(small.prompt.sources.map((s) => s.location)).toContain('round 2');
  });

  it('with a library, rounds and fragments share the budget and the evidence', () => {
    const { result, source } = fakeRetrieval(
      [
        'The keeper trimmed the wick each evening.',
        'Biscuit the cat slept on the warm stairs.',
        'Fog rolled in.',
      ],
      [0.3, 0.95, 0.1],
      2,
    );
    const p = plan(BISCUIT_CHAT, BISCUIT_QUESTION, {}, 10_000, result);
    expect(p.split).toBeDefined();
    expect(p.split!.rule).toBe('merge');
    expect(p.documents!.indices.length).toBe(2);
    expect(p.tokens.documents).toBe(p.split!.documents);
    const parts = chatPromptParts(p, BISCUIT_CHAT, BISCUIT_QUESTION, {
      result,
      sources: new Map([['doc', source]]),
    });
    const docs = parts.input.evidence.filter((_, k) => parts.refs[k].kind === 'document');
    expect(docs.map((d) => d.text)).toEqual([
      'The keeper trimmed the wick each evening.',
      'Biscuit the cat slept on the warm stairs.',
    ]);
    expect(docs[1].location).toBe('keeper.txt · fragment 2');
    // The fragment scoring 0.95 outranks every round but the best.
    expect(docs[1].rank).toBeLessThanOrEqual(1);
    // Rounds first, then fragments; each part in its own order.
    expect(parts.refs.map((r) => r.kind)).toEqual([
      ...p.retrieved.map(() => 'round'),
      'document',
      'document',
    ]);

    // Without a source text, a fragment is left out.
    const none = chatPromptParts(p, BISCUIT_CHAT, BISCUIT_QUESTION, {
      result,
      sources: new Map(),
    });
    expect(none.refs.every((r) => r.kind === 'round')).toBe(true);
  });
});

describe('the panel', () => {
  it('says why memory is on or off', () => {
    expect(switchText(plan(BISCUIT_CHAT.slice(0, 2), 'x'), {})).toMatch(
      /^Full history: 2 past rounds \(\d+ tokens\), within 10 rounds and 1,000 tokens/,
    );
    expect(switchText(plan(BISCUIT_CHAT, 'x'), {})).toMatch(
      /^Memory: 12 past rounds, more than 10/,
    );
    expect(
      switchText(plan(BISCUIT_CHAT.slice(0, 4), 'x', { memoryAfterTokens: 10 }), {
        memoryAfterTokens: 10,
      }),
    ).toMatch(/^Memory: the history holds \d+ tokens, more than 10\./);
    expect(switchText(plan(BISCUIT_CHAT.slice(0, 2), 'x', { memory: 'on' }), {})).toBe(
      'Memory: switched on in the settings.',
    );
  });

  it('splits the recall budget into recent, retrieved, library and unused', () => {
    const p = plan(BISCUIT_CHAT, BISCUIT_QUESTION, {}, 2000);
    const parts = splitParts(p);
    expect(parts.map((x) => x.key)).toEqual(['recent', 'retrieved', 'documents', 'unused']);
    expect(parts[0].tokens).toBe(p.tokens.recent);
    expect(parts[1].tokens).toBe(p.tokens.retrieved);
    expect(parts.reduce((s, x) => s + x.tokens, 0)).toBe(2000);
    expect(parts.reduce((s, x) => s + x.share, 0)).toBeCloseTo(1, 10);

    const full = splitParts(plan(BISCUIT_CHAT.slice(0, 3), 'x', { memory: 'off' }, 50));
    expect(full.map((x) => x.key)).toEqual(['history', 'retrieved', 'documents', 'over']);
    expect(full.reduce((sum, x) => sum + x.share, 0)).toBeCloseTo(1, 10);
    expect(full[3].tokens).toBe(full[0].tokens - 50);
  });

  it('draws scores along the timeline', () => {
    expect(timelineX(0, 4, 1000)).toBe(125);
    expect(timelineX(3, 4, 1000)).toBe(875);
    expect(scorePath([0, 1], 100, 50, 5, { low: 0, high: 1 })).toBe('M25.0,45.0L75.0,5.0');
    const p = plan(BISCUIT_CHAT, BISCUIT_QUESTION);
    const range = scoreRange(p);
    expect(range.low).toBeLessThanOrEqual(0);
    expect(range.high).toBe(Math.max(...p.rounds.map((r) => r.final)));
  });
});
