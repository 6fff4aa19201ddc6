/**
 * @file Entry of llm.html, the GGUF speed check (docs/llm.md): load a model in wllama with the
 * Answer panel's own loader, read a plain prompt and write at temperature 0, and show llama.cpp's
 * timings. The llm-speed benchmark drives this page beside native llama.cpp.
 *
 * The numbers are in `<pre data-testid="result">` as JSON; the page's state is `data-state` on
 * its <main> ('running', 'done', 'error'). URL parameters fill the form (`model`, `threads`,
 * `max`, `ctx`); `gpu` (off, auto, on) asks for wllama's WebGPU backend, `batch` sets n_batch, `keep=1` leaves
 * the model loaded after the run.
 *
 * `engine=onnx` measures the ONNX engine instead (onnx.ts): `model` is then a hub model id and
 * `hub` the hub host (a mirror) it is read from.
 */
import { version as wllamaVersion } from '@wllama/wllama/package.json';
import { loadWllama, type GpuChoice } from '../../llm/wllama';
import { runOnnxCheck, sessionTuning } from './onnx';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const main = document.querySelector('main')!;
const form = $<HTMLFormElement>('form');
const status = $<HTMLParagraphElement>('status');
const result = document.querySelector<HTMLPreElement>('[data-testid="result"]')!;

const params = new URLSearchParams(window.location.search);
for (const [name, id] of [
  ['model', 'model'],
  ['threads', 'threads'],
  ['max', 'max'],
  ['ctx', 'ctx'],
] as const) {
  const value = params.get(name);
  if (value !== null) $<HTMLInputElement>(id).value = value;
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  void run();
});

async function run() {
  main.dataset.state = 'running';
  result.textContent = '';
  const url = $<HTMLInputElement>('model').value.trim();
  const threads = Number($<HTMLInputElement>('threads').value) || 0;
  const maxTokens = Math.max(1, Number($<HTMLInputElement>('max').value) || 128);
  const contextSize = Math.max(256, Number($<HTMLInputElement>('ctx').value) || 4096);
  const prompt = $<HTMLTextAreaElement>('prompt').value;
  const batch = Number(params.get('batch')) || 0;
  const gpu = (['off', 'auto', 'on'] as const).find((g) => g === params.get('gpu')) ?? 'off';
  if (!url || !prompt.trim()) {
    main.dataset.state = 'error';
    status.textContent = 'Give a model URL and a prompt.';
    return;
  }
  if (params.get('engine') === 'onnx') {
    const onnx = await runOnnxCheck(
      { modelId: url, hub: params.get('hub') ?? '', threads, maxTokens, contextSize, prompt },
      sessionTuning(params),
      params.get('keep') === '1',
      params.get('warm') === '1',
      (text) => (status.textContent = text),
      params.get('hold') === '1'
        ? () =>
            new Promise<void>((resolve) => {
              (window as unknown as { fragrelGo: () => void }).fragrelGo = resolve;
              status.textContent = 'Loaded; waiting for fragrelGo().';
            })
        : undefined,
    );
    if (!onnx.ok) {
      main.dataset.state = 'error';
      status.textContent = onnx.error;
      return;
    }
    result.textContent = JSON.stringify(onnx.result);
    status.textContent = onnx.summary;
    main.dataset.state = 'done';
    return;
  }
  status.textContent = 'Loading the model…';
  const loadStart = performance.now();
  const loaded = await loadWllama(
    { kind: 'url', url },
    {
      contextSize,
      gpu: gpu satisfies GpuChoice,
      ...(threads ? { threads } : {}),
      ...(batch ? { batch } : {}),
    },
  );
  if (!loaded.ok) {
    main.dataset.state = 'error';
    status.textContent = loaded.error.message;
    return;
  }
  const loadMs = performance.now() - loadStart;
  try {
    status.textContent = 'Reading the prompt and writing…';
    const measure = await loaded.engine.measure(prompt, maxTokens);
    result.textContent = JSON.stringify({
      model: loaded.engine.model.name,
      wllamaVersion,
      device: loaded.engine.model.device,
      gpuLayers: loaded.engine.model.gpuLayers,
      gpuNote: loaded.engine.model.gpuNote,
      loadMs,
      ...measure,
    });
    status.textContent = `Prompt ${measure.promptTokens} tokens at ${measure.promptTokensPerS.toFixed(1)} tokens/s, writing at ${measure.generationTokensPerS.toFixed(1)} tokens/s, first token after ${(measure.firstTokenMs / 1000).toFixed(1)} s (${loaded.engine.label}, ${measure.threads} thread(s))${loaded.engine.model.gpuNote ? ` ${loaded.engine.model.gpuNote}` : ''}.`;
    main.dataset.state = 'done';
  } catch (error) {
    main.dataset.state = 'error';
    status.textContent = `The model failed: ${String(error)}`;
  } finally {
    // `keep=1` leaves the model loaded (the llm-profile bench reads its worker's profile after).
    if (params.get('keep') !== '1') await loaded.engine.dispose();
  }
}
