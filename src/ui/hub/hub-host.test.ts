import { describe, expect, it } from 'vitest';
import { readHubHost, writeHubHost, type HubSettingsStore } from './hub-host';

function memoryStore(initial: Record<string, unknown> = {}): HubSettingsStore & {
  data: Record<string, unknown>;
} {
  const data = { ...initial };
  return {
    data,
    getSetting: async <T>(key: string, fallback: T) => (key in data ? (data[key] as T) : fallback),
    setSetting: async <T>(key: string, value: T) => {
      data[key] = value;
    },
  };
}

describe('the one hub-host setting', () => {
  it('is the index settings’ hubHost, read by every page', async () => {
    expect(await readHubHost(memoryStore())).toBe('https://huggingface.co/');
    const store = memoryStore({
      index: { embedderId: 'glove-100d', hubHost: 'http://127.0.0.1:9/' },
    });
    expect(await readHubHost(store)).toBe('http://127.0.0.1:9/');
  });

  it('is written normalised and merged, leaving the other index settings as they are', async () => {
    const store = memoryStore({ index: { embedderId: 'all-MiniLM-L6-v2', wordsPerFragment: 200 } });
    expect(await writeHubHost(store, 'hf-mirror.example')).toBe('https://hf-mirror.example/');
    expect(store.data.index).toEqual({
      embedderId: 'all-MiniLM-L6-v2',
      wordsPerFragment: 200,
      hubHost: 'https://hf-mirror.example/',
    });
    expect(await readHubHost(store)).toBe('https://hf-mirror.example/');
  });

  it('refuses an address that is not http(s), storing nothing', async () => {
    const store = memoryStore({ index: { hubHost: 'https://huggingface.co/' } });
    await expect(writeHubHost(store, 'ftp://mirror.example')).rejects.toThrow(/http\(s\)/);
    expect(await readHubHost(store)).toBe('https://huggingface.co/');
  });
});
