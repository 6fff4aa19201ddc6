import { describe, expect, it } from 'vitest';
import { KEYS_SETTING, KeyRing, type SettingsStore } from './keys';
import { keyScope } from './settings';

function memoryStore(initial: Record<string, unknown> = {}): SettingsStore & {
  data: Record<string, unknown>;
} {
  const data: Record<string, unknown> = { ...initial };
  return {
    data,
    getSetting: async <T>(key: string, fallback: T) => (key in data ? (data[key] as T) : fallback),
    setSetting: async <T>(key: string, value: T) => {
      data[key] = structuredClone(value);
    },
  };
}

const OPENAI = keyScope('openai', 'https://api.openai.com/v1')!;
const OTHER = keyScope('openai', 'https://openrouter.ai/api/v1')!;

describe('keyScope', () => {
  it('binds a key to the engine and the origin of its base URL', () => {
    expect(OPENAI).toBe('openai https://api.openai.com');
    expect(keyScope('openai', 'https://api.openai.com/other/path')).toBe(OPENAI);
    expect(OTHER).not.toBe(OPENAI);
    expect(keyScope('anthropic', 'https://api.openai.com/v1')).not.toBe(OPENAI);
    expect(keyScope('openai', 'http://localhost:11434/v1')).toBe('openai http://localhost:11434');
    expect(keyScope('openai', 'not a url')).toBeNull();
    expect(keyScope('openai', 'file:///etc/passwd')).toBeNull();
    expect(keyScope('wllama', 'https://x.test')).toBeNull();
  });
});

describe('KeyRing', () => {
  it('keeps a key in memory only, unless remembered', async () => {
    const store = memoryStore();
    const ring = new KeyRing(store);
    await ring.set(OPENAI, 'sk-1', false);
    expect(ring.get(OPENAI)).toBe('sk-1');
    expect(ring.isRemembered(OPENAI)).toBe(false);
    expect(store.data[KEYS_SETTING]).toBeUndefined();
    // Another origin sees no key.
    expect(ring.get(OTHER)).toBe('');
    expect(ring.get(null)).toBe('');
  });

  it('remembers, reloads and forgets', async () => {
    const store = memoryStore();
    const ring = new KeyRing(store);
    await ring.set(OPENAI, 'sk-1', true);
    expect(store.data[KEYS_SETTING]).toEqual({ [OPENAI]: 'sk-1' });
    await ring.set(OTHER, 'sk-2', false);
    expect(store.data[KEYS_SETTING]).toEqual({ [OPENAI]: 'sk-1' });

    const again = new KeyRing(store);
    await again.load();
    expect(again.get(OPENAI)).toBe('sk-1');
    expect(again.isRemembered(OPENAI)).toBe(true);
    expect(again.get(OTHER)).toBe('');

    await again.forget(OPENAI);
    expect(again.get(OPENAI)).toBe('');
    expect(store.data[KEYS_SETTING]).toEqual({});
  });

  it('unticking remember removes the key from storage but keeps it for this session', async () => {
    const store = memoryStore();
    const ring = new KeyRing(store);
    await ring.set(OPENAI, 'sk-1', true);
    await ring.set(OPENAI, 'sk-1', false);
    expect(store.data[KEYS_SETTING]).toEqual({});
    expect(ring.get(OPENAI)).toBe('sk-1');
  });

  it('ignores malformed stored entries', async () => {
    const ring = new KeyRing(memoryStore({ [KEYS_SETTING]: { [OPENAI]: 42, [OTHER]: '' } }));
    await ring.load();
    expect(ring.get(OPENAI)).toBe('');
    expect(ring.isRemembered(OTHER)).toBe(false);
  });
});
