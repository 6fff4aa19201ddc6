import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { VitePWA } from 'vite-plugin-pwa';
import { fileURLToPath } from 'node:url';

// Cross-origin isolation: wasm threads and SharedArrayBuffer need both headers
// (../shared/PLATFORM.md). Everything the app loads comes from our own origin,
// so `require-corp` costs nothing.
const isolationHeaders = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export default defineConfig({
  plugins: [
    react(),
    // Offline after the first visit (docs/storage.md): a Workbox service worker precaches the
    // app, its workers, wasm and the word vectors. Why vite-plugin-pwa: it builds the precache
    // list from Vite's own output (hashed names), so no hand-written caching code goes stale.
    // 'prompt': a new version waits until the reader chooses to reload (never forced mid-task).
    VitePWA({
      registerType: 'prompt',
      injectRegister: null,
      manifest: false,
      workbox: {
        globPatterns: ['**/*.{js,css,html,wasm,bin,json,svg,png}'],
        globIgnores: ['**/*.map'],
        // The word vectors and the wasm runtimes are tens of MB each.
        maximumFileSizeToCacheInBytes: 64 * 1024 * 1024,
        navigateFallback: null,
        cleanupOutdatedCaches: true,
      },
    }),
  ],
  // 'mpa' makes a missing file a real 404 instead of index.html with status 200,
  // so a missing model file fails loudly rather than as a JSON parse error.
  appType: 'mpa',
  base: './',
  server: { headers: isolationHeaders },
  preview: { headers: isolationHeaders },
  worker: { format: 'es' },
  build: {
    target: 'es2022',
    sourcemap: true,
    chunkSizeWarningLimit: 4096,
    // Pages: the app, the model diagnostics page (docs/models.md), the evaluation page
    // (docs/evaluation.md) and the GGUF speed check (docs/llm.md).
    rollupOptions: {
      input: {
        main: fileURLToPath(new URL('./index.html', import.meta.url)),
        models: fileURLToPath(new URL('./models.html', import.meta.url)),
        evaluate: fileURLToPath(new URL('./evaluate.html', import.meta.url)),
        llm: fileURLToPath(new URL('./llm.html', import.meta.url)),
      },
    },
  },
});
