/**
 * @file Issue 16, the worker pool in Node: the million-line repository of bench/scale-repo.ts
 * parsed and related through the same functions as the index worker, once on this thread and
 * once on a pool of real threads (worker_threads behind the app's WorkerClient and WorkerPool),
 * with wall and CPU time (process.cpuUsage counts every thread) and a check that both give the
 * same result. The browser's own figures come from bench/scale-repo.ts; this one separates the
 * code relation's shared state from its rows, which the page does not show.
 *
 *   flock /tmp/bench.lock npx tsx bench/pool-node.ts [members=2]
 *
 * POOL_NODE_FILES=N keeps the first N files (a quick check). Writes bench/results/pool-node.json
 * (POOL_NODE_APPEND=1 keeps the file's earlier runs before this one).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { coverWindows } from '../src/core/code/cover';
import { buildCodeGraph, type CodeFile } from '../src/core/code/graph';
import { layoutRepository, repositoryWindows } from '../src/core/code/layout';
import {
  mergeRowBlocks,
  summaryCodeRelationRows,
  summaryCodeRelationState,
  summaryRowRanges,
} from '../src/core/code/summary';
import { CodeParser, parseRepository } from '../src/models/code-syntax';
import { nodeGrammarSource } from '../src/models/tree-sitter-node';
import { parseFilesOnPool } from '../src/indexing';
import { shareArrays } from '../src/indexing/pool';
import { ingestMillionLines } from './scale-repo';
import { nodePool } from '../test/pool-node';
import { resultsDir } from './results-file';

const here = path.dirname(fileURLToPath(import.meta.url));
const logged: string[] = [];
const log = (s: string) => {
  logged.push(`[pool-node] ${s}`);
  process.stderr.write(`[pool-node] ${s}\n`);
};
const steps: { step: string; wallS: number; cpuS: number; load1: number[] }[] = [];
const uptime = () => execFileSync('uptime', { encoding: 'utf8' }).trimEnd();

async function timed<T>(
  what: string,
  f: () => Promise<T> | T,
): Promise<{ value: T; ms: number; cpuMs: number }> {
  const cpu0 = process.cpuUsage();
  const t = performance.now();
  const value = await f();
  const ms = performance.now() - t;
  const c = process.cpuUsage(cpu0);
  const cpuMs = (c.user + c.system) / 1000;
  steps.push({
    step: what,
    wallS: Number((ms / 1000).toFixed(2)),
    cpuS: Number((cpuMs / 1000).toFixed(2)),
    load1: os.loadavg().map((x) => Number(x.toFixed(1))),
  });
  log(
    `${what}: ${(ms / 1000).toFixed(2)} s wall, ${(cpuMs / 1000).toFixed(2)} s CPU; load ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
  return { value, ms, cpuMs };
}

async function main() {
  const members = Number(process.argv[2] ?? 2);
  const uptimeBefore = uptime();
  const doc = await ingestMillionLines();
  const files = doc.files
    .slice(0, Number(process.env.POOL_NODE_FILES ?? Infinity))
    .map((f) => ({ path: f.path, text: doc.text.slice(f.start, f.end) }));
  const pool = nodePool(members);
  // Start the members and load their grammars before timing (the app's members stay warm too).
  await pool.map(
    'parse',
    Array.from({ length: members }, () => ({ files: files.slice(0, 2) })),
  );
  const parser = new CodeParser(nodeGrammarSource(path.resolve(here, '../node_modules')));
  await parser.parse(files[0].path, files[0].text);
  const single = await timed(`parse ${files.length} files, this thread`, () =>
    parseRepository(files, parser),
  );
  const pooled = await timed(`parse ${files.length} files, pool of ${members}`, () =>
    parseFilesOnPool(files, pool, new AbortController().signal, () => {}),
  );
  if (JSON.stringify(pooled.value.syntax) !== JSON.stringify(single.value.syntax)) {
    throw new Error('the pooled parse differs');
  }
  const code: CodeFile[] = files.map((f, k) => ({ ...f, syntax: single.value.syntax[k] }));
  const graph = buildCodeGraph(code);
  const { windows } = repositoryWindows('million', layoutRepository(code));
  const cover = coverWindows(
    graph,
    code.map((f) => f.text),
    windows,
  );
  const n = windows.length;
  log(`${n} windows, ${graph.nodes.length} nodes`);
  const state = await timed('code relation: shared state (U, u, candidates)', () =>
    summaryCodeRelationState(graph, cover),
  );
  const rows = await timed('code relation: rows, this thread', () =>
    summaryCodeRelationRows(state.value, 0, n),
  );
  const blocksHere = await timed(
    `code relation: rows, this thread, in the pool's ${members * 4} ranges`,
    () =>
      mergeRowBlocks(
        n,
        summaryRowRanges(state.value, members * 4).map((r) =>
          summaryCodeRelationRows(state.value, r.from, r.to),
        ),
      ),
  );
  if (blocksHere.value.col.length !== rows.value.col.length) throw new Error('ranges differ');
  const shared = await timed('code relation: state onto shared memory', () =>
    shareArrays(state.value, true),
  );
  const ranges = summaryRowRanges(shared.value, members * 4);
  const pooledRows = await timed(
    `code relation: rows, pool of ${members} (${ranges.length} ranges)`,
    async () =>
      mergeRowBlocks(
        n,
        await pool.map(
          'codeRows',
          ranges.map((r) => ({ state: shared.value, ...r })),
        ),
      ),
  );
  const a = rows.value;
  const b = pooledRows.value;
  if (
    a.col.length !== b.col.length ||
    a.col.some((c, t) => c !== b.col[t]) ||
    a.weight.some((w, t) => w !== b.weight[t])
  ) {
    throw new Error('the pooled rows differ');
  }
  log(`equal: parse and code relation (${a.col.length} weights)`);
  pool.terminate();
  writeRun(members, {
    date: new Date().toISOString(),
    uptimeBeforeAfter: [uptimeBefore, uptime()],
    steps,
    log: logged,
  });
}

/**
 * bench/results/pool-node.json: this run, after the earlier runs kept in the file when
 * POOL_NODE_APPEND=1 (two runs at different loads say more than one on a shared machine).
 */
function writeRun(members: number, run: object) {
  const file = path.join(resultsDir, 'pool-node.json');
  const earlier =
    process.env.POOL_NODE_APPEND === '1' && existsSync(file)
      ? (JSON.parse(readFileSync(file, 'utf8')) as { runs: object[] }).runs
      : [];
  const out = {
    section: 'pool-node',
    command: `flock /tmp/bench.lock npx tsx bench/pool-node.ts ${members}`,
    cores: os.cpus().length,
    node: process.version,
    note:
      'The million-line repository of bench/scale-repo.ts in Node: parse and the code relation on ' +
      `this thread and on a pool of ${members} worker_threads (the app's WorkerPool and ` +
      "WorkerClient); results equal. CPU is process.cpuUsage (all threads). Load: the steps' " +
      'load1 and the uptime before and after (other engineers share the machine).',
    runs: [...earlier, run],
  };
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  log(`results written to ${path.relative(process.cwd(), file)}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
