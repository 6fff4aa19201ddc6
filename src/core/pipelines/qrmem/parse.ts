/**
 * @file QRMeM's replies: JSON found in a reply and repaired with jsonrepair (the library the
 * other pipelines use, see ../segment/notes.ts for why), and the retry schedule on a parse
 * failure (PIPELINES.md 3.4, MemWalker's recipe): the first attempt at temperature 0, then up to
 * `maxRetries` more at 0.7. Every attempt is a call of the trace with what its parse did.
 */
import { jsonrepair } from 'jsonrepair';
import { userMessage } from '../messages';
import type { StepHandle, TraceRecorder } from '../trace';

export type Parsed<T> =
  { ok: true; value: T; how: 'json' | 'repaired' } | { ok: false; reason: string };

/** The first JSON block (object or list, as `open` says) of a reply, repaired when it must be. */
export function parseJsonBlock(reply: string, open: '{' | '['): Parsed<unknown> {
  const close = open === '{' ? '}' : ']';
  const start = reply.indexOf(open);
  if (start < 0)
    return { ok: false, reason: `no JSON ${open === '{' ? 'object' : 'list'} in the reply` };
  const end = reply.lastIndexOf(close);
  const block = end > start ? reply.slice(start, end + 1) : reply.slice(start);
  try {
    return { ok: true, value: JSON.parse(block), how: 'json' };
  } catch {
    try {
      return { ok: true, value: JSON.parse(jsonrepair(block)), how: 'repaired' };
    } catch {
      return { ok: false, reason: 'the JSON could not be repaired' };
    }
  }
}

/** Case-insensitive key lookup: small models write "Answerable" as often as "answerable". */
export function field(obj: Record<string, unknown>, name: string): unknown {
  const key = Object.keys(obj).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : obj[key];
}

/** A JSON list of strings (entity names, questions). */
export function parseStringList(reply: string): Parsed<string[]> {
  const p = parseJsonBlock(reply, '[');
  if (!p.ok) return p;
  if (!Array.isArray(p.value)) return { ok: false, reason: 'the reply is not a JSON list' };
  const value = p.value
    .map((v) =>
      typeof v === 'string'
        ? v
        : v && typeof v === 'object'
          ? String(Object.values(v)[0] ?? '')
          : '',
    )
    .map((s) => s.trim())
    .filter(Boolean);
  return { ok: true, value, how: p.how };
}

export interface RelationTriple {
  head: string;
  relation: string;
  tail: string;
}

/** A JSON list of `{head, relation, tail}`; entries missing a field are skipped. */
export function parseRelations(reply: string): Parsed<RelationTriple[]> {
  const p = parseJsonBlock(reply, '[');
  if (!p.ok) return p;
  if (!Array.isArray(p.value)) return { ok: false, reason: 'the reply is not a JSON list' };
  const value: RelationTriple[] = [];
  for (const v of p.value) {
    if (!v || typeof v !== 'object') continue;
    const o = v as Record<string, unknown>;
    const [head, relation, tail] = ['head', 'relation', 'tail'].map((k) => field(o, k));
    if (typeof head === 'string' && typeof relation === 'string' && typeof tail === 'string')
      value.push({ head: head.trim(), relation: relation.trim(), tail: tail.trim() });
  }
  return { ok: true, value, how: p.how };
}

export interface JudgeVerdict {
  answerable: boolean;
  answer: string;
  reason: string;
  /** Entity Trial only: the entity set the model asks for next. */
  entities?: string[];
}

/** `{"answerable": bool, "answer": str, "reason": str}` (PIPELINES.md 3.3 (c) step 2). */
export function parseJudge(reply: string): Parsed<JudgeVerdict> {
  const p = parseJsonBlock(reply, '{');
  if (!p.ok) return p;
  if (!p.value || typeof p.value !== 'object' || Array.isArray(p.value))
    return { ok: false, reason: 'the reply is not a JSON object' };
  const o = p.value as Record<string, unknown>;
  const a = field(o, 'answerable');
  const answerable = a === true || (typeof a === 'string' && /^(true|yes)$/i.test(a.trim()));
  if (a === undefined) return { ok: false, reason: 'no "answerable" field' };
  const text = (k: string) => {
    const v = field(o, k);
    return typeof v === 'string' ? v : v == null ? '' : JSON.stringify(v);
  };
  const ents = field(o, 'entities');
  return {
    ok: true,
    how: p.how,
    value: {
      answerable,
      answer: text('answer'),
      reason: text('reason'),
      ...(Array.isArray(ents) ? { entities: ents.filter((e) => typeof e === 'string') } : {}),
    },
  };
}

export interface RetrySchedule {
  /** Retries after the first attempt (PIPELINES.md 3.4: up to 4). */
  maxRetries: number;
  /** Temperature of the first attempt, and of the retries. */
  first: number;
  retry: number;
}

export const defaultRetrySchedule: RetrySchedule = { maxRetries: 4, first: 0, retry: 0.7 };

/**
 * One call whose reply must parse: retried at the raised temperature while it does not, each
 * attempt's parse written on its call. Returns the value and the calls made, or `ok: false`
 * with the last reply when every attempt failed (the caller takes its documented fallback).
 */
export async function callParsed<T>(
  rec: TraceRecorder,
  step: StepHandle,
  request: { tag: string; prompt: string; maxTokens: number; after?: number[] },
  parse: (reply: string) => Parsed<T>,
  schedule: RetrySchedule = defaultRetrySchedule,
): Promise<{ ok: true; value: T; calls: number[] } | { ok: false; text: string; calls: number[] }> {
  const calls: number[] = [];
  let text = '';
  for (let attempt = 0; attempt <= schedule.maxRetries; attempt++) {
    const reply = await rec.call(step, {
      tag: request.tag,
      messages: userMessage(request.prompt),
      maxTokens: request.maxTokens,
      temperature: attempt === 0 ? schedule.first : schedule.retry,
      after: [...(request.after ?? []), ...calls],
    });
    calls.push(reply.call.id);
    text = reply.text;
    const parsed = parse(reply.text);
    if (parsed.ok) {
      reply.call.parse = parsed.how === 'json' ? 'parsed JSON' : 'repaired JSON (jsonrepair)';
      return { ok: true, value: parsed.value, calls };
    }
    reply.call.parse =
      attempt < schedule.maxRetries
        ? `${parsed.reason}: retry ${attempt + 1} of ${schedule.maxRetries} at temperature ${schedule.retry}`
        : `${parsed.reason}: no retry left`;
  }
  step.note(
    `${request.tag}: no parsable reply after ${schedule.maxRetries} retries; fallback taken.`,
  );
  return { ok: false, text, calls };
}
