import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sharedDatasetPath } from '../../../test/glove';
import { defaultFragRelPipelineSettings, fragrelPipeline } from '../pipelines/fragrel';
import { defaultLongRagSettings, longragPipeline } from '../pipelines/longrag';
import { fakeLlm } from '../pipelines/testing';
import {
  answerOne,
  defaultAnswerRunOptions,
  dryRunCost,
  estimateCost,
  pipelineLibraryFor,
  summarizeAnswers,
  timeOnEngineMs,
  type AnswerPipeline,
  type AnswerResult,
} from './answer-run';
import { parseBenchmarkFile } from './datasets/detect';
import type { BenchmarkItem } from './datasets/types';

const file = sharedDatasetPath('leval', 'quality.jsonl');
const signal = new AbortController().signal;
const fragrel: AnswerPipeline = (input) =>
  fragrelPipeline({ ...input, settings: defaultFragRelPipelineSettings });
const longrag: AnswerPipeline = (input) =>
  longragPipeline({ ...input, settings: defaultLongRagSettings });

let cached: BenchmarkItem | undefined;
function firstQuality(): BenchmarkItem {
  if (cached) return cached;
  const parsed = parseBenchmarkFile('quality.jsonl', readFileSync(file, 'utf8'));
  if (!parsed.ok) throw new Error(parsed.error);
  return (cached = parsed.value.items[0]);
}

describe('answer evaluation', () => {
  it('gives a pipeline the question’s document, BM25 scores and a selection within the budget', () => {
    const item = firstQuality();
    const lib = pipelineLibraryFor(item, defaultAnswerRunOptions);
    expect(lib.documents[0].text).toBe(item.document);
    expect(lib.fragments.length).toBeGreaterThan(5);
    const words = lib.selection!.indices.reduce(
      (s, i) =>
        s +
        item.document
          .slice(lib.fragments[i].start, lib.fragments[i].end)
          .split(/\s+/)
          .filter(Boolean).length,
      0,
    );
    expect(words).toBeLessThanOrEqual(2000 + 600);
    expect(lib.final).not.toEqual(lib.independent);
    expect(pipelineLibraryFor(item, { ...defaultAnswerRunOptions, alpha: 0 }).final).toEqual(
      lib.independent,
    );
  });

  it('scores a FragRel answer from a scripted model, with its calls and tokens', async () => {
    const item = firstQuality();
    const llm = fakeLlm({
      fallback: `(${item.answerLetter}) ${item.answers[0]}`,
      contextLimit: 8192,
    });
    const r = await answerOne('fragrel', fragrel, item, llm, defaultAnswerRunOptions, signal);
    expect(r.status).toBe('done');
    expect(r.scores).toMatchObject({ letter: 1, contain: 1 });
    expect(r.scores!.f1).toBeGreaterThan(0.8);
    expect(r.calls).toBe(1);
    expect(r.tokensIn).toBeGreaterThan(1000);
    // The prompt holds the question with its options.
    expect(llm.calls[0].prompt).toContain('(A)');
    const wrong = await answerOne(
      'fragrel',
      fragrel,
      item,
      fakeLlm({ fallback: 'I do not know.', contextLimit: 8192 }),
      defaultAnswerRunOptions,
      signal,
    );
    expect(wrong.scores).toMatchObject({ em: 0, letter: 0 });
  });

  it('estimates the cost by a dry run: one call per question for FragRel, more for LongRAG', async () => {
    const item = firstQuality();
    const f = await estimateCost(fragrel, item, 10, 8192, defaultAnswerRunOptions, signal);
    expect(f.calls).toBe(10);
    expect(f.tokensIn).toBeGreaterThan(10 * 1000);
    const l = await estimateCost(longrag, item, 10, 8192, defaultAnswerRunOptions, signal);
    expect(l.calls).toBeGreaterThan(f.calls);
    // The same dry run the pipelines panel asks for one question (the sample is its multiple).
    const input = {
      question: item.prompt,
      library: pipelineLibraryFor(item, defaultAnswerRunOptions),
    };
    const one = await dryRunCost(longrag, input, 8192, signal);
    expect(one).toEqual({
      calls: l.calls / 10,
      tokensIn: l.tokensIn / 10,
      tokensOut: l.tokensOut / 10,
    });
  });

  it('turns a cost into time on an engine of measured speed (hand-computed)', () => {
    // 1,000 prompt tokens at 50 tokens/s is 20 s; 60 answer tokens at 6 tokens/s is 10 s.
    const ms = timeOnEngineMs(
      { calls: 3, tokensIn: 1000, tokensOut: 60 },
      { promptTokensPerSecond: 50, tokensPerSecond: 6 },
    );
    expect(ms).toBeCloseTo(30_000, 6);
  });

  it('summarises per pipeline (hand-computed)', () => {
    const r = (
      pipeline: string,
      f1: number,
      letter: number | null,
      status: AnswerResult['status'] = 'done',
    ): AnswerResult => ({
      pipeline,
      question: 'q',
      status,
      answer: '',
      scores: status === 'done' ? { f1, em: f1 === 1 ? 1 : 0, contain: 1, letter } : null,
      calls: 2,
      tokensIn: 10,
      tokensOut: 1,
    });
    const [a] = summarizeAnswers([r('a', 1, 1), r('a', 0.5, 0), r('a', 0, null, 'error')]);
    expect(a).toEqual({
      pipeline: 'a',
      questions: 3,
      failed: 1,
      f1: 0.75,
      em: 0.5,
      contain: 1,
      letter: 0.5,
      calls: 6,
      tokensIn: 30,
      tokensOut: 3,
    });
  });
});
