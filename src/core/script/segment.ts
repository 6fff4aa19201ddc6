/**
 * @file Words in scripts written without spaces between words (Chinese, Japanese, Thai, Lao,
 * Khmer, Myanmar), for the shared tokenizer (BM25, static embedder) and the prose fragmenter.
 *
 * Why the platform's `Intl.Segmenter`: it is ICU's word break iterator with ICU's dictionaries
 * for CJK and the South-East Asian scripts, present in every browser we support and in Node 20
 * (full ICU), so the index worker and the Node tests segment identically and no dictionary has to
 * be shipped (a JS segmenter such as TinySegmenter covers Japanese only, and its model would add
 * a download). The locale does not matter: ICU picks the dictionary by script.
 *
 * V8's segment iterator is quadratic in the length of one call's input (a 45,000-character run
 * took 0.67 s, 165,000 characters 52 s), so text is handed to it in pieces of at most
 * SEGMENT_PIECE characters, cut after sentence punctuation or white space where there is one.
 * Cost measured in Node 20: about 1.7 microseconds per character, for any script.
 *
 * Text with none of these scripts never reaches the segmenter, so Latin text is tokenized and
 * fragmented exactly as before, at the old speed.
 */

/**
 * Whether a UTF-16 code unit belongs to a script written without spaces between words, or is the
 * punctuation of one (so "猫である。名前" is split inside, not treated as one word). Hangul is not
 * here: Korean puts spaces between words.
 */
export function isDenseCode(c: number): boolean {
  if (c < 0x0e00) return false;
  return (
    c <= 0x0eff || // Thai, Lao
    (c >= 0x1000 && c <= 0x109f) || // Myanmar
    (c >= 0x1780 && c <= 0x17ff) || // Khmer
    (c >= 0x19e0 && c <= 0x19ff) || // Khmer symbols
    (c >= 0x2e80 && c <= 0x2fdf) || // CJK radicals
    (c >= 0x3001 && c <= 0x31ff) || // CJK punctuation, kana, bopomofo (not U+3000, a space)
    (c >= 0x3400 && c <= 0x4dbf) || // CJK extension A
    (c >= 0x4e00 && c <= 0x9fff) || // CJK unified ideographs
    (c >= 0xf900 && c <= 0xfaff) || // CJK compatibility ideographs
    (c >= 0xff01 && c <= 0xffef) || // full- and half-width forms (Japanese text uses them)
    (c >= 0xd840 && c <= 0xd8bf) // high surrogates of CJK extensions B-H (planes 2 and 3)
  );
}

/** Whether text[start..end) holds any character of a script without spaces. */
export function hasDenseScript(text: string, start = 0, end = text.length): boolean {
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x0e00 && isDenseCode(c)) return true;
  }
  return false;
}

/** Longest piece handed to one `segment` call (see the file comment for why). */
export const SEGMENT_PIECE = 512;

let segmenter: Intl.Segmenter | undefined;
function wordSegmenter(): Intl.Segmenter {
  segmenter ??= new Intl.Segmenter('und', { granularity: 'word' });
  return segmenter;
}

// Where a piece may end: after white space or sentence and clause punctuation.
function isPieceBreak(c: number): boolean {
  return (
    c === 0x20 ||
    c === 0x0a ||
    c === 0x09 ||
    c === 0x3000 ||
    c === 0x3001 || // 、
    c === 0x3002 || // 。
    c === 0xff0c || // ，
    c === 0xff01 || // ！
    c === 0xff1f || // ？
    c === 0x2e || // .
    c === 0x2c // ,
  );
}

// A piece must not end between a surrogate pair or before a combining mark (Thai vowels).
function isSafeCut(text: string, at: number): boolean {
  if (at <= 0 || at >= text.length) return true;
  const before = text.charCodeAt(at - 1);
  if (before >= 0xd800 && before <= 0xdbff) return false;
  return !/\p{M}/u.test(text[at]);
}

/** End of the piece that starts at `from` and may reach `end`. */
function pieceEnd(text: string, from: number, end: number): number {
  if (end - from <= SEGMENT_PIECE) return end;
  const limit = from + SEGMENT_PIECE;
  for (let i = limit; i > from + SEGMENT_PIECE / 2; i--) {
    if (isPieceBreak(text.charCodeAt(i - 1))) return i;
  }
  let at = limit;
  while (at > from + 1 && !isSafeCut(text, at)) at--;
  return at;
}

/** One segment of ICU's word break iteration, as absolute offsets into the text. */
export interface WordSegment {
  start: number;
  end: number;
  /** A word (letters, digits, ideographs), not punctuation or space. */
  wordLike: boolean;
}

/** ICU word segments of text[start..end), in order, tiling the range. */
export function* wordSegments(
  text: string,
  start = 0,
  end = text.length,
): Generator<WordSegment, void, undefined> {
  const seg = wordSegmenter();
  for (let from = start; from < end;) {
    const to = pieceEnd(text, from, end);
    for (const s of seg.segment(text.slice(from, to))) {
      const at = from + s.index;
      yield { start: at, end: at + s.segment.length, wordLike: s.isWordLike === true };
    }
    from = to;
  }
}

// Opening brackets and quotes belong to the word after them ("「吾輩" not "。「").
const OPENER = /^[\p{Ps}\p{Pi}]+$/u;

/**
 * The fragmenter's words in a run of non-white-space text that holds a script without spaces:
 * one per ICU word, with the punctuation after a word (and text before the first word) attached
 * to it, and opening brackets attached to the word they open. The spans tile [start, end).
 * Returns the start offsets; the run ends at `end`.
 */
export function denseWordStarts(text: string, start: number, end: number): number[] {
  const starts: number[] = [];
  let pendingOpener = -1;
  for (const s of wordSegments(text, start, end)) {
    if (s.wordLike) {
      const at = pendingOpener >= 0 ? pendingOpener : s.start;
      if (starts.length === 0) starts.push(start);
      else if (at > starts[starts.length - 1]) starts.push(at);
      pendingOpener = -1;
    } else if (OPENER.test(text.slice(s.start, s.end))) {
      if (pendingOpener < 0) pendingOpener = s.start;
    } else {
      pendingOpener = -1;
    }
  }
  if (starts.length === 0) starts.push(start);
  return starts;
}
