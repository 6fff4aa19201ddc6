/**
 * @file The questions of the retrieval-quality benchmark (bench/quality.ts), each with its
 * document, its query and its gold spans, and the split (tune / held-out) it belongs to, fixed by
 * its id before anything was tuned (src/core/eval/split.ts).
 *
 * Gold per set (written down before tuning; BENCHMARKS.md repeats it):
 * - MuSiQue: the paragraphs marked is_supporting (one fragment per paragraph, given order).
 * - bAbI in a book: the supporting facts, inserted into a Moby Dick passage (haystack.ts).
 * - L-Eval QuALITY, Qasper, SFiction: no passage is given, so the gold passage is located: the
 *   two consecutive sentences of the document holding the largest share of the gold text's
 *   content words, kept when that share is at least 50% (src/core/eval/retrieval.ts
 *   `locateGold`; the gold text per subset in src/core/eval/datasets/leval.ts). Questions whose
 *   gold locates nothing are left out of gold recall; QuALITY and Qasper also report
 *   answer-in-context (share of the gold text's content words in the selected text) over every
 *   question with a gold text.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { contentWords, locateGold, sentenceSpans, splitOf, type Span } from '../../src/core/eval';
import type { SplitPart } from '../../src/core/eval';
import {
  levalSubsetOf,
  parseLevalJsonl,
  type LevalSubset,
} from '../../src/core/eval/datasets/leval';
import {
  buildHaystack,
  indexWords,
  parseBabi,
  pickPassage,
  prng,
  sampleDistinct,
  type BabiSample,
} from './haystack';

/** A document the questions retrieve from, with fixed fragments (MuSiQue) or split per size. */
export interface BenchDocument {
  id: string;
  source: string;
  /** Fixed fragment spans (MuSiQue's paragraphs); absent: split into prose fragments per size. */
  fixed?: Span[];
}

export interface BenchQuestion {
  id: string;
  set: string;
  /** bAbI task or L-Eval subset. */
  group: string;
  split: SplitPart;
  query: string;
  document: BenchDocument;
  /** Gold spans in the document's source (empty: no gold passage; answer metric only). */
  gold: Span[];
  /** Content words of the gold text for answer-in-context (null: not measured). */
  answerWords: Set<string> | null;
}

export interface BenchSet {
  name: string;
  questions: BenchQuestion[];
  /** Questions dropped from gold recall because their gold located nothing. */
  unlocated: number;
  note: string;
}

interface MusiqueQuestion {
  id: string;
  question: string;
  paragraphs: { idx: number; title: string; paragraph_text: string; is_supporting: boolean }[];
}

export function musiqueSet(file: string): BenchSet {
  const data = JSON.parse(readFileSync(file, 'utf8')) as MusiqueQuestion[];
  const questions = data.map((q): BenchQuestion => {
    const texts = q.paragraphs.map((p) => `${p.title}\n${p.paragraph_text}`);
    const fixed: Span[] = [];
    let at = 0;
    for (const t of texts) {
      fixed.push({ start: at, end: at + t.length });
      at += t.length + 2;
    }
    const gold = fixed.filter((_, i) => q.paragraphs[i].is_supporting);
    if (gold.length === 0) throw new Error(`MuSiQue ${q.id}: no supporting paragraph.`);
    const id = `musique:${q.id}`;
    return {
      id,
      set: 'musique',
      group: 'musique',
      split: splitOf(id),
      query: q.question,
      document: { id, source: texts.join('\n\n'), fixed },
      gold,
      answerWords: null,
    };
  });
  return {
    name: 'musique',
    questions,
    unlocated: 0,
    note: 'fragments = the 20 given paragraphs (fragment size does not apply)',
  };
}

export interface BabiConfig {
  tasks: readonly string[];
  samplesPerTask: number;
  passageWords: number;
  seed: number;
}

export function babiSet(dir: string, bookFile: string, config: BabiConfig): BenchSet {
  const bookText = readFileSync(bookFile, 'utf8').replace(/\r\n?/g, '\n');
  const book = indexWords(bookText);
  const rng = prng(config.seed);
  const questions: BenchQuestion[] = [];
  for (const task of config.tasks) {
    const samples = parseBabi(task, readFileSync(path.join(dir, task), 'utf8'));
    const picked = sampleDistinct(rng, samples.length, config.samplesPerTask).sort((a, b) => a - b);
    for (const index of picked) {
      const sample: BabiSample = samples[index];
      const passage = pickPassage(book, config.passageWords, rng);
      if (!passage) throw new Error(`The book is shorter than ${config.passageWords} words.`);
      const hay = buildHaystack(bookText, book, passage, sample.facts, rng);
      const id = `babi:${task.slice(0, 3)}-${index}`;
      questions.push({
        id,
        set: 'babi',
        group: task.slice(0, 3),
        split: splitOf(id),
        query: sample.question,
        document: { id, source: hay.text },
        gold: sample.supporting.map((k) => hay.factSpans[k]),
        answerWords: null,
      });
    }
  }
  return { name: 'babi', questions, unlocated: 0, note: 'facts hidden in ~20K words of Moby Dick' };
}

export function levalSet(file: string, name: string): BenchSet {
  const subset: LevalSubset = levalSubsetOf(file);
  const parsed = parseLevalJsonl(readFileSync(file, 'utf8'), subset);
  if (!parsed.ok) throw new Error(`${file}: ${parsed.error}`);
  const questions: BenchQuestion[] = [];
  let unlocated = 0;
  for (const doc of parsed.value) {
    const document: BenchDocument = { id: `${name}:${doc.index}`, source: doc.text };
    const sentences = sentenceSpans(doc.text);
    for (const q of doc.questions) {
      if (!q.goldText) {
        unlocated++;
        continue;
      }
      const located = locateGold(
        doc.text,
        q.goldText,
        { sentences: 2, minCoverage: 0.5 },
        sentences,
      );
      if (!located) unlocated++;
      // SFiction's gold text is the question itself: answer-in-context would only measure
      // whether the query's own words were retrieved, so it is not reported there.
      const answerWords = subset === 'sfiction' ? null : contentWords(q.goldText);
      if (!located && !answerWords) continue;
      questions.push({
        id: q.id,
        set: name,
        group: subset,
        split: splitOf(q.id),
        query: q.query,
        document,
        gold: located ? [located.span] : [],
        answerWords,
      });
    }
  }
  return {
    name,
    questions,
    unlocated,
    note: 'gold passage located: best 2 consecutive sentences with >= 50% of the gold text content words',
  };
}

/**
 * A set restricted to one half and/or every `every`-th of its remaining questions (in the set's
 * order, the first kept), with a note saying so. For runs that only read the held-out tables and
 * whose embedder is too slow for every question (MiniLM over bAbI's 20K-word haystacks): nothing
 * is tuned on such a run, and the sample is fixed by position, never by a result.
 */
export function restrictQuestions(
  set: BenchSet,
  { split, every = 1 }: { split?: SplitPart; every?: number },
): BenchSet {
  if (!Number.isInteger(every) || every < 1) throw new Error(`every must be >= 1, not ${every}`);
  if (!split && every === 1) return set;
  const inHalf = split ? set.questions.filter((q) => q.split === split) : set.questions;
  const questions = inHalf.filter((_, i) => i % every === 0);
  const said = [split && `${split} half only`, every > 1 && `one question in ${every}`]
    .filter(Boolean)
    .join(', ');
  return { ...set, questions, note: `${set.note}; ${said} (${questions.length} questions)` };
}
