import { describe, expect, it } from 'vitest';
import {
  ENGINE_KINDS,
  ENGINES,
  isApiEngine,
  localSourceOf,
  noSourceProblem,
  settingsContextLimit,
  settingsModel,
  type ApiEngineEntry,
  type LocalEngineEntry,
} from './engines';
import { defaultEngineSettings, ENGINE_LABELS, normalizeEngineSettings } from './settings';
import type { EngineKind } from './types';

describe('the engine table', () => {
  it.each(ENGINE_KINDS)('%s: has a label, settings that read back, and a factory', (kind) => {
    const entry = ENGINES[kind] as ApiEngineEntry | LocalEngineEntry<unknown, 'wllama'>;
    expect(entry.label.trim().length).toBeGreaterThan(3);
    expect(ENGINE_LABELS[kind]).toBe(entry.label);
    // Stored settings read back as they were; missing or wrong ones get the defaults.
    const defaults = entry.defaults as never;
    expect(entry.normalize(defaults, defaults)).toEqual(defaults);
    expect(entry.normalize({}, defaults)).toEqual(defaults);
    expect(entry.normalize({ model: 5, url: 5, modelId: 5 }, defaults)).toEqual(defaults);
    expect(defaultEngineSettings[kind]).toEqual(defaults);
    expect(typeof settingsModel(kind, defaultEngineSettings)).toBe('string');
    expect(settingsContextLimit(kind, defaultEngineSettings)).toBeGreaterThanOrEqual(256);
    expect(isApiEngine(kind)).toBe(entry.api);
    if (entry.api) {
      const engine = entry.create({ ...entry.defaults, apiKey: 'k' });
      expect(engine.kind).toBe(kind);
      expect(engine.contextLimit).toBe(entry.defaults.contextLimit);
      expect(localSourceOf(kind, defaultEngineSettings, null)).toBeNull();
    } else {
      expect(noSourceProblem(kind).length).toBeGreaterThan(5);
      expect(typeof entry.load).toBe('function');
    }
  });

  it('in-browser engines point to the model their settings or a chosen file name', () => {
    const s = defaultEngineSettings;
    expect(localSourceOf('wllama', s, null)).toBeNull();
    const file = new File([new Uint8Array(4)], 'm.gguf');
    expect(localSourceOf('wllama', s, file)).toEqual({
      kind: 'wllama',
      source: { kind: 'file', file },
      options: { contextSize: s.wllama.contextSize },
    });
    const url = 'https://example.org/m/SmolLM2.gguf';
    const withUrl = { ...s, wllama: { ...s.wllama, url, threads: 2 } };
    expect(localSourceOf('wllama', withUrl, null)).toEqual({
      kind: 'wllama',
      source: { kind: 'url', url },
      options: { contextSize: s.wllama.contextSize, threads: 2 },
    });
    expect(settingsModel('wllama', withUrl)).toBe(url);
    expect(localSourceOf('webllm', s, file)).toEqual({ kind: 'webllm', modelId: s.webllm.modelId });
    // The ONNX engine names a hub model (never a dropped file) and downloads from its host.
    expect(localSourceOf('onnx', s, file)).toEqual({
      kind: 'onnx',
      source: {
        modelId: 'HuggingFaceTB/SmolLM2-135M-Instruct',
        host: s.onnx.hub,
        threads: 0,
        contextSize: 4096,
      },
    });
  });

  it('the ONNX engine takes only a hub model name, and keeps its own context and threads', () => {
    const d = ENGINES.onnx.defaults;
    expect(ENGINES.onnx.normalize({ modelId: ' me/My-Model.v2 ' }, d).modelId).toBe(
      'me/My-Model.v2',
    );
    // A URL, a path or markup is no model name: the default stays.
    for (const bad of ['https://x.org/a/b', '../a/b', 'a/b/c', '<b>x</b>/y', 'plain'])
      expect(ENGINES.onnx.normalize({ modelId: bad }, d).modelId).toBe(d.modelId);
    expect(ENGINES.onnx.normalize({ contextSize: 10, threads: 99 }, d)).toMatchObject({
      contextSize: 256,
      threads: 32,
    });
    const s = { ...defaultEngineSettings, onnx: { ...d, modelId: 'nope' } };
    expect(localSourceOf('onnx', s, null)).toBeNull();
  });

  it('reads every engine from stored settings under its kind', () => {
    const stored = Object.fromEntries(
      ENGINE_KINDS.map((k: EngineKind) => [k, ENGINES[k].defaults]),
    );
    expect(normalizeEngineSettings({ ...stored, kind: 'webllm' })).toEqual({
      ...defaultEngineSettings,
      kind: 'webllm',
    });
  });
});
