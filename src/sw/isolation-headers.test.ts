import { describe, expect, it } from 'vitest';
import { servesWithIsolation, withIsolationHeaders } from './isolation-headers';

const ORIGIN = 'https://example.github.io';

describe('withIsolationHeaders', () => {
  it('adds COOP and COEP to a response that has neither, keeping status, body and headers', async () => {
    const original = new Response('<!doctype html>', {
      status: 200,
      statusText: 'OK',
      headers: { 'Content-Type': 'text/html', ETag: '"abc"' },
    });
    const served = withIsolationHeaders(original);
    expect(served.headers.get('Cross-Origin-Opener-Policy')).toBe('same-origin');
    expect(served.headers.get('Cross-Origin-Embedder-Policy')).toBe('require-corp');
    expect(served.headers.get('Content-Type')).toBe('text/html');
    expect(served.headers.get('ETag')).toBe('"abc"');
    expect(served.status).toBe(200);
    expect(served.statusText).toBe('OK');
    expect(await served.text()).toBe('<!doctype html>');
    // No resource policy: a same-origin response does not need one.
    expect(served.headers.has('Cross-Origin-Resource-Policy')).toBe(false);
  });

  it('keeps what the host sent and fills in only the missing header', () => {
    const original = new Response('x', {
      headers: { 'Cross-Origin-Embedder-Policy': 'credentialless' },
    });
    const served = withIsolationHeaders(original);
    expect(served.headers.get('Cross-Origin-Embedder-Policy')).toBe('credentialless');
    expect(served.headers.get('Cross-Origin-Opener-Policy')).toBe('same-origin');
  });

  it('returns the same response when the host sent both', () => {
    const original = new Response('x', {
      headers: {
        'Cross-Origin-Opener-Policy': 'same-origin',
        'Cross-Origin-Embedder-Policy': 'require-corp',
      },
    });
    expect(withIsolationHeaders(original)).toBe(original);
  });

  it('keeps a partial response (a byte range of a same-origin model) as it is, with the headers', async () => {
    const original = new Response('bytes', {
      status: 206,
      headers: { 'Content-Range': 'bytes 0-4/100' },
    });
    const served = withIsolationHeaders(original);
    expect(served.status).toBe(206);
    expect(served.headers.get('Content-Range')).toBe('bytes 0-4/100');
    expect(await served.text()).toBe('bytes');
  });

  it('gives a body-less status no body', () => {
    const served = withIsolationHeaders(new Response(null, { status: 204 }));
    expect(served.status).toBe(204);
    expect(served.headers.get('Cross-Origin-Embedder-Policy')).toBe('require-corp');
  });

  it('passes a response it cannot re-serve (status 0) through untouched', () => {
    const opaque = Response.error(); // type 'error', status 0: stands in for what cannot be read
    expect(withIsolationHeaders(opaque)).toBe(opaque);
  });
});

describe('servesWithIsolation', () => {
  const request = (url: string, init: RequestInit = {}) => new Request(url, init);

  it('serves GET and HEAD of our own origin, pages and files alike', () => {
    expect(servesWithIsolation(request(`${ORIGIN}/app/`), ORIGIN)).toBe(true);
    expect(servesWithIsolation(request(`${ORIGIN}/app/assets/x.wasm`), ORIGIN)).toBe(true);
    expect(
      servesWithIsolation(request(`${ORIGIN}/app/models/x.gguf`, { method: 'HEAD' }), ORIGIN),
    ).toBe(true);
  });

  it('leaves other origins (hub and mirror downloads) to the browser', () => {
    expect(
      servesWithIsolation(
        request('https://huggingface.co/org/model/resolve/main/model.gguf'),
        ORIGIN,
      ),
    ).toBe(false);
    expect(servesWithIsolation(request('http://127.0.0.1:8080/x'), 'http://127.0.0.1:4173')).toBe(
      false,
    );
  });

  it('leaves other methods alone', () => {
    expect(
      servesWithIsolation(request(`${ORIGIN}/api`, { method: 'POST', body: 'x' }), ORIGIN),
    ).toBe(false);
  });
});
