/**
 * @file WebLLM: models compiled for WebGPU, run in a worker of ours through WebLLM's own worker
 * protocol (`WebWorkerMLCEngineHandler` there, `WebWorkerMLCEngine` here; the worker is
 * src/workers/llm-webllm.worker.ts).
 *
 * WebLLM downloads its weights and model library from Hugging Face and GitHub the first time and
 * then keeps them in the browser's cache. Before any of that, this module checks what the
 * browser offers: without a WebGPU adapter, or without `shader-f16` for a 16-bit model, it says
 * so and points to the other engines, and nothing is fetched.
 *
 * A lost GPU device (usually out of memory) ends the engine: its next request answers with a
 * 'device-lost' error asking to load a model again.
 */
import type { WebWorkerMLCEngine } from '@mlc-ai/web-llm';
import { probeCapabilities, type Capabilities } from '../models/capabilities';
import { errorText, STOPPED } from './errors';
import { estimateTokens } from './tokens';
import type {
  FinishReason,
  GenerateOutcome,
  GenerateRequest,
  GenerateStats,
  LlmEngine,
  LlmError,
  LoadProgress,
} from './types';
import { downloadMB, webLlmModel, type WebLlmModel } from './webllm-catalogue';

const USE_OTHER_ENGINES =
  'use wllama instead (it runs GGUF models on the CPU), or an API engine (OpenAI-compatible or Anthropic).';
const OTHER_ENGINES = `U${USE_OTHER_ENGINES.slice(1)}`;

/** Why WebLLM cannot run `model` here, or null when it can. Fetches nothing. */
export function webLlmUnsupported(caps: Capabilities, model?: WebLlmModel): LlmError | null {
  if (!caps.adapter) {
    return {
      code: 'unsupported',
      message: `WebLLM runs models on the GPU through WebGPU, and this browser offers no WebGPU adapter. ${OTHER_ENGINES}`,
      ...(caps.webgpuUnavailableReason ? { detail: caps.webgpuUnavailableReason } : {}),
    };
  }
  if (model?.f16 && !caps.adapter.shaderF16) {
    return {
      code: 'unsupported',
      message:
        `${model.label} (16-bit) needs the WebGPU feature shader-f16, which this GPU does not offer. ` +
        `Pick the 32-bit build of a model, or ${USE_OTHER_ENGINES}`,
    };
  }
  return null;
}

const DEVICE_LOST = /device (was |is )?lost|DeviceLostError/i;

function deviceLostError(detail: string): LlmError {
  return {
    code: 'device-lost',
    message:
      'The GPU device was lost, usually because the model did not fit in GPU memory. Load the ' +
      `model again, pick a smaller one, or ${USE_OTHER_ENGINES}`,
    detail,
  };
}

function loadFailure(model: WebLlmModel, error: unknown): LlmError {
  const detail = errorText(error);
  if (DEVICE_LOST.test(detail)) return deviceLostError(detail);
  if (/WebGPUNotAvailable|compatible GPU|WebGPU is not supported|WebGPUNotFound/i.test(detail)) {
    return {
      code: 'unsupported',
      message: `WebLLM could not start WebGPU here. ${OTHER_ENGINES}`,
      detail,
    };
  }
  if (/shader-f16|ShaderF16/i.test(detail)) {
    return {
      code: 'unsupported',
      message: `${model.label} needs the WebGPU feature shader-f16, which this GPU does not offer. Pick a 32-bit model.`,
      detail,
    };
  }
  if (/quota|storage/i.test(detail)) {
    return {
      code: 'model-load',
      message: `There is not enough browser storage to keep ${model.label} (about ${downloadMB(model)} MB). Free some space or pick a smaller model.`,
      detail,
    };
  }
  if (/fetch|network|load failed|Failed to|HTTP|status/i.test(detail)) {
    return {
      code: 'model-load',
      message: `Could not download ${model.label}. WebLLM fetches the weights from huggingface.co and the model library from raw.githubusercontent.com the first time; check your connection. ${OTHER_ENGINES}`,
      detail,
    };
  }
  return { code: 'model-load', message: `WebLLM could not load ${model.label}.`, detail };
}

/**
 * Load a catalogue model in a new worker. Resolves with the engine or an error value; the
 * signal cancels (the worker is stopped).
 */
export async function loadWebLlm(
  modelId: string,
  events: { onProgress?: (p: LoadProgress) => void; signal?: AbortSignal } = {},
): Promise<{ ok: true; engine: WebLlmEngine } | { ok: false; error: LlmError }> {
  const model = webLlmModel(modelId);
  if (!model) {
    return {
      ok: false,
      error: { code: 'bad-request', message: `“${modelId}” is not in the WebLLM model list.` },
    };
  }
  const unsupported = webLlmUnsupported(await probeCapabilities(), model);
  if (unsupported) return { ok: false, error: unsupported };
  if (events.signal?.aborted) return { ok: false, error: STOPPED };

  const worker = new Worker(new URL('../workers/llm-webllm.worker.ts', import.meta.url), {
    type: 'module',
  });
  const stop = () => worker.terminate();
  events.signal?.addEventListener('abort', stop, { once: true });
  const total = downloadMB(model) * 1e6;
  let loaded = 0;
  try {
    const { WebWorkerMLCEngine } = await import('@mlc-ai/web-llm');
    const mlc = new WebWorkerMLCEngine(worker, {
      initProgressCallback: (report) => {
        loaded = Math.max(loaded, Math.round(report.progress * total));
        events.onProgress?.({ text: report.text, loaded, total });
      },
    });
    events.onProgress?.({ text: `Preparing ${model.label}`, loaded: 0, total });
    await new Promise<void>((resolve, reject) => {
      events.signal?.addEventListener('abort', () => reject(new DOMException('', 'AbortError')), {
        once: true,
      });
      mlc.reload(model.id).then(resolve, reject);
    });
    return { ok: true, engine: new WebLlmEngine(mlc, worker, model) };
  } catch (error) {
    worker.terminate();
    if (events.signal?.aborted) return { ok: false, error: STOPPED };
    return { ok: false, error: loadFailure(model, error) };
  } finally {
    events.signal?.removeEventListener('abort', stop);
  }
}

export class WebLlmEngine implements LlmEngine {
  readonly kind = 'webllm' as const;
  readonly promptStyle = 'chat' as const;
  readonly exactTokenCounts = false;
  readonly contextLimit: number;
  readonly label: string;
  private lost: string | null = null;

  constructor(
    private readonly mlc: WebWorkerMLCEngine,
    private readonly worker: Worker,
    readonly model: WebLlmModel,
  ) {
    this.contextLimit = model.contextLimit;
    this.label = `${model.label} on the GPU (WebLLM)`;
  }

  async countTokens(text: string): Promise<number> {
    return estimateTokens(text);
  }

  async generate(request: GenerateRequest): Promise<GenerateOutcome> {
    const started = performance.now();
    let text = '';
    let firstAt: number | undefined;
    let pieces = 0;
    let finish: FinishReason | undefined;
    let usage:
      | {
          prompt_tokens?: number;
          completion_tokens?: number;
          extra?: { decode_tokens_per_s?: number };
        }
      | undefined;
    const stats = (): GenerateStats => {
      const s: GenerateStats = { elapsedMs: performance.now() - started };
      if (firstAt !== undefined) s.firstTokenMs = firstAt - started;
      if (usage?.prompt_tokens !== undefined) s.promptTokens = usage.prompt_tokens;
      s.completionTokens = usage?.completion_tokens ?? pieces;
      if (usage?.extra?.decode_tokens_per_s) s.tokensPerSecond = usage.extra.decode_tokens_per_s;
      return s;
    };
    if (this.lost) return { ok: false, text, error: deviceLostError(this.lost), stats: stats() };
    if (request.signal?.aborted) return { ok: false, text, error: STOPPED, stats: stats() };
    const interrupt = () => this.mlc.interruptGenerate();
    request.signal?.addEventListener('abort', interrupt, { once: true });
    try {
      const chunks = await this.mlc.chat.completions.create({
        messages: request.messages.map(({ role, content }) => ({ role, content })),
        max_tokens: request.maxTokens,
        ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
        stream: true,
        stream_options: { include_usage: true },
      });
      for await (const chunk of chunks) {
        const choice = chunk.choices[0];
        const piece = choice?.delta?.content ?? '';
        if (piece) {
          firstAt ??= performance.now();
          pieces++;
          text += piece;
          request.onToken?.(piece);
        }
        if (choice?.finish_reason === 'length') finish = 'length';
        else if (choice?.finish_reason) finish ??= 'stop';
        if (chunk.usage) usage = chunk.usage as typeof usage;
      }
    } catch (error) {
      if (request.signal?.aborted) return { ok: false, text, error: STOPPED, stats: stats() };
      const detail = errorText(error);
      if (DEVICE_LOST.test(detail)) {
        this.lost = detail;
        return { ok: false, text, error: deviceLostError(detail), stats: stats() };
      }
      const code = /context window|ContextWindowSizeExceeded|prompt tokens exceed/i.test(detail)
        ? 'context-length'
        : 'engine';
      return {
        ok: false,
        text,
        error: {
          code,
          message:
            code === 'context-length'
              ? `The prompt does not fit the ${this.contextLimit.toLocaleString('en')}-token context of ${this.model.label}. Lower the answer length or the retrieval budget.`
              : `${this.model.label} failed while generating. Load it again, or pick another model.`,
          detail,
        },
        stats: stats(),
      };
    } finally {
      request.signal?.removeEventListener('abort', interrupt);
    }
    if (request.signal?.aborted) return { ok: false, text, error: STOPPED, stats: stats() };
    return { ok: true, text, finish: finish ?? 'stop', stats: stats() };
  }

  async dispose(): Promise<void> {
    try {
      await this.mlc.unload();
    } catch {
      // A lost device or a dead worker: terminating is all that is left.
    }
    this.worker.terminate();
  }
}
