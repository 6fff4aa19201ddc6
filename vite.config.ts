import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

// Cross-origin isolation: wasm threads and SharedArrayBuffer need both headers
// (../shared/PLATFORM.md). Everything the app loads comes from our own origin,
// so `require-corp` costs nothing.
const isolationHeaders = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export default defineConfig({
  plugins: [react()],
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
    // Two pages: the app, and the model diagnostics page (docs/models.md).
    rollupOptions: {
      input: {
        main: fileURLToPath(new URL('./index.html', import.meta.url)),
        models: fileURLToPath(new URL('./models.html', import.meta.url)),
      },
    },
  },
});
