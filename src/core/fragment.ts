/**
 * @file Splitting a document's source text into fragments c_1..c_N (DESIGN.md section 2,
 * "Defaults by text type"): prose by about `wordsPerFragment` words cut at sentence boundaries,
 * code by windows of `windowLines` lines sliding by `windowStride`, chat by turn.
 *
 * Spans are half-open character offsets into the source, so `text.slice(start, end)` is the
 * fragment. Prose and chat fragments tile the source exactly: the whitespace after a sentence
 * belongs to the fragment that holds the sentence, the text before the first word to the first
 * fragment. That keeps every character citable and lets a reader rebuild the text from spans.
 *
 * A "word" is the unit of `words`, of fragment sizes and of the budget in Eq. 11 when the caller
 * measures costs in words. It means the same across scripts:
 * - in scripts that put spaces between words (Latin, Cyrillic, Greek, Korean, ...) it is a
 *   maximal run of non-whitespace characters, as it always was;
 * - a run that holds Chinese, Japanese, Thai, Lao, Khmer or Myanmar characters is cut into the
 *   words of ICU's word segmenter (script/segment.ts), punctuation attached to the word before
 *   it and opening brackets to the word after. Such a word is a dictionary word ("名前", "まだ",
 *   "無い"), so "吾輩は猫である。名前はまだ無い。" counts 9 words against 10 for "I am a cat. As
 *   yet I have no name."; a 500-word fragment holds about as much story in either language.
 *   Sentences end at 。！？ as at . ! ? and closing brackets 」』） may follow them.
 */
import { denseWordStarts, hasDenseScript } from './script/segment';
import { defaultFragmentOptions, withDefaults, type FragmentOptions } from './options';
import type { Fragment } from './types';

// JS `\s`: ASCII whitespace plus the Unicode spaces and line separators.
function isSpace(code: number): boolean {
  return (
    code === 32 ||
    (code >= 9 && code <= 13) ||
    (code > 127 &&
      (code === 0xa0 ||
        code === 0x1680 ||
        (code >= 0x2000 && code <= 0x200a) ||
        code === 0x2028 ||
        code === 0x2029 ||
        code === 0x202f ||
        code === 0x205f ||
        code === 0x3000 ||
        code === 0xfeff))
  );
}

/** Words (see the file comment) in `text.slice(start, end)`. */
export function countWords(text: string, start = 0, end = text.length): number {
  let words = 0;
  let inWord = false;
  let runStart = start;
  let dense = false;
  for (let i = start; i < end; i++) {
    const code = text.charCodeAt(i);
    const space = isSpace(code);
    if (!space && !inWord) {
      words++;
      runStart = i;
    }
    if (!space && code >= 0x0e00 && !dense) dense = hasDenseScript(text, i, i + 1);
    if (space && inWord && dense) {
      words += denseWordStarts(text, runStart, i).length - 1;
      dense = false;
    }
    inWord = !space;
  }
  if (inWord && dense) words += denseWordStarts(text, runStart, end).length - 1;
  return words;
}

/**
 * The words of text[start..end) as [start, end) pairs: runs of non-whitespace, and runs holding a
 * script without spaces cut into its words (file comment). Latin text never reaches ICU.
 */
function* proseWords(text: string): Generator<[number, number], void, undefined> {
  const RUN = /\S+/g;
  const dense = hasDenseScript(text);
  for (let m = RUN.exec(text); m; m = RUN.exec(text)) {
    const start = m.index;
    const end = start + m[0].length;
    if (!dense || !hasDenseScript(text, start, end)) {
      yield [start, end];
      continue;
    }
    const starts = denseWordStarts(text, start, end);
    for (let k = 0; k < starts.length; k++) {
      yield [starts[k], k + 1 < starts.length ? starts[k + 1] : end];
    }
  }
}

function positiveInteger(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new Error(`FragRel: ${name} must be a whole number of at least 1, got ${value}.`);
  }
  return value;
}

// Characters that may close a sentence after its final punctuation: quotes and brackets.
// CJK: 」』）］｝】〕〉》 and the full-width quotes.
const CLOSERS = new Set([
  '"',
  "'",
  '\u201d',
  '\u2019',
  '\u00bb',
  ')',
  ']',
  '}',
  '*',
  '_',
  '\u300d',
  '\u300f',
  '\uff09',
  '\uff3d',
  '\uff5d',
  '\u3011',
  '\u3015',
  '\u3009',
  '\u300b',
  '\uff02',
  '\uff07',
]);
// 。！？ and the half-width 。 end CJK sentences like . ! ?; Thai has no sentence mark.
const TERMINALS = new Set(['.', '!', '?', '\u2026', '\u3002', '\uff01', '\uff1f', '\uff61']);
// A period after these does not end a sentence ("Mr. Darcy", "e.g. this"). A heuristic: a
// false boundary only lets a fragment end inside a sentence, it never loses text.
const ABBREVIATIONS = new Set([
  'mr',
  'mrs',
  'ms',
  'dr',
  'st',
  'prof',
  'sr',
  'jr',
  'vs',
  'cf',
  'no',
  'fig',
  'vol',
  'ch',
  'pp',
  'gen',
  'col',
  'capt',
  'lt',
  'rev',
  'mme',
  'mlle',
  'mt',
]);

/**
 * Whether `word` (a run of non-whitespace) ends a sentence: it ends in . ! ? … (possibly
 * followed by closing quotes or brackets), and a final period is not that of a title ("Mr."),
 * an initial ("J.") or a dotted abbreviation ("U.S.", "e.g.").
 */
export function isSentenceEnd(word: string): boolean {
  let end = word.length;
  while (end > 0 && CLOSERS.has(word[end - 1])) end--;
  if (end === 0 || !TERMINALS.has(word[end - 1])) return false;
  if (word[end - 1] !== '.') return true;
  let core = end - 1;
  while (core > 0 && word[core - 1] === '.') core--;
  // An ellipsis "..." ends a sentence as much as "…" does.
  if (end - core >= 3) return true;
  let begin = 0;
  while (begin < core && !/[\p{L}\p{N}]/u.test(word[begin])) begin++;
  const stem = word.slice(begin, core);
  if (stem.length === 0) return true;
  // Initials ("J. R. R. Tolkien") and dotted abbreviations ("U.S.", "i.e.").
  if (stem.length === 1 && /\p{Lu}/u.test(stem)) return false;
  if (stem.includes('.')) return false;
  return !ABBREVIATIONS.has(stem.toLowerCase());
}

/** Whether the whitespace text[from..to) holds a blank line (a paragraph break). */
function hasParagraphBreak(text: string, from: number, to: number): boolean {
  let newlines = 0;
  for (let i = from; i < to; i++) {
    if (text.charCodeAt(i) === 10 && ++newlines === 2) return true;
  }
  return false;
}

/**
 * Prose: fragments of about `wordsPerFragment` words that end at sentence boundaries (after
 * . ! ? … with any closing quotes, or at a blank line). A sentence joins the open fragment when
 * that brings the fragment nearer the target than closing it first would, so sizes scatter
 * around the target instead of always falling short of it. A sentence longer than a whole
 * fragment is cut at word boundaries (it would otherwise become one giant fragment).
 *
 * Empty text gives no fragments; whitespace-only text gives one fragment of 0 words, so the
 * spans still tile the source.
 */
export function splitProse(
  docId: string,
  text: string,
  options?: Partial<FragmentOptions>,
): Fragment[] {
  const opts = withDefaults(defaultFragmentOptions, options, 'fragment');
  const packer = new FragmentPacker(positiveInteger(opts.wordsPerFragment, 'wordsPerFragment'));
  if (text.length === 0) return [];

  const words = proseWords(text);
  let word = words.next();
  while (!word.done) {
    const [wordStart, wordEnd] = word.value;
    packer.word(wordStart);
    const next = words.next();
    const nextStart = next.done ? text.length : next.value[0];
    if (
      next.done ||
      isSentenceEnd(text.slice(wordStart, wordEnd)) ||
      hasParagraphBreak(text, wordEnd, nextStart)
    ) {
      packer.endSentence(nextStart);
    }
    word = next;
  }
  packer.finish(text.length);
  const { starts, ends, words: counts } = packer;
  return starts.map((start, i) => ({
    docId,
    ordinal: i,
    start,
    end: ends[i],
    words: counts[i],
  }));
}

/**
 * The fragment-building half of splitProse: the words in order (their starts) and where each
 * sentence ends in, fragments (spans and word counts) out. Shared by splitProse, which finds the
 * words in a whole text, and ProseSplitStream, which finds them as the text arrives.
 */
class FragmentPacker {
  readonly starts: number[] = [];
  readonly ends: number[] = [];
  readonly words: number[] = [];
  private fragStart = 0;
  private fragWords = 0;
  // The sentence being read: where it starts (the cut point before it) and its word starts.
  private sentStart = 0;
  private readonly wordStarts: number[] = [];

  constructor(private readonly target: number) {}

  /** The next word starts at `start`. */
  word(start: number): void {
    this.wordStarts.push(start);
  }

  /** The sentence of the words so far ends; the next one starts at `next`. */
  endSentence(next: number): void {
    this.closeSentence();
    this.sentStart = next;
    this.wordStarts.length = 0;
  }

  /** The text ends at `length` (the last sentence already ended). */
  finish(length: number): void {
    // The last sentence runs to the end of the text, so the open fragment does too.
    if (this.fragWords > 0 || this.starts.length === 0) this.emit(length, this.fragWords);
  }

  private emit(end: number, words: number): void {
    this.starts.push(this.fragStart);
    this.ends.push(end);
    this.words.push(words);
    this.fragStart = end;
  }

  private closeSentence(): void {
    const { target, wordStarts } = this;
    const n = wordStarts.length;
    if (n > target) {
      if (this.fragWords >= target) {
        this.emit(this.sentStart, this.fragWords);
        this.fragWords = 0;
      }
      // Top up the open fragment, then cut whole fragments out of the sentence; the rest
      // (at least one word, at most `target`) stays open for the following sentences.
      let w = 0;
      while (this.fragWords + (n - w) > target) {
        w += target - this.fragWords;
        this.emit(wordStarts[w], target);
        this.fragWords = 0;
      }
      this.fragWords += n - w;
    } else if (
      this.fragWords > 0 &&
      this.fragWords + n > target &&
      target - this.fragWords <= this.fragWords + n - target
    ) {
      this.emit(this.sentStart, this.fragWords);
      this.fragWords = n;
    } else {
      this.fragWords += n;
    }
  }
}

/** Prose fragments as columns: what the index stores. */
export interface ProseSpans {
  starts: Uint32Array;
  ends: Uint32Array;
  words: Uint32Array;
}

/**
 * splitProse as the text arrives: `push` the text in pieces of any size, cut
 * anywhere (mid-word, between a surrogate pair, between "\r" and "\n" if the caller keeps them),
 * then `finish`. The fragments are exactly splitProse's on the pieces joined, and the splitter
 * holds only the word it is in the middle of, never the text. A word is only judged once the
 * white space after it (or the end) has arrived, and a sentence only once the next word starts
 * (a blank line between them ends it too), which is all splitProse looks at.
 */
export class ProseSplitStream {
  private readonly packer: FragmentPacker;
  /** Characters pushed so far: the offset of the next piece in the whole text. */
  private length = 0;
  /** A run of non-white-space that reaches the end of the pieces so far, and where it starts. */
  private runParts: string[] = [];
  private runStart = 0;
  /** The last word, its sentence still undecided until the next word starts. */
  private pending = false;
  private pendingEndsSentence = false;
  /** Line feeds in the white space since the pending word. */
  private gapNewlines = 0;

  constructor(options?: Partial<FragmentOptions>) {
    const opts = withDefaults(defaultFragmentOptions, options, 'fragment');
    this.packer = new FragmentPacker(positiveInteger(opts.wordsPerFragment, 'wordsPerFragment'));
  }

  /** Characters pushed so far. */
  get pushed(): number {
    return this.length;
  }

  push(piece: string): void {
    const n = piece.length;
    let i = 0;
    if (this.runParts.length > 0) {
      while (i < n && !isSpace(piece.charCodeAt(i))) i++;
      this.runParts.push(i === n ? piece : piece.slice(0, i));
      if (i === n) {
        this.length += n;
        return;
      }
      this.closeRun();
    }
    for (;;) {
      for (let c = 0; i < n && isSpace((c = piece.charCodeAt(i))); i++) {
        if (c === 10) this.gapNewlines++;
      }
      if (i === n) break;
      let j = i + 1;
      while (j < n && !isSpace(piece.charCodeAt(j))) j++;
      if (j === n) {
        this.runStart = this.length + i;
        this.runParts.push(i === 0 ? piece : piece.slice(i));
        break;
      }
      this.run(this.length + i, piece.slice(i, j));
      i = j;
    }
    this.length += n;
  }

  /** The text has ended: its fragments, as splitProse would give them. */
  finish(): ProseSpans {
    if (this.runParts.length > 0) this.closeRun();
    const { packer } = this;
    if (this.length > 0) {
      if (this.pending) packer.endSentence(this.length);
      packer.finish(this.length);
    }
    return {
      starts: Uint32Array.from(packer.starts),
      ends: Uint32Array.from(packer.ends),
      words: Uint32Array.from(packer.words),
    };
  }

  private closeRun(): void {
    const run = this.runParts.length === 1 ? this.runParts[0] : this.runParts.join('');
    this.runParts = [];
    this.run(this.runStart, run);
  }

  /** A whole run of non-white-space starting at `start`: one word, or several (dense scripts). */
  private run(start: number, run: string): void {
    if (!hasDenseScript(run)) {
      this.word(start, run);
      return;
    }
    const starts = denseWordStarts(run, 0, run.length);
    for (let k = 0; k < starts.length; k++) {
      const end = k + 1 < starts.length ? starts[k + 1] : run.length;
      this.word(start + starts[k], run.slice(starts[k], end));
    }
  }

  private word(start: number, word: string): void {
    if (this.pending && (this.pendingEndsSentence || this.gapNewlines >= 2)) {
      this.packer.endSentence(start);
    }
    this.packer.word(start);
    this.pending = true;
    this.pendingEndsSentence = isSentenceEnd(word);
    this.gapNewlines = 0;
  }
}

/**
 * Code: windows of `windowLines` lines sliding by `windowStride` (paper: 20 by 10). The first
 * window starts at line 1; windows follow until one reaches the last line, so the last may be
 * shorter and a file of at most `windowLines` lines is one window. A line includes its "\n";
 * a final "\n" does not start an extra empty line. Labels are 1-based inclusive line ranges
 * ("11-30"). Windows overlap by `windowLines - windowStride` lines; the stride may not exceed
 * the window, or lines between windows would never be retrieved.
 */
export function splitCode(
  docId: string,
  text: string,
  options?: Partial<FragmentOptions>,
): Fragment[] {
  const opts = withDefaults(defaultFragmentOptions, options, 'fragment');
  const windowLines = positiveInteger(opts.windowLines, 'windowLines');
  const stride = positiveInteger(opts.windowStride, 'windowStride');
  if (stride > windowLines) {
    throw new Error(
      `FragRel: windowStride (${stride}) may not exceed windowLines (${windowLines}); lines between windows would be lost.`,
    );
  }
  const out: Fragment[] = [];
  if (text.length === 0) return out;

  const lineStarts: number[] = [0];
  for (let i = text.indexOf('\n'); i !== -1 && i + 1 < text.length; i = text.indexOf('\n', i + 1)) {
    lineStarts.push(i + 1);
  }
  const lines = lineStarts.length;
  const lineEnd = (line: number) => (line + 1 < lines ? lineStarts[line + 1] : text.length);

  for (let first = 0; ; first += stride) {
    const last = Math.min(first + windowLines, lines);
    const start = lineStarts[first];
    const end = lineEnd(last - 1);
    out.push({
      docId,
      ordinal: out.length,
      start,
      end,
      label: `${first + 1}-${last}`,
      words: countWords(text, start, end),
    });
    if (last >= lines) break;
  }
  return out;
}

/**
 * A chat transcript as one source text plus where each turn starts. We keep the chat as a
 * single text (not an array of strings) so turn fragments are spans of a source like every
 * other fragment and the same citation and highlighting code serves books, code and chat.
 */
export interface ChatTurns {
  /** The whole transcript. */
  text: string;
  /** Character offset where turn k starts; starts[0] is 0 and offsets never decrease. */
  starts: ArrayLike<number>;
  /** Optional speaker of each turn ("user", "assistant"), shown in labels. */
  roles?: readonly string[];
}

/**
 * Build a transcript from separate turns. The separator after a turn belongs to that turn, so
 * fragments tile the text. Appending a turn later keeps earlier offsets, which keeps the chat
 * memory's stored fragments valid as the chat grows.
 */
export function joinChatTurns(
  turns: readonly { text: string; role?: string }[],
  separator = '\n\n',
): ChatTurns {
  const starts = new Uint32Array(turns.length);
  let text = '';
  turns.forEach((turn, k) => {
    starts[k] = text.length;
    text += k + 1 < turns.length ? turn.text + separator : turn.text;
  });
  const roles = turns.some((t) => t.role !== undefined)
    ? turns.map((t) => t.role ?? '')
    : undefined;
  return { text, starts, roles };
}

/** Chat: one fragment per turn, turn k spanning [starts[k], starts[k+1]) (the last to the end). */
export function splitChat(docId: string, turns: ChatTurns): Fragment[] {
  const { text, starts, roles } = turns;
  const n = starts.length;
  if (n === 0) {
    if (text.length > 0)
      throw new Error('FragRel: a chat with text needs at least one turn start.');
    return [];
  }
  if (starts[0] !== 0) {
    throw new Error(`FragRel: the first chat turn must start at offset 0, got ${starts[0]}.`);
  }
  const out: Fragment[] = [];
  for (let k = 0; k < n; k++) {
    const start = starts[k];
    const end = k + 1 < n ? starts[k + 1] : text.length;
    if (!(end >= start) || end > text.length) {
      throw new Error(
        `FragRel: chat turn ${k + 1} has span [${start}, ${end}) in a text of length ${text.length}; turn starts must not decrease.`,
      );
    }
    const role = roles?.[k];
    out.push({
      docId,
      ordinal: k,
      start,
      end,
      label: role ? `turn ${k + 1} (${role})` : `turn ${k + 1}`,
      words: countWords(text, start, end),
    });
  }
  return out;
}
