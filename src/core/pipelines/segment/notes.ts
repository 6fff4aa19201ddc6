/**
 * @file SEGMENT+'s notes: parsing the `{"Evidence", "Reasoning"}` JSON a model writes (repaired
 * with `jsonrepair`, which fixes the quotes, commas and brackets small models get wrong), the
 * rule filter, the judge's reply, and the plain serialisation the merge and answer prompts read
 * (PIPELINES.md 4.1 steps 2-5).
 *
 * jsonrepair (MIT, no dependencies, maintained) rather than our own repair: the failures of
 * small models are many (single quotes, trailing commas, unclosed strings and objects, Python
 * literals, code fences) and the library covers them with tests we would otherwise rewrite.
 */
import { jsonrepair } from 'jsonrepair';

export interface Note {
  evidence: string;
  reasoning: string;
}

export type NoteParse =
  { ok: true; note: Note; how: 'json' | 'repaired' | 'lines' } | { ok: false; reason: string };

/** A string, or a list of strings (models often list their quotes), as one text. */
function textOf(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.join('\n');
  return null;
}

/** Case-insensitive key lookup: models write "evidence" as often as "Evidence". */
function field(obj: Record<string, unknown>, name: string): unknown {
  const key = Object.keys(obj).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : obj[key];
}

/**
 * A note written as labelled lines, `Evidence: ...` then `Reasoning: ...` (the 'lines' format, and
 * what some models write when asked for JSON): each part runs to the next label or the end.
 */
function parseLines(reply: string): Note | null {
  const label = /^[\s*#>-]*"?(evidence|reasoning)"?\s*:\**[ \t]*/gim;
  const marks = [...reply.matchAll(label)];
  if (!marks.length) return null;
  const note: Note = { evidence: '', reasoning: '' };
  marks.forEach((m, i) => {
    const end = i + 1 < marks.length ? marks[i + 1].index : reply.length;
    const text = reply.slice(m.index + m[0].length, end).trim();
    const key = m[1].toLowerCase() === 'evidence' ? 'evidence' : 'reasoning';
    note[key] = note[key] ? `${note[key]}\n${text}` : text;
  });
  return note;
}

/**
 * The first `{...}` block of a reply, parsed, repaired when it must be; a reply without one is
 * read as labelled lines.
 */
export function parseNote(reply: string): NoteParse {
  const open = reply.indexOf('{');
  if (open < 0) {
    const lines = parseLines(reply);
    return lines
      ? { ok: true, how: 'lines', note: lines }
      : { ok: false, reason: 'no JSON object in the reply' };
  }
  const close = reply.lastIndexOf('}');
  const block = close > open ? reply.slice(open, close + 1) : reply.slice(open);
  let parsed: unknown;
  let how: 'json' | 'repaired' = 'json';
  try {
    parsed = JSON.parse(block);
  } catch {
    try {
      parsed = JSON.parse(jsonrepair(block));
      how = 'repaired';
    } catch {
      return { ok: false, reason: 'the JSON could not be repaired' };
    }
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    return { ok: false, reason: 'the reply is not a JSON object' };
  const obj = parsed as Record<string, unknown>;
  const evidence = textOf(field(obj, 'Evidence'));
  const reasoning = textOf(field(obj, 'Reasoning'));
  if (evidence === null && reasoning === null)
    return { ok: false, reason: 'neither "Evidence" nor "Reasoning" is a string' };
  return { ok: true, how, note: { evidence: evidence ?? '', reasoning: reasoning ?? '' } };
}

/** The documented fallback: the raw reply as Reasoning, no Evidence (the rule filter removes it). */
export function fallbackNote(reply: string): Note {
  return { evidence: '', reasoning: reply.trim() };
}

const NO_INFORMATION = /no (relevant )?information|not mentioned|does not (contain|provide)/i;

/** The deterministic pre-filter: null to keep, else why the note is removed. */
export function ruleFilter(note: Note): string | null {
  if (!note.evidence.trim()) return 'no evidence';
  if (NO_INFORMATION.test(note.reasoning))
    return 'the reasoning says the segment has no information';
  return null;
}

/** The judge's reply: `Keep` or `Remove`; an unclear reply keeps the note (redundancy is harmless). */
export function parseJudge(reply: string): { keep: boolean; clear: boolean } {
  const remove = /\bremove\b/i.test(reply);
  const keep = /\bkeep\b/i.test(reply);
  if (remove && !keep) return { keep: false, clear: true };
  if (keep && !remove) return { keep: true, clear: true };
  return { keep: true, clear: false };
}

/** PIPELINES.md 4.1 step 5, "Recommended": plain blocks, in segment order. */
export function serializeNote(note: Note): string {
  return `Evidence: ${note.evidence.trim()}\nReasoning: ${note.reasoning.trim()}`;
}

/** Scores of the paper's GPT-4 judge, for evaluation: the integer after `Score =`, or null. */
export function parseJudgeScore(reply: string): number | null {
  const m = /Score\s*=\s*(\d+)/i.exec(reply);
  return m ? Number(m[1]) : null;
}
