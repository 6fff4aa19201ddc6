/**
 * @file The real all-MiniLM-L6-v2 (`npm run models`) as an independent scorer on RepoEval
 * (the real transformer scorer on every dataset bench:quality covers). Enabled in
 * bench/repoeval.ts by `QUALITY_EMBEDDER=minilm`, as in bench/quality.ts and bench/mtbench.ts.
 *
 * Per task it adds four rankings beside BM25's, with the task's own code relation (default 256
 * weights per row) and alpha 0.5:
 * - MiniLM dense: clamped cosine between the query (the last 20 prompt lines) and each window;
 * - MiniLM dense + code: the same with Eq. 9-10 over the code relation;
 * - MiniLM hybrid: Eq. 4's hybrid (lambda 0.5) of the task's BM25 and the MiniLM cosine;
 * - MiniLM hybrid + code.
 * MiniLM reads at most 512 word pieces (no length is passed, so transformers.js truncates at the
 * tokenizer's model_max_length), so a 20-line window longer than that is scored by its
 * beginning: this is the model's own limit, left as the app would meet it.
 *
 * Window vectors are cached per window text, in memory for the run and on disk beside
 * bench/quality.ts's cache (~/.cache/fragrel-lens/bench-embeddings/minilm-q8-texts), so the
 * 213 rebuilt repositories (each differs from the original in one file) embed only the windows
 * their edit changed.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fragRelScores } from '../src/core/fragrel';
import { hybridScores } from '../src/core/hybrid';
import { cosineScores } from '../src/core/vectors';
import type { Relation } from '../src/core/types';
import { pairedBootstrap } from '../src/core/eval';

export const MINILM_IDEAS = [
  'MiniLM dense',
  'MiniLM dense + code',
  'MiniLM hybrid',
  'MiniLM hybrid + code',
] as const;

export interface RepoMiniLm {
  /** Score every window for one task; keys are MINILM_IDEAS. */
  ideas(input: {
    windowTexts: readonly string[];
    queryText: string;
    bm25Raw: ArrayLike<number>;
    code: Relation;
    alpha: number;
  }): Promise<Record<string, Float64Array>>;
  close(): Promise<void>;
}

export async function loadRepoMiniLm(): Promise<RepoMiniLm> {
  const { loadMiniLM } = await import('../test/real-models');
  const m = await loadMiniLM();
  const dir = path.join(
    os.homedir(),
    '.cache',
    'fragrel-lens',
    'bench-embeddings',
    'minilm-q8-texts',
  );
  mkdirSync(dir, { recursive: true });
  const memory = new Map<string, Float32Array>();
  const keyOf = (t: string) => createHash('sha256').update(t).digest('hex');

  async function vectors(texts: readonly string[]): Promise<Float32Array> {
    const missing: string[] = [];
    for (const t of new Set(texts)) {
      if (memory.has(t)) continue;
      const file = path.join(dir, `${keyOf(t)}.f32`);
      if (existsSync(file)) {
        const buf = readFileSync(file);
        memory.set(t, new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4).slice());
      } else missing.push(t);
    }
    if (missing.length) {
      const data = await m.embed(missing);
      missing.forEach((t, i) => {
        const row = data.slice(i * m.dim, (i + 1) * m.dim);
        memory.set(t, row);
        writeFileSync(path.join(dir, `${keyOf(t)}.f32`), Buffer.from(row.buffer));
      });
    }
    const out = new Float32Array(texts.length * m.dim);
    texts.forEach((t, i) => out.set(memory.get(t)!, i * m.dim));
    return out;
  }

  return {
    async ideas({ windowTexts, queryText, bm25Raw, code, alpha }) {
      const rows = await vectors(windowTexts);
      const query = await m.embed([queryText]);
      const cos = cosineScores({ dim: m.dim, count: windowTexts.length, data: rows }, query);
      const dense = cos.map((c) => (c > 0 ? c : 0));
      const hybrid = hybridScores(bm25Raw, cos);
      const withCode = (s: Float64Array) => fragRelScores(s, [code], { alpha }).final;
      return {
        'MiniLM dense': dense,
        'MiniLM dense + code': withCode(dense),
        'MiniLM hybrid': hybrid,
        'MiniLM hybrid + code': withCode(hybrid),
      };
    },
    close: () => m.close(),
  };
}

type Metric = 'windowRecall' | 'definitionRecall' | 'hit';

/**
 * Markdown: MiniLM against BM25 and each MiniLM scorer with the code relation against its own
 * plain form, over all tasks with gold, paired bootstrap 95% intervals.
 */
export function miniLmRepoTable(
  tasks: readonly { bm25: Record<Metric, number>; ideas: Record<string, Record<Metric, number>> }[],
): string {
  const metrics: Metric[] = ['windowRecall', 'definitionRecall', 'hit'];
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  const pct = (x: number) => (100 * x).toFixed(1);
  const sgn = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}`;
  const of = (name: string, m: Metric) =>
    tasks.map((t) => (name === 'BM25' ? t.bm25[m] : t.ideas[name][m]));
  const cell = (name: string, base: string, m: Metric) => {
    const d = pairedBootstrap(of(name, m), of(base, m));
    return `${pct(mean(of(name, m)))} (${sgn(d.mean)} [${sgn(d.ci95[0])}, ${sgn(d.ci95[1])}])`;
  };
  const out = [
    `## RepoEval with the real MiniLM (all ${tasks.length} tasks with gold; top 10 windows; paired bootstrap 95%)`,
    '',
    '| ranking | against | window recall | definition recall | hit@10 |',
    '|---|---|---:|---:|---:|',
    `| BM25 | – | ${metrics.map((m) => pct(mean(of('BM25', m)))).join(' | ')} |`,
  ];
  const pairs: [string, string][] = [
    ['MiniLM dense', 'BM25'],
    ['MiniLM hybrid', 'BM25'],
    ['MiniLM dense + code', 'MiniLM dense'],
    ['MiniLM hybrid + code', 'MiniLM hybrid'],
  ];
  for (const [name, base] of pairs) {
    out.push(`| ${name} | ${base} | ${metrics.map((m) => cell(name, base, m)).join(' | ')} |`);
  }
  return out.join('\n');
}
