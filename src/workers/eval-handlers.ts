/**
 * @file The evaluation worker's handler: run (or resume) a stored evaluation run's
 * retrieval grid. The run record holds the benchmark file and the grid, so the handler needs
 * only the run's id: it parses the file again, skips every (configuration, question) already in
 * `evalResults`, and stores each question's results as they come (one transaction per question),
 * so a closed tab or a pause loses at most the question in progress.
 *
 * Pause and cancel are the caller's: it aborts the call (the grid stops between questions) and
 * marks the run paused, or deletes it. Kept free of `self`, so Node tests drive it directly.
 */
import { parseBenchmarkFile } from '../core/eval/datasets';
import { configKey, runGrid, type GridEmbedder, type GridSpec } from '../core/eval/grid';
import type { EmbedderSpec, TextEmbedder } from '../models/embedder';
import { getEvalRun, listEvalResults, putEvalResults, setEvalRunStatus } from '../store/eval-runs';
import type { LibraryDb } from '../store/schema';
import type { HandlerContext } from './host';
import { AbortError } from './protocol';

export interface EvalRunSettings {
  /** The embedder for dense scores and the semantic relation. */
  embedder: EmbedderSpec;
  /** Configuration key of the baseline the intervals compare against. */
  baseline: string;
  /** Questions evaluated: the first `sample` of the file (all when absent). */
  sample?: number;
  bootstrap: { resamples: number; seed: number };
}

export interface EvalApi {
  runGrid: {
    payload: { runId: string };
    result: { computed: number; skipped: number; total: number };
  };
}

export interface EvalDeps {
  openDb: () => Promise<LibraryDb>;
  loadEmbedder: (spec: EmbedderSpec, options: { signal?: AbortSignal }) => Promise<TextEmbedder>;
}

export function createEvalHandlers(deps: EvalDeps) {
  let db: Promise<LibraryDb> | null = null;
  const library = () => (db ??= deps.openDb());

  return {
    async runGrid(
      payload: EvalApi['runGrid']['payload'],
      ctx: HandlerContext,
    ): Promise<EvalApi['runGrid']['result']> {
      const conn = await library();
      const run = await getEvalRun(conn, payload.runId);
      if (!run) throw new Error('This evaluation run no longer exists (deleted in another tab?).');
      const spec = run.spec as GridSpec;
      const settings = run.settings as EvalRunSettings;
      const [main, ...companions] = run.files;
      const parsed = parseBenchmarkFile(main.name, main.text, companions);
      if (!parsed.ok) {
        await setEvalRunStatus(conn, run.id, 'failed', parsed.error);
        throw new Error(parsed.error);
      }
      const items = parsed.value.items.slice(0, settings.sample ?? parsed.value.items.length);
      const done = new Set(
        (await listEvalResults(conn, run.id)).map((r) => `${r.config}\u0000${r.question}`),
      );
      const keys = new Set(spec.configs.map(configKey));
      const skipped = [...done].filter((k) => keys.has(k.split('\u0000')[0])).length;
      await setEvalRunStatus(conn, run.id, 'running');
      const needsEmbedder = spec.configs.some(
        (c) => c.scorer !== 'bm25' || (c.alpha > 0 && c.relations.includes('semantic')),
      );
      let embedder: GridEmbedder | null = null;
      if (needsEmbedder) {
        const e = await deps.loadEmbedder(settings.embedder, { signal: ctx.signal });
        embedder = {
          id: e.id,
          embed: async (texts) => ({
            dim: e.dim,
            count: texts.length,
            data: await e.embed(texts, { kind: 'passage', signal: ctx.signal }),
          }),
        };
      }
      try {
        const computed = await runGrid(items, spec, embedder, {
          signal: ctx.signal,
          isDone: (config, question) => done.has(`${config}\u0000${question}`),
          onResults: async (batch) => {
            const now = Date.now();
            const written = await putEvalResults(
              conn,
              batch.map((r) => ({ ...r, runId: run.id, computedAt: now })),
            );
            // The run was deleted meanwhile (cancelled here or in another tab): stop.
            if (!written) throw new AbortError('The evaluation run was deleted.');
          },
          onProgress: (d, total) => ctx.progress({ stage: 'grid', done: d, total }),
        });
        await setEvalRunStatus(conn, run.id, 'done');
        return { computed: computed.length, skipped, total: items.length * keys.size };
      } catch (error) {
        const aborted =
          ctx.signal.aborted || (error instanceof Error && error.name === 'AbortError');
        if (aborted) throw new AbortError();
        await setEvalRunStatus(
          conn,
          run.id,
          'failed',
          error instanceof Error ? error.message : String(error),
        );
        throw error;
      }
    },
  };
}
