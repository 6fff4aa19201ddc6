/**
 * @file An allocation-free twin of the shared `tokenize` (default options) for the static
 * embedder's hot loop, and a vocabulary index that looks token spans up without building strings.
 *
 * `tokenize` is regex-based and returns fresh strings, about 1 microsecond per token; embedding a
 * short text is dominated by it. Here a text is scanned once over its UTF-16 code units with a
 * character-class table built from `tokenize`'s own classes (\p{L}, \p{N}, \p{Lu}, \p{Ll}, "_"),
 * token spans go into a reused Int32Array, and the lookup hashes the lower-cased code units.
 *
 * The twin covers every text whose code units are below U+3000 and lower-case one to one; a
 * text with anything else (surrogate pairs, CJK, "İ" whose lower case is two units, Greek capital
 * sigma whose lower case depends on context, Thai and other scripts without spaces, which
 * `tokenize` segments with ICU) goes back to `tokenize`. A property test holds
 * `fastTokenSpans` equal to `tokenize` on every text `isFastTokenizable` accepts.
 */
import { isDenseCode } from '../script/segment';

const TABLE_SIZE = 0x3000;
const WORD = 1;
const UPPER = 2;
const LOWER = 4;
const DIGIT = 8;
/** The code unit may appear in a text the twin handles. */
const FAST = 16;

interface CharTables {
  classes: Uint8Array;
  lower: Uint16Array;
}
let tables: CharTables | undefined;

// Built on first use (about 10 ms), from the same Unicode properties `tokenize` uses.
function charTables(): CharTables {
  if (tables) return tables;
  const classes = new Uint8Array(TABLE_SIZE);
  const lower = new Uint16Array(TABLE_SIZE);
  const word = /^[\p{L}\p{N}_]$/u;
  const upper = /^\p{Lu}$/u;
  const lowerCase = /^\p{Ll}$/u;
  const digit = /^\p{N}$/u;
  for (let c = 0; c < TABLE_SIZE; c++) {
    const ch = String.fromCharCode(c);
    const lowered = ch.toLowerCase();
    lower[c] = lowered.charCodeAt(0);
    let cls = 0;
    if (word.test(ch)) cls |= WORD;
    if (upper.test(ch)) cls |= UPPER;
    if (lowerCase.test(ch)) cls |= LOWER;
    if (digit.test(ch)) cls |= DIGIT;
    // Greek capital sigma lower-cases by context (final sigma), so only whole strings can do it.
    // Scripts without spaces (Thai, ...) are segmented by ICU in `tokenize`, not by runs.
    const oneToOne = lowered.length === 1 && c !== 0x03a3 && !isDenseCode(c);
    if (oneToOne) cls |= FAST;
    classes[c] = cls;
  }
  tables = { classes, lower };
  return tables;
}

/** True when `fastTokenSpans` handles `text` exactly as `tokenize` would. */
export function isFastTokenizable(text: string): boolean {
  const { classes } = charTables();
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= TABLE_SIZE || (classes[c] & FAST) === 0) return false;
  }
  return true;
}

/** Room `fastTokenSpans` may need in its `spans` array for a text of this length. */
export function spanCapacity(textLength: number): number {
  return 4 * textLength + 4;
}

/**
 * First index >= `from` where a token cannot continue (a separator), or `text.length`. Tokens
 * never cross it, so a long text can be scanned in pieces cut there.
 */
export function tokenBoundaryFrom(text: string, from: number): number {
  const { classes } = charTables();
  let i = from;
  while (i < text.length && (classes[text.charCodeAt(i)] & WORD) !== 0) i++;
  return i;
}

/**
 * The tokens `tokenize(text.slice(start, end))` would return with default options, as spans:
 * token k is `text.slice(spans[2k], spans[2k + 1]).toLowerCase()`. Returns the token count.
 * Requires `isFastTokenizable(text)`, `spans.length >= spanCapacity(end - start)`, and `start`
 * and `end` at token boundaries (0, `text.length`, or from `tokenBoundaryFrom`). Allocates nothing.
 */
export function fastTokenSpans(
  text: string,
  spans: Int32Array,
  start = 0,
  end = text.length,
): number {
  const { classes } = charTables();
  const length = end;
  let n = 0;
  let i = start;
  while (i < length) {
    if ((classes[text.charCodeAt(i)] & WORD) === 0) {
      i++;
      continue;
    }
    const runStart = i;
    // Slot n is kept for the whole run; its parts are written after it.
    const wholeSlot = n;
    n += 2;
    let parts = 0;
    let partStart = i;
    for (; i < length; i++) {
      const c = text.charCodeAt(i);
      const cls = classes[c];
      if ((cls & WORD) === 0) break;
      if (c === 95) {
        // "_" separates parts.
        if (i > partStart) {
          spans[n++] = partStart;
          spans[n++] = i;
          parts++;
        }
        partStart = i + 1;
        continue;
      }
      // tokenize's CAMEL: (lower | digit) -> Upper, and Upper -> Upper followed by lower.
      // Outside the current part the neighbours are "_" or separators, which match neither.
      if (i > partStart && (cls & UPPER) !== 0) {
        const prev = classes[text.charCodeAt(i - 1)];
        if (
          (prev & (LOWER | DIGIT)) !== 0 ||
          ((prev & UPPER) !== 0 &&
            i + 1 < length &&
            (classes[text.charCodeAt(i + 1)] & LOWER) !== 0)
        ) {
          spans[n++] = partStart;
          spans[n++] = i;
          parts++;
          partStart = i;
        }
      }
    }
    if (i > partStart) {
      spans[n++] = partStart;
      spans[n++] = i;
      parts++;
    }
    if (parts >= 2) {
      spans[wholeSlot] = runStart;
      spans[wholeSlot + 1] = i;
    } else if (parts === 1) {
      // One part: tokenize emits just that part ("__init__" -> "init").
      spans[wholeSlot] = spans[wholeSlot + 2];
      spans[wholeSlot + 1] = spans[wholeSlot + 3];
      n = wholeSlot + 2;
    } else {
      // Only underscores: tokenize keeps the run itself.
      spans[wholeSlot] = runStart;
      spans[wholeSlot + 1] = i;
      n = wholeSlot + 2;
    }
  }
  return n >> 1;
}

/**
 * Open-addressing hash table (FNV-1a over UTF-16 code units, linear probing, load <= 0.5) over a
 * word list, answering "which row is `text.slice(start, end).toLowerCase()`?" without a string.
 */
export interface SpanIndex {
  mask: number;
  /** Row + 1 per slot, 0 when empty. */
  slots: Int32Array;
  /** Code units of all words, concatenated: word i is chars[offsets[i] .. offsets[i + 1]]. */
  chars: Uint16Array;
  offsets: Int32Array;
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** Index `words`; a word listed twice keeps its first row (as the decoder's Map does). */
export function buildSpanIndex(words: readonly string[]): SpanIndex {
  let capacity = 2;
  while (capacity < 2 * words.length) capacity <<= 1;
  const offsets = new Int32Array(words.length + 1);
  for (let i = 0; i < words.length; i++) offsets[i + 1] = offsets[i] + words[i].length;
  const chars = new Uint16Array(offsets[words.length]);
  const slots = new Int32Array(capacity);
  const mask = capacity - 1;
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    let h = FNV_OFFSET;
    for (let k = 0; k < word.length; k++) {
      const c = word.charCodeAt(k);
      chars[offsets[i] + k] = c;
      h = Math.imul(h ^ c, FNV_PRIME);
    }
    let slot = h & mask;
    let duplicate = false;
    while (slots[slot] !== 0) {
      if (sameWord(chars, offsets, slots[slot] - 1, i)) duplicate = true;
      slot = (slot + 1) & mask;
    }
    if (!duplicate) slots[slot] = i + 1;
  }
  return { mask, slots, chars, offsets };
}

function sameWord(chars: Uint16Array, offsets: Int32Array, a: number, b: number): boolean {
  const length = offsets[a + 1] - offsets[a];
  if (offsets[b + 1] - offsets[b] !== length) return false;
  for (let k = 0; k < length; k++) {
    if (chars[offsets[a] + k] !== chars[offsets[b] + k]) return false;
  }
  return true;
}

/**
 * Row of `text.slice(start, end).toLowerCase()` in the index, or -1. The span must come from
 * `fastTokenSpans` (its code units are in the tables and lower-case one to one).
 */
export function lookupSpan(index: SpanIndex, text: string, start: number, end: number): number {
  const { lower } = charTables();
  const { mask, slots, chars, offsets } = index;
  let h = FNV_OFFSET;
  for (let k = start; k < end; k++) h = Math.imul(h ^ lower[text.charCodeAt(k)], FNV_PRIME);
  const length = end - start;
  for (let slot = h & mask; ; slot = (slot + 1) & mask) {
    const entry = slots[slot];
    if (entry === 0) return -1;
    const row = entry - 1;
    const from = offsets[row];
    if (offsets[row + 1] - from !== length) continue;
    let k = 0;
    while (k < length && chars[from + k] === lower[text.charCodeAt(start + k)]) k++;
    if (k === length) return row;
  }
}

/** True when the span has a code unit outside ASCII (so diacritic folding may find it). */
export function spanHasNonAscii(text: string, start: number, end: number): boolean {
  for (let k = start; k < end; k++) if (text.charCodeAt(k) > 127) return true;
  return false;
}
