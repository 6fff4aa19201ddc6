import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { STATIC_EMBEDDER_ID, embedTexts } from '../core/embed/static';
import type { GridSpec } from '../core/eval/grid';
import { openLibraryDb } from '../store/db';
import { deleteEvalRun, getEvalRun, listEvalResults, putEvalRun } from '../store/eval-runs';
import { loadGloveFromDisk } from '../../test/glove';
import { createEvalHandlers, type EvalRunSettings } from './eval-handlers';
import type { HandlerContext } from './host';
import type { Progress } from './protocol';

/** A simple-format benchmark: four questions about one small book. */
function benchmark(): string {
  const sentences = [
    'Marta hid the silver key under the blue stone.',
    'The lighthouse keeper kept a brass telescope.',
    'A red fox crossed the frozen river at night.',
    'The baker sold bread to the sailors every morning.',
  ];
  const filler = (k: number) =>
    Array.from({ length: 25 }, (_, i) => `Filler line ${k} ${i} on weather and fields.`).join(' ');
  const document = sentences.map((s, k) => `${filler(k)} ${s}`).join(' ');
  const questions = [
    'Where did Marta hide the key?',
    'What did the keeper keep?',
    'What crossed the river?',
    'Who sold bread?',
  ];
  return questions
    .map((question, k) =>
      JSON.stringify({
        id: `q${k}`,
        document,
        question,
        answers: [sentences[k]],
        gold_passages: [sentences[k]],
      }),
    )
    .join('\n');
}

const spec: GridSpec = {
  configs: [
    { scorer: 'bm25', relations: [], alpha: 0, wRel: 0, fragmentWords: 40 },
    { scorer: 'dense', relations: ['context'], alpha: 0.5, wRel: 0.3, fragmentWords: 40 },
  ],
  budgets: [{ budget: 80, unit: 'words' }],
};
const settings: EvalRunSettings = {
  embedder: { id: STATIC_EMBEDDER_ID, url: 'unused' },
  baseline: 'bm25|plain|f40',
  bootstrap: { resamples: 100, seed: 1 },
};

async function setUp() {
  const factory = new IDBFactory();
  const open = () => openLibraryDb('lib', { factory });
  const db = await open();
  await putEvalRun(db, {
    id: 'run',
    createdAt: 1,
    updatedAt: 1,
    status: 'running',
    fileName: 'mine.jsonl',
    files: [{ name: 'mine.jsonl', text: benchmark() }],
    spec,
    settings,
  });
  const model = loadGloveFromDisk();
  const handlers = createEvalHandlers({
    openDb: open,
    loadEmbedder: async (s) => ({
      id: s.id,
      dim: model.dim,
      embed: async (texts) => embedTexts(model, texts).data,
    }),
  });
  return { db, handlers };
}

function context(controller: AbortController, onProgress: (p: Progress) => void): HandlerContext {
  return { signal: controller.signal, progress: onProgress, transfer: () => {} };
}

describe('the evaluation worker handler', () => {
  it('runs the grid into the store with progress, and marks the run done', async () => {
    const { db, handlers } = await setUp();
    const seen: Progress[] = [];
    const out = await handlers.runGrid(
      { runId: 'run' },
      context(new AbortController(), (p) => seen.push(p)),
    );
    expect(out).toEqual({ computed: 8, skipped: 0, total: 8 });
    expect(seen.map((p) => p.done)).toEqual([2, 4, 6, 8]);
    const results = await listEvalResults(db, 'run');
    expect(results).toHaveLength(8);
    expect(
      results.find((r) => r.question === 'simple:q0' && r.config === 'bm25|plain|f40')?.gold,
    ).toEqual([1]);
    expect((await getEvalRun(db, 'run'))?.status).toBe('done');
  });

  it('pauses between questions and resumes without recomputing what was stored', async () => {
    const { db, handlers } = await setUp();
    const controller = new AbortController();
    await expect(
      handlers.runGrid(
        { runId: 'run' },
        context(controller, (p) => {
          if (p.done >= 2) controller.abort();
        }),
      ),
    ).rejects.toMatchObject({ name: 'AbortError' });
    const before = await listEvalResults(db, 'run');
    expect(before).toHaveLength(2);
    expect((await getEvalRun(db, 'run'))?.status).toBe('running');

    await new Promise((r) => setTimeout(r, 5));
    const out = await handlers.runGrid(
      { runId: 'run' },
      context(new AbortController(), () => {}),
    );
    expect(out).toEqual({ computed: 6, skipped: 2, total: 8 });
    const after = await listEvalResults(db, 'run');
    expect(after).toHaveLength(8);
    for (const r of before) {
      expect(
        after.find((a) => a.config === r.config && a.question === r.question)?.computedAt,
      ).toBe(r.computedAt);
    }
  });

  it('stops when the run is deleted under it, and says so for a missing run', async () => {
    const { db, handlers } = await setUp();
    let deleted = false;
    await expect(
      handlers.runGrid(
        { runId: 'run' },
        context(new AbortController(), (p) => {
          if (p.done >= 2 && !deleted) {
            deleted = true;
            void deleteEvalRun(db, 'run');
          }
        }),
      ),
    ).rejects.toMatchObject({ name: 'AbortError' });
    expect(await listEvalResults(db, 'run')).toHaveLength(0);
    await expect(
      handlers.runGrid(
        { runId: 'run' },
        context(new AbortController(), () => {}),
      ),
    ).rejects.toThrow(/no longer exists/);
  });
});
