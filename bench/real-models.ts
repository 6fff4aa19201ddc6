/**
 * @file Real models, measured (`npm run bench -- real-embedder real-llm`), with the weights
 * `npm run models` fetched, served by the local hub mirror to the built app in headless Chromium.
 *
 * real-embedder: all-MiniLM-L6-v2 (int8) embedding 500-word fragments of War and Peace on the
 *   model check page, wasm with 1 and 2 threads and WebGPU on SwiftShader; tokens per second
 *   (the model reads at most 512 tokens of each fragment, the tokenizer's model_max_length, as
 *   the app passes no length: those are the tokens counted, with the real tokenizer), against the model's FLOPs per token and the machine's measured matmul
 *   speed; the whole book's embedding time projected. Also the HotpotQA gold-first rate of all
 *   100 questions in Node (native ONNX Runtime), beside GloVe.
 * real-llm: SmolLM2-135M-Instruct (GGUF Q4_1) in wllama, 1 and 2 threads: prompt reading and
 *   generation speed as llama.cpp reports them, for a ~1,000-token prompt.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { chromium, type Browser, type Page } from '@playwright/test';
import { chromiumArgs } from '../playwright.config';
import { openAdvanced } from '../e2e/support/advanced';
import { dropFiles } from '../e2e/support/drop';
import { startHubMirror, type HubMirror } from '../e2e/support/hub-mirror';
import { splitProse } from '../src/core/fragment';
import { embedTexts } from '../src/core/embed/static';
import { loadGloveFromDisk, sharedDatasetPath } from '../test/glove';
import { goldRanking, loadHotpot } from '../test/meaning-fixtures';
import { loadMiniLM, realModelsHub, requireRealModel } from '../test/real-models';
import { readFileSync } from 'node:fs';
import { startPreview } from './browser';
import type { BenchSection } from './run';

const PORT = 4175;
const BOOK = sharedDatasetPath('gutenberg/pg2600_war_and_peace.txt');
const ALICE = sharedDatasetPath('gutenberg/pg11.txt');
/** Fragments of War and Peace embedded per run (the whole book is projected from them). */
const SAMPLE = 64;
const MAX_TOKENS = 512;
/** Fragments embedded on SwiftShader's WebGPU (about 60x slower than wasm here). */
const WEBGPU_SAMPLE = 4;

/**
 * MiniLM-L6 (hidden 384, 6 layers, FFN 1536): per token and layer 4·384² (Q, K, V, output) +
 * 2·384·1536 (FFN) multiply-adds, plus attention 2·L·384 for a sequence of L tokens.
 */
export function miniLmFlopsPerToken(seqLen: number): number {
  const perLayer = 4 * 384 * 384 + 2 * 384 * 1536 + 2 * seqLen * 384;
  return 2 * 6 * perLayer;
}

/** Single- and two-thread float32 matmul speed of this machine (numpy's BLAS), in GFLOP/s. */
export function measuredMatmulGflops(): { threads1: number; threads2: number } | null {
  const script =
    'import numpy as np, time\n' +
    'a=np.random.rand(1024,1024).astype(np.float32); b=np.random.rand(1024,1024).astype(np.float32)\n' +
    'a@b\nbest=1e9\nfor _ in range(7):\n  t=time.perf_counter(); a@b; best=min(best,time.perf_counter()-t)\n' +
    'print(2*1024**3/best/1e9)\n';
  const run = (threads: number) =>
    Number(
      execFileSync('python3', ['-c', script], {
        env: {
          ...process.env,
          OMP_NUM_THREADS: String(threads),
          OPENBLAS_NUM_THREADS: String(threads),
        },
      })
        .toString()
        .trim(),
    );
  try {
    return { threads1: run(1), threads2: run(2) };
  } catch {
    return null;
  }
}

async function tokenCounts(texts: string[]): Promise<number[]> {
  // The real tokenizer, from the same hub mirror the browser uses.
  const mirror = await startHubMirror([realModelsHub]);
  try {
    const { AutoTokenizer, env } = await import('@huggingface/transformers');
    env.allowLocalModels = false;
    env.allowRemoteModels = true;
    env.remoteHost = mirror.url;
    env.useFSCache = true;
    env.cacheDir = path.join(realModelsHub, '..', 'transformers-node-cache');
    const tokenizer = await AutoTokenizer.from_pretrained('Xenova/all-MiniLM-L6-v2');
    return texts.map((t) => Math.min(MAX_TOKENS, tokenizer.encode(t).length));
  } finally {
    await mirror.close();
  }
}

/**
 * Embed `texts` as passages on the built app's model check page ("Rank passages"), served on
 * `port`; `extra` adds URL settings (`batch`, `dtype`). Returns the page's own time and the wasm
 * threads ONNX Runtime started with.
 */
export async function embedOnPage(
  browser: Browser,
  mirror: HubMirror,
  device: 'wasm' | 'webgpu',
  threads: number,
  texts: string[],
  port: number = PORT,
  extra: Record<string, string> = {},
): Promise<{ ms: number; threadsUsed: number }> {
  const page = await (await browser.newContext()).newPage();
  try {
    const params = new URLSearchParams({
      host: mirror.url,
      model: 'all-MiniLM-L6-v2',
      device,
      threads: String(threads),
      ...extra,
    });
    await page.goto(`http://127.0.0.1:${port}/models.html?${params}`);
    await page.getByRole('button', { name: 'Load and check' }).click();
    await page.locator('main[data-state="done"]').waitFor({ timeout: 600_000 });
    const result = JSON.parse((await page.getByTestId('result').textContent()) ?? '{}') as {
      load: { wasmThreads: number };
    };
    // One set: a dummy query and the fragments, embedded as passages in batches.
    await page.getByLabel(/A query on the first line/).fill(['query', ...texts].join('\n'));
    await page.getByRole('button', { name: 'Rank', exact: true }).click();
    await page.getByTestId('ranking-result').waitFor({ timeout: 1_800_000 });
    const ranked = JSON.parse((await page.getByTestId('ranking-result').textContent()) ?? '{}');
    return { ms: ranked.ms as number, threadsUsed: result.load.wasmThreads };
  } finally {
    await page.context().close();
  }
}

export const realEmbedderSection: BenchSection = {
  name: 'real-embedder',
  description:
    'all-MiniLM-L6-v2 (real int8 weights) in Chromium: tokens/s on wasm (1, 2 threads) and SwiftShader WebGPU; HotpotQA in Node.',
  async run(log) {
    requireRealModel('all-MiniLM-L6-v2');
    const book = readFileSync(BOOK, 'utf8');
    const all = splitProse('book', book, { wordsPerFragment: 500 }).map((f) =>
      book.slice(f.start, f.end),
    );
    const step = Math.floor(all.length / SAMPLE);
    const sample = Array.from({ length: SAMPLE }, (_, i) =>
      all[i * step].replace(/\s+/g, ' ').trim(),
    );
    const counts = await tokenCounts(sample);
    const tokens = counts.reduce((a, b) => a + b, 0);
    const allTokens = (await tokenCounts(all.map((t) => t.replace(/\s+/g, ' ')))).reduce(
      (a, b) => a + b,
      0,
    );
    const flopsPerToken = miniLmFlopsPerToken(MAX_TOKENS);
    const matmul = measuredMatmulGflops();
    log(
      `sample: ${SAMPLE} of ${all.length} fragments, ${tokens} tokens; matmul ${JSON.stringify(matmul)}`,
    );

    const mirror = await startHubMirror();
    const stop = await startPreview(PORT);
    const rows: {
      device: string;
      threads: number;
      ms: number;
      tokensPerSecond: number;
      gflops: number;
      projectedBookSeconds: number;
    }[] = [];
    try {
      for (const [device, threads, args] of [
        ['wasm', 1, chromiumArgs],
        ['wasm', 2, chromiumArgs],
        ['webgpu', 1, [...chromiumArgs, '--enable-unsafe-webgpu']],
      ] as const) {
        const browser = await chromium.launch({
          executablePath: '/usr/bin/chromium',
          args: [...args],
        });
        try {
          // SwiftShader is ~60x slower: a few fragments there.
          const texts = device === 'webgpu' ? sample.slice(0, WEBGPU_SAMPLE) : sample;
          const used = device === 'webgpu' ? counts.slice(0, WEBGPU_SAMPLE) : counts;
          const n = used.reduce((a, b) => a + b, 0);
          const r = await embedOnPage(browser, mirror, device, threads, texts);
          const tps = (n * 1000) / r.ms;
          rows.push({
            device,
            threads: device === 'webgpu' ? 0 : r.threadsUsed,
            ms: r.ms,
            tokensPerSecond: tps,
            gflops: (tps * flopsPerToken) / 1e9,
            projectedBookSeconds: allTokens / tps,
          });
          log(
            `${device} ${threads} thread(s): ${n} tokens in ${Math.round(r.ms)} ms, ${tps.toFixed(0)} tokens/s`,
          );
        } finally {
          await browser.close();
        }
      }
    } finally {
      stop();
      await mirror.close();
    }

    // Quality on all 100 HotpotQA questions, in Node (native ONNX Runtime; same weights).
    const items = loadHotpot();
    const model = await loadMiniLM();
    const glove = loadGloveFromDisk();
    const real: number[][] = [];
    const gl: number[][] = [];
    for (const item of items) {
      const q = await model.embed([item.question]);
      const p = await model.embed(item.paragraphs);
      real.push(item.paragraphs.map((_, i) => dot(q, 0, p, i, 384)));
      const gq = embedTexts(glove, [item.question]);
      const gp = embedTexts(glove, item.paragraphs);
      gl.push(item.paragraphs.map((_, i) => dot(gq.data, 0, gp.data, i, gq.dim)));
    }
    await model.close();
    const minilm = goldRanking(items, (q) => real[q]);
    const static_ = goldRanking(items, (q) => gl[q]);

    const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
    const markdown = [
      `War and Peace, ${SAMPLE} of its ${all.length} 500-word fragments (MiniLM reads the first ${MAX_TOKENS} tokens of each: ${tokens.toLocaleString('en')} tokens; the whole book ${allTokens.toLocaleString('en')}). FLOPs per token at ${MAX_TOKENS} tokens: ${(flopsPerToken / 1e6).toFixed(1)} M. This machine's float32 matmul (numpy, 1024²): ${matmul ? `${matmul.threads1.toFixed(1)} GFLOP/s on 1 thread, ${matmul.threads2.toFixed(1)} on 2` : 'not measured (no numpy)'}.`,
      '',
      '| device | threads | tokens/s | effective GFLOP/s | share of 1-thread matmul | whole book (projected) |',
      '|---|---:|---:|---:|---:|---:|',
      ...rows.map(
        (r) =>
          `| ${r.device === 'webgpu' ? 'WebGPU (SwiftShader)' : 'wasm'} | ${r.device === 'webgpu' ? '–' : r.threads} | ${r.tokensPerSecond.toFixed(0)} | ${r.gflops.toFixed(2)} | ${matmul ? `${((100 * r.gflops) / matmul.threads1).toFixed(0)}%` : '–'} | ${(r.projectedBookSeconds / 60).toFixed(1)} min |`,
      ),
      '',
      `HotpotQA, all ${items.length} questions (Node, same int8 weights): gold paragraph first ${pct(minilm.first)} with MiniLM vs ${pct(static_.first)} with GloVe; recall@2 ${pct(minilm.recall2)} vs ${pct(static_.recall2)}; chance ${pct(minilm.chance)}.`,
    ].join('\n');
    return {
      results: {
        sample: SAMPLE,
        fragments: all.length,
        sampleTokens: tokens,
        bookTokens: allTokens,
        flopsPerToken,
        matmulGflops: matmul,
        rows,
        hotpot: { minilm, glove: static_, questions: items.length },
      },
      markdown,
    };
  },
};

function dot(a: Float32Array, i: number, b: Float32Array, j: number, dim: number): number {
  let s = 0;
  for (let d = 0; d < dim; d++) s += a[i * dim + d] * b[j * dim + d];
  return s;
}

async function answerSpeed(browser: Browser, mirror: HubMirror, threads: number) {
  const page: Page = await (await browser.newContext()).newPage();
  try {
    await page.goto(`http://127.0.0.1:${PORT}/`);
    await page.getByTestId('worker-status').waitFor();
    await openAdvanced(page);
    await page.getByLabel('Fragment size').selectOption('200');
    await dropFiles(page, [{ name: 'alice.txt', path: ALICE }]);
    await page.getByTestId('library-item').first().waitFor({ timeout: 120_000 });
    await page.getByLabel('Independent score').selectOption('bm25');
    await page.locator('input[type=range][aria-label=budget]').fill('700');
    await page.getByLabel('Answer length (tokens)').fill('128');
    await page.getByLabel('CPU threads (0 = automatic)').fill(String(threads));
    const panel = page.getByTestId('answer-panel');
    const catalogue = panel.getByTestId('gguf-catalogue');
    await catalogue.getByText('Download from another hub or mirror').click();
    await catalogue.getByLabel('Model hub').fill(mirror.url);
    await catalogue
      .locator('[data-key="smollm2-135m-instruct"]')
      .getByRole('button', { name: /Download and load SmolLM2|Load SmolLM2/ })
      .click();
    await panel.getByTestId('local-model-ready').waitFor({ timeout: 300_000 });
    await page.getByLabel('Question').fill('What happened at the Mad Tea-Party?');
    // With the model loaded, asking answers at once.
    const started = Date.now();
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    await page
      .locator('[data-testid="answer-panel"][data-state="done"]')
      .waitFor({ timeout: 1_800_000 });
    const text = page.getByTestId('answer-text');
    // wllama reports no prompt token count with its answer (data-prompt-tokens stays empty, which
    // Number() read as 0): the count is the prompt's own, measured by the model's tokenizer
    // before sending (the prompt details: "N prompt tokens of M available"; "about N" where only
    // estimated, recorded as such).
    const engineCount = await text.getAttribute('data-prompt-tokens');
    const summary = (await page.getByTestId('prompt-summary').textContent()) ?? '';
    const fitted = /(about )?([\d,]+) prompt tokens of/.exec(summary);
    if (!engineCount && !fitted) throw new Error(`No prompt token count on the page: “${summary}”`);
    return {
      threads,
      promptTokens: engineCount ? Number(engineCount) : Number(fitted![2].replace(/,/g, '')),
      promptTokensFrom: engineCount
        ? 'engine'
        : fitted![1]
          ? 'estimate (words)'
          : "the model's tokenizer, before sending",
      promptTokensPerSecond: Number(await text.getAttribute('data-prompt-tokens-per-second')),
      tokensPerSecond: Number(await text.getAttribute('data-tokens-per-second')),
      wallMs: Date.now() - started,
    };
  } finally {
    await page.context().close();
  }
}

export const realLlmSection: BenchSection = {
  name: 'real-llm',
  description:
    'SmolLM2-135M-Instruct (GGUF Q4_1) in wllama in Chromium: prompt and generation speed, 1 and 2 threads.',
  async run(log) {
    requireRealModel('SmolLM2-135M-Instruct');
    const mirror = await startHubMirror();
    const stop = await startPreview(PORT);
    const browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: chromiumArgs,
    });
    const rows = [];
    try {
      for (const threads of [1, 2]) {
        const r = await answerSpeed(browser, mirror, threads);
        log(JSON.stringify(r));
        rows.push(r);
      }
    } finally {
      await browser.close();
      stop();
      await mirror.close();
    }
    const markdown = [
      'SmolLM2-135M-Instruct Q4_1 (98 MB) in wllama 3.8.1, built app in headless Chromium, Alice in Wonderland at 200-word fragments, BM25, a 700-word budget, 128 answer tokens at temperature 0. Speeds as llama.cpp reports them.',
      '',
      '| threads | prompt read (tokens/s) | generation (tokens/s) | wall time of the answer |',
      '|---:|---:|---:|---:|',
      ...rows.map(
        (r) =>
          `| ${r.threads} | ${r.promptTokensPerSecond.toFixed(1)} | ${r.tokensPerSecond.toFixed(1)} | ${(r.wallMs / 1000).toFixed(1)} s |`,
      ),
    ].join('\n');
    return { results: { rows }, markdown };
  },
};
