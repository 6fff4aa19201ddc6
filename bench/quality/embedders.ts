/**
 * @file One held-out table for the three embedders (GloVe, the static vectors distilled from
 * MiniLM, MiniLM itself): per data set, plain dense and hybrid retrieval on the question's content
 * words, each against plain BM25 over the whole question with the paired bootstrap of
 * bench/quality/versus.ts. Reads what the benchmarks wrote (nothing is measured here):
 * - bench/results/<prefix>-{glove,distilled,minilm}.json: bench/quality.ts runs with the same sets,
 *   split and fragment size, one per `QUALITY_EMBEDDER` (`results.versus`);
 * - bench/results/hotpot-static.json: bench/hotpot-static.ts (all 100 questions, its own rows);
 * - bench/results/mtbench-distilled-minilm.json: bench/mtbench.ts with
 *   `QUALITY_EMBEDDER=distilled,minilm` (per-dialog hits, paired here against BM25).
 * `npx tsx bench/quality/embedders.ts [prefix]` (prefix default `quality-3emb`) prints markdown
 * and writes bench/results/<prefix>-table.json.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { pairedBootstrap, type PairedDelta } from '../../src/core/eval';
import { machine, resultsDir } from '../results-file';
import type { VersusResults } from './versus';

export const EMBEDDERS = ['glove', 'distilled', 'minilm'] as const;
export type EmbedderName = (typeof EMBEDDERS)[number];
export const EMBEDDER_LABEL: Record<EmbedderName | 'none', string> = {
  none: '—',
  glove: 'GloVe',
  distilled: 'distilled',
  minilm: 'MiniLM',
};

/** One figure: the mean and, unless it is the reference itself, its paired change. */
export interface Figure {
  n: number;
  mean: number;
  delta?: PairedDelta;
}

export interface TableRow {
  set: string;
  /** The two metrics of the set's columns (gold@1Kw / gold@2Kw for the book sets). */
  metrics: [string, string];
  embedder: EmbedderName | 'none';
  scorer: string;
  figures: [Figure | null, Figure | null];
}

/** Set order and labels of the table. */
export const SET_LABEL: Record<string, string> = {
  quality: 'QuALITY',
  qasper: 'Qasper',
  sfiction: 'SFiction',
  musique: 'MuSiQue',
  babi: 'bAbI',
  books: 'books, pooled',
};

/**
 * Rows for the quality.ts sets: the reference (BM25 over the whole question) once per set, BM25
 * on content words once, then each embedder's `scorers`, all plain, at fragment size `size`.
 */
export function bookRows(
  versus: Partial<Record<EmbedderName, VersusResults>>,
  size: string,
  scorers: readonly string[] = ['dense-q', 'hybrid-q'],
): TableRow[] {
  const rows: TableRow[] = [];
  const metrics: [string, string] = ['gold@1Kw', 'gold@2Kw'];
  const find = (v: VersusResults | undefined, scorer: string) =>
    v?.rows.find((r) => r.scorer === scorer && r.variant === 'plain' && r.size === size);
  const any = EMBEDDERS.map((e) => versus[e]).find(Boolean);
  for (const set of Object.keys(SET_LABEL)) {
    const ref = find(any, 'bm25')?.heldout[set];
    if (!ref) continue;
    const refFigures = metrics.map((m) =>
      ref[m as 'gold@1Kw']
        ? { n: ref[m as 'gold@1Kw']!.n, mean: ref[m as 'gold@1Kw']!.reference }
        : null,
    ) as TableRow['figures'];
    rows.push({ set, metrics, embedder: 'none', scorer: 'bm25', figures: refFigures });
    const figuresOf = (v: VersusResults | undefined, scorer: string): TableRow['figures'] =>
      metrics.map((m) => {
        const c = find(v, scorer)?.heldout[set]?.[m as 'gold@1Kw'];
        return c ? { n: c.n, mean: c.mean, delta: c.delta } : null;
      }) as TableRow['figures'];
    rows.push({
      set,
      metrics,
      embedder: 'none',
      scorer: 'bm25-q',
      figures: figuresOf(any, 'bm25-q'),
    });
    for (const e of EMBEDDERS) {
      if (!versus[e]) continue;
      for (const scorer of scorers) {
        rows.push({ set, metrics, embedder: e, scorer, figures: figuresOf(versus[e], scorer) });
      }
    }
  }
  return rows;
}

interface HotpotFile {
  results: {
    questions: number;
    rows: {
      embedder: string;
      scorer: string;
      first: number;
      recall2: number;
      firstVsBm25?: PairedDelta;
      recall2VsBm25?: PairedDelta;
    }[];
  };
}

const byLabel = (label: string): EmbedderName | 'none' =>
  (Object.entries(EMBEDDER_LABEL).find(([, l]) => l === label)?.[0] ?? 'none') as
    EmbedderName | 'none';

/** HotpotQA rows (bench/hotpot-static.ts): BM25, BM25-q and each embedder's `scorers`. */
export function hotpotRows(file: HotpotFile, scorers: readonly string[]): TableRow[] {
  const n = file.results.questions;
  return file.results.rows
    .filter((r) => r.embedder === 'none' || scorers.includes(r.scorer))
    .map((r) => ({
      set: 'hotpotqa',
      metrics: ['gold first', 'recall@2'],
      embedder: byLabel(r.embedder),
      scorer: r.scorer,
      figures: [
        { n, mean: r.first, delta: r.firstVsBm25 },
        { n, mean: r.recall2, delta: r.recall2VsBm25 },
      ],
    }));
}

interface MtBenchFile {
  results: {
    rows: {
      set: string;
      scoring: string;
      embedder: string;
      method: string;
      perDialog: { hits: { all: number } }[];
    }[];
  };
}

/**
 * MTBench+ rows: share of dialogs with every gold turn in what the model sees (the prompt set:
 * 2 recent rounds + 8 retrieved) and in the 8 retrieved alone, plain retrieval, each against
 * plain BM25, paired per dialog.
 */
export function mtbenchRows(
  file: MtBenchFile,
  options: { resamples: number; seed: number },
): TableRow[] {
  const sets = ['prompt', 'retrieved8'];
  const all = (set: string, scoring: string, embedder: string) =>
    file.results.rows
      .find(
        (r) =>
          r.set === set && r.scoring === scoring && r.embedder === embedder && r.method === 'plain',
      )
      ?.perDialog.map((p) => p.hits.all);
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const rows: TableRow[] = [];
  const figure = (set: string, scoring: string, embedder: string): Figure | null => {
    const xs = all(set, scoring, embedder);
    const ref = all(set, 'bm25', 'none');
    if (!xs || !ref) return null;
    return {
      n: xs.length,
      mean: mean(xs),
      ...(scoring !== 'bm25' && { delta: pairedBootstrap(xs, ref, options) }),
    };
  };
  const metrics: [string, string] = ['all gold in prompt', 'all gold in 8 retrieved'];
  rows.push({
    set: 'mtbench',
    metrics,
    embedder: 'none',
    scorer: 'bm25',
    figures: [figure(sets[0], 'bm25', 'none'), figure(sets[1], 'bm25', 'none')],
  });
  for (const e of EMBEDDERS) {
    for (const scoring of ['dense', 'hybrid']) {
      const f = [
        figure(sets[0], scoring, EMBEDDER_LABEL[e]),
        figure(sets[1], scoring, EMBEDDER_LABEL[e]),
      ];
      if (!f[0] && !f[1]) continue;
      rows.push({
        set: 'mtbench',
        metrics,
        embedder: e,
        scorer: scoring,
        figures: f as TableRow['figures'],
      });
    }
  }
  return rows;
}

const pct = (x: number) => (100 * x).toFixed(1);
const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}`;

export function figureText(f: Figure | null): string {
  if (!f) return '—';
  if (!f.delta) return `${pct(f.mean)} (reference)`;
  const d = f.delta;
  const sig = d.ci95[0] > 0 || d.ci95[1] < 0 ? '**' : '';
  return `${pct(f.mean)} (${sig}${signed(d.mean)} [${signed(d.ci95[0])}, ${signed(d.ci95[1])}]${sig})`;
}

export function tableMarkdown(rows: readonly TableRow[]): string {
  const out = [
    '| data set (n) | metrics | embedder | scorer | first metric | second metric |',
    '|---|---|---|---|---:|---:|',
  ];
  for (const r of rows) {
    const n = r.figures[0]?.n ?? r.figures[1]?.n ?? 0;
    const label =
      r.set === 'hotpotqa' ? 'HotpotQA' : r.set === 'mtbench' ? 'MTBench+' : SET_LABEL[r.set];
    out.push(
      `| ${label} (${n}) | ${r.metrics.join(' / ')} | ${EMBEDDER_LABEL[r.embedder]} | ${r.scorer} | ${figureText(r.figures[0])} | ${figureText(r.figures[1])} |`,
    );
  }
  return out.join('\n');
}

const read = <T>(name: string): T | undefined => {
  try {
    return JSON.parse(readFileSync(path.join(resultsDir, `${name}.json`), 'utf8')) as T;
  } catch {
    return undefined;
  }
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const prefix = process.argv[2] ?? 'quality-3emb';
  const size = process.env.QUALITY_SIZE ?? '200';
  const options = { resamples: 1000, seed: 20240601 };
  const versus: Partial<Record<EmbedderName, VersusResults>> = {};
  const sources: Record<string, unknown> = {};
  for (const e of EMBEDDERS) {
    const file = read<{
      date: string;
      results: { versus?: VersusResults; config: unknown; sets: unknown };
    }>(`${prefix}-${e}`);
    if (!file?.results.versus) continue;
    versus[e] = file.results.versus;
    sources[e] = {
      file: `${prefix}-${e}.json`,
      date: file.date,
      config: file.results.config,
      sets: file.results.sets,
    };
  }
  const hotpot = read<HotpotFile>('hotpot-static');
  const mtbench = read<MtBenchFile>('mtbench-distilled-minilm');
  const rows = [
    ...(hotpot ? hotpotRows(hotpot, ['dense-q', 'hybrid-q']) : []),
    ...bookRows(versus, size),
    ...(mtbench ? mtbenchRows(mtbench, options) : []),
  ];
  console.log(tableMarkdown(rows));
  writeFileSync(
    path.join(resultsDir, `${prefix}-table.json`),
    `${JSON.stringify({ section: `${prefix}-table`, ...machine(), results: { size, bootstrap: options, sources, rows } }, null, 2)}\n`,
  );
}
