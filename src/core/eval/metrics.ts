/**
 * @file Answer metrics of LongBench (THUDM/LongBench `metrics.py`; the same in LongRAG's
 * `src/metric.py`), after PIPELINES.md 6.2: the answer normalisation, token F1 (qaF1), strict
 * exact match, contain-EM, multiple-choice letter accuracy, and the corpus score.
 *
 * JS pitfalls handled: JS's `\b` is ASCII-only while Python's is Unicode-aware, so the articles
 * are matched with Unicode look-arounds; exactly Python's `string.punctuation` is removed (no
 * Unicode punctuation, no accent folding: "Café" and "cafe" differ).
 */

/** Python's `string.punctuation`: the 32 ASCII punctuation characters. */
const PUNCTUATION = new Set('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~');
const ARTICLES = /(?<![\p{L}\p{N}_])(a|an|the)(?![\p{L}\p{N}_])/gu;

/** LongBench's `normalize_answer`: lowercase, drop punctuation, articles to spaces, collapse whitespace. */
export function normalizeAnswer(s: string): string {
  let out = '';
  for (const ch of s.toLowerCase()) if (!PUNCTUATION.has(ch)) out += ch;
  out = out.replace(ARTICLES, ' ');
  return out.split(/\s+/u).filter(Boolean).join(' ');
}

function tokensOf(s: string): string[] {
  const n = normalizeAnswer(s);
  return n ? n.split(' ') : [];
}

/**
 * `qa_f1_score`: the multiset overlap of normalised tokens. No common token gives 0, even when
 * both sides normalise to nothing (unlike the SQuAD script).
 */
export function qaF1(prediction: string, groundTruth: string): number {
  const pred = tokensOf(prediction);
  const gold = tokensOf(groundTruth);
  const counts = new Map<string, number>();
  for (const t of gold) counts.set(t, (counts.get(t) ?? 0) + 1);
  let same = 0;
  for (const t of pred) {
    const c = counts.get(t) ?? 0;
    if (c > 0) {
      same++;
      counts.set(t, c - 1);
    }
  }
  if (same === 0) return 0;
  const precision = same / pred.length;
  const recall = same / gold.length;
  return (2 * precision * recall) / (precision + recall);
}

/** Strict exact match after normalisation. */
export function exactMatch(prediction: string, groundTruth: string): number {
  return normalizeAnswer(prediction) === normalizeAnswer(groundTruth) ? 1 : 0;
}

/** Contain-EM: the normalised gold occurs in the normalised prediction (QRMeM's comparisons). */
export function containEM(prediction: string, groundTruth: string): number {
  const gold = normalizeAnswer(groundTruth);
  if (!gold) return 0;
  return ` ${normalizeAnswer(prediction)} `.includes(` ${gold} `) ? 1 : 0;
}

/**
 * The option letter a multiple-choice answer picks: "(B)", "B.", "Answer: B"; null when none. A
 * parenthesised letter wins; otherwise the first standalone capital, so a sentence opening with
 * the article "A" reads as option A (prompts ask for the letter alone).
 */
export function choiceLetter(prediction: string, letters = 'ABCD'): string | null {
  const set = `[${letters}]`;
  const paren = new RegExp(`\\((${set})\\)`).exec(prediction);
  if (paren) return paren[1];
  const bare = new RegExp(`(?:^|[^A-Za-z])(${set})(?=[^A-Za-z]|$)`).exec(prediction.trim());
  return bare ? bare[1] : null;
}

export function letterAccuracy(prediction: string, goldLetter: string): number {
  return choiceLetter(prediction) === goldLetter.toUpperCase() ? 1 : 0;
}

export type AnswerMetric = (prediction: string, groundTruth: string) => number;

/**
 * LongBench's corpus score: per question the best score over its gold answers, averaged over
 * questions, x100, rounded to 2 decimals. Predictions are used raw.
 */
export function corpusScore(
  predictions: readonly string[],
  golds: ReadonlyArray<readonly string[]>,
  metric: AnswerMetric = qaF1,
): number {
  if (predictions.length === 0) return 0;
  let sum = 0;
  predictions.forEach((p, i) => {
    let best = 0;
    for (const g of golds[i] ?? []) best = Math.max(best, metric(p, g));
    sum += best;
  });
  return Math.round((sum / predictions.length) * 100 * 100) / 100;
}
