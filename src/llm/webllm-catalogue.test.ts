import { prebuiltAppConfig } from '@mlc-ai/web-llm';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_WEBLLM_MODEL,
  WEBLLM_MODELS,
  describeWebLlmModel,
  downloadMB,
  webLlmModel,
} from './webllm-catalogue';

describe('WebLLM catalogue', () => {
  it('lists only models the installed web-llm knows, with its figures', () => {
    for (const model of WEBLLM_MODELS) {
      const record = prebuiltAppConfig.model_list.find((r) => r.model_id === model.id);
      expect(record, model.id).toBeDefined();
      expect(model.vramMB).toBeCloseTo(record!.vram_required_MB ?? 0, 1);
      expect(model.contextLimit).toBe(record!.overrides?.context_window_size ?? 4096);
      // Whatever web-llm requires, we require too (we are stricter for every f16 build).
      if (record!.required_features?.includes('shader-f16')) expect(model.f16).toBe(true);
      expect(model.f16).toBe(model.id.includes('f16'));
    }
    expect(webLlmModel(DEFAULT_WEBLLM_MODEL)).toBeDefined();
  });

  it('estimates download sizes from parameters and bits per weight', () => {
    const llama1b = webLlmModel('Llama-3.2-1B-Instruct-q4f16_1-MLC')!;
    expect(downloadMB(llama1b)).toBe(695);
    expect(describeWebLlmModel(llama1b)).toBe(
      'Llama 3.2 1B Instruct · 16-bit (needs shader-f16) · about 695 MB download · 879 MB GPU memory · Llama 3.2 Community License',
    );
    expect(describeWebLlmModel(webLlmModel('Llama-3.1-8B-Instruct-q4f32_1-MLC')!)).toMatch(
      /32-bit · about 5\.0 GB download · 6\.1 GB GPU memory · Llama 3\.1 Community License$/,
    );
  });

  it('names every entry’s licence and size, and offers no model that thinks aloud first', () => {
    for (const model of WEBLLM_MODELS) {
      expect(model.licence, model.id).toMatch(
        /^(Apache-2\.0|MIT|Llama 3\.[12] Community License)$/,
      );
      expect(downloadMB(model), model.id).toBeGreaterThan(100);
      expect(describeWebLlmModel(model)).toContain(model.licence);
      // Qwen3 and Qwen3.5 open every answer with a <think> block the panel would show as the answer.
      expect(model.id).not.toMatch(/^Qwen3/);
    }
    // Both builds of every model, so a GPU without shader-f16 still has the choice.
    const bases = new Set(WEBLLM_MODELS.map((m) => m.id.replace(/-q4f(16|32)_1-MLC$/, '')));
    expect(WEBLLM_MODELS.length).toBe(2 * bases.size);
    expect(webLlmModel('gemma-4-E2B-it-q4f16_1-MLC')?.licence).toBe('Apache-2.0');
  });
});
