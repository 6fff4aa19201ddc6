/**
 * @file The retrieval grid of the evaluation page: gold recall and answer-in-context, per
 * question, for every configuration of a user-chosen grid (scorer, relations, alpha, w_rel,
 * fragment size) at every budget (words or tokens). No LLM.
 *
 * Each step is the function bench/quality.ts calls, in the same order, so the page and
 * `npm run bench:quality` give identical numbers (grid.test.ts holds this on the shared QuALITY
 * set against bench/results/quality.json):
 * - fragments: `splitProse(documentId, text, {wordsPerFragment})`, or the format's fixed
 *   fragments (paragraphs, turns); costs `countWords` and `estimateTokens` per fragment;
 * - one run per document (`buildRun`; IDF over that document), vectors from the embedder and the
 *   semantic kNN relation `semanticNeighbours` (k 16) built only when a configuration needs them;
 * - Eq. 4 `runIndependentScores` with the query's `tokenize` tokens and its embedding; relations
 *   `runRelations`; Eq. 9-10 `fragRelScores(...).final` (plain: the independent scores as they
 *   are); Eq. 11 `selectByBudget`;
 * - `goldRecall` over the gold spans, `answerInContext` over content words.
 *
 * Results come per (configuration, question), so a caller can store each as it comes and skip
 * those already stored when a run resumes.
 */
import { AbortError, type AbortSignalLike } from '../abort';
import { estimateTokens } from '../chat/tokens';
import { countWords, splitProse } from '../fragment';
import { fragRelScores, selectByBudget } from '../fragrel';
import { defaultFragRelOptions } from '../options';
import { semanticNeighbours } from '../relations/semantic';
import type { RelationKind } from '../relations/kinds';
import { buildRun, runBm25, runIndependentScores, runRelations, type Run } from '../run';
import { tokenize } from '../tokenize';
import type { Relation, VectorSet } from '../types';
import { pairedBootstrap, type BootstrapOptions, type PairedDelta } from './bootstrap';
import type { BenchmarkItem } from './datasets/types';
import { answerInContext, contentWords, goldRecall, type Span } from './retrieval';

export type GridScorer = 'bm25' | 'dense' | 'hybrid';
/** Relation kinds of the grid (runRelations; 'ppr' is multi-hop PageRank over context edges). */
export type GridRelation = Extract<RelationKind, 'context' | 'semantic' | 'ppr'>;

export interface GridConfig {
  scorer: GridScorer;
  /** Empty: plain retrieval (the independent scores alone). */
  relations: GridRelation[];
  alpha: number;
  wRel: number;
  /** Words per prose fragment (ignored for items with fixed fragments). */
  fragmentWords: number;
}

export interface GridBudget {
  budget: number;
  unit: 'words' | 'tokens';
}

export interface GridSpec {
  configs: GridConfig[];
  budgets: GridBudget[];
}

/** An embedder for dense scores and the semantic relation (GloVe offline, MiniLM when loaded). */
export interface GridEmbedder {
  id: string;
  embed(texts: readonly string[]): Promise<VectorSet> | VectorSet;
}

/** One configuration on one question: a value per budget of the spec (null: not measured). */
export interface QuestionResult {
  config: string;
  question: string;
  gold: (number | null)[];
  answer: (number | null)[];
}

/** Plain retrieval: no relation, or alpha 0 (Eq. 10 then equals Eq. 4). */
export function isPlain(c: GridConfig): boolean {
  return c.relations.length === 0 || c.alpha === 0;
}

/** A configuration's stable key: results are stored and resumed under it. */
export function configKey(c: GridConfig): string {
  const rel = isPlain(c) ? 'plain' : [...c.relations].sort().join('+');
  const params = isPlain(c) ? '' : `|a${c.alpha}|w${c.wRel}`;
  return `${c.scorer}|${rel}${params}|f${c.fragmentWords}`;
}

/** What a person reads: "bm25, context a0.5 w0.3, 500 words". */
export function configLabel(c: GridConfig): string {
  const rel = isPlain(c) ? 'plain' : `${[...c.relations].sort().join('+')} α${c.alpha} w${c.wRel}`;
  return `${c.scorer}, ${rel}, ${c.fragmentWords}-word fragments`;
}

export function budgetKey(b: GridBudget): string {
  return `${b.budget}${b.unit === 'words' ? 'w' : 't'}`;
}

/** Every combination of the chosen values; plain configurations once per scorer and size. */
export function expandGrid(choice: {
  scorers: readonly GridScorer[];
  relationSets: ReadonlyArray<readonly GridRelation[]>;
  alphas: readonly number[];
  wRels: readonly number[];
  fragmentWords: readonly number[];
}): GridConfig[] {
  const out = new Map<string, GridConfig>();
  for (const fragmentWords of choice.fragmentWords) {
    for (const scorer of choice.scorers) {
      for (const rels of choice.relationSets) {
        for (const alpha of rels.length ? choice.alphas : [0]) {
          for (const wRel of rels.length ? choice.wRels : [defaultFragRelOptions.wRel]) {
            const c: GridConfig = { scorer, relations: [...rels], alpha, wRel, fragmentWords };
            const plain: GridConfig = isPlain(c) ? { ...c, relations: [], alpha: 0, wRel: 0 } : c;
            out.set(configKey(plain), plain);
          }
        }
      }
    }
  }
  return [...out.values()];
}

/** Problems with a spec a person must fix before running (empty: fine). */
export function gridProblems(spec: GridSpec): string[] {
  const out: string[] = [];
  if (spec.configs.length === 0) out.push('Choose at least one configuration.');
  if (spec.budgets.length === 0) out.push('Choose at least one budget.');
  for (const b of spec.budgets) {
    if (!(Number.isInteger(b.budget) && b.budget > 0))
      out.push(`Budget ${b.budget} is not a whole number above 0.`);
  }
  for (const c of spec.configs) {
    if (!(c.alpha >= 0 && Number.isFinite(c.alpha)))
      out.push(`alpha ${c.alpha} must be 0 or more.`);
    if (!(c.wRel >= 0 && c.wRel < 1)) out.push(`w_rel ${c.wRel} must be in [0, 1).`);
    if (!(Number.isInteger(c.fragmentWords) && c.fragmentWords >= 10)) {
      out.push(`Fragment size ${c.fragmentWords} must be a whole number of at least 10 words.`);
    }
  }
  return [...new Set(out)];
}

interface Indexed {
  run: Run;
  words: Uint32Array;
  tokens: Uint32Array;
  fragmentWords: Set<string>[];
  relations: Map<string, Relation[]>;
}

const needsVectors = (c: GridConfig) =>
  c.scorer !== 'bm25' || (!isPlain(c) && c.relations.includes('semantic'));

async function indexDocument(
  item: BenchmarkItem,
  fragmentWords: number,
  embedder: GridEmbedder | null,
): Promise<Indexed> {
  const spans: readonly Span[] =
    item.fixedFragments ??
    splitProse(item.documentId, item.document, { wordsPerFragment: fragmentWords });
  const source = item.document;
  const starts = Uint32Array.from(spans, (s) => s.start);
  const ends = Uint32Array.from(spans, (s) => s.end);
  const texts = spans.map((s) => source.slice(s.start, s.end));
  const words = Uint32Array.from(texts, (t) => countWords(t));
  const tokens = Uint32Array.from(texts, (t) => estimateTokens(t));
  const vectors = embedder ? await embedder.embed(texts) : undefined;
  const run = buildRun([
    {
      docId: item.documentId,
      name: item.documentId,
      source,
      starts,
      ends,
      words,
      labels: texts.map((_, i) => `#${i}`),
      vectors,
      semantic: vectors
        ? semanticNeighbours(vectors, [0, spans.length], defaultFragRelOptions.semanticK)
        : undefined,
    },
  ]);
  runBm25(run);
  return {
    run,
    words,
    tokens,
    fragmentWords: texts.map((t) => contentWords(t)),
    relations: new Map(),
  };
}

export interface GridRunOptions {
  /** Whether this (configuration key, question id) is already stored (resume skips it). */
  isDone?: (config: string, question: string) => boolean;
  /** Called with each question's new results before the next question starts (store them). */
  onResults?: (results: QuestionResult[]) => void | Promise<void>;
  /** (done, total) in (configuration, question) pairs, the skipped ones counted as done. */
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignalLike;
}

/**
 * Run the grid over the items. Returns the results computed by this call (not the skipped
 * ones), in the order they were made: per fragment size, per document, per question, per
 * configuration.
 */
export async function runGrid(
  items: readonly BenchmarkItem[],
  spec: GridSpec,
  embedder: GridEmbedder | null,
  options: GridRunOptions = {},
): Promise<QuestionResult[]> {
  const problems = gridProblems(spec);
  if (problems.length) throw new Error(`Evaluation: ${problems.join(' ')}`);
  const { isDone = () => false, onResults, onProgress, signal } = options;
  const keys = spec.configs.map(configKey);
  const total = keys.length * items.length;
  let done = 0;
  const out: QuestionResult[] = [];
  const sizes = [...new Set(spec.configs.map((c) => c.fragmentWords))];
  const byDocument = new Map<string, BenchmarkItem[]>();
  for (const item of items)
    byDocument.set(item.documentId, [...(byDocument.get(item.documentId) ?? []), item]);

  for (const size of sizes) {
    const configs = spec.configs
      .map((c, k) => ({ c, key: keys[k] }))
      .filter((x) => x.c.fragmentWords === size);
    const vectorsNeeded = configs.some((x) => needsVectors(x.c));
    if (vectorsNeeded && !embedder) {
      throw new Error(
        'Evaluation: dense and hybrid scores and the semantic relation need an embedder.',
      );
    }
    for (const docItems of byDocument.values()) {
      let ix: Indexed | null = null;
      for (const item of docItems) {
        if (signal?.aborted) throw new AbortError('Stopped.');
        const todo = configs.filter((x) => !isDone(x.key, item.id));
        done += configs.length - todo.length;
        if (todo.length === 0) {
          onProgress?.(done, total);
          continue;
        }
        ix ??= await indexDocument(item, size, vectorsNeeded ? embedder : null);
        const run = ix.run;
        const tokensOfQuery = tokenize(item.question);
        const vector =
          todo.some((x) => needsVectors(x.c)) && embedder
            ? (await embedder.embed([item.question])).data
            : undefined;
        const independent = new Map<GridScorer, Float64Array>();
        const answerWords = item.answerText === null ? null : contentWords(item.answerText);
        const batch: QuestionResult[] = [];
        for (const { c, key } of todo) {
          let s = independent.get(c.scorer);
          if (!s) {
            s = runIndependentScores(run, { tokens: tokensOfQuery, vector }, c.scorer);
            independent.set(c.scorer, s);
          }
          let scores = s;
          if (!isPlain(c)) {
            const relKey = `${[...c.relations].sort().join('+')}|${c.wRel}`;
            let rels = ix.relations.get(relKey);
            if (!rels) {
              rels = runRelations(run, c.relations, c.wRel);
              ix.relations.set(relKey, rels);
            }
            scores = fragRelScores(s, rels, { alpha: c.alpha }).final;
          }
          const result: QuestionResult = { config: key, question: item.id, gold: [], answer: [] };
          for (const b of spec.budgets) {
            const sel = selectByBudget(scores, b.unit === 'words' ? ix.words : ix.tokens, b.budget);
            const selected = new Array<boolean>(run.size).fill(false);
            for (const i of sel.indices) selected[i] = true;
            result.gold.push(
              item.gold.length ? goldRecall(run.starts, run.ends, selected, item.gold) : null,
            );
            if (answerWords) {
              const context = new Set<string>();
              for (const i of sel.indices) for (const w of ix.fragmentWords[i]) context.add(w);
              result.answer.push(answerInContext(answerWords, context));
            } else result.answer.push(null);
          }
          batch.push(result);
        }
        out.push(...batch);
        await onResults?.(batch);
        done += todo.length;
        onProgress?.(done, total);
      }
    }
  }
  return out;
}

export interface GridCell {
  /** Questions measured. */
  n: number;
  mean: number;
  /** Against the baseline on the questions both measured (absent for the baseline itself). */
  delta?: PairedDelta;
}

export interface GridSummaryRow {
  config: string;
  /** Cells per budget of the spec. */
  gold: GridCell[];
  answer: GridCell[];
  /** (configuration, question) results present. */
  questions: number;
}

const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : 0);

/**
 * Mean gold recall and answer-in-context per configuration and budget, each with a paired
 * bootstrap 95% interval of its change against `baseline` (a configuration key), paired over
 * the questions both have a value for. Partial results summarise what is there.
 */
export function summarizeGrid(
  spec: GridSpec,
  results: readonly QuestionResult[],
  baseline: string,
  bootstrap: Partial<BootstrapOptions> = {},
): GridSummaryRow[] {
  const byConfig = new Map<string, Map<string, QuestionResult>>();
  for (const r of results) {
    let m = byConfig.get(r.config);
    if (!m) byConfig.set(r.config, (m = new Map()));
    m.set(r.question, r);
  }
  const base = byConfig.get(baseline) ?? new Map<string, QuestionResult>();
  const cell = (
    mine: Map<string, QuestionResult>,
    pick: (r: QuestionResult) => number | null,
    isBaseline: boolean,
  ): GridCell => {
    const values: number[] = [];
    const x: number[] = [];
    const y: number[] = [];
    for (const [q, r] of mine) {
      const v = pick(r);
      if (v === null) continue;
      values.push(v);
      const b = base.get(q);
      const bv = b ? pick(b) : null;
      if (bv !== null) {
        x.push(v);
        y.push(bv);
      }
    }
    return {
      n: values.length,
      mean: mean(values),
      ...(isBaseline || x.length === 0 ? {} : { delta: pairedBootstrap(x, y, bootstrap) }),
    };
  };
  return spec.configs.map((c) => {
    const key = configKey(c);
    const mine = byConfig.get(key) ?? new Map<string, QuestionResult>();
    const isBase = key === baseline;
    return {
      config: key,
      questions: mine.size,
      gold: spec.budgets.map((_, k) => cell(mine, (r) => r.gold[k] ?? null, isBase)),
      answer: spec.budgets.map((_, k) => cell(mine, (r) => r.answer[k] ?? null, isBase)),
    };
  });
}
