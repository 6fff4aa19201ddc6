/**
 * @file pdf.js for Node (tests, benchmarks, scripts): the legacy build, which runs without a
 * browser and sets up its worker in-process.
 */
import type { PdfjsLib, PdfjsLoader } from './pdf';

export const loadPdfjsNode: PdfjsLoader = async (): Promise<PdfjsLib> =>
  import('pdfjs-dist/legacy/build/pdf.mjs');
