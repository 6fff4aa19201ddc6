import { describe, expect, it, vi } from 'vitest';
import { DEFAULT_HUB_HOST, hubHostFromBuild, normaliseHost } from './settings';

describe('hubHostFromBuild (a deployment pointed at a model mirror)', () => {
  const origin = 'https://someone.github.io';

  it('is huggingface.co when the build names no mirror', () => {
    expect(hubHostFromBuild(undefined, origin)).toBe('https://huggingface.co/');
    expect(hubHostFromBuild('  ', origin)).toBe('https://huggingface.co/');
    // This test run's build names none.
    expect(DEFAULT_HUB_HOST).toBe('https://huggingface.co/');
  });

  it('takes a mirror URL, ending it in one slash', () => {
    expect(hubHostFromBuild('https://models.example.org/hub', origin)).toBe(
      'https://models.example.org/hub/',
    );
  });

  it('resolves a path against the app origin (a mirror beside the app)', () => {
    expect(hubHostFromBuild('/lens/models/', origin)).toBe(
      'https://someone.github.io/lens/models/',
    );
  });

  it('falls back to huggingface.co on a value that is not an http(s) URL, saying so', () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    expect(hubHostFromBuild('ftp://models.example.org/', origin)).toBe('https://huggingface.co/');
    expect(error).toHaveBeenCalledWith(expect.stringContaining('VITE_MODEL_HUB ignored'));
    error.mockRestore();
  });

  it('leaves normaliseHost as it was: an empty host is the default', () => {
    expect(normaliseHost('')).toBe(DEFAULT_HUB_HOST);
    expect(normaliseHost('huggingface.co')).toBe('https://huggingface.co/');
  });
});
