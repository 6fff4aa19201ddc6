/**
 * @file Where every benchmark writes: bench/results/<section>.json, with the machine it ran on.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const resultsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results');

/** The machine a result was measured on. */
export function machine() {
  const cpus = os.cpus();
  return {
    node: process.version,
    cpu: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    date: new Date().toISOString(),
  };
}

/** Write a section's results with the machine; returns the file's path. */
export function writeResults(section: string, results: unknown): string {
  mkdirSync(resultsDir, { recursive: true });
  const file = path.join(resultsDir, `${section}.json`);
  writeFileSync(file, `${JSON.stringify({ section, ...machine(), results }, null, 2)}\n`);
  return file;
}
