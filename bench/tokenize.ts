/**
 * @file Tokenizing for BM25: the BM25 build over War and Peace with the regex rules
 * (`tokenizeByRules`, what `tokenize` did before) and with the fast span scanner `tokenize` now
 * takes for such text; and fragmenting plus the BM25 build of a 150 KB Japanese book, whose
 * words come from ICU's segmenter.
 *
 *   npx tsx bench/tokenize.ts      (writes bench/results/tokenize.json)
 */
import { readFileSync } from 'node:fs';
import { buildBm25Index } from '../src/core/bm25';
import { splitProse } from '../src/core/fragment';
import { tokenize, tokenizeByRules } from '../src/core/tokenize';
import { sharedDatasetPath } from '../test/glove';
import { JA_BOOK } from '../test/scripts/samples';
import { writeResults } from './results-file';

const RUNS = 5;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

function time(fn: () => void): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

function bm25Build(texts: string[], tok: (t: string) => string[]): number {
  return median(
    Array.from({ length: RUNS }, () => time(() => buildBm25Index(texts.map((t) => tok(t))))),
  );
}

const english = readFileSync(sharedDatasetPath('gutenberg/pg2600_war_and_peace.txt'), 'utf8');
const enFragments = splitProse('wp', english, { wordsPerFragment: 500 });
const enTexts = enFragments.map((f) => english.slice(f.start, f.end));
const rulesMs = bm25Build(enTexts, (t) => tokenizeByRules(t));
const fastMs = bm25Build(enTexts, (t) => tokenize(t));
// Same tokens either way (also held by a property test).
for (let i = 0; i < enTexts.length; i += 97) {
  if (tokenize(enTexts[i]).join(' ') !== tokenizeByRules(enTexts[i]).join(' ')) {
    throw new Error(`fragment ${i}: the two tokenizers disagree`);
  }
}

// About the size of the 147 KB book of the report.
const japanese = JA_BOOK.repeat(Math.ceil(150_000 / JA_BOOK.length));
const fragmentMs = median(
  Array.from({ length: RUNS }, () => time(() => splitProse('ja', japanese))),
);
const jaFragments = splitProse('ja', japanese);
const jaTexts = jaFragments.map((f) => japanese.slice(f.start, f.end));
const jaBm25Ms = bm25Build(jaTexts, (t) => tokenize(t));

const results = {
  warAndPeace: {
    characters: english.length,
    fragments: enTexts.length,
    bm25BuildRegexRulesMs: Math.round(rulesMs),
    bm25BuildFastScannerMs: Math.round(fastMs),
    speedup: Number((rulesMs / fastMs).toFixed(2)),
  },
  japanese150k: {
    characters: japanese.length,
    utf8Bytes: Buffer.byteLength(japanese),
    fragments: jaFragments.length,
    meanWordsPerFragment: Math.round(
      jaFragments.reduce((n, f) => n + (f.words ?? 0), 0) / jaFragments.length,
    ),
    splitProseMs: Math.round(fragmentMs),
    bm25BuildMs: Math.round(jaBm25Ms),
  },
  runs: RUNS,
};
console.log(JSON.stringify(results, null, 2));
console.log(`written to ${writeResults('tokenize', results)}`);
