/**
 * @file Which sentences of a cited fragment support the answer's claim, for marking them in the
 * reader (like NotebookLM's source highlighting).
 *
 * The claim is the answer's sentence before the citation. The fragment is cut into sentences
 * (Intl.Segmenter, the platform's Unicode sentence rules); each sentence is scored by BM25 of
 * the claim's content words (stop words dropped), with document frequencies taken over the
 * fragment's own sentences, so a word the whole passage repeats (the character's name) counts
 * less than the words only the supporting sentence shares with the claim. The best sentence is
 * marked, and up to `maxSentences - 1` more that score at least `relative` of it. A claim that
 * shares no content word with the fragment marks nothing: no mark is better than a wrong one.
 * See docs/ux.md.
 */
import { calcBm25Score } from '../bm25';
import { STOP_WORDS } from '../stopwords';
import { tokenize } from '../tokenize';

export interface SentenceSpan {
  /** Character span in the fragment text, half-open, without surrounding whitespace. */
  start: number;
  end: number;
}

export interface SupportOptions {
  maxSentences: number;
  /** A further sentence is marked when its score is at least this share of the best. */
  relative: number;
  /** Locale of the sentence rules. */
  locale: string;
}

export const defaultSupportOptions: Readonly<SupportOptions> = Object.freeze({
  maxSentences: 2,
  relative: 0.6,
  locale: 'en',
});

/** The sentences of `text`, trimmed, empty ones dropped. */
export function sentencesOf(text: string, locale = 'en'): SentenceSpan[] {
  const out: SentenceSpan[] = [];
  const segmenter = new Intl.Segmenter(locale, { granularity: 'sentence' });
  for (const { segment, index } of segmenter.segment(text)) {
    const lead = segment.length - segment.trimStart().length;
    const body = segment.trim();
    if (body) out.push({ start: index + lead, end: index + lead + body.length });
  }
  return out;
}

const contentTerms = (text: string) => tokenize(text).filter((t) => !STOP_WORDS.has(t));

/** The supporting sentences of `fragment` for `claim`, best first, each with its score. */
export function supportingSentences(
  claim: string,
  fragment: string,
  options: Partial<SupportOptions> = {},
): (SentenceSpan & { score: number })[] {
  const o = { ...defaultSupportOptions, ...options };
  const query = [...new Set(contentTerms(claim))];
  if (query.length === 0) return [];
  const sentences = sentencesOf(fragment, o.locale);
  const bags = sentences.map((s) => {
    const tf = new Map<string, number>();
    const terms = contentTerms(fragment.slice(s.start, s.end));
    for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
    return { tf, length: terms.length };
  });
  const n = bags.length;
  const avg = bags.reduce((a, b) => a + b.length, 0) / Math.max(1, n);
  const df = new Map<string, number>();
  for (const t of query) df.set(t, bags.filter((b) => b.tf.has(t)).length);
  const scored = sentences.map((s, k) => {
    let score = 0;
    for (const t of query) {
      const f = bags[k].tf.get(t);
      if (f) score += calcBm25Score(f, df.get(t)!, n, bags[k].length, avg);
    }
    return { ...s, score };
  });
  const ranked = scored.filter((s) => s.score > 0).sort((a, b) => b.score - a.score);
  if (ranked.length === 0) return [];
  const best = ranked[0].score;
  return ranked.filter((s, k) => k === 0 || s.score >= o.relative * best).slice(0, o.maxSentences);
}
