/**
 * @file `npm run bench -- onnx-storage`: does storing the converted SmolLM2 decoder's weights as
 * float16 (scripts/gguf-to-onnx.py's default, the file `npm run models` pins) cost anything
 * against the float32 file (`--weights float32`, the GGUF's values exactly)?
 *
 * For each file, in onnxruntime-node on this machine: its size, the time to create a session
 * (where ONNX Runtime folds each float16-to-float32 Cast into a float32 constant), the prompt
 * read (one run over a 1,000-token chat prompt of Alice) and the tokens written one at a time
 * with the KV cache (64, greedy), at 1 and 2 threads; and whether the greedy tokens and the
 * prompt's next-token logits agree with the float32 file's. Node's ONNX Runtime runs the same
 * graph optimiser (constant folding included) as ONNX Runtime Web, so a storage choice that costs
 * nothing here costs nothing there; the absolute speeds are native, not the browser's.
 *
 * The float32 file is converted here into a temporary folder with the virtual environment
 * `npm run models` made (`<cache>/venv-gguf-to-onnx`). ONNX_STORAGE_EXTRA=LABEL=PATH[,…] adds
 * other model.onnx files to the comparison.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { getLlama } from 'node-llama-cpp';
import * as ort from 'onnxruntime-node';
import { datasetPath } from '../test/datasets';
import { decoderSteps } from '../test/onnx-decoder';
import { realModelPath, realModelsHub, requireRealModel } from '../test/real-models';
import type { BenchSection } from './run';

const GENERATE = 64;
/** Rounds over the files, alternating, so a change in the machine's load hits every file alike. */
const ROUNDS = 3;
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

interface StorageRow {
  file: string;
  bytes: number;
  threads: number;
  sessionMs: number;
  promptTokens: number;
  promptTokensPerS: number;
  generationTokensPerS: number;
  /** Greedy tokens equal to the float32 file's (same threads). */
  sameTokensAsFloat32: boolean;
  /** The first written token that differs from the float32 file's (0-based), or null. */
  firstDifference: number | null;
  /** The greedy tokens written. */
  tokens: number[];
  /** Largest |logit difference| against the float32 file after the prompt. */
  maxLogitDiff: number;
}

/** A ~1,000-token ChatML prompt of Alice, tokenized by llama.cpp from the GGUF. */
async function promptIds(): Promise<number[]> {
  const book = readFileSync(datasetPath('gutenberg', 'pg11.txt'), 'utf8');
  // The copy starts at the book's first sentence (no Gutenberg header).
  const text = book.split(/\s+/).slice(0, 700).join(' ');
  const gguf = requireRealModel('SmolLM2-135M-Instruct');
  const llama = await getLlama({ gpu: false, build: 'never' });
  const model = await llama.loadModel({
    modelPath: realModelPath(gguf.hubId, 'SmolLM2-135M-Instruct.Q4_1.gguf'),
  });
  const chat =
    '<|im_start|>system\nAnswer from the passage in one sentence.<|im_end|>\n' +
    `<|im_start|>user\n${text}\n\nQuestion: What did Alice see run close by her?<|im_end|>\n` +
    '<|im_start|>assistant\n';
  const ids = Array.from(model.tokenize(chat, true));
  await model.dispose();
  await llama.dispose();
  return ids;
}

async function measure(file: string, config: string, threads: number, prompt: number[]) {
  const started = performance.now();
  const session = await ort.InferenceSession.create(file, {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
  });
  const sessionMs = performance.now() - started;
  const step = decoderSteps(session, config);
  const tokens: number[] = [];
  let promptMs = 0;
  let firstLogits = new Float32Array(0);
  let chunk = prompt;
  const t0 = performance.now();
  let t1 = t0;
  while (tokens.length < GENERATE) {
    const logits = await step(chunk);
    if (!tokens.length) {
      t1 = performance.now();
      promptMs = t1 - t0;
      firstLogits = logits.slice();
    }
    let best = 0;
    for (let i = 1; i < logits.length; i++) if (logits[i] > logits[best]) best = i;
    tokens.push(best);
    chunk = [best];
  }
  const generationMs = performance.now() - t1;
  await session.release();
  return {
    sessionMs,
    promptTokensPerS: prompt.length / (promptMs / 1000),
    // The first written token came with the prompt's run; the other GENERATE - 1 one by one.
    generationTokensPerS: (GENERATE - 1) / (generationMs / 1000),
    tokens,
    firstLogits,
  };
}

export const onnxStorageSection: BenchSection = {
  name: 'onnx-storage',
  description:
    'The converted SmolLM2 ONNX decoder stored as float16 (the pinned file) against float32: size, session start, prompt and generation speed, greedy tokens (onnxruntime-node).',
  async run(log) {
    const { hubId } = requireRealModel('SmolLM2-135M-Instruct-ONNX');
    const gguf = requireRealModel('SmolLM2-135M-Instruct');
    const python = path.join(realModelsHub, '..', 'venv-gguf-to-onnx', 'bin', 'python');
    const temp = mkdtempSync(path.join(os.tmpdir(), 'onnx-storage-'));
    try {
      log('converting the float32 file');
      execFileSync(python, [
        path.join(repoRoot, 'scripts/gguf-to-onnx.py'),
        realModelPath(gguf.hubId, 'SmolLM2-135M-Instruct.Q4_1.gguf'),
        temp,
        '--weights',
        'float32',
      ]);
      const files: [string, string][] = [
        ['float32', path.join(temp, 'onnx/model.onnx')],
        ['float16 (pinned)', realModelPath(hubId, 'onnx/model.onnx')],
        ...(process.env.ONNX_STORAGE_EXTRA ?? '')
          .split(',')
          .filter(Boolean)
          .map((pair) => pair.split('=') as [string, string]),
      ];
      const prompt = await promptIds();
      // Every file compared is SmolLM2's decoder: the pinned one's config gives the cache's shape.
      const config = realModelPath(hubId, 'config.json');
      const load = os.loadavg();
      const rows: StorageRow[] = [];
      const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];
      for (const threads of [1, 2]) {
        const runs = new Map<string, Awaited<ReturnType<typeof measure>>[]>();
        for (let round = 0; round < ROUNDS; round++) {
          for (const [label, file] of files) {
            log(`${label}, ${threads} thread(s), round ${round + 1}`);
            runs.set(label, [
              ...(runs.get(label) ?? []),
              await measure(file, config, threads, prompt),
            ]);
          }
        }
        const reference = runs.get(files[0][0])![0];
        for (const [label, file] of files) {
          const all = runs.get(label)!;
          const m = {
            ...all[0],
            sessionMs: median(all.map((r) => r.sessionMs)),
            promptTokensPerS: median(all.map((r) => r.promptTokensPerS)),
            generationTokensPerS: median(all.map((r) => r.generationTokensPerS)),
          };
          let maxLogitDiff = 0;
          m.firstLogits.forEach((v, i) => {
            maxLogitDiff = Math.max(maxLogitDiff, Math.abs(v - reference.firstLogits[i]));
          });
          rows.push({
            file: label,
            bytes: statSync(file).size,
            threads,
            sessionMs: Math.round(m.sessionMs),
            promptTokens: prompt.length,
            promptTokensPerS: Math.round(m.promptTokensPerS * 10) / 10,
            generationTokensPerS: Math.round(m.generationTokensPerS * 10) / 10,
            sameTokensAsFloat32: m.tokens.join() === reference.tokens.join(),
            firstDifference: ((i) => (i < 0 ? null : i))(
              m.tokens.findIndex((t, i) => t !== reference.tokens[i]),
            ),
            tokens: m.tokens,
            maxLogitDiff: Math.round(maxLogitDiff * 1e4) / 1e4,
          });
        }
      }
      const loadAfter = os.loadavg();
      const table = [
        '| file | MB | threads | session start ms | prompt tokens/s | generation tokens/s | greedy tokens = float32 | max logit diff |',
        '|---|---:|---:|---:|---:|---:|---|---:|',
        ...rows.map(
          (r) =>
            `| ${r.file} | ${(r.bytes / 1e6).toFixed(1)} | ${r.threads} | ${r.sessionMs} | ${r.promptTokensPerS} | ${r.generationTokensPerS} | ${r.sameTokensAsFloat32 ? 'yes' : `from token ${r.firstDifference! + 1} of ${GENERATE}`} | ${r.maxLogitDiff} |`,
        ),
      ].join('\n');
      const markdown = [
        `Command: \`npm run bench -- onnx-storage\` (onnxruntime-node ${ort.env.versions.common}, ${prompt.length}-token prompt, ${GENERATE} tokens greedy, median of ${ROUNDS} alternating rounds). Load average before ${load.map((x) => x.toFixed(2)).join(' / ')}, after ${loadAfter.map((x) => x.toFixed(2)).join(' / ')}.`,
        '',
        table,
      ].join('\n');
      return { results: { rows, load, loadAfter }, markdown };
    } finally {
      rmSync(temp, { recursive: true, force: true });
    }
  },
};
