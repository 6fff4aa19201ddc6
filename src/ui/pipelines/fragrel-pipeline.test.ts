import { describe, expect, it } from 'vitest';
import { storyQaPrompt } from '../../core/prompt';
import { fitPromptToEngine } from '../../llm/fit';
import { pipelineLlm } from '../../llm/pipeline-llm';
import type { GenerateOutcome, GenerateRequest, LlmEngine } from '../../llm/types';
import { selectedFragments } from '../answer/fragments';
import { pipelineLibraryOf } from './library';
import type { RetrievalResult } from '../../workers/retrieval-types';
import { fakeLlm, testSignal } from '../../core/pipelines/testing';
import { fragrelPipeline } from '../../core/pipelines/fragrel/index';

const BOOK = [
  'Alice sat by her sister on the bank.',
  'A White Rabbit with pink eyes ran close by her.',
  'The Rabbit took a watch out of its waistcoat-pocket.',
  'Alice ran across the field after it.',
  'She went down the rabbit-hole.',
].join(' ');

function resultFor(question: string): { result: RetrievalResult; sources: Map<string, string> } {
  const spans: Array<[number, number]> = [];
  let at = 0;
  for (const s of BOOK.split(/(?<=\.) /)) {
    spans.push([at, at + s.length]);
    at += s.length + 1;
  }
  const n = spans.length;
  const final = Float64Array.from([0.1, 0.9, 0.8, 0.3, 0.5]);
  const result = {
    question,
    queryTerms: [],
    documents: [{ docId: 'alice', name: 'alice.txt', offset: 0, count: n }],
    starts: Uint32Array.from(spans.map((s) => s[0])),
    ends: Uint32Array.from(spans.map((s) => s[1])),
    costs: new Uint32Array(n),
    labels: ['', 'CHAPTER I', '', '', ''],
    independent: final,
    environmentByKind: {},
    environment: new Float64Array(n),
    final,
    selected: Uint32Array.from([1, 2, 4]),
    selectedRanked: Uint32Array.from([1, 2, 4]),
    top: Uint32Array.from([1, 2, 4]),
    explanations: {},
    cutoff: 0.5,
    used: 30,
    budget: 30,
    settings: { alpha: 0.5, wRel: 0.3, relations: ['context'], scoring: 'dense', budget: 30 },
    timings: { independentMs: 0, rerankMs: 0 },
  } as RetrievalResult;
  return { result, sources: new Map([['alice', BOOK]]) };
}

/** An engine that records what it is sent; its tokenizer counts 1.5 tokens per word. */
function recordingEngine(style: 'chat' | 'text', contextLimit: number) {
  const sent: GenerateRequest[] = [];
  const engine: LlmEngine = {
    kind: 'wllama',
    label: 'recording engine',
    contextLimit,
    promptStyle: style,
    exactTokenCounts: true,
    countTokens: async (t) => Math.ceil(t.split(/\s+/).filter(Boolean).length * 1.5),
    async generate(request): Promise<GenerateOutcome> {
      sent.push(request);
      request.onToken?.('The White Rabbit [1].');
      return { ok: true, text: 'The White Rabbit [1].', finish: 'stop', stats: { elapsedMs: 1 } };
    },
    async dispose() {},
  };
  return { engine, sent };
}

describe('fragrelPipeline', () => {
  for (const [style, contextLimit] of [
    ['chat', 4096],
    ['text', 4096],
    ['text', 200],
  ] as const) {
    it(`sends the answer panel's prompt (${style}, ${contextLimit}-token context)`, async () => {
      const question = 'Who ran close by Alice?';
      const { result, sources } = resultFor(question);
      // The answer panel's path before pipelines (AnswerPanel.tsx + generate.ts).
      const before = recordingEngine(style, contextLimit);
      const answerTokens = Math.min(512, Math.floor(contextLimit / 2));
      const fragments = selectedFragments(result, sources)!;
      const fitted = await fitPromptToEngine(
        before.engine,
        (budget) => storyQaPrompt({ question, fragments }, budget),
        answerTokens,
      );
      if (!fitted.ok) throw new Error(fitted.reason);
      // The small window must make the fitting drop excerpts, or the case proves nothing new.
      expect(fitted.prompt.dropped.length > 0).toBe(contextLimit < 1000);
      await before.engine.generate({
        messages: fitted.prompt.messages,
        text: fitted.prompt.text,
        maxTokens: Math.max(16, Math.min(answerTokens, contextLimit - fitted.prompt.tokens)),
      });

      const after = recordingEngine(style, contextLimit);
      let streamed = '';
      const out = await fragrelPipeline({
        question,
        library: pipelineLibraryOf(result, sources)!,
        llm: pipelineLlm(after.engine),
        settings: { answerTokens: 512 },
        signal: testSignal().signal,
        onAnswerToken: (t) => (streamed += t),
      });
      expect(out.status).toBe('done');
      expect(after.sent).toHaveLength(1);
      const [a] = after.sent;
      const [b] = before.sent;
      expect({ messages: a.messages, text: a.text, maxTokens: a.maxTokens }).toEqual({
        messages: b.messages,
        text: b.text,
        maxTokens: b.maxTokens,
      });
      expect(out.answer).toBe('The White Rabbit [1].');
      expect(streamed).toBe(out.answer);
      expect(out.citations.map((c) => c.index)).toEqual(fitted.prompt.sources.map((s) => s.index));
      expect(out.citations[0].location).toBe('alice.txt · fragment 2 · CHAPTER I');
      expect(out.trace.calls).toHaveLength(1);
      expect(out.trace.calls[0].tag).toBe('fragrel.answer');
      const dropped = out.trace.items
        .filter((i) => i.verdict === 'dropped')
        .map((i) => i.fragments![0]);
      expect(dropped).toEqual(fitted.prompt.dropped.map((d) => d.index));
    });
  }

  it('with no selected fragments it returns the reason as an error value and calls nothing', async () => {
    const { result, sources } = resultFor('q');
    const library = pipelineLibraryOf(result, sources)!;
    library.selection = { indices: [], ranked: [] };
    const llm = fakeLlm({ fallback: 'x' });
    const out = await fragrelPipeline({
      question: 'q',
      library,
      llm,
      settings: { answerTokens: 64 },
      signal: testSignal().signal,
    });
    expect(out.status).toBe('error');
    expect(out.error?.code).toBe('context-length');
    expect(out.error?.message).toMatch(/No fragments were selected/);
    expect(llm.calls).toHaveLength(0);
  });
});
