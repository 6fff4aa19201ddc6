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

// A deployment's model mirror (docs/deploy.md): checked here so a bad value fails the build
// rather than every download; read in the app by src/models/settings.ts.
const modelHub = process.env.VITE_MODEL_HUB?.trim();
if (modelHub && !/^(https?:\/\/[^/]|\/)/i.test(modelHub)) {
  throw new Error(
    `VITE_MODEL_HUB="${modelHub}" must be an http(s) URL or a path on the app's origin ` +
      `starting with "/" (e.g. https://models.example.org/ or /models/).`,
  );
}

export default defineConfig({
  plugins: [
    react(),
    // Offline after the first visit (docs/storage.md): a Workbox service worker precaches the
    // app, its workers, wasm and the word vectors. Why vite-plugin-pwa: it builds the precache
    // list from Vite's own output (hashed names), so no hand-written caching code goes stale.
    // 'prompt': a new version waits until the reader chooses to reload (never forced mid-task).
    // injectManifest (our own src/sw/sw.ts, still Workbox's precaching) rather than generateSW:
    // the worker also adds the cross-origin isolation headers a static host does not send
    // (docs/deploy.md), and generateSW has no place to change responses. The output keeps the
    // name sw.js, so a deployment that had the generated worker updates in place.
    VitePWA({
      registerType: 'prompt',
      injectRegister: null,
      strategies: 'injectManifest',
      srcDir: 'src/sw',
      filename: 'sw.ts',
      // The icons are in the glob above already; the plugin adds manifest.webmanifest itself.
      includeManifestIcons: false,
      injectManifest: {
        globPatterns: ['**/*.{js,css,html,wasm,bin,json,svg,png}'],
        globIgnores: ['**/*.map'],
        // The word vectors and the wasm runtimes are tens of MB each.
        maximumFileSizeToCacheInBytes: 64 * 1024 * 1024,
      },
      // Installable (docs/deploy.md): every URL relative to the manifest, which sits beside
      // index.html, so the installed app works under whatever path the host gives it.
      manifest: {
        id: './',
        name: 'FragRel Lens',
        short_name: 'FragRel Lens',
        description:
          'Ask questions of one long text, in your browser, and see why each passage was picked.',
        start_url: './',
        scope: './',
        display: 'standalone',
        background_color: '#ffffff',
        theme_color: '#1f4e8c',
        icons: [
          { src: 'icons/icon-192.png', sizes: '192x192', type: 'image/png' },
          { src: 'icons/icon-512.png', sizes: '512x512', type: 'image/png' },
          {
            src: 'icons/icon-maskable-512.png',
            sizes: '512x512',
            type: 'image/png',
            purpose: 'maskable',
          },
          { src: 'icons/icon.svg', sizes: 'any', type: 'image/svg+xml' },
        ],
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
