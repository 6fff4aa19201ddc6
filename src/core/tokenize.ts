/**
 * @file One tokenizer for prose and code, shared by BM25 and the static embedder.
 *
 * Prose: lower-cased runs of letters and digits ("Natasha's" -> "natasha", "s").
 * Code: identifiers are kept whole and also split into their parts, so a query word
 * "user" matches `getUserName`, `user_name` and `USER_ID`:
 *   getUserName -> getusername, get, user, name
 *   HTTPServer  -> httpserver, http, server
 *   user_id     -> user_id, user, id
 * Apostrophes inside words are separators; accents are kept (the vocabulary has them).
 */

// A token is a run of letters, digits and underscores (Unicode-aware).
const TOKEN = /[\p{L}\p{N}_]+/gu;
// camelCase and PascalCase boundaries, and acronym boundaries (HTTPServer -> HTTP|Server).
const CAMEL = /(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u;

export interface TokenizeOptions {
  /** Also emit the parts of camelCase and snake_case identifiers (default true). */
  splitIdentifiers: boolean;
  /** Drop tokens shorter than this many characters after splitting (default 1: keep all). */
  minLength: number;
}

export const defaultTokenizeOptions: Readonly<TokenizeOptions> = Object.freeze({
  splitIdentifiers: true,
  minLength: 1,
});

/** Split `text` into lower-cased terms; see the file comment for the rules. */
export function tokenize(text: string, options: Partial<TokenizeOptions> = {}): string[] {
  const { splitIdentifiers, minLength } = { ...defaultTokenizeOptions, ...options };
  const out: string[] = [];
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
  return out;
}
