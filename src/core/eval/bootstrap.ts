/**
 * @file Paired bootstrap over questions: the change of a configuration against a baseline scored
 * on the same questions, with a percentile 95% interval. Pure and seeded, so a benchmark run and
 * the in-browser evaluation page give the same interval for the same numbers.
 */
import { prng } from '../prng';

export interface PairedDelta {
  /** Mean over questions of (variant - baseline). */
  mean: number;
  /** Percentile 95% interval of that mean over `resamples` resamples of the questions. */
  ci95: [number, number];
  /** Questions the variant scored higher / lower than the baseline on. */
  better: number;
  worse: number;
}

export interface BootstrapOptions {
  resamples: number;
  seed: number;
}

export const defaultBootstrapOptions: Readonly<BootstrapOptions> = Object.freeze({
  resamples: 2000,
  seed: 20240601,
});

/**
 * Paired bootstrap of mean(variant - baseline): questions are resampled with replacement, the
 * pairs kept together, so per-question difficulty cancels out (both arms saw the same draws).
 */
export function pairedBootstrap(
  variant: readonly number[],
  baseline: readonly number[],
  options: Partial<BootstrapOptions> = {},
): PairedDelta {
  const { resamples, seed } = { ...defaultBootstrapOptions, ...options };
  if (variant.length !== baseline.length) {
    throw new Error(
      `Evaluation: ${variant.length} variant scores but ${baseline.length} baseline scores; a paired comparison needs the same questions.`,
    );
  }
  if (!(Number.isInteger(resamples) && resamples >= 1)) {
    throw new Error(`Evaluation: resamples must be a whole number >= 1, got ${resamples}.`);
  }
  const n = variant.length;
  if (n === 0) return { mean: 0, ci95: [0, 0], better: 0, worse: 0 };
  const d = variant.map((v, i) => v - baseline[i]);
  const rng = prng(seed);
  const means = new Float64Array(resamples);
  for (let b = 0; b < resamples; b++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += d[Math.min(n - 1, Math.floor(rng() * n))];
    means[b] = s / n;
  }
  means.sort();
  const lo = means[Math.floor(0.025 * resamples)];
  const hi = means[Math.min(resamples - 1, Math.ceil(0.975 * resamples) - 1)];
  return {
    mean: d.reduce((s, x) => s + x, 0) / n,
    ci95: [lo, hi],
    better: d.filter((x) => x > 1e-12).length,
    worse: d.filter((x) => x < -1e-12).length,
  };
}
