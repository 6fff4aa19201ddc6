/**
 * @file Pure helpers of the retrieval-quality benchmark's BABILong-style set (bench/quality.ts):
 * a seeded PRNG, the bAbI file parser, the haystack builder (bAbI facts hidden between the
 * sentences of a book passage) and the test of whether a fact lies in the selected fragments.
 * No file system here, so bench/quality.test.ts can check it on small inputs.
 *
 * Haystack construction (one per sampled bAbI question):
 * 1. The book text (CRLF normalised to LF) is read as words (maximal runs of non-whitespace);
 *    a sentence ends after a word for which the core's `isSentenceEnd` holds, the same test
 *    `splitProse` cuts fragments at.
 * 2. A passage of about `passageWords` words is cut from it: it starts at the first word after a
 *    sentence end drawn uniformly at random (among those that leave enough book behind) and
 *    ends after the first sentence end at or past `passageWords` words.
 * 3. The story's facts (every statement line of the bAbI story before the question, in order,
 *    distractors included, as BABILong does) go to insertion points: the ends of the passage's
 *    sentences. `count` distinct points are drawn uniformly at random without replacement
 *    (with replacement only if the story has more facts than the passage has sentences),
 *    sorted, and fact k goes to the k-th point, so the facts keep their order. A fact is
 *    inserted as " " + fact right after the sentence's last character, so it reads as one more
 *    sentence of the text and the passage's own characters are left untouched.
 */
import { isSentenceEnd } from '../../src/core';
import { prng } from '../../src/core/prng';

export { prng };

/** mulberry32: a small seeded PRNG, uniform in [0, 1). Same generator as bench/speed.ts. */
/** A whole number in [0, n). */
export function randomInt(rng: () => number, n: number): number {
  return Math.min(n - 1, Math.floor(rng() * n));
}

/** `count` distinct indices of [0, n), in the order drawn (partial Fisher-Yates). */
export function sampleDistinct(rng: () => number, n: number, count: number): number[] {
  if (count > n) throw new Error(`sampleDistinct: ${count} of only ${n}.`);
  const pool = Array.from({ length: n }, (_, i) => i);
  for (let i = 0; i < count; i++) {
    const j = i + randomInt(rng, n - i);
    [pool[i], pool[j]] = [pool[j], pool[i]];
  }
  return pool.slice(0, count);
}

/** One bAbI question with the story facts before it. */
export interface BabiSample {
  task: string;
  /** Index of the story in its file, and of the question within the file. */
  story: number;
  question: string;
  answer: string;
  /** The story's statements before the question, in order. */
  facts: string[];
  /** Indices into `facts` of the supporting facts, ascending. */
  supporting: number[];
}

/**
 * Parse a bAbI task file: numbered lines, a line number of 1 starts a new story; a question line
 * is "<n> <question>\t<answer>\t<supporting line numbers>".
 */
export function parseBabi(task: string, text: string): BabiSample[] {
  const out: BabiSample[] = [];
  let story = -1;
  let facts: string[] = [];
  // bAbI line number -> index in `facts` (question lines have none).
  let factAt = new Map<number, number>();
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '') continue;
    const m = /^(\d+) (.*)$/.exec(line);
    if (!m) throw new Error(`bAbI ${task}: unexpected line ${JSON.stringify(line)}`);
    const n = Number(m[1]);
    if (n === 1) {
      story++;
      facts = [];
      factAt = new Map();
    }
    const parts = m[2].split('\t');
    if (parts.length === 1) {
      factAt.set(n, facts.length);
      facts.push(parts[0].trim());
      continue;
    }
    const supporting = parts[2]
      .trim()
      .split(/\s+/)
      .map((id) => {
        const at = factAt.get(Number(id));
        if (at === undefined) throw new Error(`bAbI ${task}: line ${n} cites missing fact ${id}`);
        return at;
      })
      .sort((a, b) => a - b);
    out.push({
      task,
      story,
      question: parts[0].trim(),
      answer: parts[1].trim(),
      facts: facts.slice(),
      supporting: [...new Set(supporting)],
    });
  }
  return out;
}

/** Words of a text with their spans, and which of them end a sentence. */
export interface WordIndex {
  starts: number[];
  ends: number[];
  sentenceEnd: boolean[];
}

export function indexWords(text: string): WordIndex {
  const starts: number[] = [];
  const ends: number[] = [];
  const sentenceEnd: boolean[] = [];
  for (const m of text.matchAll(/\S+/g)) {
    starts.push(m.index);
    ends.push(m.index + m[0].length);
    sentenceEnd.push(isSentenceEnd(m[0]));
  }
  return { starts, ends, sentenceEnd };
}

/** A passage of the book: `text.slice(start, end)`, `words` words, starting at a sentence start. */
export interface Passage {
  start: number;
  end: number;
  words: number;
}

/**
 * A passage of about `passageWords` words (ending at the first sentence end at or after that
 * many words) starting right after a sentence end drawn at random.
 */
export function pickPassage(
  book: WordIndex,
  passageWords: number,
  rng: () => number,
): Passage | null {
  const n = book.starts.length;
  // Candidate first words: word 0 and every word after a sentence end with room behind it.
  const firsts: number[] = [];
  for (let w = 0; w + passageWords < n; w++) {
    if (w === 0 || book.sentenceEnd[w - 1]) firsts.push(w);
  }
  // Try a few draws: a passage whose last sentence never ends (end of book) is redrawn.
  for (let attempt = 0; attempt < 20 && firsts.length > 0; attempt++) {
    const first = firsts[randomInt(rng, firsts.length)];
    for (let last = first + passageWords - 1; last < n; last++) {
      if (book.sentenceEnd[last]) {
        return { start: book.starts[first], end: book.ends[last], words: last - first + 1 };
      }
    }
  }
  return null;
}

/** A haystack: passage text with the facts inserted, and where each fact ended up. */
export interface Haystack {
  text: string;
  /** Character span of each fact in `text`, in fact order. */
  factSpans: { start: number; end: number }[];
  /** Words of the book passage alone. */
  passageWords: number;
}

/**
 * Insert `facts` (in order) at the ends of sentences of `passage` (a span of `bookText`, which
 * `book` indexes), at sorted random points. See the file comment.
 */
export function buildHaystack(
  bookText: string,
  book: WordIndex,
  passage: Passage,
  facts: readonly string[],
  rng: () => number,
): Haystack {
  // Insertion points: character offsets (relative to the passage) right after a sentence end.
  const points: number[] = [];
  for (let w = 0; w < book.starts.length; w++) {
    if (book.starts[w] < passage.start) continue;
    if (book.ends[w] > passage.end) break;
    if (book.sentenceEnd[w]) points.push(book.ends[w] - passage.start);
  }
  if (points.length === 0) throw new Error('buildHaystack: the passage has no sentence end.');
  const chosen =
    facts.length <= points.length
      ? sampleDistinct(rng, points.length, facts.length)
      : facts.map(() => randomInt(rng, points.length));
  chosen.sort((a, b) => a - b);

  const passageText = bookText.slice(passage.start, passage.end);
  const pieces: string[] = [];
  const factSpans: { start: number; end: number }[] = [];
  let length = 0;
  let copied = 0;
  facts.forEach((fact, k) => {
    const at = points[chosen[k]];
    const before = passageText.slice(copied, at);
    pieces.push(before, ' ');
    length += before.length + 1;
    copied = at;
    factSpans.push({ start: length, end: length + fact.length });
    pieces.push(fact);
    length += fact.length;
  });
  pieces.push(passageText.slice(copied));
  return { text: pieces.join(''), factSpans, passageWords: passage.words };
}

/** The one span test the benchmark and the in-app evaluation share (core). */
export { spanSelected } from '../../src/core/eval/retrieval';
