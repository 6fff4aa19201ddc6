/**
 * @file L-Eval JSONL (github.com/OpenLMLab/LEval): one long document per line with its
 * questions. Fields: `input` (the document), `instructions` (questions), `outputs` (gold answers,
 * aligned with `instructions`), optional `source` and `evaluation`. Parsed into one record per
 * question with what retrieval evaluation needs: the query and the text that locates the gold.
 *
 * What the query and the gold text are, per subset (bench/quality.ts and BENCHMARKS.md):
 * - QuALITY (4-way multiple choice): query = the question stem without its options (the options
 *   would point at the passage the correct one paraphrases); gold text = the correct option's
 *   text, without its "(B) " label.
 * - Qasper (scientific_qa, open answers): query = the question; gold text = the answer, except
 *   "Yes", "No" and "Unanswerable", which locate nothing (such questions get no gold text).
 * - SFiction (sci_fi, True/False about the story's world): query = the statement, without its
 *   number and the "True or False? Answer this question ..." tail; the answer is a truth value,
 *   so the gold text is the statement itself (the passage it is about), a weaker, question-derived
 *   label, said so wherever it is reported.
 */

export type LevalSubset = 'quality' | 'qasper' | 'sfiction' | 'other';

export interface LevalQuestion {
  /** Stable id: `${subset}:${document index}:${question index}`. */
  id: string;
  subset: LevalSubset;
  documentIndex: number;
  /** The question as given (QuALITY: with its options). */
  instruction: string;
  /** The gold output as given. */
  output: string;
  /** What a retriever is asked (see the file comment). */
  query: string;
  /** Text to locate the gold passage by, or null when the answer locates nothing. */
  goldText: string | null;
  /** QuALITY: the four options' texts, in order; empty otherwise. */
  options: string[];
}

export interface LevalDocument {
  index: number;
  text: string;
  source: string;
  questions: LevalQuestion[];
}

export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: string };

/** The subset a file holds, guessed from its name (quality.jsonl, scientific_qa.jsonl, sci_fi.jsonl). */
export function levalSubsetOf(fileName: string): LevalSubset {
  const base = fileName.replace(/^.*[\\/]/, '').toLowerCase();
  if (base.startsWith('quality')) return 'quality';
  if (base.startsWith('scientific_qa')) return 'qasper';
  if (base.startsWith('sci_fi')) return 'sfiction';
  return 'other';
}

const OPTION = /^\s*\(([A-D])\)\s*/;

/** The options "(A) ..." to "(D) ..." of a QuALITY question and its stem before them. */
export function splitQualityOptions(instruction: string): { stem: string; options: string[] } {
  const at = instruction.search(/\n\s*\(A\)/);
  if (at < 0) return { stem: instruction.trim(), options: [] };
  const stem = instruction.slice(0, at).trim();
  const options = instruction
    .slice(at)
    .split(/\n\s*(?=\([A-D]\))/)
    .map((o) => o.trim())
    .filter((o) => OPTION.test(o))
    .map((o) => o.replace(OPTION, '').trim());
  return { stem, options };
}

const SFICTION_TAIL = /,?\s*True or False\?.*$/is;

function queryAndGold(
  subset: LevalSubset,
  instruction: string,
  output: string,
): Pick<LevalQuestion, 'query' | 'goldText' | 'options'> {
  if (subset === 'quality') {
    const { stem, options } = splitQualityOptions(instruction);
    const answer = output.replace(OPTION, '').trim();
    return { query: stem, goldText: answer || null, options };
  }
  if (subset === 'sfiction') {
    const statement = instruction
      .replace(/^\s*\d+\.\s*/, '')
      .replace(SFICTION_TAIL, '')
      .trim();
    return { query: statement, goldText: statement || null, options: [] };
  }
  const answer = output.trim();
  const locatesNothing = /^(yes|no|unanswerable)\.?$/i.test(answer) || answer === '';
  return { query: instruction.trim(), goldText: locatesNothing ? null : answer, options: [] };
}

/**
 * Parse an L-Eval JSONL file. A malformed line gives an error naming the line and what was
 * expected; nothing is half-parsed.
 */
export function parseLevalJsonl(text: string, subset: LevalSubset): ParseResult<LevalDocument[]> {
  const docs: LevalDocument[] = [];
  const lines = text.split(/\r?\n/);
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n].trim();
    if (line === '') continue;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      return {
        ok: false,
        error: `Line ${n + 1} is not JSON. An L-Eval file has one JSON object per line with "input", "instructions" and "outputs".`,
      };
    }
    const r = row as Record<string, unknown>;
    if (
      typeof row !== 'object' ||
      row === null ||
      typeof r.input !== 'string' ||
      !Array.isArray(r.instructions) ||
      !Array.isArray(r.outputs) ||
      !r.instructions.every((x) => typeof x === 'string') ||
      !r.outputs.every((x) => typeof x === 'string')
    ) {
      return {
        ok: false,
        error: `Line ${n + 1} is not an L-Eval record: expected "input" (text), "instructions" and "outputs" (lists of text).`,
      };
    }
    const instructions = r.instructions as string[];
    const outputs = r.outputs as string[];
    if (instructions.length !== outputs.length) {
      return {
        ok: false,
        error: `Line ${n + 1}: ${instructions.length} instructions but ${outputs.length} outputs; L-Eval pairs them one to one.`,
      };
    }
    const index = docs.length;
    docs.push({
      index,
      text: r.input,
      source: typeof r.source === 'string' ? r.source : '',
      questions: instructions.map((instruction, q) => ({
        id: `${subset}:${index}:${q}`,
        subset,
        documentIndex: index,
        instruction,
        output: outputs[q],
        ...queryAndGold(subset, instruction, outputs[q]),
      })),
    });
  }
  if (docs.length === 0) {
    return { ok: false, error: 'The file holds no L-Eval record (one JSON object per line).' };
  }
  return { ok: true, value: docs };
}
