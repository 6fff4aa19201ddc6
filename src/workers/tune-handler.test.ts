/**
 * The worker's tune handler in Node, on QuALITY's first L-Eval story with BM25: progress per
 * question, Cancel through the handler's signal, and the labelled branch.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sharedDatasetPath } from '../../test/glove';
import { countWords, splitProse } from '../core/fragment';
import { parseLevalJsonl } from '../core/eval/datasets/leval';
import { buildRun } from '../core/run';
import { labelledQuestions } from '../core/tune';
import type { HandlerContext } from './host';
import type { Progress } from './protocol';
import type { RetrievalSettings } from './retrieval-types';
import { tuneDocument, type TuneRequest } from './tune-handler';

const FILE = sharedDatasetPath('leval', 'quality.jsonl');

describe('the tune message of the retrieval worker', () => {
  const parsed = parseLevalJsonl(readFileSync(FILE, 'utf8'), 'quality');
  if (!parsed.ok) throw new Error(parsed.error);
  const record = parsed.value[0];
  const source = record.text;
  const frags = splitProse('story', source, { wordsPerFragment: 100 });
  const run = buildRun([
    {
      docId: 'story',
      name: 'story.txt',
      source,
      starts: Uint32Array.from(frags, (f) => f.start),
      ends: Uint32Array.from(frags, (f) => f.end),
      words: Uint32Array.from(frags, (f) => countWords(source.slice(f.start, f.end))),
      labels: frags.map((_, i) => `#${i}`),
    },
  ]);
  const settings: RetrievalSettings = {
    alpha: 0.5,
    wRel: 0.3,
    relations: ['ppr'],
    scoring: 'bm25',
    budget: 1000,
    queryWords: 'content',
  };
  const request: TuneRequest = {
    docId: 'story',
    embedder: { id: 'static-glove-100d', url: 'unused' },
    semanticK: 16,
    settings,
  };
  const context = (controller = new AbortController()) => {
    const progress: Progress[] = [];
    const ctx: HandlerContext = {
      signal: controller.signal,
      progress: (p) => progress.push(p),
      transfer: () => undefined,
    };
    return { ctx, progress, controller };
  };

  it('tunes on pseudo-questions with progress per question, against the current settings', async () => {
    const { ctx, progress } = context();
    const result = await tuneDocument({ ...request, count: 20 }, run, ctx);
    expect(result.basis).toBe('pseudo');
    expect(result.report.questions).toBe(20);
    expect(result.report.current).toMatchObject({ relations: ['ppr'], alpha: 0.5, wRel: 0.3 });
    expect(result.report.budgets).toEqual([1000]);
    // No semantic relation stored for this run: that kind is not offered.
    expect(result.report.curves.map((c) => c.label)).toEqual(['context', 'ppr']);
    expect(result.examples).toHaveLength(5);
    for (const x of result.examples) expect(source).toContain(x.sentence);
    const steps = progress.filter((p) => p.stage === 'Trying configurations');
    expect(steps.map((p) => p.done)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('stops when cancelled mid-way', async () => {
    const { ctx, progress, controller } = context();
    const done = tuneDocument({ ...request, count: 20 }, run, {
      ...ctx,
      progress: (p) => {
        progress.push(p);
        if (p.stage === 'Trying configurations' && p.done === 3) controller.abort();
      },
    });
    await expect(done).rejects.toMatchObject({ name: 'AbortError' });
    expect(progress.filter((p) => p.stage === 'Trying configurations').length).toBe(3);
  });

  it('tunes on labelled questions when given, and refuses an empty set', async () => {
    const { questions } = labelledQuestions(source, record);
    const { ctx } = context();
    const result = await tuneDocument({ ...request, labelled: questions }, run, ctx);
    expect(result.basis).toBe('labels');
    expect(result.report.questions).toBe(questions.length);
    expect(result.examples).toEqual([]);
    await expect(tuneDocument({ ...request, labelled: [] }, run, ctx)).rejects.toThrow(
      /No labelled question/,
    );
  });
});
