import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { zipSync } from 'fflate';
import { describe, expect, it, vi } from 'vitest';
import { coverWindows } from '../core/code/cover';
import { buildCodeGraph, type CodeFile } from '../core/code/graph';
import { layoutRepository, repositoryWindows } from '../core/code/layout';
import {
  mergeRowBlocks,
  summaryCodeRelationMatrix,
  summaryCodeRelationRows,
  summaryCodeRelationState,
  summaryRowRanges,
} from '../core/code/summary';
import { STATIC_EMBEDDER_ID } from '../core/embed/static';
import type { CsrMatrix } from '../core/types';
import { ingestFiles } from '../ingest/ingest';
import { CodeParser, parseRepository } from '../models/code-syntax';
import { staticEmbedder } from '../models/embedder';
import { nodeGrammarSource } from '../models/tree-sitter-node';
import { laidOutRepository } from '../../test/code-repository';
import { loadGloveFromDisk } from '../../test/glove';
import { WorkerClient, type Caller } from './client';
import { InProcessClient } from './in-process';
import {
  createIndexHandlers,
  parseFilesOnPool,
  type IndexApi,
  type IndexRepositoryResult,
} from '../indexing';
import { poolSize, WorkerPool, type PoolMember } from './pool';
import { shareArrays, splitRanges } from '../indexing/pool';
import { createPoolHandlers, type PoolApi } from './pool-handlers';
import { AbortError, isAbortError } from './protocol';

const grammars = nodeGrammarSource(path.resolve('node_modules'));

/** A pool whose members run the real handlers in-process (one after another). */
function inProcessPool(size: number) {
  return new WorkerPool<PoolApi>(
    () => new InProcessClient<PoolApi>(createPoolHandlers(grammars)),
    size,
  );
}

/** Every .ts file under a folder of this repository, in path order, as code files. */
function sources(dir: string): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [];
  const walk = (rel: string) => {
    for (const name of readdirSync(path.join(dir, rel)).sort()) {
      const p = rel ? `${rel}/${name}` : name;
      if (statSync(path.join(dir, p)).isDirectory()) walk(p);
      else if (name.endsWith('.ts'))
        out.push({ path: p, text: readFileSync(path.join(dir, p), 'utf8') });
    }
  };
  walk('');
  return out;
}

function expectSameMatrix(a: CsrMatrix, b: CsrMatrix) {
  expect(a.size).toBe(b.size);
  expect(Array.from(a.rowPtr)).toEqual(Array.from(b.rowPtr));
  expect(Array.from(a.col)).toEqual(Array.from(b.col));
  expect(Array.from(a.weight)).toEqual(Array.from(b.weight));
}

interface TestApi {
  echo: { payload: number; result: number };
}

describe('WorkerPool', () => {
  it('sizes itself to the cores, at least one', () => {
    expect(poolSize(8)).toBe(8);
    expect(poolSize(0)).toBe(1);
    expect(poolSize(undefined)).toBe(1);
  });

  it('returns results in task order, whichever member ran them, and sums progress', async () => {
    let made = 0;
    const pool = new WorkerPool<TestApi>(() => {
      made++;
      return new InProcessClient<TestApi>({
        echo: async (n: number, ctx) => {
          ctx.progress({ stage: 's', done: 1, total: 1 });
          await new Promise((r) => setTimeout(r, (7 - n) % 3));
          return n * 10;
        },
      });
    }, 3);
    const progress: number[] = [];
    const out = await pool.map('echo', [0, 1, 2, 3, 4, 5, 6], {
      onProgress: (d) => progress.push(d),
    });
    expect(out).toEqual([0, 10, 20, 30, 40, 50, 60]);
    expect(made).toBe(3);
    expect(progress.at(-1)).toBe(7);
    for (let t = 1; t < progress.length; t++)
      expect(progress[t]).toBeGreaterThanOrEqual(progress[t - 1]);
  });

  it('an abort rejects at once and stops every busy member', async () => {
    const terminated: number[] = [];
    let made = 0;
    const pool = new WorkerPool<TestApi>(() => {
      const id = made++;
      const member: PoolMember<TestApi> = {
        // Never answers by itself, like a worker deep in a synchronous loop.
        call: (_kind, _payload, options) =>
          new Promise((_, reject) =>
            options?.signal?.addEventListener('abort', () => reject(new AbortError())),
          ),
        terminate: () => terminated.push(id),
      };
      return member;
    }, 2);
    const controller = new AbortController();
    const call = pool.map('echo', [1, 2, 3, 4], { signal: controller.signal });
    setTimeout(() => controller.abort(), 5);
    const error = await call.catch((e: unknown) => e);
    expect(isAbortError(error)).toBe(true);
    expect(terminated.sort()).toEqual([0, 1]);
    // The next call starts fresh members.
    expect(made).toBe(2);
  });

  it('an AbortError thrown by onProgress (a polled cancel flag) stops every busy member', async () => {
    const terminated: number[] = [];
    let made = 0;
    const pool = new WorkerPool<TestApi>(() => {
      const id = made++;
      const member: PoolMember<TestApi> = {
        call: (_kind, payload, options) =>
          new Promise((resolve, reject) => {
            options?.signal?.addEventListener('abort', () => reject(new AbortError()));
            // The first task ends at once; the others never do by themselves.
            if (payload === 1) setTimeout(() => resolve(1), 1);
            else options?.onProgress?.({ stage: 's', done: 1, total: 2 });
          }),
        terminate: () => terminated.push(id),
      };
      return member;
    }, 2);
    let calls = 0;
    const error = await pool
      .map('echo', [1, 2, 3], {
        onProgress: () => {
          if (++calls >= 2) throw new AbortError();
        },
      })
      .catch((e: unknown) => e);
    expect(isAbortError(error)).toBe(true);
    expect(terminated.length).toBeGreaterThanOrEqual(1);
    // No member is left busy: every call that had not ended was stopped.
    expect(made - terminated.length).toBeLessThanOrEqual(1);
  });

  it('a member that fails or dies fails the call with a clear message; the next call works', async () => {
    let made = 0;
    const pool = new WorkerPool<TestApi>(() => {
      made++;
      return new InProcessClient<TestApi>({
        echo: (n: number) => {
          if (n === 3 && made === 1) throw new Error('grammar would not load');
          return n;
        },
      });
    }, 1);
    await expect(pool.map('echo', [1, 2, 3])).rejects.toThrow(
      /background worker of the indexing pool failed: grammar would not load/,
    );
    expect(await pool.map('echo', [3])).toEqual([3]);
    expect(made).toBe(2);
  });

  it('a worker that dies (an uncaught error) fails the call, naming it', async () => {
    const listeners: Record<string, ((e: unknown) => void)[]> = {};
    const fakeWorker = {
      addEventListener: (type: string, f: (e: unknown) => void) => (listeners[type] ??= []).push(f),
      postMessage: () =>
        setTimeout(() => listeners.error?.forEach((f) => f({ message: 'out of memory' }))),
      terminate: vi.fn(),
    };
    const pool = new WorkerPool<TestApi>(
      () => new WorkerClient<TestApi>(fakeWorker as unknown as Worker),
      1,
    );
    await expect(pool.map('echo', [1])).rejects.toThrow(
      /A background worker failed: out of memory/,
    );
    expect(fakeWorker.terminate).toHaveBeenCalled();
  });

  it('run: one task on a free member, waiting while all are busy; an abort stops only its own', async () => {
    const terminated: number[] = [];
    const started: number[] = [];
    const finish = new Map<number, () => void>();
    let made = 0;
    const pool = new WorkerPool<TestApi>(() => {
      const id = made++;
      const member: PoolMember<TestApi> = {
        call: (_kind, payload, options) =>
          new Promise((resolve, reject) => {
            started.push(payload as number);
            options?.signal?.addEventListener('abort', () => reject(new AbortError()));
            finish.set(payload as number, () => resolve((payload as number) * 10));
          }),
        terminate: () => terminated.push(id),
      };
      return member;
    }, 2);
    const a = pool.run('echo', 1);
    const b = pool.run('echo', 2);
    const waiting = new AbortController();
    const c = pool.run('echo', 3, { signal: waiting.signal });
    const d = pool.run('echo', 4);
    await new Promise((r) => setTimeout(r, 1));
    // Two members, two tasks running; the others wait for a member.
    expect(started).toEqual([1, 2]);
    // A task aborted while it waits never runs, and stops nobody.
    waiting.abort();
    expect(isAbortError(await c.catch((e: unknown) => e))).toBe(true);
    finish.get(1)!();
    expect(await a).toBe(10);
    await new Promise((r) => setTimeout(r, 1));
    expect(started).toEqual([1, 2, 4]);
    // A running task's abort terminates its member (busy in a loop, it cannot read a cancel).
    const busy = new AbortController();
    const e = pool.run('echo', 5, { signal: busy.signal });
    finish.get(2)!();
    expect(await b).toBe(20);
    await new Promise((r) => setTimeout(r, 1));
    expect(started).toEqual([1, 2, 4, 5]);
    busy.abort();
    expect(isAbortError(await e.catch((x: unknown) => x))).toBe(true);
    expect(terminated).toHaveLength(1);
    finish.get(4)!();
    expect(await d).toBe(40);
    // The pool goes on: map uses the same members, a fresh one replacing the stopped one.
    const results = pool.map('echo', [6, 7]);
    await new Promise((r) => setTimeout(r, 1));
    finish.get(6)!();
    finish.get(7)!();
    expect(await results).toEqual([60, 70]);
    expect(made).toBe(3);
  });

  it('splits by cost into contiguous ranges', () => {
    expect(splitRanges(0, 4)).toEqual([]);
    expect(splitRanges(3, 8)).toEqual([
      { from: 0, to: 1 },
      { from: 1, to: 2 },
      { from: 2, to: 3 },
    ]);
    const costs = [10, 1, 1, 1, 1, 1, 1, 10];
    const r = splitRanges(costs.length, 2, (i) => costs[i]);
    expect(r[0].from).toBe(0);
    expect(r.at(-1)!.to).toBe(costs.length);
    for (let t = 1; t < r.length; t++) expect(r[t].from).toBe(r[t - 1].to);
  });

  it('copies typed arrays onto shared memory when it may', () => {
    const v = { a: new Float64Array([1, 2]), b: [new Uint32Array([3])], n: 4, s: 'x' };
    const s = shareArrays(v, true);
    expect(s.a.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(s.b[0].buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(Array.from(s.a)).toEqual([1, 2]);
    expect(s.n).toBe(4);
    expect(shareArrays(v, false)).toBe(v);
  });
});

describe('the pooled parts of a repository index equal the single-worker path (src/core)', () => {
  const files = sources(path.resolve('src/core'));

  it('parses files split across members exactly as one parser does', async () => {
    const single = await parseRepository(files, new CodeParser(grammars));
    const pooled = await parseFilesOnPool(
      files,
      inProcessPool(3),
      new AbortController().signal,
      () => {},
    );
    expect(pooled.syntax).toEqual(single.syntax);
    expect(pooled.problems).toEqual(single.problems);
  });

  it('builds the code relation by window ranges, merged in order, exactly as one loop does', async () => {
    const { graph, cover } = await laidOutRepository(files, new CodeParser(grammars), 'r');
    expect(graph.stats.resolvedCalls).toBeGreaterThan(200);
    const single = summaryCodeRelationMatrix(graph, cover);
    const state = summaryCodeRelationState(graph, cover);
    const n = state.windows;
    expect(n).toBeGreaterThan(2000);
    // File-aligned ranges on a pool of three, and arbitrary cuts (mid-file) built directly.
    const ranges = summaryRowRanges(state, 7);
    expect(ranges.length).toBeGreaterThan(3);
    const blocks = await inProcessPool(3).map(
      'codeRows',
      ranges.map((r) => ({ state: shareArrays(state, true), ...r })),
    );
    expectSameMatrix(mergeRowBlocks(n, blocks), single);
    const cuts = splitRanges(n, 5, (i) => 1 + (i % 7));
    expectSameMatrix(
      mergeRowBlocks(
        n,
        cuts.map((r) => summaryCodeRelationRows(state, r.from, r.to)),
      ),
      single,
    );
  });

  it('a member building rows stops at a set cancel flag (its loop cannot read messages)', () => {
    const code: CodeFile[] = files.slice(0, 20).map((f) => ({ ...f, syntax: null }));
    const graph = buildCodeGraph(code);
    const { windows } = repositoryWindows('r', layoutRepository(code));
    const state = summaryCodeRelationState(
      graph,
      coverWindows(
        graph,
        code.map((f) => f.text),
        windows,
      ),
    );
    const flag = new Int32Array(new SharedArrayBuffer(4));
    const rows = (cancelFlags: Int32Array[]) =>
      createPoolHandlers(grammars).codeRows(
        { state, from: 0, to: state.windows, cancelFlags },
        { signal: new AbortController().signal, progress: () => {}, transfer: () => {} },
      );
    expect(rows([flag]).rowPtr.length).toBe(state.windows + 1);
    Atomics.store(flag, 0, 1);
    expect(() => rows([new Int32Array(new SharedArrayBuffer(4)), flag])).toThrow(/cancelled/);
  });

  it('indexes a zipped repository with a pool exactly as without one', async () => {
    const model = loadGloveFromDisk();
    const entries: Record<string, Uint8Array> = {};
    for (const f of files) entries[`core/${f.path}`] = new TextEncoder().encode(f.text);
    const zip = () => new File([zipSync(entries)], 'core.zip', { type: 'application/zip' });
    const indexer = (pool?: WorkerPool<PoolApi>): Caller<IndexApi> =>
      new InProcessClient<IndexApi>(
        createIndexHandlers({
          ingest: (fs, options) => ingestFiles(fs, options),
          loadEmbedder: async () => staticEmbedder(model),
          grammars,
          pool,
        }),
      );
    const run = (caller: Caller<IndexApi>) =>
      caller.call('indexRepository', {
        docId: 'core',
        source: { zip: zip() },
        semanticK: 16,
        embedder: { id: STATIC_EMBEDDER_ID, url: 'unused' },
      }) as Promise<IndexRepositoryResult>;
    const pool = inProcessPool(2);
    const mapSpy = vi.spyOn(pool, 'map');
    const a = await run(indexer());
    const b = await run(indexer(pool));
    expect(mapSpy.mock.calls.map((c) => c[0])).toEqual(['parse', 'codeRows']);
    if (!a.ok || !b.ok) throw new Error('not indexed');
    expectSameMatrix(b.code, a.code);
    expect(b.parses).toEqual(a.parses);
    expect(b.report).toEqual(a.report);
    expect(Array.from(b.codeReferences)).toEqual(Array.from(a.codeReferences));
  }, 60_000);
});
