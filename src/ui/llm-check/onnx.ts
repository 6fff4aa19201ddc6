/**
 * @file The speed check page's ONNX mode (`engine=onnx`): the app's own ONNX engine
 * (src/llm/onnx/engine.ts) loads a hub model id from a hub host (`hub`, a mirror in the hub's
 * layout), reads the prompt as plain text (no chat template, so the same tokens as llama.cpp's
 * plain completion) and writes `max` tokens at temperature 0. The result carries the wllama
 * mode's fields, so the llm-speed benchmark reads both alike.
 *
 * `opt` (disabled, basic, extended, all), `arena` and `mempattern` (1 or 0) set ONNX Runtime's
 * session options, `chunk` the tokens per piece a prompt is read in (0: one call) and `file` the
 * graph file to load (e.g. `model`, the float32 one), to measure what they change; without them the engine runs as in the app.
 * `warm=1` reads a short prompt first, so the timed run is not the session's first. `hold=1`
 * waits after the load, the status saying "Loaded", until `window.fragrelGo()` is called (the
 * llm-profile bench starts its profiler there, so the profile is the prompt's reading alone).
 */
import { loadOnnxLlm } from '../../llm/onnx/engine';
import type { OnnxSessionTuning } from '../../llm/onnx/protocol';

export interface OnnxCheck {
  modelId: string;
  hub: string;
  threads: number;
  maxTokens: number;
  contextSize: number;
  prompt: string;
}

const LEVELS = ['disabled', 'basic', 'extended', 'all'] as const;

/** The session options named in the page's URL, or undefined for the app's own. */
export function sessionTuning(params: URLSearchParams): OnnxSessionTuning | undefined {
  const tuning: OnnxSessionTuning = {};
  const level = LEVELS.find((l) => l === params.get('opt'));
  if (level) tuning.graphOptimizationLevel = level;
  const flag = (name: string) => (params.has(name) ? params.get(name) === '1' : undefined);
  const arena = flag('arena');
  if (arena !== undefined) tuning.enableCpuMemArena = arena;
  const pattern = flag('mempattern');
  if (pattern !== undefined) tuning.enableMemPattern = pattern;
  const file = params.get('file');
  if (file && /^[\w.-]+$/.test(file)) tuning.modelFile = file;
  const chunk = params.get('chunk');
  if (chunk !== null && /^\d+$/.test(chunk)) tuning.prefillChunk = Number(chunk);
  return Object.keys(tuning).length ? tuning : undefined;
}

/** Load, measure, unload (unless `keep`); the JSON the page shows, or an error message. */
export async function runOnnxCheck(
  check: OnnxCheck,
  session: OnnxSessionTuning | undefined,
  keep: boolean,
  warm: boolean,
  onStatus: (text: string) => void,
  /** Awaited after the load and the warm-up, before the timed run (the profiler's cue). */
  beforeRun?: () => Promise<void>,
): Promise<
  { ok: true; result: Record<string, unknown>; summary: string } | { ok: false; error: string }
> {
  onStatus('Loading the model…');
  const loadStart = performance.now();
  const loaded = await loadOnnxLlm({
    modelId: check.modelId,
    host: check.hub,
    threads: check.threads,
    contextSize: check.contextSize,
    ...(session ? { session } : {}),
  });
  if (!loaded.ok) return { ok: false, error: loaded.error.message };
  const loadMs = performance.now() - loadStart;
  try {
    // Warm-up (`warm=1`), as wllama's load has one: a short read, one token. The prompt's last
    // words, not its first: an engine that reuses a shared start of the prompt from its cache
    // would otherwise skip part of the timed read.
    let warmupMs = 0;
    if (warm) {
      const t = performance.now();
      await loaded.engine.measure(check.prompt.split(' ').slice(-24).join(' '), 1);
      warmupMs = performance.now() - t;
    }
    await beforeRun?.();
    onStatus('Reading the prompt and writing…');
    const run = await loaded.engine.measure(check.prompt, check.maxTokens);
    if (!run.ok) return { ok: false, error: `The model failed: ${run.detail}` };
    const s = run.stats;
    // Tokens the engine took from its cache instead of reading (an engine that keeps one reports
    // them; none are expected here: a fresh worker, a warm-up that shares no start).
    const cached = (s as { cachedPromptTokens?: number }).cachedPromptTokens ?? 0;
    const read = s.promptTokens - cached;
    const writing = s.elapsedMs - s.firstTokenMs;
    const result = {
      model: check.modelId,
      engine: 'onnx',
      session: session ?? null,
      file: loaded.engine.facts.file,
      weights: loaded.engine.facts.weights,
      loadMs,
      warmupMs,
      threads: loaded.engine.facts.threads,
      crossOriginIsolated: globalThis.crossOriginIsolated === true,
      promptTokens: s.promptTokens,
      cachedTokens: cached,
      generatedTokens: s.completionTokens,
      // As the native rows: the prompt's tokens over the time to the first token (the read and
      // one step), the tokens after the first over the time after it.
      promptTokensPerS: s.firstTokenMs > 0 && read > 0 ? (read * 1000) / s.firstTokenMs : 0,
      generationTokensPerS:
        s.completionTokens > 1 && writing > 0 ? ((s.completionTokens - 1) * 1000) / writing : 0,
      firstTokenMs: s.firstTokenMs,
      totalMs: s.elapsedMs,
      text: run.text,
    };
    const summary = `Prompt ${s.promptTokens} tokens at ${result.promptTokensPerS.toFixed(1)} tokens/s, writing at ${result.generationTokensPerS.toFixed(1)} tokens/s, first token after ${(s.firstTokenMs / 1000).toFixed(1)} s (${loaded.engine.label}).`;
    return { ok: true, result, summary };
  } finally {
    if (!keep) await loaded.engine.dispose();
  }
}
