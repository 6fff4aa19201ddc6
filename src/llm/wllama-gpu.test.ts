import { describe, expect, it } from 'vitest';
import { chooseGpu, WllamaEngine, type WebGpuProbe, type WllamaLike } from './wllama';

const hardware: WebGpuProbe = { adapter: true, fallback: false, f16: true, description: 'nvidia' };
const swiftShader: WebGpuProbe = {
  adapter: true,
  fallback: true,
  f16: false,
  description: 'a software WebGPU adapter',
};
const noF16: WebGpuProbe = { adapter: true, fallback: false, f16: false, description: 'intel' };
const none: WebGpuProbe = {
  adapter: false,
  fallback: false,
  f16: false,
  description: 'this browser has no WebGPU',
};

describe('choosing the GPU', () => {
  it('off never uses it and says nothing', () => {
    expect(chooseGpu('off', hardware)).toEqual({ gpu: false, note: null });
  });

  it('automatic takes a hardware adapter with shader-f16, and says why it passes others by', () => {
    expect(chooseGpu('auto', hardware)).toEqual({ gpu: true, note: null });
    expect(chooseGpu('auto', swiftShader).note).toBe(
      'No GPU: only a software WebGPU adapter, slower than the CPU; runs on the CPU.',
    );
    expect(chooseGpu('auto', noF16)).toMatchObject({ gpu: false });
    expect(chooseGpu('auto', noF16).note).toMatch(/intel\) has no 16-bit shaders \(shader-f16\)/);
    expect(chooseGpu('auto', none).note).toBe(
      'No GPU: this browser has no WebGPU; runs on the CPU.',
    );
  });

  it('on tries any adapter, but not none', () => {
    expect(chooseGpu('on', swiftShader)).toEqual({ gpu: true, note: null });
    expect(chooseGpu('on', none)).toMatchObject({ gpu: false });
  });
});

/** A stand-in for wllama whose every answer fails as a lost WebGPU device does, or answers. */
function fake(kind: 'lost' | 'ok', log: string[]): WllamaLike {
  const answer = (opts: { onData?: (c: unknown) => void; stream?: boolean }) => {
    log.push(`${kind}:answer`);
    if (kind === 'lost') return Promise.reject(new Error('ggml_webgpu: Device lost! Reason: 2'));
    opts.onData?.({
      choices: [{ finish_reason: 'stop', text: 'Hello' }],
      timings: { prompt_n: 3, predicted_n: 1 },
    });
    return Promise.resolve(undefined);
  };
  return {
    createCompletion: answer,
    createChatCompletion: answer,
    exit: () => {
      log.push(`${kind}:exit`);
      return Promise.resolve();
    },
    getLoadedContextInfo: () => ({}),
  } as unknown as WllamaLike;
}

/** The loaded model the engines below are given, on the device each test names. */
const tiny = {
  name: 'tiny.gguf',
  size: 1,
  contextLimit: 2048,
  trainedContext: 2048,
  threads: 1,
  chatTemplate: false,
};

const request = {
  messages: [{ role: 'user' as const, content: 'Say hello.' }],
  text: 'Say hello.',
  maxTokens: 8,
  temperature: 0,
};

describe('a GPU that fails while answering', () => {
  it('gives a clear error, moves the model to the CPU, and the next question works', async () => {
    const log: string[] = [];
    const engine = new WllamaEngine(
      fake('lost', log),
      { ...tiny, device: 'gpu', gpuLayers: { offloaded: 6, total: 6 } },
      { toCpu: async () => fake('ok', log) },
    );
    expect(engine.label).toBe('tiny.gguf on the GPU (wllama, WebGPU)');
    const failed = await engine.generate(request);
    expect(failed.ok).toBe(false);
    if (!failed.ok) {
      expect(failed.error.code).toBe('device-lost');
      expect(failed.error.message).toBe(
        'The GPU failed while tiny.gguf was answering; the model now runs on the CPU. Ask again.',
      );
      expect(failed.error.detail).toMatch(/Device lost/);
    }
    expect(engine.label).toBe('tiny.gguf on the CPU (wllama)');
    expect(engine.model.gpuNote).toMatch(/^The GPU \(WebGPU\) failed while answering/);
    expect(engine.model.gpuLayers).toBeUndefined();
    const next = await engine.generate(request);
    expect(next).toMatchObject({ ok: true, text: 'Hello' });
    expect(log).toEqual(['lost:answer', 'lost:exit', 'ok:answer']);
  });

  it('on the CPU the same failure is an ordinary engine error, with no reload', async () => {
    const log: string[] = [];
    const engine = new WllamaEngine(fake('lost', log), { ...tiny, device: 'cpu' }, {});
    const failed = await engine.generate(request);
    expect(failed).toMatchObject({ ok: false, error: { code: 'engine' } });
    expect(log).toEqual(['lost:answer']);
  });
});
