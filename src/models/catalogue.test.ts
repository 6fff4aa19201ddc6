import { describe, expect, it } from 'vitest';
import { parseDeviceRequest, resolveDevice, type Capabilities } from './capabilities';
import {
  EMBEDDING_MODELS,
  defaultDtype,
  findCatalogueModel,
  parseDtype,
  resolveModel,
} from './catalogue';
import { chooseThreads, normaliseHost } from './settings';

describe('catalogue', () => {
  it('has unique keys, known dims and a size for every dtype it lists', () => {
    const keys = EMBEDDING_MODELS.map((m) => m.key);
    expect(new Set(keys).size).toBe(keys.length);
    for (const m of EMBEDDING_MODELS) {
      expect(m.dim).toBeGreaterThan(0);
      for (const d of m.dtypes) expect(m.approxMB[d]).toBeGreaterThan(0);
    }
  });

  it('holds the prefixes each family expects', () => {
    expect(findCatalogueModel('e5-small-v2')?.prefix).toEqual({
      query: 'query: ',
      passage: 'passage: ',
    });
    expect(findCatalogueModel('Xenova/bge-small-en-v1.5')?.prefix.query).toMatch(/^Represent this/);
    expect(findCatalogueModel('bge-small-en-v1.5')?.pooling).toBe('cls');
    expect(findCatalogueModel('all-MiniLM-L6-v2')?.prefix).toEqual({ query: '', passage: '' });
  });

  it('marks the random-weight test model and gives it fp32 only', () => {
    const t = resolveModel('tribuo-tinybert');
    expect(t).toMatchObject({ dim: 50, pooling: 'mean', testOnly: true, dtypes: ['fp32'] });
    expect(defaultDtype(t)).toBe('fp32');
  });

  it('accepts any hub id, dim unknown until load', () => {
    const m = resolveModel(' someone/their-model.v2 ', {
      pooling: 'cls',
      prefix: { query: 'q: ' },
    });
    expect(m).toMatchObject({ hubId: 'someone/their-model.v2', dim: null, pooling: 'cls' });
    expect(m.prefix).toEqual({ query: 'q: ', passage: '' });
  });

  it('rejects what is not a hub id, saying what one looks like', () => {
    for (const bad of ['', 'a/b/c', '../etc', 'has space', 'x/..']) {
      expect(() => resolveModel(bad)).toThrow(/not a model id/);
    }
  });

  it('parses dtypes and devices, listing the valid ones on error', () => {
    expect(parseDtype('q8')).toBe('q8');
    expect(parseDtype('')).toBeUndefined();
    expect(() => parseDtype('int3')).toThrow('Use one of: fp32, fp16, q8');
    expect(parseDeviceRequest(null)).toBe('auto');
    expect(parseDeviceRequest('webgpu')).toBe('webgpu');
    expect(() => parseDeviceRequest('cuda')).toThrow('Use one of: auto, webgpu, wasm');
  });
});

describe('device and threads', () => {
  const caps = (device: 'webgpu' | 'wasm') => ({ device }) as Capabilities;
  it('resolves auto to the probed device and keeps an explicit one', () => {
    expect(resolveDevice('auto', caps('webgpu'))).toBe('webgpu');
    expect(resolveDevice('auto', caps('wasm'))).toBe('wasm');
    expect(resolveDevice('wasm', caps('webgpu'))).toBe('wasm');
  });

  it('uses wasm threads only when cross-origin isolated: half the cores, 1 to 4', () => {
    expect(chooseThreads(false, 16)).toBe(1);
    expect(chooseThreads(true, 1)).toBe(1);
    expect(chooseThreads(true, 2)).toBe(1);
    expect(chooseThreads(true, 8)).toBe(4);
    expect(chooseThreads(true, 64)).toBe(4);
  });
});

describe('normaliseHost', () => {
  it('adds https:// and one trailing slash', () => {
    expect(normaliseHost('huggingface.co')).toBe('https://huggingface.co/');
    expect(normaliseHost('http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080/');
    expect(normaliseHost('https://mirror.example/hf/')).toBe('https://mirror.example/hf/');
    expect(normaliseHost('  ')).toBe('https://huggingface.co/');
  });

  it('refuses other schemes', () => {
    expect(() => normaliseHost('ftp://x')).toThrow(/http\(s\)/);
    expect(() => normaliseHost('file:///models')).toThrow(/http\(s\)/);
  });
});
