/**
 * @file Citations in a model's answer: `[1]`, `[1, 3]`, `[1][2]`, `[1-3]` (also `[1–3]`, `[1;2]`)
 * name the prompt's labels, which stand for fragments (see prompt.ts, `PromptSource`).
 *
 * Labels outside 1..count are ignored; a bracket naming none in range stays plain text, so
 * "[42]" in an answer about 5 excerpts is not a link, and neither is "[note]".
 */

export type AnswerPiece =
  | { kind: 'text'; text: string }
  /** A bracket as written (`text`) and the labels it names, in order, without repeats. */
  | { kind: 'cite'; text: string; labels: number[] };

// A bracket holding numbers and ranges separated by commas or semicolons.
const CITATION = /\[\s*\d+(?:\s*[-–—]\s*\d+)?(?:\s*[,;]\s*\d+(?:\s*[-–—]\s*\d+)?)*\s*\]/g;

/** The labels one bracket names, in range 1..count. */
export function labelsOf(bracket: string, count: number): number[] {
  const out: number[] = [];
  const seen = new Set<number>();
  const add = (n: number) => {
    if (n >= 1 && n <= count && !seen.has(n)) {
      seen.add(n);
      out.push(n);
    }
  };
  for (const part of bracket.slice(1, -1).split(/[,;]/)) {
    const [a, b] = part.split(/[-–—]/).map((x) => Number.parseInt(x.trim(), 10));
    if (b === undefined) {
      add(a);
      continue;
    }
    // Clamp before looping: "[1-99999]" costs no more than count steps.
    const from = Math.max(1, Math.min(a, b));
    const to = Math.min(count, Math.max(a, b));
    for (let n = from; n <= to; n++) add(n);
  }
  return out;
}

/** Split an answer into text and citations; adjacent text is merged. */
export function splitCitations(answer: string, count: number): AnswerPiece[] {
  const pieces: AnswerPiece[] = [];
  const pushText = (text: string) => {
    if (!text) return;
    const last = pieces[pieces.length - 1];
    if (last?.kind === 'text') last.text += text;
    else pieces.push({ kind: 'text', text });
  };
  let at = 0;
  for (const match of answer.matchAll(CITATION)) {
    const labels = labelsOf(match[0], count);
    pushText(answer.slice(at, match.index));
    if (labels.length) pieces.push({ kind: 'cite', text: match[0], labels });
    else pushText(match[0]);
    at = match.index + match[0].length;
  }
  pushText(answer.slice(at));
  return pieces;
}

/** Every label the answer cites, in order of first appearance. */
export function citedLabels(answer: string, count: number): number[] {
  const seen = new Set<number>();
  for (const piece of splitCitations(answer, count)) {
    if (piece.kind === 'cite') for (const l of piece.labels) seen.add(l);
  }
  return [...seen];
}

/**
 * The fragment indices an answer cites, in order of first appearance. `indexOfLabel[l - 1]` is
 * the fragment that label l stands for.
 */
export function citedFragments(answer: string, indexOfLabel: readonly number[]): number[] {
  return citedLabels(answer, indexOfLabel.length).map((l) => indexOfLabel[l - 1]);
}
