/**
 * @file Token estimates for engines whose tokenizer the page does not have (the APIs, WebLLM).
 *
 * Subword tokenizers of current models read English prose at about 4 characters per token and
 * code at about 3; scripts written without spaces (Chinese, Japanese, Korean) at about one
 * character per token. We count 3.5 characters per token for Latin text, so the estimate errs on
 * the long side and a prompt fitted with it rarely overflows; one token per CJK character; two
 * characters per token for other non-ASCII letters.
 */

/** Latin-script characters per token assumed by the estimate. */
export const CHARS_PER_TOKEN = 3.5;

// Han, Hiragana, Katakana, Hangul, and full-width forms.
const WIDE = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]/g;

export function estimateTokens(text: string): number {
  if (!text) return 0;
  const wide = text.match(WIDE)?.length ?? 0;
  let otherNonAscii = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) otherNonAscii++;
  otherNonAscii -= wide;
  const ascii = text.length - wide - otherNonAscii;
  return Math.ceil(ascii / CHARS_PER_TOKEN + wide + otherNonAscii / 2);
}
