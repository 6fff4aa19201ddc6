import { describe, expect, it } from 'vitest';
import { ggufUrl, loadWllama, sourceName } from './wllama';

describe('GGUF sources', () => {
  it('takes a URL as is, and resolves the hub shorthand', () => {
    expect(ggufUrl(' https://example.test/m/model.gguf ')).toBe(
      'https://example.test/m/model.gguf',
    );
    expect(ggufUrl('ggml-org/models/tinyllamas/stories260K.gguf')).toBe(
      'https://huggingface.co/ggml-org/models/resolve/main/tinyllamas/stories260K.gguf',
    );
    expect(ggufUrl('owner/repo/model.gguf', 'http://127.0.0.1:9/')).toBe(
      'http://127.0.0.1:9/owner/repo/resolve/main/model.gguf',
    );
    expect(ggufUrl('owner/model.gguf')).toBeNull();
    expect(ggufUrl('owner/repo/readme.md')).toBeNull();
    expect(ggufUrl('')).toBeNull();
  });

  it('names a source by its file', () => {
    expect(sourceName({ kind: 'url', url: 'https://x.test/a/b/My%20Model.gguf?download=1' })).toBe(
      'My Model.gguf',
    );
    expect(sourceName({ kind: 'file', file: new File(['GGUF'], 'local.gguf') })).toBe('local.gguf');
  });

  it('refuses an empty file or one that is not GGUF, before loading anything', async () => {
    const empty = await loadWllama({ kind: 'file', file: new File([], 'empty.gguf') });
    expect(empty).toMatchObject({ ok: false, error: { code: 'model-load' } });
    const text = await loadWllama({ kind: 'file', file: new File(['hello world'], 'notes.gguf') });
    expect(text.ok).toBe(false);
    if (!text.ok) expect(text.error.message).toMatch(/not a GGUF model file/);
  });
});
