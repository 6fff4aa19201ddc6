/**
 * @file MiniLM embedding speed, the app beside native ONNX Runtime, in one run
 * (`npm run bench -- embed-speed`; build first, `npm run bench` does).
 *
 * The same all-MiniLM-L6-v2 weights (the int8 ONNX `npm run models` fetched), the same texts
 * (SAMPLE of War and Peace's 500-word fragments, spread over the book) and the same tokens:
 *
 * - app: the built app's model check page ("Rank passages") in headless Chromium, i.e.
 *   transformers.js 4.3.1 on ONNX Runtime Web (wasm, SIMD, 1 and 2 threads), batches of 16
 *   sorted by length (src/models/transformers-embedder.ts);
 * - native: the same transformers.js pipeline in Node, where it runs onnxruntime-node (the
 *   native CPU build, here 1.30.0) with `intraOpNumThreads` 1 and 2, same batching.
 *
 * Tokens are counted with the real tokenizer and capped at 512, the model's position limit:
 * the app passes no maximum length, so transformers.js truncates there (a 500-word fragment is
 * about 650 word pieces, so most fragments lose their last fifth). FLOPs per token follow
 * `miniLmFlopsPerToken` at each fragment's own length. The share of the machine's float32
 * matmul (numpy's BLAS, measured in the same run) is the bound a dense float model could reach.
 * The whole book is projected from tokens/s and the book's own token count (capped likewise).
 *
 * Every configuration runs ROUNDS times, interleaved, and reports its best time (the machine is
 * shared: a neighbour's burst only ever slows a run).
 *
 * Both engines batch as the app does (src/models/batches.ts: 16 texts, 2,048 padded tokens at
 * most a call). Variants (EMBED_SPEED_VARIANTS=1): both engines with the former rule (16 texts a
 * call whatever their length), the app on 2 threads with one text a call. Float32 weights are
 * added when the hub mirror holds onnx/model.onnx.
 */
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from '@playwright/test';
import { chromiumArgs } from '../playwright.config';
import { startHubMirror } from '../e2e/support/hub-mirror';
import { splitProse } from '../src/core/fragment';
import { DEFAULT_BATCH_TOKENS, estimatePieces, planBatches } from '../src/models/batches';
import { sharedDatasetPath } from '../test/glove';
import { realModelPath, realModelsHub, requireRealModel } from '../test/real-models';
import { startPreview } from './browser';
import { embedOnPage, miniLmFlopsPerToken, measuredMatmulGflops } from './real-models';
import type { BenchSection } from './run';

const PORT = Number(process.env.EMBED_SPEED_PORT ?? 4176);
const DIST = process.env.EMBED_SPEED_DIST ?? 'dist';
const BOOK = sharedDatasetPath('gutenberg/pg2600_war_and_peace.txt');
/** Fragments embedded per configuration (spread evenly over the book). */
const SAMPLE = Number(process.env.EMBED_SPEED_SAMPLE ?? 32);
/** MiniLM's position limit; transformers.js truncates to it when no length is passed. */
export const MAX_TOKENS = 512;
const BATCH = 16;
/** The padded-token cap of the main rows (EMBED_SPEED_BATCH_TOKENS); default the app's. */
const BATCH_TOKENS = Number(process.env.EMBED_SPEED_BATCH_TOKENS ?? DEFAULT_BATCH_TOKENS);
/** Rounds over all configurations (EMBED_SPEED_ROUNDS); each row reports its best. */
const ROUNDS = Number(process.env.EMBED_SPEED_ROUNDS ?? 2);
/**
 * The machine's float32 matmul measured idle (numpy's BLAS, 1024², BENCHMARKS.md "Real models"):
 * the bound a share is taken of. The run measures it again, as a sign of how loaded the machine
 * was, but a busy neighbour halves that figure, so it is not the bound.
 */
const MATMUL_IDLE_GFLOPS = { threads1: 85.2, threads2: 168.2 };

/** "≤16 texts, ≤2,048 tokens" for the app's rule, "16 texts" for a fixed size. */
function batchLabel(batch: number, batchTokens: number): string {
  return batchTokens > 0
    ? `≤${batch} texts, ≤${batchTokens.toLocaleString('en-US')} tokens`
    : `${batch} texts`;
}

export interface EmbedSpeedRow {
  engine: 'app (ORT Web wasm, Chromium)' | 'native (onnxruntime-node)';
  dtype: 'q8' | 'fp32';
  threads: number;
  /** Texts per call at most. */
  batch: number;
  /** Padded tokens per call at most (src/models/batches.ts); 0: no cap, `batch` texts a call. */
  batchTokens: number;
  /** Best of the rounds. */
  ms: number;
  allMs: number[];
  tokensPerSecond: number;
  gflops: number;
  /** Effective GFLOP/s over the machine's float32 matmul on the same number of threads. */
  shareOfMatmul: number;
  projectedBookMinutes: number;
}

type Pipe = (
  texts: string[],
  o: { pooling: 'mean'; normalize: boolean },
) => Promise<{ dispose(): void }>;

async function nativeTimes(
  texts: string[],
  threads: number,
  dtype: 'q8' | 'fp32',
  batch: number,
  batchTokens: number,
): Promise<number> {
  const { env, pipeline } = await import('@huggingface/transformers');
  const pipe = (await pipeline('feature-extraction', 'Xenova/all-MiniLM-L6-v2', {
    dtype,
    device: 'cpu',
    session_options: { intraOpNumThreads: threads, interOpNumThreads: 1 },
  })) as unknown as Pipe & { dispose(): Promise<void> };
  void env;
  try {
    (await pipe(['warm up'], { pooling: 'mean', normalize: true })).dispose();
    // The app's batches (src/models/batches.ts): longest first, capped in texts and tokens.
    const batches = planBatches(
      texts.map((t) => estimatePieces(t, MAX_TOKENS)),
      batch,
      batchTokens,
    );
    const t0 = performance.now();
    for (const idx of batches) {
      const out = await pipe(
        idx.map((i) => texts[i]),
        { pooling: 'mean', normalize: true },
      );
      out.dispose();
    }
    return performance.now() - t0;
  } finally {
    await pipe.dispose();
  }
}

export const embedSpeedSection: BenchSection = {
  name: 'embed-speed',
  description:
    'all-MiniLM-L6-v2 int8: the app (ORT Web wasm in Chromium) beside native ONNX Runtime, same texts and tokens, 1 and 2 threads.',
  async run(log) {
    const { hubId } = requireRealModel('all-MiniLM-L6-v2');
    const book = readFileSync(BOOK, 'utf8');
    const all = splitProse('book', book, { wordsPerFragment: 500 }).map((f) =>
      book.slice(f.start, f.end).replace(/\s+/g, ' ').trim(),
    );
    const step = Math.floor(all.length / SAMPLE);
    const sample = Array.from({ length: SAMPLE }, (_, i) => all[i * step]);

    const mirror = await startHubMirror([realModelsHub]);
    const { AutoTokenizer, env } = await import('@huggingface/transformers');
    env.allowLocalModels = false;
    env.allowRemoteModels = true;
    env.remoteHost = mirror.url;
    env.useFSCache = true;
    env.cacheDir = path.join(realModelsHub, '..', 'transformers-node-cache');
    env.useBrowserCache = false;
    const tokenizer = await AutoTokenizer.from_pretrained(hubId);
    const rawLength = (t: string) => tokenizer.encode(t).length;
    const sampleRaw = sample.map(rawLength);
    const sampleTokens = sampleRaw.map((n) => Math.min(MAX_TOKENS, n));
    const bookRaw = all.map(rawLength);
    const bookTokens = bookRaw.reduce((a, n) => a + Math.min(MAX_TOKENS, n), 0);
    const bookRawTokens = bookRaw.reduce((a, n) => a + n, 0);
    const truncated = bookRaw.filter((n) => n > MAX_TOKENS).length;
    const tokens = sampleTokens.reduce((a, b) => a + b, 0);
    const flops = sampleTokens.reduce((a, n) => a + n * miniLmFlopsPerToken(n), 0);
    const loadBefore = os.loadavg();
    const matmul = measuredMatmulGflops();
    log(
      `sample ${SAMPLE} of ${all.length} fragments, ${tokens} tokens (${sampleRaw.reduce((a, b) => a + b, 0)} before the 512 cap); ` +
        `book ${bookTokens} tokens read of ${bookRawTokens}, ${truncated} fragments cut; matmul ${JSON.stringify(matmul)}`,
    );

    const fp32Available = existsSync(realModelPath(hubId, 'onnx/model.onnx'));
    const variants = process.env.EMBED_SPEED_VARIANTS === '1';
    const rows: EmbedSpeedRow[] = [];
    const push = (
      engine: EmbedSpeedRow['engine'],
      dtype: EmbedSpeedRow['dtype'],
      threads: number,
      batch: number,
      batchTokens: number,
      ms: number,
      allMs: number[],
    ) => {
      const tps = (tokens * 1000) / ms;
      const gflops = flops / ms / 1e6;
      const bound = threads >= 2 ? MATMUL_IDLE_GFLOPS.threads2 : MATMUL_IDLE_GFLOPS.threads1;
      const row: EmbedSpeedRow = {
        engine,
        dtype,
        threads,
        batch,
        batchTokens,
        ms,
        allMs,
        tokensPerSecond: tps,
        gflops,
        shareOfMatmul: gflops / bound,
        projectedBookMinutes: bookTokens / tps / 60,
      };
      rows.push(row);
      log(
        `${engine} ${dtype} ${threads} thread(s) ${batchLabel(batch, batchTokens)}: ${Math.round(ms)} ms, ${tps.toFixed(0)} tokens/s, ${gflops.toFixed(1)} GFLOP/s`,
      );
    };

    type Config = {
      engine: EmbedSpeedRow['engine'];
      threads: number;
      batch: number;
      batchTokens: number;
      dtype: 'q8' | 'fp32';
    };
    // The app's batching (16 texts, 2,048 padded tokens at most a call) on both engines; the
    // variants add the former rule (16 texts a call whatever their length) and one text a call.
    const configs: Config[] = [];
    const engines = ['native (onnxruntime-node)', 'app (ORT Web wasm, Chromium)'] as const;
    for (const engine of engines) {
      for (const threads of [1, 2]) {
        configs.push({
          engine,
          threads,
          batch: BATCH,
          batchTokens: BATCH_TOKENS,
          dtype: 'q8',
        });
        if (fp32Available)
          configs.push({
            engine,
            threads,
            batch: BATCH,
            batchTokens: BATCH_TOKENS,
            dtype: 'fp32',
          });
      }
    }
    if (variants) {
      for (const engine of engines)
        for (const threads of [1, 2])
          configs.push({ engine, threads, batch: BATCH, batchTokens: 0, dtype: 'q8' });
      configs.push({ engine: engines[1], threads: 2, batch: 1, batchTokens: 0, dtype: 'q8' });
    }
    // Rounds over every configuration in turn, the best time of each kept: on a machine shared
    // with other jobs, a neighbour's burst slows one measurement, never speeds one up.
    const times = configs.map(() => [] as number[]);
    try {
      const stop = await startPreview(PORT, DIST);
      const browser = await chromium.launch({
        executablePath: '/usr/bin/chromium',
        args: [...chromiumArgs],
      });
      try {
        for (let round = 0; round < ROUNDS; round++) {
          for (const [k, c] of configs.entries()) {
            let ms: number;
            if (c.engine.startsWith('native')) {
              ms = await nativeTimes(sample, c.threads, c.dtype, c.batch, c.batchTokens);
            } else {
              const r = await embedOnPage(browser, mirror, 'wasm', c.threads, sample, PORT, {
                batch: String(c.batch),
                batchTokens: String(c.batchTokens),
                dtype: c.dtype,
              });
              if (r.threadsUsed !== c.threads) {
                throw new Error(
                  `ONNX Runtime Web started ${r.threadsUsed} threads, not ${c.threads}.`,
                );
              }
              ms = r.ms;
            }
            times[k].push(ms);
            log(
              `round ${round + 1}: ${c.engine} ${c.dtype} ${c.threads} thread(s) ${batchLabel(c.batch, c.batchTokens)}: ${Math.round(ms)} ms (load ${os.loadavg()[0].toFixed(1)})`,
            );
          }
        }
      } finally {
        await browser.close();
        stop();
      }
    } finally {
      await mirror.close();
    }
    configs.forEach((c, k) =>
      push(c.engine, c.dtype, c.threads, c.batch, c.batchTokens, Math.min(...times[k]), times[k]),
    );

    // Same batching on both sides: the app's own.
    const appRule = (r: EmbedSpeedRow) =>
      r.dtype === 'q8' && r.batch === BATCH && r.batchTokens === BATCH_TOKENS;
    const native = (t: number) =>
      rows.find((r) => r.engine.startsWith('native') && appRule(r) && r.threads === t);
    const ratios = [1, 2].map((t) => {
      const app = rows.find((r) => r.engine.startsWith('app') && appRule(r) && r.threads === t);
      const n = native(t);
      return {
        threads: t,
        nativeOverApp: app && n ? n.tokensPerSecond / app.tokensPerSecond : null,
      };
    });

    const fmt = (x: number, d = 0) =>
      x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
    const markdown = [
      `War and Peace, ${SAMPLE} of its ${all.length} 500-word fragments: ${fmt(tokens)} tokens read (each fragment capped at ${MAX_TOKENS} word pieces; ${fmt(sampleRaw.reduce((a, b) => a + b, 0))} before the cap). The whole book: ${fmt(bookTokens)} tokens read of ${fmt(bookRawTokens)} (${truncated} of ${all.length} fragments cut). ${(flops / tokens / 1e6).toFixed(1)} MFLOP per token read. Share of float matmul: of ${MATMUL_IDLE_GFLOPS.threads1} GFLOP/s on 1 thread and ${MATMUL_IDLE_GFLOPS.threads2} on 2 (numpy, idle); in this run numpy reached ${matmul ? `${matmul.threads1.toFixed(0)} and ${matmul.threads2.toFixed(0)}` : '(not measured)'}, load average ${loadBefore.map((x) => x.toFixed(1)).join(' ')} before and ${os
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')} after.`,
      '',
      '| engine | weights | threads | batch | tokens/s | effective GFLOP/s | share of float matmul | War and Peace, projected |',
      '|---|---|---:|---:|---:|---:|---:|---:|',
      ...rows.map(
        (r) =>
          `| ${r.engine} | ${r.dtype} | ${r.threads} | ${batchLabel(r.batch, r.batchTokens)} | ${fmt(r.tokensPerSecond)} | ${fmt(r.gflops, 1)} | ${fmt(100 * r.shareOfMatmul)}% | ${fmt(r.projectedBookMinutes, 1)} min |`,
      ),
      '',
      ratios
        .map(
          (r) =>
            `native / app on ${r.threads} thread(s): ${r.nativeOverApp === null ? '–' : `${r.nativeOverApp.toFixed(2)}x`}`,
        )
        .join('; '),
    ].join('\n');
    return {
      results: {
        book: path.basename(BOOK),
        sample: SAMPLE,
        fragments: all.length,
        maxTokens: MAX_TOKENS,
        sampleTokens: tokens,
        sampleTokensBeforeCap: sampleRaw.reduce((a, b) => a + b, 0),
        bookTokens,
        bookTokensBeforeCap: bookRawTokens,
        fragmentsCut: truncated,
        flopsPerToken: flops / tokens,
        matmulGflopsIdle: MATMUL_IDLE_GFLOPS,
        matmulGflopsThisRun: matmul,
        loadAverageBefore: loadBefore,
        loadAverageAfter: os.loadavg(),
        rows,
        nativeOverApp: ratios,
      },
      markdown,
    };
  },
};
