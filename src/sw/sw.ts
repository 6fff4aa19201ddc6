/// <reference lib="webworker" />
/**
 * @file The app's service worker (built by vite-plugin-pwa's injectManifest into `sw.js`).
 *
 * Two jobs:
 * - **Offline after the first visit** (docs/storage.md): Workbox precaches the built app, its
 *   workers, wasm runtimes and word vectors from the list the build injects (`__WB_MANIFEST`),
 *   and serves them from the cache. A new version waits until the page asks it to take over
 *   (`SKIP_WAITING`, sent when the reader presses "Reload to update").
 * - **Threads on any static host** (docs/deploy.md): every response of our own origin, from the
 *   cache or the network, gets the cross-origin isolation headers the host did not send
 *   (isolation-headers.ts), so the page is cross-origin isolated under the worker's control.
 *
 * Why injectManifest and our own source rather than generateSW: generateSW's options have no
 * place to change responses, and the headers must reach precached responses too (the app opens
 * offline from the cache and should keep its threads there). Workbox still does the caching.
 */
import { addPlugins, cleanupOutdatedCaches, precacheAndRoute } from 'workbox-precaching';
import { registerRoute } from 'workbox-routing';
import { NetworkOnly } from 'workbox-strategies';
import type { WorkboxPlugin } from 'workbox-core';
import { servesWithIsolation, withIsolationHeaders } from './isolation-headers';

declare const self: ServiceWorkerGlobalScope & {
  __WB_MANIFEST: Array<{ url: string; revision: string | null }>;
};

const isolation: WorkboxPlugin = {
  handlerWillRespond: async ({ response }) => withIsolationHeaders(response),
};

// Precached files: served from the cache with the headers added on the way out.
addPlugins([isolation]);
precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();

// Anything else of our own origin (a page or file not in the precache, a same-origin model
// mirror): from the network, with the headers. Cross-origin requests are not routed, so the
// browser handles them as if there were no worker.
registerRoute(
  ({ request }) => servesWithIsolation(request, self.location.origin),
  new NetworkOnly({ plugins: [isolation] }),
);

self.addEventListener('message', (event) => {
  if ((event.data as { type?: unknown } | null)?.type === 'SKIP_WAITING') void self.skipWaiting();
});
