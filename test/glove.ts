/**
 * @file Node-side helper for tests and benchmarks: read the static GloVe asset from disk and
 * decode it with the pure core loader. The browser fetches the same file from
 * `STATIC_MODEL_PATH` instead; core itself never touches the file system.
 *
 * The asset is generated, not committed: `npm run assets` writes it (and `test:unit`, `bench`,
 * `build` and `dev` run that first). When it is missing, for instance under a bare
 * `npx vitest run`, this helper runs the build script once itself (about 5 s).
 */

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  decodeStaticModel,
  embedTexts,
  STATIC_MODEL_PATH,
  type StaticModel,
} from '../src/core/embed/static';
import type { PipelineEmbedder } from '../src/core/pipelines/types';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Absolute path of the generated asset. */
export const gloveAssetPath = join(root, 'public', STATIC_MODEL_PATH);

let cached: StaticModel | undefined;

/** Build the asset if it is missing (as `npm run assets` would). */
export function ensureGloveAsset(): void {
  if (existsSync(gloveAssetPath)) return;
  execFileSync(
    process.execPath,
    ['--max-old-space-size=3072', join(root, 'scripts/build-glove-asset.mjs')],
    { cwd: root, stdio: 'inherit' },
  );
}

/** Build the asset if it is missing, then read and decode it (once per process). */
export function loadGloveFromDisk(): StaticModel {
  if (cached) return cached;
  ensureGloveAsset();
  cached = decodeStaticModel(readFileSync(gloveAssetPath));
  return cached;
}

/** The offline GloVe vectors as a pipeline's embedder, as the app passes the static one. */
export function glovePipelineEmbedder(): PipelineEmbedder {
  const model = loadGloveFromDisk();
  return {
    name: 'static GloVe 100d',
    embed: (texts) => {
      const v = embedTexts(model, texts);
      return Promise.resolve(
        Array.from({ length: v.count }, (_, i) => v.data.subarray(i * v.dim, (i + 1) * v.dim)),
      );
    },
  };
}

/** The data sets' helper (test/datasets.ts) under the name the tests have long used. */
export { datasetPath as sharedDatasetPath } from './datasets';
