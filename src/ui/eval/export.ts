/**
 * @file Exports of an evaluation run: CSV (one row per configuration and budget, each row with
 * the settings that produced it) and JSON (the file, the grid, the embedder, the bootstrap, every
 * per-question result and the summary). CSV is written by papaparse: quoting of commas, quotes
 * and line breaks is its job, and csv.ts keeps a cell from running as a spreadsheet
 * formula (text from files is data).
 */
import { toCsv } from './csv';
import { configKey, type GridCell, type GridSpec, type GridSummaryRow } from '../../core/eval/grid';
import type { EvalResultRecord, EvalRunRecord } from '../../store/schema';
import type { EvalRunSettings } from '../../workers/eval-handlers';

export const CSV_HEADER = [
  'config',
  'scorer',
  'relations',
  'alpha',
  'w_rel',
  'fragment_words',
  'baseline',
  'budget',
  'unit',
  'gold_n',
  'gold_recall',
  'gold_delta',
  'gold_ci95_low',
  'gold_ci95_high',
  'answer_n',
  'answer_in_context',
  'answer_delta',
  'answer_ci95_low',
  'answer_ci95_high',
] as const;

const num = (x: number | undefined) => (x === undefined ? '' : Number(x.toFixed(6)));
const cellColumns = (c: GridCell) =>
  c.n === 0
    ? [0, '', '', '', '']
    : [c.n, num(c.mean), num(c.delta?.mean), num(c.delta?.ci95[0]), num(c.delta?.ci95[1])];

export function summaryCsv(
  spec: GridSpec,
  rows: readonly GridSummaryRow[],
  baseline: string,
): string {
  const data: (string | number)[][] = [];
  spec.configs.forEach((c, k) => {
    const row = rows[k];
    spec.budgets.forEach((b, j) => {
      data.push([
        configKey(c),
        c.scorer,
        c.relations.length && c.alpha > 0 ? [...c.relations].sort().join('+') : 'none',
        c.alpha,
        c.wRel,
        c.fragmentWords,
        baseline,
        b.budget,
        b.unit,
        ...cellColumns(row.gold[j]),
        ...cellColumns(row.answer[j]),
      ]);
    });
  });
  return toCsv(CSV_HEADER, data);
}

/** What every exported run begins with: what it is, its file, when and how it ended. */
export interface RunExportHead<K extends string> {
  kind: K;
  version: 1;
  file: string;
  format: string;
  createdAt: string;
  status: EvalRunRecord['status'];
}

export function runExportHead<K extends string>(
  kind: K,
  run: EvalRunRecord,
  format: string,
): RunExportHead<K> {
  return {
    kind,
    version: 1,
    file: run.fileName,
    format,
    createdAt: new Date(run.createdAt).toISOString(),
    status: run.status,
  };
}

export interface RunExport extends RunExportHead<'fragrel-lens evaluation run'> {
  settings: EvalRunSettings;
  spec: GridSpec;
  summary: GridSummaryRow[];
  results: Omit<EvalResultRecord, 'runId'>[];
}

export function runJson(
  run: EvalRunRecord,
  format: string,
  summary: GridSummaryRow[],
  results: readonly EvalResultRecord[],
): string {
  const out: RunExport = {
    ...runExportHead('fragrel-lens evaluation run', run, format),
    settings: run.settings as EvalRunSettings,
    spec: run.spec as GridSpec,
    summary,
    results: results.map(({ runId: _runId, ...r }) => r),
  };
  return JSON.stringify(out, null, 1);
}
