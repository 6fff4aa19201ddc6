/* global process, console, document */
/**
 * A probe, not a bench: how fast ONNX Runtime Web reads a 1,026-token prompt and writes 64
 * tokens with each weight format of the same SmolLM2 model, in headless Debian Chromium, on a
 * bare page (no app around it). It chose the ONNX engine's format (docs/llm.md); BENCHMARKS.md
 * "The ONNX engine: weight formats" has the figures it printed.
 *
 * Usage: node bench/probes/onnx-formats/run.mjs MODELS_DIR MODEL_NAME [threads] [ort-build]
 *   MODELS_DIR holds MODEL_NAME/{config.json,tokenizer*.json,onnx/model.onnx} (make-variants.py
 *   writes the variants) and alice-800.txt (800 words of Alice, also written by it).
 *   ort-build: 'asyncify' (what transformers.js loads by default) or 'plain'.
 */
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from '@playwright/test';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../..');
const [modelsDir, model, threads = '1', build = 'asyncify'] = process.argv.slice(2);
if (!modelsDir || !model) throw new Error('usage: run.mjs MODELS_DIR MODEL_NAME [threads] [build]');
const roots = { '/nm/': path.join(repo, 'node_modules'), '/models/': modelsDir, '/': here };
const types = {
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.html': 'text/html',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
};
const server = http.createServer((req, res) => {
  const url = decodeURIComponent(req.url.split('?')[0]);
  const prefix = Object.keys(roots).find((p) => url.startsWith(p));
  const file = path.join(roots[prefix], url.slice(prefix.length));
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Embedder-Policy', 'require-corp');
  fs.stat(file, (e, st) => {
    if (e || !st.isFile()) return res.writeHead(404).end();
    res.writeHead(200, {
      'Content-Type': types[path.extname(file)] ?? 'application/octet-stream',
      'Content-Length': st.size,
    });
    fs.createReadStream(file).pipe(res);
  });
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: [
    '--no-sandbox',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-quic',
    '--no-first-run',
  ],
});
try {
  const page = await browser.newPage();
  await page.goto(
    `http://127.0.0.1:${server.address().port}/page.html?t=${threads}&m=${model}&b=${build}`,
  );
  await page.waitForFunction(
    () => document.getElementById('out').textContent.includes('DONE'),
    null,
    { timeout: 600_000 },
  );
  console.log(await page.textContent('#out'));
} finally {
  await browser.close();
  server.close();
}
