/**
 * @file The cross-origin isolation headers the service worker supplies when the host does not.
 *
 * A page is cross-origin isolated (SharedArrayBuffer, wasm threads) when its document arrives
 * with `Cross-Origin-Opener-Policy: same-origin` and `Cross-Origin-Embedder-Policy:
 * require-corp`, and every worker script with the same COEP. A static host that cannot send
 * headers (GitHub Pages, a plain file server) leaves the app on one thread. The service worker
 * serves every response of our own origin, so it can add the two headers itself (the technique
 * of coi-serviceworker); the page reloads once when the worker first takes control
 * (src/ui/offline/isolation.ts).
 *
 * Why `require-corp` and not `credentialless`: it is what `vite preview` sends, so the page
 * behaves the same in development, in the tests and on any host; every browser with service
 * workers understands it (Safari has no `credentialless`); and it costs nothing here, because
 * everything the app loads is same-origin except model downloads, which are CORS fetches (the
 * hub and any mirror send `Access-Control-Allow-Origin`), and COEP checks only `no-cors` loads.
 *
 * No `Cross-Origin-Resource-Policy` is added: a same-origin response never needs it, and the
 * responses that would (cross-origin `no-cors` loads) are opaque to a service worker, which can
 * neither read nor change their headers. Cross-origin requests are therefore left to the
 * browser, untouched: large model downloads do not pass through the worker at all.
 */

export const ISOLATION_HEADERS: Readonly<Record<string, string>> = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

/** Whether the worker should serve `request` itself (to add the headers): our own origin only. */
export function servesWithIsolation(request: Request, origin: string): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  // A request the browser made for its own cache check: fetching it again would throw.
  if (request.cache === 'only-if-cached' && request.mode !== 'same-origin') return false;
  return new URL(request.url).origin === origin;
}

/**
 * `response` with the isolation headers it lacks; the same object when it has both, or when it
 * cannot be re-served (an opaque or redirect response, status 0). Headers the host did send
 * are kept as they are.
 */
export function withIsolationHeaders(response: Response): Response {
  if (response.status === 0 || response.type === 'opaque' || response.type === 'opaqueredirect')
    return response;
  const missing = Object.entries(ISOLATION_HEADERS).filter(([name]) => !response.headers.has(name));
  if (missing.length === 0) return response;
  const headers = new Headers(response.headers);
  for (const [name, value] of missing) headers.set(name, value);
  // These statuses may not carry a body (the Response constructor refuses one).
  const body = [204, 205, 304].includes(response.status) ? null : response.body;
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}
