/**
 * @file Chat (MTBench+) for issue 13: the chat default (dense GloVe, context relation w_rel 0.8,
 * alpha 0.5, top 8 turns; core/retrieval/presets.ts) against plain retrieval with the same
 * scorer, per dialog, with a paired bootstrap 95% interval, for every scorer bench/mtbench.ts
 * runs. Nothing is tuned here: 27 dialogs are too few to split (one dialog is 3.7 points).
 *
 * Run: `npx tsx bench/quality/chat.ts` (writes bench/results/quality-chat.json, prints markdown).
 */
import { pathToFileURL } from 'node:url';
import { pairedBootstrap, type PairedDelta } from '../../src/core/eval';
import { runMtBench, type MtBenchRow } from '../mtbench';
import { writeResults } from '../results-file';

const SEED = 20240601;
const RESAMPLES = 1000;
const METRICS = ['any', 'eachTopic', 'all'] as const;

export interface ChatCell {
  set: string;
  scoring: string;
  metric: (typeof METRICS)[number];
  dialogs: number;
  plain: number;
  fragrel: number;
  delta: PairedDelta;
}

export function chatIntervals(rows: readonly MtBenchRow[]): ChatCell[] {
  const out: ChatCell[] = [];
  for (const set of [...new Set(rows.map((r) => r.set))]) {
    for (const scoring of ['dense', 'bm25', 'hybrid'] as const) {
      const plain = rows.find(
        (r) => r.set === set && r.scoring === scoring && r.method === 'plain',
      );
      const fr = rows.find((r) => r.set === set && r.scoring === scoring && r.method === 'fragrel');
      if (!plain || !fr) continue;
      for (const metric of METRICS) {
        // Paired by dialog id: both rows list the same dialogs.
        const byId = new Map(plain.perDialog.map((p) => [p.id, p.hits[metric]]));
        const x = fr.perDialog.map((p) => p.hits[metric]);
        const p = fr.perDialog.map((q) => {
          const v = byId.get(q.id);
          if (v === undefined) throw new Error(`MTBench+: dialog ${q.id} missing from plain.`);
          return v;
        });
        const mean = (xs: number[]) => xs.reduce((s, v) => s + v, 0) / xs.length;
        out.push({
          set,
          scoring,
          metric,
          dialogs: x.length,
          plain: mean(p),
          fragrel: mean(x),
          delta: pairedBootstrap(x, p, { resamples: RESAMPLES, seed: SEED }),
        });
      }
    }
  }
  return out;
}

const pct = (x: number) => (100 * x).toFixed(1);
const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}`;

export function chatMarkdown(cells: readonly ChatCell[]): string {
  const out = [
    '| set | scoring | metric | dialogs | plain | default (context w_rel 0.8, α 0.5) | change [95% CI] |',
    '|---|---|---|---:|---:|---:|---:|',
  ];
  for (const c of cells) {
    const d = c.delta;
    out.push(
      `| ${c.set} | ${c.scoring} | ${c.metric} | ${c.dialogs} | ${pct(c.plain)} | ${pct(c.fragrel)} | ${signed(d.mean)} [${signed(d.ci95[0])}, ${signed(d.ci95[1])}] |`,
    );
  }
  return out.join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const cells = chatIntervals(runMtBench().rows);
  writeResults('quality-chat', { resamples: RESAMPLES, seed: SEED, cells });
  console.log(chatMarkdown(cells));
}
