/**
 * @file "Tune for this document" in the retrieval worker: pseudo-questions from the document
 * (core/tune/pseudo.ts), their independent scores with the source sentence masked (dense and
 * hybrid embed the queries and the masked fragments with the document's embedder), then the grid
 * search (core/tune/grid.ts) at the user's budget, against the user's current configuration.
 * Progress per question; Cancel gets through because the search yields a macrotask after each
 * question.
 */
import { queryTerms } from '../core/retrieval/query';
import { runIndependentScores, type Run } from '../core/run';
import { tokenize } from '../core/tokenize';
import {
  labelledTuneQuestion,
  pseudoQuestions,
  pseudoTexts,
  pseudoTuneQuestions,
  tune,
  type LabelledQuestion,
  type TuneQuestion,
  type TuneReport,
} from '../core/tune';
import { loadEmbedder, type EmbedderSpec } from '../models/embedder';
import type { HandlerContext } from './host';
import type { RetrievalSettings } from './retrieval-types';

export interface TuneRequest {
  docId: string;
  embedder: EmbedderSpec;
  semanticK: number;
  /** The configuration in use: its scorer and budget are kept, its relations compared against. */
  settings: RetrievalSettings;
  /** Pseudo-questions to draw (default 60) and the seed (default 20240601). */
  count?: number;
  seed?: number;
  /**
   * Labelled questions for this document (a benchmark file's, gold located in its text): tune on
   * them instead of pseudo-questions.
   */
  labelled?: LabelledQuestion[];
}

export interface TuneResult {
  docId: string;
  name: string;
  fragments: number;
  scoring: RetrievalSettings['scoring'];
  budget: number;
  /** What the configurations were scored on. */
  basis: 'pseudo' | 'labels';
  report: TuneReport;
  /** A few pseudo-questions as asked, with the sentence each was cut from (shown as text). */
  examples: { query: string; sentence: string }[];
}

const yieldToMessages = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

function rows(data: Float32Array, dim: number): Float32Array[] {
  return Array.from({ length: data.length / dim }, (_, i) => data.subarray(i * dim, (i + 1) * dim));
}

export async function tuneDocument(
  req: TuneRequest,
  run: Run,
  ctx: HandlerContext,
): Promise<TuneResult> {
  const doc = run.documents[0];
  if (!doc || run.documents.length !== 1) throw new Error('Tune one document at a time.');
  const { settings } = req;
  const labelled = req.labelled;
  let questions: TuneQuestion[];
  let examples: TuneResult['examples'] = [];
  if (labelled) {
    if (labelled.length === 0) throw new Error('No labelled question locates a passage here.');
    ctx.progress({ stage: 'Scoring the labelled questions', done: 0, total: 1 });
    const contentOnly = settings.queryWords === 'content';
    const terms = labelled.map((q) => (contentOnly ? queryTerms(q.query) : tokenize(q.query)));
    let vectors: Float32Array[] | undefined;
    if (settings.scoring !== 'bm25') {
      const embedder = await loadEmbedder(req.embedder, { signal: ctx.signal });
      const texts = labelled.map((q, k) => (contentOnly ? terms[k].join(' ') : q.query));
      vectors = rows(
        await embedder.embed(texts, { kind: 'query', signal: ctx.signal }),
        embedder.dim,
      );
    }
    questions = labelled.map((q, k) =>
      labelledTuneQuestion(
        run,
        0,
        runIndependentScores(run, { tokens: terms[k], vector: vectors?.[k] }, settings.scoring),
        q.gold,
      ),
    );
  } else {
    ctx.progress({ stage: 'Drawing pseudo-questions', done: 0, total: 1 });
    const starts = run.starts.subarray(doc.offset, doc.offset + doc.count);
    const ends = run.ends.subarray(doc.offset, doc.offset + doc.count);
    const pseudo = pseudoQuestions(run.sources[0], starts, ends, {
      ...(req.count !== undefined && { count: req.count }),
      ...(req.seed !== undefined && { seed: req.seed }),
    });
    if (pseudo.length === 0) {
      throw new Error(
        `“${doc.name}” is too short to tune on: no fragment has a sentence to ask about and enough text left. Keep the current settings.`,
      );
    }
    let vectors: { queries: Float32Array[]; masked: Float32Array[] } | undefined;
    if (settings.scoring !== 'bm25') {
      ctx.progress({ stage: 'Embedding pseudo-questions', done: 0, total: 1 });
      const embedder = await loadEmbedder(req.embedder, { signal: ctx.signal });
      const texts = pseudoTexts(run, 0, pseudo);
      const queries = await embedder.embed(texts.queries, { kind: 'query', signal: ctx.signal });
      const masked = await embedder.embed(texts.masked, { kind: 'passage', signal: ctx.signal });
      vectors = { queries: rows(queries, embedder.dim), masked: rows(masked, embedder.dim) };
    }
    questions = pseudoTuneQuestions(run, 0, pseudo, settings.scoring, vectors);
    examples = pseudo.slice(0, 5).map((p) => ({
      query: p.query,
      sentence: run.sources[0].slice(p.sentence.start, p.sentence.end),
    }));
  }
  const report = await tune(run, questions, {
    budgets: [settings.budget],
    current: { relations: [...settings.relations], alpha: settings.alpha, wRel: settings.wRel },
    signal: ctx.signal,
    onProgress: (done, total) => ctx.progress({ stage: 'Trying configurations', done, total }),
    pause: yieldToMessages,
  });
  return {
    docId: doc.docId,
    name: doc.name,
    fragments: doc.count,
    scoring: settings.scoring,
    budget: settings.budget,
    basis: labelled ? 'labels' : 'pseudo',
    report,
    examples,
  };
}
