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

/**
 * The options of a multiple-choice question written as L-Eval QuALITY writes them, "(A) text
 * (B) text …" after the question: letter to option text, in order. Empty when there are none.
 */
export function choiceOptions(question: string, letters = 'ABCD'): Map<string, string> {
  const out = new Map<string, string>();
  const marks = [...question.matchAll(new RegExp(`\\(([${letters}])\\)`, 'g'))];
  // Only a run of marks in letter order (A, B, C, …) counts: "(B)" inside an option's own text
  // would otherwise split it.
  const run: RegExpExecArray[] = [];
  for (const m of marks) if (m[1] === letters[run.length]) run.push(m);
  run.forEach((m, i) => {
    const end = i + 1 < run.length ? run[i + 1].index : question.length;
    out.set(m[1], question.slice(m.index + m[0].length, end).trim());
  });
  return out;
}

/**
 * The option an answer quotes when it gives no letter: small models often answer with an
 * option's text alone. The answer quotes an option when, after LongBench's normalisation, it
 * contains the option's whole text, or it is a piece of the option's text of at least
 * `minWords` words (an answer cut by its output cap). Exactly one option must be quoted; none or
 * several give null. A letter parsed by `choiceLetter` always comes first (`mappedChoiceLetter`).
 */
export function quotedOption(
  prediction: string,
  options: ReadonlyMap<string, string>,
  minWords = 4,
): string | null {
  const answer = normalizeAnswer(prediction);
  if (!answer) return null;
  const quoted = [...options].filter(([, text]) => {
    const option = normalizeAnswer(text);
    if (!option) return false;
    if (` ${answer} `.includes(` ${option} `)) return true;
    return answer.split(' ').length >= minWords && ` ${option} `.includes(` ${answer} `);
  });
  return quoted.length === 1 ? quoted[0][0] : null;
}

/** The letter parsed from the answer, else the one option it quotes (`quotedOption`), else null. */
export function mappedChoiceLetter(
  prediction: string,
  options: ReadonlyMap<string, string>,
  letters = 'ABCD',
): string | null {
  return choiceLetter(prediction, letters) ?? quotedOption(prediction, options);
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
