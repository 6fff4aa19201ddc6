/**
 * @file `npm run bench -- first-answer`: how long a person waits for the first answer on a book
 * with the recommended local model and the defaults, from pressing Ask (the model already
 * downloaded and loaded): the flow of e2e/first-answer.spec.ts (e2e/support/first-answer.ts) in
 * the built app in headless Debian Chromium, the real SmolLM2-135M-Instruct from the local hub
 * mirror, a fresh browser profile each run (so the reading budget is the starting one, as for a
 * new person). BENCH_RUNS runs (default 1); BENCH_DIST the build (default dist); BENCH_PORT.
 * The goal is under 30 s to the finished answer. FIRST_ANSWER_ENGINES (comma-separated: wllama,
 * onnx; default onnx) runs the same flow with each engine in turn, in one run: `onnx` takes the
 * one-click offer (SmolLM2-135M-Instruct in the ONNX engine), `wllama` the GGUF catalogue's
 * recommended file.
 */
import os from 'node:os';
import { chromium } from '@playwright/test';
import { chromiumArgs } from '../playwright.config';
import { startHubMirror } from '../e2e/support/hub-mirror';
import {
  FIRST_FACT,
  firstAnswer,
  type FirstAnswer,
  type FirstAnswerEngine,
} from '../e2e/support/first-answer';
import { requireRealModel } from '../test/real-models';
import { STARTING_PASSAGE_TOKENS } from '../src/llm/reading-budget';
import { RECOMMENDED_GGUF } from '../src/llm/gguf-catalogue';
import { startPreview } from './browser';
import type { BenchSection } from './run';

const PORT = Number(process.env.BENCH_PORT ?? 4193);
const RUNS = Number(process.env.BENCH_RUNS ?? 1);
const DIST = process.env.BENCH_DIST ?? 'dist';
const GOAL_S = 30;

/** The engines named in FIRST_ANSWER_ENGINES (default onnx, the one-click engine); an unknown name is an error. */
export function firstAnswerEngines(value: string | undefined): FirstAnswerEngine[] {
  const names = (value ?? 'onnx')
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  for (const n of names)
    if (n !== 'wllama' && n !== 'onnx')
      throw new Error(`FIRST_ANSWER_ENGINES: unknown engine “${n}” (wllama or onnx).`);
  return names.length ? (names as FirstAnswerEngine[]) : ['onnx'];
}

const s = (ms: number | null) => (ms === null ? '–' : `${(ms / 1000).toFixed(1)} s`);

export const firstAnswerSection: BenchSection = {
  name: 'first-answer',
  description:
    'A first question on Alice with the defaults and SmolLM2 in the ONNX engine (one click) or wllama: Ask to first token and to the finished answer.',
  async run(log) {
    const engines = firstAnswerEngines(process.env.FIRST_ANSWER_ENGINES);
    if (engines.includes('wllama')) requireRealModel('SmolLM2-135M-Instruct');
    if (engines.includes('onnx')) requireRealModel('SmolLM2-135M-Instruct-ONNX');
    const mirror = await startHubMirror();
    const stop = await startPreview(PORT, DIST);
    const browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: chromiumArgs,
    });
    const load = os.loadavg();
    const runs: (FirstAnswer & { holdsFact: boolean })[] = [];
    try {
      for (let i = 0; i < RUNS; i++) {
        for (const engine of engines) {
          const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
          const page = await context.newPage();
          const r = await firstAnswer(
            page,
            `http://127.0.0.1:${PORT}/`,
            mirror.url,
            undefined,
            engine,
          );
          await context.close();
          runs.push({ ...r, holdsFact: FIRST_FACT.test(r.answer) });
          log(
            `run ${i + 1} (${engine}): first token ${s(r.firstTokenMs)}, answer ${s(r.answerMs)}, ` +
              `${r.promptTokens} prompt tokens at ${r.promptTokensPerSecond}/s, ${JSON.stringify(r.answer)}`,
          );
        }
      }
    } finally {
      await browser.close();
      stop();
      await mirror.close();
    }
    const loadAfter = os.loadavg();
    const la = (l: number[]) => l.map((x) => x.toFixed(2)).join(' / ');
    const markdown = [
      `Command: \`flock /tmp/bench.lock npx tsx bench/run.ts first-answer\` (BENCH_DIST=${DIST}, FIRST_ANSWER_ENGINES=${engines.join(',')}, ${RUNS} run(s) of each engine). The built app in headless Debian Chromium, default settings, Alice (pg11.txt) dropped, SmolLM2-135M-Instruct loaded from the local hub mirror (onnx: the one-click offer, the ONNX engine's onnx/model.onnx; wllama: the GGUF catalogue's recommended ${RECOMMENDED_GGUF.file}), then "${runs[0]?.question}" asked; times from pressing Ask, read in the page. A fresh profile each run, so the passages are the starting reading budget (${STARTING_PASSAGE_TOKENS} tokens). Goal: under ${GOAL_S} s. Load average before ${la(load)}, after ${la(loadAfter)}; ${os.cpus().length} cores.`,
      '',
      '| run | engine | Ask → first token | Ask → finished answer | under 30 s | prompt tokens | prompt tokens/s | tokens/s written | citations (model / inferred) | holds the fact | answer |',
      '|---:|---|---:|---:|---|---:|---:|---:|---|---|---|',
      ...runs.map(
        (r, i) =>
          `| ${Math.floor(i / engines.length) + 1} | ${r.engine} | ${s(r.firstTokenMs)} | ${s(r.answerMs)} | ${r.answerMs !== null && r.answerMs < GOAL_S * 1000 ? 'yes' : 'no'} | ${r.promptTokens ?? '–'} | ${r.promptTokensPerSecond ?? '–'} | ${r.tokensPerSecond ?? '–'} | ${r.cited} / ${r.inferred} | ${r.holdsFact ? 'yes' : 'no'} | ${JSON.stringify(r.answer.trim()).replace(/\|/g, '\\|')} |`,
      ),
    ].join('\n');
    return {
      results: {
        goalSeconds: GOAL_S,
        startingPassageTokens: STARTING_PASSAGE_TOKENS,
        dist: DIST,
        engines,
        loadAverage: { before: load, after: loadAfter },
        runs,
      },
      markdown,
    };
  },
};
