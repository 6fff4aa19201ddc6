/**
 * @file The benchmark data sets' folder, for tests, benchmarks and the e2e specs: one place that
 * says where it is and fails loudly when a file is missing.
 *
 * The folder is `../shared/datasets` next to the repository (read in place, never copied into
 * it), or FRAGREL_DATASETS_DIR where it lies elsewhere (FRAGREL_SHARED_DIR/datasets is read too,
 * the older name of the same setting). CI has it, so a missing file is a failure that says what
 * to fetch, never a silent skip: a test of meaning that skips proves nothing.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The data sets' folder (absolute). */
export function datasetsDir(): string {
  if (process.env.FRAGREL_DATASETS_DIR) return resolve(process.env.FRAGREL_DATASETS_DIR);
  if (process.env.FRAGREL_SHARED_DIR) return resolve(process.env.FRAGREL_SHARED_DIR, 'datasets');
  return join(root, '..', 'shared', 'datasets');
}

/** Where a data set file would be, whether or not it is there (for messages and benches). */
export function datasetLocation(...parts: string[]): string {
  return join(datasetsDir(), ...parts);
}

/** The absolute path of a data set file; throws, saying where it was looked for, when missing. */
export function datasetPath(...parts: string[]): string {
  const path = datasetLocation(...parts);
  if (!existsSync(path)) {
    throw new Error(
      `Data set file missing: ${path}. Tests read the benchmark data sets from ../shared/datasets ` +
        `next to the repository (each with its SOURCE.md), or from FRAGREL_DATASETS_DIR; CI has ` +
        `them, so a missing one fails rather than skips.`,
    );
  }
  return path;
}
