import { describe, expect, it } from 'vitest';
import { AbortError } from '../core/abort';
import { ModelLoadError, describeLoadError } from './load-errors';

const ctx = { hubId: 'org/model', host: 'http://127.0.0.1:9/', device: 'wasm', dtype: 'q8' };

function notFound(url: string): Error {
  const e = new Error(`Could not locate file: "${url}".`) as Error & { status: number };
  e.name = 'ModelFileNotFoundError';
  e.status = 404;
  return e;
}

describe('describeLoadError', () => {
  it('names the model, the host, the missing file and what to do on a 404', () => {
    const e = describeLoadError(
      notFound('http://127.0.0.1:9/org/model/resolve/main/config.json'),
      ctx,
    );
    expect(e).toBeInstanceOf(ModelLoadError);
    expect((e as ModelLoadError).reason).toBe('not-found');
    expect(e.message).toContain('"org/model"');
    expect(e.message).toContain('http://127.0.0.1:9/');
    expect(e.message).toContain('config.json is not there (HTTP 404)');
    expect(e.message).toMatch(/check the model id.*hub host.*offline static embedder/i);
  });

  it('suggests another dtype when only the weights are missing', () => {
    const e = describeLoadError(
      notFound('http://127.0.0.1:9/org/model/resolve/main/onnx/model_quantized.onnx'),
      ctx,
    );
    expect(e.message).toContain('onnx/model_quantized.onnx');
    expect(e.message).toContain('q8 weights; try another dtype');
  });

  it('calls a failed fetch a network error of the host', () => {
    const e = describeLoadError(new TypeError('Failed to fetch'), ctx);
    expect((e as ModelLoadError).reason).toBe('network');
    expect(e.message).toContain('the hub host http://127.0.0.1:9/ did not answer');
  });

  it('recognises an HTML page where JSON was expected', () => {
    const e = describeLoadError(new SyntaxError(`Unexpected token '<', "<!doctype "...`), ctx);
    expect((e as ModelLoadError).reason).toBe('format');
  });

  it('keeps other failures, with model, device and dtype', () => {
    const e = describeLoadError(new Error('Unsupported model type "t5"'), ctx);
    expect((e as ModelLoadError).reason).toBe('runtime');
    expect(e.message).toBe(
      'The model "org/model" from http://127.0.0.1:9/ could not be started on wasm (q8): ' +
        'Unsupported model type "t5"',
    );
  });

  it('passes AbortErrors through', () => {
    const abort = new AbortError();
    expect(describeLoadError(abort, ctx)).toBe(abort);
  });
});
