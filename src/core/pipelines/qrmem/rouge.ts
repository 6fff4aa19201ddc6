/**
 * @file ROUGE-L and the question pool's dedup rule (PIPELINES.md 3.2 step 3, Self-Instruct's rule).
 *
 * Written here to the rouge-score definition rather than taken from npm: the npm ROUGE packages
 * are unmaintained or tokenise differently (they keep punctuation, or stem), and the rule's
 * threshold 0.6 is only meaningful with rouge-score's own choices. Those are: lowercase; every
 * character outside [a-z0-9] is a separator; no stemming; LCS over the token lists;
 * P = LCS / |candidate|, R = LCS / |reference|, F = 2PR / (P + R) (0 when either is 0).
 * rouge_test.ts checks it against values printed by rouge-score 0.1.2 itself.
 */

/** rouge-score's default tokenizer without stemming. */
export function rougeTokens(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .split(' ')
    .filter(Boolean);
}

/** Length of the longest common subsequence (O(|a| |b|) time, O(|b|) memory). */
export function lcsLength(a: readonly string[], b: readonly string[]): number {
  let prev = new Array<number>(b.length + 1).fill(0);
  let cur = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++)
      cur[j] = a[i - 1] === b[j - 1] ? prev[j - 1] + 1 : Math.max(prev[j], cur[j - 1]);
    [prev, cur] = [cur, prev];
  }
  return prev[b.length];
}

export interface RougeScore {
  precision: number;
  recall: number;
  fmeasure: number;
}

/** ROUGE-L of `prediction` against `target` (rouge-score's `score(target, prediction)`). */
export function rougeL(target: string, prediction: string): RougeScore {
  const t = rougeTokens(target);
  const p = rougeTokens(prediction);
  if (!t.length || !p.length) return { precision: 0, recall: 0, fmeasure: 0 };
  const lcs = lcsLength(t, p);
  const precision = lcs / p.length;
  const recall = lcs / t.length;
  const fmeasure = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  return { precision, recall, fmeasure };
}

export interface PoolDecision {
  question: string;
  kept: boolean;
  /** The highest ROUGE-L F against the pool at the time it was tried, and the question it was. */
  maxRouge: number;
  closest?: string;
}

/**
 * Tries each candidate in order against the pool (which grows with every kept one): kept only
 * when its ROUGE-L F with every pooled question is below `threshold`. Order matters: of two near
 * copies, the first one tried is kept.
 */
export function dedupQuestions(
  pool: readonly string[],
  candidates: readonly string[],
  threshold = 0.6,
): { pool: string[]; decisions: PoolDecision[] } {
  const out = [...pool];
  const decisions: PoolDecision[] = [];
  for (const question of candidates) {
    let maxRouge = 0;
    let closest: string | undefined;
    for (const q of out) {
      const f = rougeL(q, question).fmeasure;
      if (f > maxRouge) [maxRouge, closest] = [f, q];
    }
    const kept = maxRouge < threshold;
    if (kept) out.push(question);
    decisions.push({ question, kept, maxRouge, ...(closest ? { closest } : {}) });
  }
  return { pool: out, decisions };
}
