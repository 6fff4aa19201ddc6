/**
 * @file Does tuning per document pay? (`npm run bench:tune`, issue 12 section 3.) On the L-Eval
 * sets of ../shared/datasets (QuALITY, Qasper, SFiction; gold as bench/quality/items.ts defines
 * it), per document:
 * 1. tune on pseudo-questions drawn from the document itself (no labels; src/core/tune), over the
 *    default grid of relations, alpha and w_rel, at the 1K and 2K word budgets;
 * 2. evaluate the document's real questions with the tuned configuration, the paper's defaults
 *    (context relation, w_rel 0.3, alpha 0.5), plain retrieval (alpha 0) and the product's
 *    current book default (multi-hop `ppr`, w_rel 0.3, alpha 0.5): gold recall and
 *    answer-in-context at 1K and 2K words, with paired bootstrap 95% intervals;
 * 3. with labels: tune on the document's labelled questions of the tune half
 *    (src/core/eval/split.ts) and evaluate on its held-out half.
 *
 * Fixed across arms: the product's book scorer and fragments (BM25 on the question's content
 * words, 100-word fragments), so each comparison is paired and only the relation part differs.
 * The tuner does not see a label, so all questions are fair to report for the pseudo-tuned arm;
 * the product default was chosen on the tune half of these same sets (BENCHMARKS.md), so the
 * held-out half is reported separately too.
 *
 * Environment: TUNE_SCORER=bm25-q (default) or dense (static GloVe), TUNE_PSEUDO (pseudo-questions
 * per document, default 60), TUNE_OUT (results file name, default tune).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { countWords, semanticNeighbours, splitProse } from '../src/core';
import { embedTexts, type StaticModel } from '../src/core/embed/static';
import { contentWords, pairedBootstrap, type PairedDelta } from '../src/core/eval';
import { fragRelScores, selectByBudget } from '../src/core/fragrel';
import { queryTerms } from '../src/core/retrieval/query';
import { buildRun, runBm25, runIndependentScores, runRelations, type Run } from '../src/core/run';
import {
  labelledTuneQuestion,
  pseudoQuestions,
  pseudoTexts,
  pseudoTuneQuestions,
  tune,
  type TuneConfig,
  type TuneReport,
} from '../src/core/tune';
import { loadGloveFromDisk, sharedDatasetPath } from '../test/glove';
import { levalSet, type BenchQuestion, type BenchSet } from './quality/items';
import { machine, resultsDir } from './results-file';

const SEED = 20240601;
const SIZE = 100;
const BUDGETS = [1000, 2000];
const BOOTSTRAP = 1000;

const PLAIN: TuneConfig = { relations: [], alpha: 0, wRel: 0 };
const PAPER: TuneConfig = { relations: ['context'], alpha: 0.5, wRel: 0.3 };
const CURRENT: TuneConfig = { relations: ['ppr'], alpha: 0.5, wRel: 0.3 };

type Arm = 'plain' | 'paper' | 'current' | 'tuned' | 'tunedIfSure' | 'labelTuned';
const ARMS: Arm[] = ['plain', 'paper', 'current', 'tuned', 'tunedIfSure', 'labelTuned'];
const METRICS = BUDGETS.flatMap((b) => [`gold@${b / 1000}Kw`, `answer@${b / 1000}Kw`]);

interface QuestionRow {
  id: string;
  set: string;
  split: 'tune' | 'heldout';
  /** values[arm][metric], NaN where the question does not measure it. */
  values: Record<Arm, Record<string, number>>;
}

interface DocumentRow {
  set: string;
  document: string;
  fragments: number;
  words: number;
  pseudoQuestions: number;
  tuned: TuneConfig & { score: number };
  pseudoScores: { plain: number; paper: number; current: number; tuned: number };
  probabilityBest: number;
  recommendation: 'chosen' | 'current';
  vsCurrent: PairedDelta;
  labelTuned: (TuneConfig & { labelled: number }) | null;
  tuneMs: number;
}

function indexDocument(source: string, id: string, model: StaticModel) {
  const frags = splitProse(id, source, { wordsPerFragment: SIZE });
  const texts = frags.map((f) => source.slice(f.start, f.end));
  const vectors = embedTexts(model, texts);
  const run = buildRun([
    {
      docId: id,
      name: id,
      source,
      starts: Uint32Array.from(frags, (f) => f.start),
      ends: Uint32Array.from(frags, (f) => f.end),
      words: Uint32Array.from(texts, (t) => countWords(t)),
      labels: texts.map((_, i) => `#${i}`),
      vectors,
      semantic: semanticNeighbours(vectors, [0, frags.length], 16),
    },
  ]);
  runBm25(run);
  return { run, words: texts.map((t) => contentWords(t)) };
}

function independentOf(run: Run, query: string, scorer: string, model: StaticModel) {
  if (scorer === 'bm25-q') return runIndependentScores(run, { tokens: queryTerms(query) }, 'bm25');
  const terms = queryTerms(query);
  const vector = embedTexts(model, [terms.join(' ')]).data;
  return runIndependentScores(run, { tokens: terms, vector }, 'dense');
}

function finalOf(run: Run, independent: Float64Array, c: TuneConfig): Float64Array {
  if (c.relations.length === 0 || c.alpha === 0) return independent;
  return fragRelScores(independent, runRelations(run, c.relations, c.wRel), { alpha: c.alpha })
    .final;
}

function measure(
  run: Run,
  words: Set<string>[],
  q: BenchQuestion,
  scores: Float64Array,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const budget of BUDGETS) {
    const sel = selectByBudget(scores, run.costs, budget);
    const on = new Uint8Array(run.size);
    for (const i of sel.indices) on[i] = 1;
    const key = `${budget / 1000}Kw`;
    out[`gold@${key}`] = q.gold.length
      ? q.gold.filter((g) => {
          for (let i = 0; i < run.size; i++) {
            if (run.starts[i] < g.end && run.ends[i] > g.start && !on[i]) return false;
          }
          return true;
        }).length / q.gold.length
      : NaN;
    if (q.answerWords && q.answerWords.size > 0) {
      let hit = 0;
      for (const w of q.answerWords) if (sel.indices.some((i) => words[i].has(w))) hit++;
      out[`answer@${key}`] = hit / q.answerWords.size;
    } else {
      out[`answer@${key}`] = NaN;
    }
  }
  return out;
}

async function evaluateSet(
  set: BenchSet,
  scorer: string,
  pseudoCount: number,
  model: StaticModel,
  log: (line: string) => void,
): Promise<{ questions: QuestionRow[]; documents: DocumentRow[] }> {
  const byDoc = new Map<string, BenchQuestion[]>();
  for (const q of set.questions) {
    const list = byDoc.get(q.document.id) ?? [];
    list.push(q);
    byDoc.set(q.document.id, list);
  }
  const questions: QuestionRow[] = [];
  const documents: DocumentRow[] = [];
  for (const [docId, qs] of byDoc) {
    const source = qs[0].document.source;
    const { run, words } = indexDocument(source, docId, model);
    const t0 = performance.now();
    const pseudo = pseudoQuestions(source, run.starts, run.ends, {
      count: pseudoCount,
      seed: SEED,
    });
    let vectors: { queries: Float32Array[]; masked: Float32Array[] } | undefined;
    if (scorer === 'dense') {
      const texts = pseudoTexts(run, 0, pseudo);
      const rows = (v: { dim: number; count: number; data: Float32Array }) =>
        Array.from({ length: v.count }, (_, i) => v.data.subarray(i * v.dim, (i + 1) * v.dim));
      vectors = {
        queries: rows(embedTexts(model, texts.queries)),
        masked: rows(embedTexts(model, texts.masked)),
      };
    }
    const report: TuneReport = await tune(
      run,
      pseudoTuneQuestions(run, 0, pseudo, scorer === 'dense' ? 'dense' : 'bm25', vectors),
      { budgets: BUDGETS, current: CURRENT, resamples: BOOTSTRAP, seed: SEED },
    );
    const tuneMs = performance.now() - t0;
    const scoreOf = (c: TuneConfig) =>
      report.configs.find(
        (x) =>
          x.relations.join('+') === c.relations.join('+') &&
          x.alpha === c.alpha &&
          (x.relations.length === 0 || x.wRel === c.wRel),
      )?.score ?? NaN;

    // With labels: the tune half's located gold of this document.
    const independent = qs.map((q) => independentOf(run, q.query, scorer, model));
    const labelled = qs
      .map((q, k) => ({ q, k }))
      .filter(({ q }) => q.split === 'tune' && q.gold.length > 0)
      .map(({ q, k }) => labelledTuneQuestion(run, 0, independent[k], q.gold));
    let labelTuned: DocumentRow['labelTuned'] = null;
    if (labelled.length > 0) {
      const r = await tune(run, labelled, {
        budgets: BUDGETS,
        current: CURRENT,
        resamples: 200,
        seed: SEED,
      });
      labelTuned = {
        relations: r.chosen.relations,
        alpha: r.chosen.alpha,
        wRel: r.chosen.wRel,
        labelled: labelled.length,
      };
    }

    const configs: Record<Arm, TuneConfig> = {
      plain: PLAIN,
      paper: PAPER,
      current: CURRENT,
      tuned: report.chosen,
      tunedIfSure: report.recommendation === 'chosen' ? report.chosen : CURRENT,
      labelTuned: labelTuned ?? CURRENT,
    };
    qs.forEach((q, k) => {
      const values = {} as QuestionRow['values'];
      for (const arm of ARMS) {
        values[arm] = measure(run, words, q, finalOf(run, independent[k], configs[arm]));
      }
      questions.push({ id: q.id, set: set.name, split: q.split, values });
    });
    documents.push({
      set: set.name,
      document: docId,
      fragments: run.size,
      words: countWords(source),
      pseudoQuestions: pseudo.length,
      tuned: report.chosen,
      pseudoScores: {
        plain: report.plain.score,
        paper: scoreOf(PAPER),
        current: report.current.score,
        tuned: report.chosen.score,
      },
      probabilityBest: report.probabilityBest,
      recommendation: report.recommendation,
      vsCurrent: report.vsCurrent,
      labelTuned,
      tuneMs,
    });
    log(
      `${docId}: ${run.size} fragments, ${pseudo.length} pseudo-questions, tuned ${report.chosen.relations.join('+') || 'plain'} a${report.chosen.alpha} w${report.chosen.wRel} (${(tuneMs / 1000).toFixed(1)} s)`,
    );
  }
  return { questions, documents };
}

interface Cell {
  n: number;
  means: Record<Arm, number>;
  tunedVsPlain: PairedDelta;
  tunedVsPaper: PairedDelta;
  tunedVsCurrent: PairedDelta;
  sureVsCurrent: PairedDelta;
  labelTunedVsCurrent?: PairedDelta;
  labelTunedVsPlain?: PairedDelta;
}

const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);

function summarise(rows: QuestionRow[], withLabels: boolean): Record<string, Cell> {
  const out: Record<string, Cell> = {};
  for (const metric of METRICS) {
    const kept = rows.filter((r) => !Number.isNaN(r.values.plain[metric]));
    if (kept.length === 0) continue;
    const arm = (a: Arm) => kept.map((r) => r.values[a][metric]);
    const boot = (a: Arm, b: Arm) =>
      pairedBootstrap(arm(a), arm(b), { resamples: BOOTSTRAP, seed: SEED });
    out[metric] = {
      n: kept.length,
      means: Object.fromEntries(ARMS.map((a) => [a, mean(arm(a))])) as Record<Arm, number>,
      tunedVsPlain: boot('tuned', 'plain'),
      tunedVsPaper: boot('tuned', 'paper'),
      tunedVsCurrent: boot('tuned', 'current'),
      sureVsCurrent: boot('tunedIfSure', 'current'),
      ...(withLabels && {
        labelTunedVsCurrent: boot('labelTuned', 'current'),
        labelTunedVsPlain: boot('labelTuned', 'plain'),
      }),
    };
  }
  return out;
}

const pct = (x: number) => (100 * x).toFixed(1);
const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}`;
const delta = (d: PairedDelta) => {
  const sig = d.ci95[0] > 0 || d.ci95[1] < 0 ? '**' : '';
  return `${sig}${signed(d.mean)} [${signed(d.ci95[0])}, ${signed(d.ci95[1])}]${sig}`;
};

export function tuneMarkdown(r: TuneResults): string {
  const out: string[] = [];
  out.push(
    '| set | metric | n | plain | paper | current default | tuned (pseudo) | tuned if sure | tuned − plain | tuned − paper | tuned − current | if sure − current |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  );
  for (const [set, cells] of Object.entries(r.all)) {
    for (const [metric, c] of Object.entries(cells)) {
      out.push(
        `| ${set} | ${metric} | ${c.n} | ${pct(c.means.plain)} | ${pct(c.means.paper)} | ${pct(c.means.current)} | ${pct(c.means.tuned)} | ${pct(c.means.tunedIfSure)} | ${delta(c.tunedVsPlain)} | ${delta(c.tunedVsPaper)} | ${delta(c.tunedVsCurrent)} | ${delta(c.sureVsCurrent)} |`,
      );
    }
  }
  out.push(
    '',
    'Held-out half (the product default was chosen on the other half), with the label-tuned arm:',
    '',
    '| set | metric | n | plain | current default | tuned (pseudo) | tuned (labels, tune half) | tuned − current | labels − current | labels − plain |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  );
  for (const [set, cells] of Object.entries(r.heldout)) {
    for (const [metric, c] of Object.entries(cells)) {
      out.push(
        `| ${set} | ${metric} | ${c.n} | ${pct(c.means.plain)} | ${pct(c.means.current)} | ${pct(c.means.tuned)} | ${pct(c.means.labelTuned)} | ${delta(c.tunedVsCurrent)} | ${delta(c.labelTunedVsCurrent!)} | ${delta(c.labelTunedVsPlain!)} |`,
      );
    }
  }
  const docs = r.documents;
  const chosen = new Map<string, number>();
  for (const d of docs) {
    const key = d.tuned.relations.length ? d.tuned.relations.join('+') : 'plain';
    chosen.set(key, (chosen.get(key) ?? 0) + 1);
  }
  out.push(
    '',
    `Per document (${docs.length}): chosen relations ${[...chosen].map(([k, n]) => `${k} ${n}`).join(', ')}; ` +
      `alpha median ${median(docs.map((d) => d.tuned.alpha))}; ` +
      `pseudo-question recall (mean of 1K and 2K) plain ${pct(mean(docs.map((d) => d.pseudoScores.plain)))}, ` +
      `paper ${pct(mean(docs.map((d) => d.pseudoScores.paper)))}, current ${pct(mean(docs.map((d) => d.pseudoScores.current)))}, ` +
      `tuned ${pct(mean(docs.map((d) => d.pseudoScores.tuned)))}; ` +
      `chance the choice is best, mean ${pct(mean(docs.map((d) => d.probabilityBest)))}%; ` +
      `sure gain over the current default (interval above 0) in ${docs.filter((d) => d.recommendation === 'chosen').length} documents; ` +
      `tuning time per document median ${(median(docs.map((d) => d.tuneMs)) / 1000).toFixed(2)} s.`,
  );
  out.push(`Run time ${(r.totalMs / 1000).toFixed(0)} s, scorer ${r.config.scorer}.`);
  return out.join('\n');
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : NaN;
}

export interface TuneResults {
  config: Record<string, unknown>;
  all: Record<string, Record<string, Cell>>;
  heldout: Record<string, Record<string, Cell>>;
  documents: DocumentRow[];
  totalMs: number;
}

export async function measureTuning(log: (line: string) => void): Promise<TuneResults> {
  const t0 = performance.now();
  const scorer = process.env.TUNE_SCORER ?? 'bm25-q';
  if (!['bm25-q', 'dense'].includes(scorer)) throw new Error(`TUNE_SCORER: bm25-q or dense.`);
  const pseudoCount = Number(process.env.TUNE_PSEUDO ?? 60);
  const model = loadGloveFromDisk();
  const sets: BenchSet[] = [
    levalSet(sharedDatasetPath('leval', 'quality.jsonl'), 'quality'),
    levalSet(sharedDatasetPath('leval', 'scientific_qa.jsonl'), 'qasper'),
    levalSet(sharedDatasetPath('leval', 'sci_fi.jsonl'), 'sfiction'),
  ];
  const rows: QuestionRow[] = [];
  const documents: DocumentRow[] = [];
  for (const set of sets) {
    const r = await evaluateSet(set, scorer, pseudoCount, model, log);
    rows.push(...r.questions);
    documents.push(...r.documents);
  }
  const all: TuneResults['all'] = {};
  const heldout: TuneResults['heldout'] = {};
  for (const name of [...sets.map((s) => s.name), 'pooled']) {
    const mine = rows.filter((r) => name === 'pooled' || r.set === name);
    all[name] = summarise(mine, false);
    heldout[name] = summarise(
      mine.filter((r) => r.split === 'heldout'),
      true,
    );
  }
  return {
    config: {
      seed: SEED,
      scorer,
      fragmentWords: SIZE,
      budgets: BUDGETS,
      pseudoQuestionsPerDocument: pseudoCount,
      arms: { plain: PLAIN, paper: PAPER, current: CURRENT },
      bootstrapResamples: BOOTSTRAP,
      grid: 'src/core/tune/grid.ts defaultTuneGrid',
    },
    all,
    heldout,
    documents,
    totalMs: performance.now() - t0,
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    const results = await measureTuning((line) => process.stderr.write(`[tune] ${line}\n`));
    console.log(tuneMarkdown(results));
    const file = path.join(resultsDir, `${process.env.TUNE_OUT ?? 'tune'}.json`);
    const round = (_: string, v: unknown) =>
      typeof v === 'number' && !Number.isInteger(v) ? Math.round(v * 1e4) / 1e4 : v;
    writeFileSync(file, `${JSON.stringify({ section: 'tune', ...machine(), results }, round)}\n`);
  } catch (error: unknown) {
    console.error(error);
    process.exitCode = 1;
  }
}
