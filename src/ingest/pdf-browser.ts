/**
 * @file pdf.js for the browser: the modern build (`pdfjs-dist`, whose main entry is
 * `build/pdf.mjs`) with its own worker script, served from our build by Vite (`?url`). Loaded on
 * the first PDF only, so the rest of the app does not pay for it.
 *
 * On the main thread pdf.js starts its worker from `workerSrc` (one per document). Inside a worker
 * of ours it cannot: it checks the script's origin against `window.location`, fails, and falls
 * back to loading its worker code into our thread, where that code takes over our worker's
 * `self` messages. So there we hand it a nested module worker of its own as `workerPort`
 * (shared by all documents; pdf.js does not terminate a port it was given).
 */
import workerUrl from 'pdfjs-dist/build/pdf.worker.mjs?url';
import type { PdfjsLib, PdfjsLoader } from './pdf';

let loading: Promise<PdfjsLib> | null = null;

export const loadPdfjsBrowser: PdfjsLoader = () => {
  loading ??= import('pdfjs-dist').then(
    (pdfjs) => {
      if (typeof window === 'undefined') {
        pdfjs.GlobalWorkerOptions.workerPort = new Worker(workerUrl, { type: 'module' });
      } else {
        pdfjs.GlobalWorkerOptions.workerSrc = workerUrl;
      }
      return pdfjs;
    },
    (error: unknown) => {
      // Let a later PDF try again (a flaky network while the app was being cached, say).
      loading = null;
      throw error;
    },
  );
  return loading;
};
