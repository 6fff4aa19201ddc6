/**
 * @file The llm-speed benchmark's ratios: how many times faster one engine is than another at the
 * same thread count, for reading the prompt, for writing, and for the time to the first token.
 * Pure, so the arithmetic is tested (llm-speed-ratios.test.ts).
 */

/** The fields of a result row the ratios read. */
export interface SpeedFigures {
  engine: string;
  threads: number;
  promptTokensPerS: number;
  generationTokensPerS: number;
  firstTokenMs: number;
}

export interface SpeedRatio {
  /** `faster` is … times faster than `slower`. */
  faster: string;
  slower: string;
  threads: number;
  prompt: number;
  generation: number;
  /** `slower`'s first token time over `faster`'s. */
  firstToken: number;
}

/** The pairs the benchmark reports: the first engine against the second. */
export const RATIO_PAIRS: readonly (readonly [string, string])[] = [
  ['onnx-native', 'onnx-web'],
  ['onnx-web', 'wllama'],
  ['native', 'onnx-web'],
  ['native', 'wllama'],
];

/**
 * For each pair and thread count where both engines have a row (the first row of each, so a
 * second model or build of the same engine is left out), the ratios of `a` to `b`. A figure that
 * is zero or missing on either side gives NaN rather than a ratio that means nothing.
 */
export function speedRatios(
  rows: readonly SpeedFigures[],
  pairs: readonly (readonly [string, string])[] = RATIO_PAIRS,
): SpeedRatio[] {
  const of = (engine: string, threads: number) =>
    rows.find((r) => r.engine === engine && r.threads === threads);
  const div = (x: number, y: number) => (x > 0 && y > 0 ? x / y : NaN);
  const threads = [...new Set(rows.map((r) => r.threads))].sort((x, y) => x - y);
  const out: SpeedRatio[] = [];
  for (const [a, b] of pairs) {
    for (const t of threads) {
      const ra = of(a, t);
      const rb = of(b, t);
      if (!ra || !rb) continue;
      out.push({
        faster: a,
        slower: b,
        threads: t,
        prompt: div(ra.promptTokensPerS, rb.promptTokensPerS),
        generation: div(ra.generationTokensPerS, rb.generationTokensPerS),
        firstToken: div(rb.firstTokenMs, ra.firstTokenMs),
      });
    }
  }
  return out;
}

/** "3.2x" or "–" for a ratio that could not be taken. */
export function formatRatio(x: number): string {
  return Number.isFinite(x) ? `${x.toFixed(1)}x` : '–';
}
