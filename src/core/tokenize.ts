/**
 * @file One tokenizer for prose and code, shared by BM25 and the static embedder.
 *
 * Prose: lower-cased runs of letters and digits ("Natasha's" -> "natasha", "s").
 * Code: identifiers are kept whole and also split into their parts, so a query word
 * "user" matches `getUserName`, `user_name` and `USER_ID`:
 *   getUserName -> getusername, get, user, name
 *   HTTPServer  -> httpserver, http, server
 *   user_id     -> user_id, user, id
 * Apostrophes inside words are separators.
 *
 * Accents: a token written in the Latin script is folded for matching, NFKD then
 * combining marks removed ("Bezúkhov" -> "bezukhov", "Café" -> "cafe", "ﬁne" -> "fine"), so a
 * question typed without accents finds a book that writes them, in BM25 and wherever tokens are
 * compared. Only Latin tokens: in other scripts a mark is part of the letter (Japanese が is
 * か plus a voicing mark, Russian й is и plus a breve, Hindi vowel signs), so those are left as
 * they are, and dense-script segmentation runs on the original text before any folding. The
 * static embedder looks its vocabulary up with the unfolded tokens first (`tokenizeByRules` and
 * its fast twin keep accents) and folds only on a miss (embed/static.ts).
 *
 * Scripts written without spaces (Chinese, Japanese, Thai, ...): a text holding any of them is
 * cut into words by ICU's word segmenter (script/segment.ts); each word of such a script is one
 * lower-cased token ("吾輩は猫である" -> 吾輩, は, 猫, で, ある), every other word goes through the
 * rules above. A text without them never reaches the segmenter, so it is tokenized as before.
 *
 * Speed: with default options a text the allocation-free scanner of embed/spans.ts accepts is
 * tokenized by it (held equal to the regex rules by a property test in static.test.ts), so BM25
 * and the static embedder share one fast tokenizer.
 */
import { fastTokenSpans, isFastTokenizable, spanCapacity, tokenBoundaryFrom } from './embed/spans';
import { hasDenseScript, wordSegments } from './script/segment';

// A token is a run of letters, digits and underscores (Unicode-aware).
const TOKEN = /[\p{L}\p{N}_]+/gu;
// camelCase and PascalCase boundaries, and acronym boundaries (HTTPServer -> HTTP|Server).
const CAMEL = /(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u;

export interface TokenizeOptions {
  /** Also emit the parts of camelCase and snake_case identifiers (default true). */
  splitIdentifiers: boolean;
  /** Drop tokens shorter than this many characters after splitting (default 1: keep all). */
  minLength: number;
  /** Fold the accents of Latin-script tokens (default true; see the file comment). */
  foldAccents: boolean;
}

export const defaultTokenizeOptions: Readonly<TokenizeOptions> = Object.freeze({
  splitIdentifiers: true,
  minLength: 1,
  foldAccents: true,
});

const LATIN_TOKEN = /^[\p{Script=Latin}\p{M}\p{N}_]+$/u;
const COMBINING_MARKS = /\p{M}/gu;

/**
 * A token's accent-folded form for matching: NFKD and combining marks removed when every letter
 * of it is Latin; any other token, and every ASCII one, unchanged.
 */
export function foldAccents(token: string): string {
  let ascii = true;
  for (let i = 0; i < token.length && ascii; i++) ascii = token.charCodeAt(i) < 0x80;
  if (ascii || !LATIN_TOKEN.test(token)) return token;
  return token.normalize('NFKD').replace(COMBINING_MARKS, '');
}

const SCAN_PIECE = 1 << 16;
// Reused span buffer of the fast path; grown on demand, never shrunk.
let spanBuffer = new Int32Array(0);

/** Split `text` into lower-cased terms; see the file comment for the rules. */
export function tokenize(text: string, options: Partial<TokenizeOptions> = {}): string[] {
  const {
    splitIdentifiers,
    minLength,
    foldAccents: fold,
  } = {
    ...defaultTokenizeOptions,
    ...options,
  };
  const tokens = unfolded(text, splitIdentifiers, minLength, options);
  if (fold) for (let i = 0; i < tokens.length; i++) tokens[i] = foldAccents(tokens[i]);
  return tokens;
}

/** The tokens with their accents: the fast scanner where it applies, else the rules. */
function unfolded(
  text: string,
  splitIdentifiers: boolean,
  minLength: number,
  options: Partial<TokenizeOptions>,
): string[] {
  if (splitIdentifiers && minLength <= 1 && isFastTokenizable(text)) {
    const out: string[] = [];
    // In pieces cut between tokens, so a whole book needs no buffer four times its length.
    for (let from = 0; from < text.length;) {
      const to = tokenBoundaryFrom(text, Math.min(from + SCAN_PIECE, text.length));
      if (spanBuffer.length < spanCapacity(to - from)) {
        spanBuffer = new Int32Array(spanCapacity(to - from));
      }
      const count = fastTokenSpans(text, spanBuffer, from, to);
      for (let k = 0; k < count; k++) {
        out.push(text.slice(spanBuffer[2 * k], spanBuffer[2 * k + 1]).toLowerCase());
      }
      from = to;
    }
    return out;
  }
  return tokenizeByRules(text, options);
}

/**
 * `tokenize` without the fast scanner and without folding accents: the regex rules and ICU
 * segmentation of the file comment. Exported so a property test can hold the fast scanner to it,
 * and for the static embedder's lookup (exact form first).
 */
export function tokenizeByRules(text: string, options: Partial<TokenizeOptions> = {}): string[] {
  const { splitIdentifiers, minLength } = { ...defaultTokenizeOptions, ...options };
  const out: string[] = [];
  if (!hasDenseScript(text)) {
    tokenizeRuns(text, splitIdentifiers, minLength, out);
    return out;
  }
  for (const s of wordSegments(text)) {
    if (!s.wordLike) continue;
    if (hasDenseScript(text, s.start, s.end)) {
      const word = text.slice(s.start, s.end).toLowerCase();
      if (word.length >= minLength) out.push(word);
    } else {
      tokenizeRuns(text.slice(s.start, s.end), splitIdentifiers, minLength, out);
    }
  }
  return out;
}

/** The rules for space-separated scripts (file comment), appending to `out`. */
function tokenizeRuns(
  text: string,
  splitIdentifiers: boolean,
  minLength: number,
  out: string[],
): void {
  for (const match of text.matchAll(TOKEN)) {
    const raw = match[0];
    const whole = raw.toLowerCase();
    if (!splitIdentifiers) {
      if (whole.length >= minLength) out.push(whole);
      continue;
    }
    const parts = raw
      .split('_')
      .flatMap((p) => p.split(CAMEL))
      .filter((p) => p.length > 0);
    if (parts.length <= 1) {
      // Plain word (or an identifier with only leading/trailing underscores).
      const word = parts.length === 1 ? parts[0].toLowerCase() : whole;
      if (word.length >= minLength) out.push(word);
      continue;
    }
    if (whole.length >= minLength) out.push(whole);
    for (const p of parts) {
      const part = p.toLowerCase();
      if (part.length >= minLength) out.push(part);
    }
  }
}
