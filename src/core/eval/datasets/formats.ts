/**
 * @file One parser per benchmark format, each into {@link BenchmarkItem}s (docs/evaluation.md,
 * "Formats", says what query, answers and gold are for each). Parsers never throw on bad input:
 * they return an error naming the line or record and what was expected, and nothing half-parsed.
 *
 * Gold located from an answer (L-Eval, LongBench) uses the benchmark harness's definition
 * (bench/quality/items.ts): the two consecutive sentences of the document holding the largest
 * share of the gold text's content words, kept when that share is at least 50%.
 */
import { prng } from '../../prng';
import { locateGold, sentenceSpans, type Span } from '../retrieval';
import { fnv1a } from '../split';
import { levalSubsetOf, parseLevalJsonl } from './leval';
import {
  FORMAT_LABELS,
  type BenchmarkFormat,
  type BenchmarkItem,
  type BenchmarkParse,
  type CompanionFile,
} from './types';

/** The located-gold setting of bench/quality/items.ts, so the page and the benchmark agree. */
export const LOCATE_GOLD = Object.freeze({ sentences: 2, minCoverage: 0.5 });

type Row = Record<string, unknown>;

const isString = (x: unknown): x is string => typeof x === 'string';
const isStringArray = (x: unknown): x is string[] => Array.isArray(x) && x.every(isString);
const isRow = (x: unknown): x is Row => typeof x === 'object' && x !== null && !Array.isArray(x);

function done(
  format: BenchmarkFormat,
  items: BenchmarkItem[],
  skipped: number,
  unlocated: number,
  notes: string[],
): BenchmarkParse {
  if (items.length === 0) {
    return {
      ok: false,
      error: `The ${FORMAT_LABELS[format]} file holds no question that can be scored (${skipped} left out: no gold passage and no answer text).`,
    };
  }
  return {
    ok: true,
    value: {
      format,
      label: FORMAT_LABELS[format],
      items,
      documents: new Set(items.map((i) => i.documentId)).size,
      skipped,
      unlocated,
      notes,
    },
  };
}

/** JSON lines: each non-empty line parsed, or the first bad line's number. */
export function jsonLines(
  text: string,
): { ok: true; rows: unknown[] } | { ok: false; line: number } {
  const rows: unknown[] = [];
  const lines = text.split(/\r?\n/);
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n].trim();
    if (line === '') continue;
    try {
      rows.push(JSON.parse(line));
    } catch {
      return { ok: false, line: n + 1 };
    }
  }
  return { ok: true, rows };
}

/** Yes / no / unanswerable answers locate no passage (leval.ts says why). */
const LOCATES_NOTHING = /^(yes|no|unanswerable|true|false)\.?$/i;

function locate(document: string, texts: readonly string[], sentences: Span[]): Span | null {
  for (const t of texts) {
    if (!t.trim() || LOCATES_NOTHING.test(t.trim())) continue;
    const found = locateGold(document, t, LOCATE_GOLD, sentences);
    if (found) return found.span;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// L-Eval

/**
 * L-Eval JSONL through leval.ts, with exactly bench/quality/items.ts `levalSet`'s rules: a
 * question without gold text is left out; the gold passage is located; SFiction measures no
 * answer-in-context (its gold text is the question itself).
 */
export function levalBenchmark(fileName: string, text: string): BenchmarkParse {
  const subset = levalSubsetOf(fileName);
  const parsed = parseLevalJsonl(text, subset);
  if (!parsed.ok) return parsed;
  const items: BenchmarkItem[] = [];
  let skipped = 0;
  let unlocated = 0;
  for (const doc of parsed.value) {
    const sentences = sentenceSpans(doc.text);
    for (const q of doc.questions) {
      if (!q.goldText) {
        skipped++;
        continue;
      }
      const located = locateGold(doc.text, q.goldText, LOCATE_GOLD, sentences);
      const answerText = subset === 'sfiction' ? null : q.goldText;
      if (!located && !answerText) {
        skipped++;
        continue;
      }
      if (!located) unlocated++;
      const letter = subset === 'quality' ? /^\s*\(([A-D])\)/.exec(q.output)?.[1] : undefined;
      items.push({
        id: q.id,
        documentId: `${subset}:${doc.index}`,
        document: doc.text,
        question: q.query,
        prompt: q.instruction,
        answers: [subset === 'quality' ? q.goldText : q.output.trim()],
        ...(letter ? { answerLetter: letter } : {}),
        gold: located ? [located.span] : [],
        answerText,
        group: subset,
      });
    }
  }
  return done('leval', items, skipped, unlocated, [
    `L-Eval subset "${subset}" (from the file name).`,
    'Gold passage located: the best 2 consecutive sentences with >= 50% of the gold text content words.',
  ]);
}

// ---------------------------------------------------------------------------------------------
// LongBench

/**
 * LongBench JSONL (THUDM/LongBench data/*.jsonl): `input` (the question), `context` (the long
 * text), `answers` (list), optional `_id`, `dataset`, `all_classes`. No passage is given, so gold
 * is located from the first answer that locates one; answer-in-context uses the first answer.
 */
export function longbenchBenchmark(rows: readonly unknown[]): BenchmarkParse {
  const items: BenchmarkItem[] = [];
  const docIds = new Map<string, string>();
  let skipped = 0;
  let unlocated = 0;
  for (const [n, row] of rows.entries()) {
    if (
      !isRow(row) ||
      !isString(row.input) ||
      !isString(row.context) ||
      !isStringArray(row.answers)
    ) {
      return {
        ok: false,
        error: `Record ${n + 1} is not a LongBench record: expected "input" and "context" (text) and "answers" (a list of text).`,
      };
    }
    const answers = row.answers.filter((a) => a.trim() !== '');
    let documentId = docIds.get(row.context);
    if (!documentId) {
      documentId = `longbench:doc${docIds.size}`;
      docIds.set(row.context, documentId);
    }
    const span = locate(row.context, answers, sentenceSpans(row.context));
    const answerText = answers.find((a) => !LOCATES_NOTHING.test(a.trim())) ?? null;
    if (!span && !answerText) {
      skipped++;
      continue;
    }
    if (!span) unlocated++;
    items.push({
      id: `longbench:${isString(row._id) ? row._id : n}`,
      documentId,
      document: row.context,
      question: row.input,
      prompt: row.input,
      answers,
      gold: span ? [span] : [],
      answerText,
      group: isString(row.dataset) ? row.dataset : 'longbench',
    });
  }
  return done('longbench', items, skipped, unlocated, [
    'Gold passage located from the answers: the best 2 consecutive sentences with >= 50% of an answer’s content words.',
  ]);
}

// ---------------------------------------------------------------------------------------------
// Paragraph sets: HotpotQA, MuSiQue

interface Paragraph {
  title: string;
  sentences: string[];
  /** Indices of supporting sentences; `true`: the whole paragraph supports. */
  support: number[] | true | null;
}

/**
 * Lay paragraphs out as one document, one fixed fragment per paragraph ("title\ntext", blank
 * line between, as bench/quality/items.ts lays out MuSiQue), and the gold spans: each supporting
 * sentence, or each supporting paragraph whole.
 */
function layOut(paragraphs: readonly Paragraph[]): {
  document: string;
  fixed: Span[];
  gold: Span[];
} {
  const parts: string[] = [];
  const fixed: Span[] = [];
  const gold: Span[] = [];
  let at = 0;
  for (const p of paragraphs) {
    const head = `${p.title}\n`;
    let offset = at + head.length;
    const sentenceSpansHere: Span[] = [];
    const body = p.sentences
      .map((s, k) => {
        const text = k === 0 ? s : ` ${s}`;
        const start = offset + (k === 0 ? 0 : 1);
        sentenceSpansHere.push({ start, end: start + s.length });
        offset += text.length;
        return text;
      })
      .join('');
    const full = head + body;
    fixed.push({ start: at, end: at + full.length });
    if (p.support === true) gold.push({ start: at, end: at + full.length });
    else if (p.support) {
      for (const k of p.support) if (sentenceSpansHere[k]) gold.push(sentenceSpansHere[k]);
    }
    parts.push(full);
    at += full.length + 2;
  }
  return { document: parts.join('\n\n'), fixed, gold };
}

/**
 * An item over a document of its own (laid out by `layOut`, fixed fragments and gold spans),
 * asked as it is written.
 */
function ownDocumentItem(
  id: string,
  laidOut: { document: string; fixed: Span[]; gold: Span[] },
  question: string,
  answer: Pick<BenchmarkItem, 'answers' | 'answerText' | 'group'>,
): BenchmarkItem {
  return {
    id,
    documentId: id,
    document: laidOut.document,
    fixedFragments: laidOut.fixed,
    question,
    prompt: question,
    answers: answer.answers,
    gold: laidOut.gold,
    answerText: answer.answerText,
    group: answer.group,
  };
}

/** Deterministic shuffle (Fisher-Yates, seeded by the item id): gold is not always first. */
function shuffled<T>(xs: readonly T[], seedText: string): T[] {
  const out = xs.slice();
  const rng = prng(fnv1a(seedText));
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.min(i, Math.floor(rng() * (i + 1)));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

const isSentenceList = (x: unknown): x is string[] => isStringArray(x);

/**
 * HotpotQA, two layouts:
 * - the gold-paragraph sample (nyu-mll/quality's camera_ready_nd8_dev_sample100.json): `_id`,
 *   `question`, `answer`, `title_a`/`para_a`, `title_b`/`para_b` (sentence lists),
 *   `supporting_facts` ([[indices in a], [indices in b]]), `distractors` ([title, sentences][]).
 *   The gold paragraphs come first in the file, so the paragraphs are shuffled (seeded by the id):
 *   otherwise the context relation would be rewarded for gold sitting side by side;
 * - the distractor setting (hotpot_dev_distractor, HippoRAG): `context` ([title, sentences][],
 *   already shuffled by HotpotQA) and `supporting_facts` ([title, sentence index][]), kept in order.
 * One fixed fragment per paragraph; gold = the supporting sentences.
 */
export function hotpotBenchmark(rows: readonly unknown[]): BenchmarkParse {
  const items: BenchmarkItem[] = [];
  for (const [n, row] of rows.entries()) {
    const bad = (what: string): BenchmarkParse => ({
      ok: false,
      error: `Item ${n + 1} is not a HotpotQA record: expected ${what}.`,
    });
    if (!isRow(row) || !isString(row.question) || !isString(row.answer)) {
      return bad('"question" and "answer" (text)');
    }
    const id = `hotpotqa:${isString(row._id) ? row._id : n}`;
    let paragraphs: Paragraph[];
    if ('para_a' in row) {
      const facts = row.supporting_facts;
      if (
        !isString(row.title_a) ||
        !isString(row.title_b) ||
        !isSentenceList(row.para_a) ||
        !isSentenceList(row.para_b) ||
        !Array.isArray(facts) ||
        facts.length !== 2 ||
        !facts.every((f) => Array.isArray(f) && f.every((k) => Number.isInteger(k))) ||
        !Array.isArray(row.distractors)
      ) {
        return bad(
          'title_a/para_a, title_b/para_b (sentence lists), supporting_facts [[...], [...]] and distractors',
        );
      }
      const distractors: Paragraph[] = [];
      for (const d of row.distractors) {
        if (!Array.isArray(d) || !isString(d[0]) || !isSentenceList(d[1])) {
          return bad('distractors as [title, [sentences]]');
        }
        distractors.push({ title: d[0], sentences: d[1], support: null });
      }
      paragraphs = shuffled(
        [
          { title: row.title_a, sentences: row.para_a, support: facts[0] as number[] },
          { title: row.title_b, sentences: row.para_b, support: facts[1] as number[] },
          ...distractors,
        ],
        id,
      );
    } else {
      if (!Array.isArray(row.context) || !Array.isArray(row.supporting_facts)) {
        return bad(
          '"context" ([title, sentences] list) and "supporting_facts" ([title, index] list)',
        );
      }
      const support = new Map<string, number[]>();
      for (const f of row.supporting_facts) {
        if (!Array.isArray(f) || !isString(f[0]) || !Number.isInteger(f[1])) {
          return bad('supporting_facts as [title, sentence index]');
        }
        support.set(f[0], [...(support.get(f[0]) ?? []), f[1] as number]);
      }
      paragraphs = [];
      for (const c of row.context) {
        if (!Array.isArray(c) || !isString(c[0]) || !isSentenceList(c[1])) {
          return bad('context entries as [title, [sentences]]');
        }
        paragraphs.push({ title: c[0], sentences: c[1], support: support.get(c[0]) ?? null });
      }
    }
    items.push(
      ownDocumentItem(id, layOut(paragraphs), row.question, {
        answers: [row.answer],
        answerText: LOCATES_NOTHING.test(row.answer.trim()) ? null : row.answer,
        group: isString(row.type) ? row.type : 'hotpotqa',
      }),
    );
  }
  return done('hotpotqa', items, 0, 0, [
    'One fragment per paragraph (fragment sizes do not apply); gold = the supporting sentences.',
  ]);
}

/**
 * MuSiQue as HippoRAG ships it: `id`, `question`, `answer`, `answer_aliases`, `paragraphs`
 * ({idx, title, paragraph_text, is_supporting}). Laid out as bench/quality/items.ts
 * `musiqueSet` does: one fixed fragment per paragraph in the given order; gold = the supporting
 * paragraphs.
 */
export function musiqueBenchmark(rows: readonly unknown[]): BenchmarkParse {
  const items: BenchmarkItem[] = [];
  let skipped = 0;
  for (const [n, row] of rows.entries()) {
    const ps = isRow(row) ? row.paragraphs : null;
    if (
      !isRow(row) ||
      !isString(row.question) ||
      !Array.isArray(ps) ||
      !ps.every((p) => isRow(p) && isString(p.title) && isString(p.paragraph_text))
    ) {
      return {
        ok: false,
        error: `Item ${n + 1} is not a MuSiQue record: expected "question" and "paragraphs" ({title, paragraph_text, is_supporting}).`,
      };
    }
    const paragraphs = (ps as Row[]).map((p): Paragraph => ({
      title: p.title as string,
      sentences: [p.paragraph_text as string],
      support: p.is_supporting === true ? true : null,
    }));
    const laidOut = layOut(paragraphs);
    if (laidOut.gold.length === 0) {
      skipped++;
      continue;
    }
    const id = `musique:${isString(row.id) ? row.id : n}`;
    const answer = isString(row.answer) ? row.answer : '';
    items.push(
      ownDocumentItem(id, laidOut, row.question, {
        answers: [answer, ...(isStringArray(row.answer_aliases) ? row.answer_aliases : [])].filter(
          Boolean,
        ),
        answerText: answer || null,
        group: isString(row.id) ? row.id.split('_')[0] : 'musique',
      }),
    );
  }
  return done('musique', items, skipped, 0, [
    'One fragment per paragraph (fragment sizes do not apply); gold = the paragraphs marked is_supporting.',
  ]);
}

// ---------------------------------------------------------------------------------------------
// MTBench+

/** "roleplay-98-extraction-132-Q" -> ["roleplay-98", "extraction-132"] (bench/mtbench.ts's rule). */
export function referredTopics(turnInfo: string): string[] {
  if (!turnInfo.endsWith('-Q')) return [];
  return [...turnInfo.slice(0, -2).matchAll(/[a-z]+-\d+/g)].map((m) => m[0]);
}

/**
 * MTBench+ (MemoChat's mtbenchplus.json): dialogs of human turns (bot replies empty); the last
 * human turn is the question, and its turn-info ("roleplay-95-Q") names the earlier topic(s) it
 * refers to. Document = the past human turns, one fixed fragment each; gold = the turns of the
 * referred topics (bench/mtbench.ts's definition). No gold answer is given (no LLM scoring).
 */
export function mtbenchBenchmark(rows: readonly unknown[]): BenchmarkParse {
  const items: BenchmarkItem[] = [];
  let skipped = 0;
  for (const [n, row] of rows.entries()) {
    const conv = isRow(row) ? row.conversations : null;
    if (
      !isRow(row) ||
      !Array.isArray(conv) ||
      !conv.every((c) => isRow(c) && isString(c.from) && isString(c.value))
    ) {
      return {
        ok: false,
        error: `Dialog ${n + 1} is not an MTBench+ dialog: expected "conversations" as a list of {from, value, turn-info}.`,
      };
    }
    const humans = (conv as Row[]).filter((c) => c.from === 'human');
    const last = humans.at(-1);
    const topics = referredTopics(isString(last?.['turn-info']) ? last['turn-info'] : '');
    if (!last || topics.length === 0) {
      skipped++;
      continue;
    }
    const past = humans.slice(0, -1);
    const { document, fixed } = layOut(
      past.map((h) => ({ title: '', sentences: [h.value as string], support: null })),
    );
    // Turns have no title: drop the empty title line from each fragment's start.
    const turns = fixed.map((s) => ({ start: s.start + 1, end: s.end }));
    const gold = turns.filter((_, k) => {
      const info = past[k]['turn-info'];
      return isString(info) && topics.some((t) => info.startsWith(`${t}-`));
    });
    if (gold.length === 0) {
      skipped++;
      continue;
    }
    const id = `mtbenchplus:${isString(row.id) ? row.id : n}`;
    items.push(
      ownDocumentItem(id, { document, fixed: turns, gold }, last.value as string, {
        answers: [],
        answerText: null,
        group: isString(row.type) ? row.type : 'mtbenchplus',
      }),
    );
  }
  return done('mtbenchplus', items, skipped, 0, [
    'Document = the past human turns, one fragment each (fragment sizes do not apply); gold = the turns of the topics the last turn refers to; no gold answers.',
  ]);
}

// ---------------------------------------------------------------------------------------------
// RepoEval function level

/** RepoEval's query: the last 20 lines before the cursor (RepoCoder; bench/repoeval.ts). */
export const REPOEVAL_QUERY_LINES = 20;

/**
 * RepoEval function-level JSONL (`prompt`, `metadata` {task_id, ground_truth, fpath_tuple})
 * with its repository files, as JSON lines {repo, path, text} (the shared repo_files.jsonl).
 * Document = the repository's OTHER files, each headed by its path (the cross-file context the
 * completion may draw on; the target file holds the answer, so it is left out, as RepoCoder
 * excludes the target span); query = the prompt's last 20 lines; answer = the function body, for
 * answer-in-context (its identifiers found in the selection). No gold passage.
 */
export function repoevalBenchmark(
  rows: readonly unknown[],
  companions: readonly CompanionFile[],
): BenchmarkParse {
  const files = new Map<string, { path: string; text: string }[]>();
  for (const c of companions) {
    const parsed = jsonLines(c.text);
    if (!parsed.ok) {
      return {
        ok: false,
        error: `${c.name}, line ${parsed.line}: not JSON. RepoEval repository files are JSON lines {repo, path, text}.`,
      };
    }
    for (const r of parsed.rows) {
      if (!isRow(r) || !isString(r.repo) || !isString(r.path) || !isString(r.text)) {
        return {
          ok: false,
          error: `${c.name}: expected JSON lines {repo, path, text} (RepoEval repository files).`,
        };
      }
      files.set(r.repo, [...(files.get(r.repo) ?? []), { path: r.path, text: r.text }]);
    }
  }
  if (files.size === 0) {
    return {
      ok: false,
      error:
        'RepoEval function-level tasks need their repository files: drop repo_files.jsonl (JSON lines {repo, path, text}) together with the tasks file.',
    };
  }
  const items: BenchmarkItem[] = [];
  const documents = new Map<string, string>();
  let skipped = 0;
  for (const [n, row] of rows.entries()) {
    const m = isRow(row) ? row.metadata : null;
    if (
      !isRow(row) ||
      !isString(row.prompt) ||
      !isRow(m) ||
      !isString(m.task_id) ||
      !isString(m.ground_truth) ||
      !isStringArray(m.fpath_tuple)
    ) {
      return {
        ok: false,
        error: `Task ${n + 1} is not a RepoEval record: expected "prompt" and "metadata" {task_id, ground_truth, fpath_tuple}.`,
      };
    }
    const [repo, ...rest] = m.fpath_tuple;
    const target = rest.join('/');
    const repoFiles = files.get(repo);
    if (!repoFiles) {
      skipped++;
      continue;
    }
    const documentId = `repoeval:${repo}:${target}`;
    let document = documents.get(documentId);
    if (document === undefined) {
      document = repoFiles
        .filter((f) => f.path !== target)
        .map((f) => `# file: ${f.path}\n${f.text.replace(/\r\n?/g, '\n')}`)
        .join('\n\n');
      documents.set(documentId, document);
    }
    items.push({
      id: `repoeval:${m.task_id}`,
      documentId,
      document,
      question: row.prompt.split('\n').slice(-REPOEVAL_QUERY_LINES).join('\n'),
      prompt: row.prompt,
      answers: [m.ground_truth],
      gold: [],
      answerText: m.ground_truth,
      group: repo,
    });
  }
  return done('repoeval', items, skipped, items.length, [
    `Repository files of ${files.size} repositories; ${skipped} tasks of other repositories left out.`,
    'Document = the repository’s other files; query = the last 20 prompt lines; answer-in-context over the function body (no gold passage).',
  ]);
}

// ---------------------------------------------------------------------------------------------
// Simple JSONL

/**
 * The simple documented format (docs/evaluation.md): one JSON object per line,
 * {document, question, answers?, gold_passages?, id?, options?, answer_letter?}. Each gold
 * passage must occur verbatim in the document (its first occurrence is the gold span); one that
 * does not is an error naming the line, since silently dropping gold would inflate recall.
 */
export function simpleBenchmark(rows: readonly unknown[]): BenchmarkParse {
  const items: BenchmarkItem[] = [];
  const docIds = new Map<string, string>();
  let unlocated = 0;
  for (const [n, row] of rows.entries()) {
    if (
      !isRow(row) ||
      !isString(row.document) ||
      !isString(row.question) ||
      (row.answers !== undefined && !isStringArray(row.answers)) ||
      (row.gold_passages !== undefined && !isStringArray(row.gold_passages))
    ) {
      return {
        ok: false,
        error: `Line ${n + 1} is not a simple benchmark record: expected "document" and "question" (text), and optionally "answers" and "gold_passages" (lists of text).`,
      };
    }
    const answers = (row.answers as string[] | undefined) ?? [];
    const passages = (row.gold_passages as string[] | undefined) ?? [];
    const gold: Span[] = [];
    for (const p of passages) {
      const at = row.document.indexOf(p);
      if (p === '' || at < 0) {
        return {
          ok: false,
          error: `Line ${n + 1}: gold passage ${JSON.stringify(p.slice(0, 60))} does not occur verbatim in its document.`,
        };
      }
      gold.push({ start: at, end: at + p.length });
    }
    const answerText = answers.find((a) => a.trim() && !LOCATES_NOTHING.test(a.trim())) ?? null;
    if (gold.length === 0 && !answerText) {
      return {
        ok: false,
        error: `Line ${n + 1}: nothing to score: give "gold_passages" or an answer with content words.`,
      };
    }
    if (gold.length === 0) unlocated++;
    let documentId = docIds.get(row.document);
    if (!documentId) {
      documentId = `simple:doc${docIds.size}`;
      docIds.set(row.document, documentId);
    }
    const letter = isString(row.answer_letter) ? row.answer_letter.toUpperCase() : undefined;
    items.push({
      id: `simple:${isString(row.id) || Number.isFinite(row.id) ? String(row.id) : n}`,
      documentId,
      document: row.document,
      question: row.question,
      prompt: row.question,
      answers,
      ...(letter ? { answerLetter: letter } : {}),
      gold,
      answerText,
      group: 'simple',
    });
  }
  const ids = new Set(items.map((i) => i.id));
  if (ids.size !== items.length) {
    return { ok: false, error: 'Two records share an "id"; each question needs its own.' };
  }
  return done('simple', items, 0, unlocated, [
    'Gold spans: the first verbatim occurrence of each gold passage.',
  ]);
}
