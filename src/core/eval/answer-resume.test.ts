import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sharedDatasetPath } from '../../../test/glove';
import { defaultFragRelPipelineSettings, fragrelPipeline } from '../pipelines/fragrel';
import { fakeLlm } from '../pipelines/testing';
import {
  askAnswerPairs,
  orderAnswers,
  pendingAnswerPairs,
  type AnswerRunSpec,
} from './answer-resume';
import { defaultAnswerRunOptions, type AnswerPipeline, type AnswerResult } from './answer-run';
import { parseBenchmarkFile } from './datasets/detect';
import type { BenchmarkItem } from './datasets/types';

const file = sharedDatasetPath('leval', 'quality.jsonl');

// Two "pipelines" that are both FragRel (one call each): enough to check the pair bookkeeping.
const fragrel: AnswerPipeline = (input) =>
  fragrelPipeline({ ...input, settings: defaultFragRelPipelineSettings });
const runnerOf = () => fragrel;

let cached: BenchmarkItem[] | undefined;
function firstDocument(): BenchmarkItem[] {
  if (cached) return cached;
  const first = readFileSync(file, 'utf8').split('\n')[0];
  const parsed = parseBenchmarkFile('quality.jsonl', first);
  if (!parsed.ok) throw new Error(parsed.error);
  return (cached = parsed.value.items.slice(0, 3));
}

const specOf = (items: BenchmarkItem[], pipelines = ['a', 'b']): AnswerRunSpec => ({
  kind: 'answers',
  pipelines,
  questions: items.map((i) => i.id),
  options: { ...defaultAnswerRunOptions },
});

/** The benchmark question a FragRel prompt asks (each item's prompt starts differently). */
const askedOf = (items: BenchmarkItem[], prompt: string) =>
  items.filter((i) => prompt.includes(i.prompt.split('\n')[0])).map((i) => i.id);

describe('resumable answer runs', () => {
  it('lists the pairs question by question, skipping stored ones, and says when a question is gone', () => {
    const items = [{ id: 'q1' }, { id: 'q2' }, { id: 'q3' }] as unknown as BenchmarkItem[];
    const spec = specOf(items);
    const pending = pendingAnswerPairs(spec, items, [
      { pipeline: 'a', question: 'q1' },
      { pipeline: 'b', question: 'q2' },
    ]);
    expect(pending.ok && pending.total).toBe(6);
    expect(pending.ok && pending.pairs.map((p) => `${p.pipeline}:${p.item.id}`)).toEqual([
      'b:q1',
      'a:q2',
      'a:q3',
      'b:q3',
    ]);
    const gone = pendingAnswerPairs(spec, items.slice(0, 2), []);
    expect(gone.ok).toBe(false);
    expect(!gone.ok && gone.error).toMatch(/"q3".*cannot be resumed/);
    expect(
      orderAnswers(spec, [
        { pipeline: 'b', question: 'q2' },
        { pipeline: 'a', question: 'q3' },
        { pipeline: 'a', question: 'q2' },
      ]),
    ).toEqual([
      { pipeline: 'a', question: 'q2' },
      { pipeline: 'b', question: 'q2' },
      { pipeline: 'a', question: 'q3' },
    ]);
  });

  it('stops after an interruption and, resumed, asks only the pairs not stored: no question twice', async () => {
    const items = firstDocument();
    const spec = specOf(items, ['fragrel']);
    const store: AnswerResult[] = [];
    // The first session: stopped once two answers are stored (a reload, as far as the run
    // can tell: what is stored stays, the loop ends).
    const first = new AbortController();
    const llm1 = fakeLlm({ fallback: '(A) First session.', contextLimit: 8192 });
    const p1 = pendingAnswerPairs(spec, items, store);
    if (!p1.ok) throw new Error(p1.error);
    const stored1 = await askAnswerPairs({
      pairs: p1.pairs,
      runnerOf,
      llm: llm1,
      options: spec.options,
      signal: first.signal,
      store: async (r) => {
        store.push(r);
        if (store.length === 2) first.abort();
        return true;
      },
    });
    expect(stored1).toBe(2);
    expect(llm1.calls).toHaveLength(2);

    const llm2 = fakeLlm({ fallback: '(B) Second session.', contextLimit: 8192 });
    const p2 = pendingAnswerPairs(spec, items, store);
    if (!p2.ok) throw new Error(p2.error);
    expect(p2.pairs.map((p) => p.item.id)).toEqual([items[2].id]);
    const stored2 = await askAnswerPairs({
      pairs: p2.pairs,
      runnerOf,
      llm: llm2,
      options: spec.options,
      signal: new AbortController().signal,
      store: async (r) => (store.push(r), true),
    });
    expect(stored2).toBe(1);
    // Every question asked exactly once over both sessions, and answered by its session.
    const asked = [...llm1.calls, ...llm2.calls].flatMap((c) => askedOf(items, c.prompt));
    expect(asked.sort()).toEqual(items.map((i) => i.id).sort());
    expect(store.map((r) => r.answer)).toEqual([
      '(A) First session.',
      '(A) First session.',
      '(B) Second session.',
    ]);
    expect(store.every((r) => r.status === 'done' && r.scores !== null)).toBe(true);
  });

  it('ends when the store refuses an answer (the run was deleted)', async () => {
    const items = firstDocument();
    const llm = fakeLlm({ fallback: 'A', contextLimit: 8192 });
    const pending = pendingAnswerPairs(specOf(items, ['fragrel']), items, []);
    if (!pending.ok) throw new Error(pending.error);
    const stored = await askAnswerPairs({
      pairs: pending.pairs,
      runnerOf,
      llm,
      options: defaultAnswerRunOptions,
      signal: new AbortController().signal,
      store: async () => false,
    });
    expect(stored).toBe(0);
    expect(llm.calls).toHaveLength(1);
  });
});
