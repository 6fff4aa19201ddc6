/**
 * @file Issue 16, the code relation at scale, in Node through the same core functions the index
 * worker runs: the million-line repository of bench/scale-repo.ts (real node_modules sources),
 * ingested with the app's folder ingest, parsed with tree-sitter, then graph, windows, cover and the
 * code relation, each timed. Parsing is cached in CODE_SCALE_CACHE (default
 * /tmp/coderel/million-syntax.json) so reruns profile the relation alone.
 *
 *   nice -n 10 npx tsx bench/code-relation-scale.ts [kernel=summary|exact] [budgetSeconds]
 *
 * The exact kernel (the reference) is stopped after `budgetSeconds` (default 60) and its rate
 * projected; CODE_SCALE_FILES=N keeps the first N files (smaller runs, both kernels complete).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { coverWindows } from '../src/core/code/cover';
import { buildCodeGraph, type CodeFile } from '../src/core/code/graph';
import { layoutRepository, repositoryWindows } from '../src/core/code/layout';
import { codeRelationMatrix } from '../src/core/code/relation';
import { summaryCodeRelationMatrix } from '../src/core/code/summary';
import type { FileSyntax } from '../src/core/code/syntax';
import { CodeParser } from '../src/models/code-syntax';
import { nodeGrammarSource } from '../src/models/tree-sitter-node';
import { ingestMillionLines } from './scale-repo';

const here = path.dirname(fileURLToPath(import.meta.url));
const CACHE = process.env.CODE_SCALE_CACHE ?? '/tmp/coderel/million-syntax.json';
const WINDOW = undefined; // the app's defaults (20 lines sliding by 10)

interface Cached {
  files: { path: string; text: string; syntax: FileSyntax | null }[];
  parseMs: number;
}

async function load(): Promise<Cached> {
  if (existsSync(CACHE)) return JSON.parse(readFileSync(CACHE, 'utf8')) as Cached;
  const doc = await ingestMillionLines();
  const parser = new CodeParser(nodeGrammarSource(path.resolve(here, '../node_modules')));
  const t = performance.now();
  const files: Cached['files'] = [];
  for (const f of doc.files) {
    const text = doc.text.slice(f.start, f.end);
    files.push({ path: f.path, text, syntax: await parser.parse(f.path, text) });
  }
  const parseMs = performance.now() - t;
  mkdirSync(path.dirname(CACHE), { recursive: true });
  writeFileSync(CACHE, JSON.stringify({ files, parseMs }));
  return { files, parseMs };
}

async function main() {
  const kernel = process.argv[2] ?? 'summary';
  const budget = Number(process.argv[3] ?? 60) * 1000;
  const cached = await load();
  const limit = Number(process.env.CODE_SCALE_FILES ?? Infinity);
  const files: CodeFile[] = cached.files.slice(0, limit);
  const texts = files.map((f) => f.text);
  const lines = texts.reduce((n, x) => n + x.split('\n').length - 1, 0);
  let t = performance.now();
  const graph = buildCodeGraph(files);
  const graphMs = performance.now() - t;
  const { windows } = repositoryWindows('million', layoutRepository(files), WINDOW);
  t = performance.now();
  const cover = coverWindows(graph, texts, windows);
  const coverMs = performance.now() - t;
  const log = (s: string) => process.stderr.write(`[code-scale] ${s}\n`);
  log(
    `${files.length} files, ${lines} lines, ${windows.length} windows, ${graph.nodes.length} nodes, ` +
      `${graph.stats.resolvedCalls}/${graph.stats.calls} calls resolved; parse ${(cached.parseMs / 1000).toFixed(1)} s (cached run), ` +
      `graph ${(graphMs / 1000).toFixed(2)} s, cover ${(coverMs / 1000).toFixed(2)} s; load ${os.loadavg()[0].toFixed(1)}`,
  );
  t = performance.now();
  const cpu0 = process.cpuUsage();
  let done = 0;
  let stopped = false;
  try {
    const build = kernel === 'exact' ? codeRelationMatrix : summaryCodeRelationMatrix;
    const m = build(graph, cover, {
      searchLimit: Number(process.env.CODE_SCALE_LIMIT ?? 1024),
      onProgress: (d) => {
        done = d;
        if (performance.now() - t > budget) throw new Error('budget');
      },
    });
    done = windows.length;
    log(`relation nnz ${m.col.length}`);
  } catch (e) {
    if ((e as Error).message !== 'budget') throw e;
    stopped = true;
  }
  const ms = performance.now() - t;
  const cpu = process.cpuUsage(cpu0);
  const rate = done / (ms / 1000);
  log(
    `${kernel}: ${done}/${windows.length} windows in ${(ms / 1000).toFixed(1)} s (cpu ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s), ` +
      `${rate.toFixed(0)} windows/s${stopped ? `, projected ${(windows.length / rate / 60).toFixed(1)} min` : ''}; ` +
      `load ${os.loadavg()[0].toFixed(1)}, heap ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MB, rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB`,
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
