/**
 * @file Incremental re-index of a repository against a full re-index, on real code.
 *
 * Run: `nice -n 10 npx tsx bench/reindex.ts`. Writes bench/results/reindex.json.
 *
 * The repository: the four Python repositories of ../shared/datasets/repoeval_function_level
 * (117 files, ~27k lines) dropped as one folder through the app's folder ingest, parsed with
 * tree-sitter's Node grammars, embedded with the offline word vectors (GloVe), related (code
 * relation, Eq. 8, and semantic kNN) by the index worker's own handler, run in-process.
 * Edits: 1 file (a function appended) and 10 files (a function appended to each), plus one new
 * file each time. Per case the median of 3 runs of: the full index of the edited version, and the
 * incremental one given the stored index of the original (what LibraryService passes). Each
 * incremental result is checked equal to the full one (vectors and both relations) before its
 * timings count.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { STATIC_EMBEDDER_ID } from '../src/core/embed/static';
import { ingestFiles } from '../src/ingest/ingest';
import type { PreviousRepositoryIndex } from '../src/ingest/reindex';
import { staticEmbedder } from '../src/models/embedder';
import { nodeGrammarSource } from '../src/models/tree-sitter-node';
import { createIndexHandlers, type IndexApi, type IndexRepositoryResult } from '../src/indexing';
import { InProcessClient } from '../src/workers/in-process';
import { loadGloveFromDisk } from '../test/glove';
import { writeResults } from './results-file';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const DATA = path.resolve(HERE, '../../shared/datasets/repoeval_function_level/repo_files.jsonl');
const RUNS = 3;

type Ok = Extract<IndexRepositoryResult, { ok: true }>;

const files = new Map<string, string>();
for (const line of readFileSync(DATA, 'utf8').split('\n')) {
  if (!line.trim()) continue;
  const row = JSON.parse(line) as { repo: string; path: string; text: string };
  files.set(`${row.repo}/${row.path}`, row.text);
}

function edited(count: number): Map<string, string> {
  const out = new Map(files);
  const paths = [...files.keys()].filter((p) => p.endsWith('.py')).slice(0, count);
  for (const p of paths) {
    out.set(p, `${files.get(p)}\n\ndef added_helper(values):\n    return sorted(values)[:3]\n`);
  }
  out.set('new_module/extra.py', 'def extra(a, b):\n    return a + b\n');
  return out;
}

const model = loadGloveFromDisk();
const indexer = new InProcessClient<IndexApi>(
  createIndexHandlers({
    ingest: (f, options) => ingestFiles(f, options),
    loadEmbedder: async () => staticEmbedder(model),
    grammars: nodeGrammarSource(path.resolve(HERE, '../node_modules')),
  }),
);

async function index(version: Map<string, string>, previous?: PreviousRepositoryIndex) {
  const entries = [...version].map(([p, text]) => ({
    path: `repoeval/${p}`,
    file: new Blob([text]),
  }));
  const t0 = performance.now();
  const r = await indexer.call('indexRepository', {
    docId: 'bench',
    source: { folder: { name: 'repoeval', entries } },
    semanticK: 16,
    embedder: { id: STATIC_EMBEDDER_ID, url: 'unused' },
    ...(previous ? { previous } : {}),
  });
  const totalMs = performance.now() - t0;
  if (!r.ok) throw new Error(r.error.message);
  return { r: r as Ok, totalMs };
}

function previousOf(r: Ok): PreviousRepositoryIndex {
  return {
    text: r.text,
    starts: r.fragments.starts,
    ends: r.fragments.ends,
    vectors: r.vectors,
    embedderId: r.embedderId,
    parses: r.parses,
  };
}

function same(a: Ok, b: Ok): boolean {
  const eq = (x: ArrayLike<number>, y: ArrayLike<number>) =>
    x.length === y.length && Array.from(x).every((v, i) => Object.is(v, y[i]));
  return (
    a.text === b.text &&
    eq(a.vectors.data, b.vectors.data) &&
    eq(a.code.col, b.code.col) &&
    eq(a.code.weight, b.code.weight) &&
    eq(a.semantic.col, b.semantic.col) &&
    eq(a.semantic.weight, b.semantic.weight)
  );
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (x: number) => Math.round(x);

const original = (await index(files)).r;
const cases = [];
for (const changed of [1, 10]) {
  const version = edited(changed);
  const full: { totalMs: number; r: Ok }[] = [];
  const incremental: { totalMs: number; r: Ok }[] = [];
  for (let run = 0; run < RUNS; run++) {
    full.push(await index(version));
    incremental.push(await index(version, previousOf(original)));
    if (!same(full.at(-1)!.r, incremental.at(-1)!.r)) {
      throw new Error(
        `The incremental index of ${changed} edited files differs from the full one.`,
      );
    }
  }
  const stages = (runs: { totalMs: number; r: Ok }[]) => ({
    totalMs: round(median(runs.map((x) => x.totalMs))),
    ...Object.fromEntries(
      Object.keys(runs[0].r.timings).map((k) => [
        k,
        round(median(runs.map((x) => x.r.timings[k as keyof Ok['timings']] ?? 0))),
      ]),
    ),
  });
  const reuse = incremental[0].r.report.reuse!;
  cases.push({
    editedFiles: changed,
    addedFiles: 1,
    files: incremental[0].r.report.files,
    windows: incremental[0].r.report.windows,
    reuse,
    full: stages(full),
    incremental: stages(incremental),
    equal: true,
  });
  console.log(
    `${changed} edited + 1 new file: full ${stages(full).totalMs} ms, incremental ${stages(incremental).totalMs} ms; ` +
      `parsed ${reuse.filesParsed}/${reuse.filesParsed + reuse.filesReused} files, embedded ${reuse.windowsEmbedded}/${reuse.windowsEmbedded + reuse.windowsReused} windows`,
  );
  console.log('  full', JSON.stringify(stages(full)));
  console.log('  incr', JSON.stringify(stages(incremental)));
}

console.log(writeResults('reindex', { runs: RUNS, embedder: STATIC_EMBEDDER_ID, cases }));
