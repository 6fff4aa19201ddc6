import { describe, expect, it } from 'vitest';
import type { Capabilities } from '../models/capabilities';
import { webLlmUnsupported } from './webllm';
import { webLlmModel } from './webllm-catalogue';

const base: Capabilities = {
  webgpuApi: true,
  adapter: null,
  webgpuUnavailableReason: 'WebGPU is present but offered no adapter.',
  crossOriginIsolated: true,
  hardwareConcurrency: 2,
  device: 'wasm',
};
const adapter = {
  vendor: 'google',
  architecture: 'swiftshader',
  device: '',
  description: 'SwiftShader',
  isFallbackAdapter: true,
  shaderF16: false,
  maxStorageBufferBindingSize: 1 << 30,
};

describe('webLlmUnsupported', () => {
  it('explains a missing adapter and points to the other engines', () => {
    const e = webLlmUnsupported(base);
    expect(e?.code).toBe('unsupported');
    expect(e?.message).toMatch(/no WebGPU adapter/);
    expect(e?.message).toMatch(/wllama/);
    expect(e?.message).toMatch(/API engine/);
    expect(e?.detail).toMatch(/no adapter/);
  });

  it('explains a missing shader-f16 for 16-bit models only', () => {
    const caps = { ...base, adapter, device: 'webgpu' as const, webgpuUnavailableReason: null };
    const f16 = webLlmUnsupported(caps, webLlmModel('Llama-3.2-1B-Instruct-q4f16_1-MLC'));
    expect(f16?.message).toMatch(/shader-f16/);
    expect(f16?.message).toMatch(/32-bit/);
    expect(webLlmUnsupported(caps, webLlmModel('Llama-3.2-1B-Instruct-q4f32_1-MLC'))).toBeNull();
    expect(
      webLlmUnsupported(
        { ...caps, adapter: { ...adapter, shaderF16: true } },
        webLlmModel('Llama-3.2-1B-Instruct-q4f16_1-MLC'),
      ),
    ).toBeNull();
  });
});
