/**
 * @file Scale: the semantic relation of the 100k-fragment library built on one thread
 * and by a pool of 1 and 2 worker threads (core/relations/semantic-parallel.ts), in Node.
 *
 * Same library and vectors as bench/scale.ts (the 11 Gutenberg books as one document, 15-word
 * fragments, static GloVe 100-d; and the first 25,000 of them projected to 384-d). Each build
 * is timed in wall time and in CPU time of the whole process (`process.cpuUsage` counts every
 * thread, so the workers' CPU is in it), runs alternated (one thread, 2 workers, 1 worker, ...)
 * so that a change of load hits every configuration; every pool result is checked equal, bit
 * for bit, to the one-thread build. The workers are started and warmed (a small build) before
 * the timed runs; their start is reported apart. Recall@16 as in bench/scale.ts (the same
 * seeded rows).
 *
 * Run: `npx tsx bench/run.ts scale-pool` (about 3-5 minutes on an idle 2-core machine). Env:
 * SCALE_POOL_ORDER (default `1t,2w,1w,2w,1t`), SCALE_POOL_384=0 skips the 384-d runs.
 */
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { embedTexts } from '../src/core/embed/static';
import { splitProse } from '../src/core/fragment';
import { invertedFileLists } from '../src/core/relations/inverted-lists';
import { semanticNeighbours } from '../src/core/relations/semantic';
import { semanticNeighboursParallel } from '../src/core/relations/semantic-parallel';
import type { CsrMatrix, VectorSet } from '../src/core/types';
import { loadGloveFromDisk, sharedDatasetPath } from '../test/glove';
import { nodeSemanticPool } from '../test/pool-node';
import type { BenchSection } from './run';
import { head, project, sampledRecall } from './scale';

const FRAGMENTS = Number(process.env.SCALE_POOL_FRAGMENTS ?? 100_000);
const FRAGMENTS_384 = 25_000;
const K = 16;

interface Timing {
  config: string;
  wallMs: number;
  cpuMs: number;
  /** This (main) thread's CPU, and the busiest other threads' (the workers), from /proc. */
  mainThreadCpuMs: number;
  otherThreadsCpuMs: number[];
  identical: boolean;
  loadAverage: number;
}

/**
 * CPU time of each thread of this process (ms), from /proc (Linux; empty elsewhere): the main
 * thread's is the part no worker can take over, each worker's its share.
 */
function threadCpu(): Map<number, number> {
  const out = new Map<number, number>();
  try {
    for (const tid of readdirSync('/proc/self/task')) {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      // Fields after the command's closing parenthesis; utime and stime are the 14th and 15th.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(tid), ((Number(fields[11]) + Number(fields[12])) * 1000) / 100);
    }
  } catch {
    // Not Linux: no per-thread times.
  }
  return out;
}

const same = (a: CsrMatrix, b: CsrMatrix) =>
  Buffer.from(a.rowPtr.buffer).equals(Buffer.from(b.rowPtr.buffer)) &&
  Buffer.from(a.col.buffer).equals(Buffer.from(b.col.buffer)) &&
  Buffer.from(a.weight.buffer).equals(Buffer.from(b.weight.buffer));

async function runs(v: VectorSet, order: string[], log: (line: string) => void) {
  const pools = { '1w': nodeSemanticPool(1), '2w': nodeSemanticPool(2) };
  try {
    // Start and warm the workers (tsx compiles their modules) on a small build.
    const warm = head(v, 13_000);
    const startMs: Record<string, number> = {};
    for (const [name, pool] of Object.entries(pools)) {
      const t0 = performance.now();
      await semanticNeighboursParallel(warm, [0, warm.count], K, { pool });
      startMs[name] = Math.round(performance.now() - t0);
    }
    // The clustering alone (on this thread in every configuration).
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    invertedFileLists(v.data, v.dim, 0, v.count);
    const clustering = {
      wallMs: Math.round(performance.now() - t0),
      cpuMs: Math.round(((u) => (u.user + u.system) / 1000)(process.cpuUsage(c0))),
    };
    log(`  clustering ${clustering.wallMs} ms wall, ${clustering.cpuMs} ms CPU`);
    let reference: CsrMatrix | null = null;
    const timings: Timing[] = [];
    for (const config of order) {
      const loadAverage = +os.loadavg()[0].toFixed(2);
      const threads0 = threadCpu();
      const cpu0 = process.cpuUsage();
      const t1 = performance.now();
      const m =
        config === '1t'
          ? semanticNeighbours(v, [0, v.count], K)
          : await semanticNeighboursParallel(v, [0, v.count], K, {
              pool: pools[config as '1w' | '2w'],
            });
      const wallMs = Math.round(performance.now() - t1);
      const cpu = process.cpuUsage(cpu0);
      const cpuMs = Math.round((cpu.user + cpu.system) / 1000);
      const threads1 = threadCpu();
      const delta = (tid: number) => (threads1.get(tid) ?? 0) - (threads0.get(tid) ?? 0);
      const mainThreadCpuMs = delta(process.pid);
      const otherThreadsCpuMs = [...threads1.keys()]
        .filter((tid) => tid !== process.pid)
        .map(delta)
        .sort((a, b) => b - a)
        .slice(0, 3);
      reference ??= m;
      const identical = same(reference, m);
      log(
        `  ${config}: ${wallMs} ms wall, ${cpuMs} ms CPU (main thread ${mainThreadCpuMs}, others ${otherThreadsCpuMs.join(', ')}), identical ${identical}, load ${loadAverage}`,
      );
      timings.push({
        config,
        wallMs,
        cpuMs,
        mainThreadCpuMs,
        otherThreadsCpuMs,
        identical,
        loadAverage,
      });
    }
    return { startMs, clustering, timings, reference: reference! };
  } finally {
    pools['1w'].close();
    pools['2w'].close();
  }
}

export const scalePoolSection: BenchSection = {
  name: 'scale-pool',
  description: 'Scale: the semantic relation of 100k fragments on one thread and on 1-2 workers',
  async run(log) {
    const dir = sharedDatasetPath('gutenberg');
    const files = readdirSync(dir)
      .filter((f) => f.endsWith('.txt'))
      .sort();
    const text = files.map((f) => readFileSync(`${dir}/${f}`, 'utf8')).join('\n\n');
    const fragments = splitProse('library', text, { wordsPerFragment: 15 }).slice(0, FRAGMENTS);
    const vectors = embedTexts(
      loadGloveFromDisk(),
      fragments.map((f) => text.slice(f.start, f.end)),
    );
    const order = (process.env.SCALE_POOL_ORDER ?? '1t,2w,1w,2w,1t').split(',');
    const sets: { name: string; v: VectorSet; recallRows: number }[] = [
      { name: `${vectors.count} x 100`, v: vectors, recallRows: 300 },
    ];
    if (process.env.SCALE_POOL_384 !== '0') {
      sets.push({
        name: `${FRAGMENTS_384} x 384`,
        v: project(head(vectors, FRAGMENTS_384), 384),
        recallRows: 100,
      });
    }
    const results = [];
    for (const { name, v, recallRows } of sets) {
      log(`${name}: ${order.join(', ')}`);
      const out = await runs(v, order, log);
      const recallAt16 = +sampledRecall(v, out.reference, K, recallRows).toFixed(4);
      log(`  recall@16 ${recallAt16} (${recallRows} rows)`);
      const median = (config: string) => {
        const xs = out.timings
          .filter((t) => t.config === config)
          .map((t) => t.wallMs)
          .sort((a, b) => a - b);
        return xs.length ? xs[Math.floor((xs.length - 1) / 2)] : null;
      };
      results.push({
        vectors: name,
        fragments: v.count,
        dim: v.dim,
        recallAt16,
        recallRows,
        workerStartMs: out.startMs,
        clustering: out.clustering,
        timings: out.timings,
        lowerMedianWallMs: { '1t': median('1t'), '1w': median('1w'), '2w': median('2w') },
      });
    }
    const markdown = [
      '| vectors | config | wall ms | CPU ms (all threads) | main thread CPU ms | busiest other threads CPU ms | identical to 1 thread | load avg |',
      '| --- | --- | ---: | ---: | ---: | --- | --- | ---: |',
      ...results.flatMap((r) =>
        r.timings.map(
          (t) =>
            `| ${r.vectors} | ${t.config} | ${t.wallMs} | ${t.cpuMs} | ${t.mainThreadCpuMs} | ${t.otherThreadsCpuMs.join(', ')} | ${t.identical} | ${t.loadAverage} |`,
        ),
      ),
      '',
      ...results.map(
        (r) =>
          `${r.vectors}: recall@16 ${r.recallAt16} (${r.recallRows} rows); clustering ${r.clustering.wallMs} ms wall / ${r.clustering.cpuMs} ms CPU; worker start + warm-up ${JSON.stringify(r.workerStartMs)}`,
      ),
    ].join('\n');
    return { results, markdown };
  },
};
