/**
 * @file Node-side helper: the static vectors distilled from MiniLM (scripts/distill-static.mjs),
 * read from disk and decoded with the pure core loader, as test/glove.ts does for GloVe. The
 * asset needs the real weights: when it is missing this builds it once (the GloVe asset first),
 * and throws with what to do when the weights are missing too.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  decodeStaticModel,
  DISTILLED_MODEL_PATH,
  type StaticModel,
} from '../src/core/embed/static';
import { ensureGloveAsset } from './glove';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Absolute path of the generated asset. */
export const distilledAssetPath = join(root, 'public', DISTILLED_MODEL_PATH);

let cached: StaticModel | undefined;

/** The decoded distilled model (built first if it is missing). */
export function loadDistilledFromDisk(): StaticModel {
  if (cached) return cached;
  if (!existsSync(distilledAssetPath)) {
    ensureGloveAsset();
    execFileSync(process.execPath, [join(root, 'scripts/distill-static.mjs')], {
      cwd: root,
      stdio: 'inherit',
    });
  }
  cached = decodeStaticModel(readFileSync(distilledAssetPath));
  return cached;
}
