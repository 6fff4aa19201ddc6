/**
 * @file Speed of the offline default embedder (static GloVe 100-d, SIF; src/core/embed/static.ts).
 *
 * 1. War and Peace (../shared/datasets/gutenberg/pg2600_war_and_peace.txt, 562k words), as a user
 *    would meet it in a fresh process: decode the asset, split into 500-word prose fragments,
 *    embed every fragment. Each step timed once, cold (JIT warm-up included).
 * 2. Throughput, warm: fragments per second for the 500-word fragments from step 1 and for
 *    ~20-word texts (consecutive 20-word windows of the same book, about 28k texts); median of
 *    several passes over the whole set.
 *
 * `runEmbedderBench()` prints a markdown table and writes bench/results/embedder.json;
 * `embedderSection` has the shape bench/run.ts expects of a section.
 * Run alone: `npm run assets && npx tsx bench/embedder.ts`.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { decodeStaticModel, embedTexts, type StaticModel } from '../src/core/embed/static';
import { isFastTokenizable } from '../src/core/embed/spans';
import { splitProse } from '../src/core/fragment';
import { distilledAssetPath, loadDistilledFromDisk } from '../test/distilled';
import { ensureGloveAsset, gloveAssetPath, sharedDatasetPath } from '../test/glove';
import { writeResults } from './results-file';

const WORDS_PER_FRAGMENT = 500;
const SHORT_WORDS = 20;
const PASSES = 7;

export interface ThroughputResult {
  texts: number;
  meanWords: number;
  /** Share of texts the allocation-free tokenizer took (the rest went through `tokenize`). */
  fastPathShare: number;
  medianMs: number;
  fragmentsPerSecond: number;
  wordsPerSecond: number;
  bestFragmentsPerSecond: number;
}

export interface EmbedderBenchResults {
  asset: { path: string; bytes: number; vocabulary: number; dim: number; decodeMs: number };
  warAndPeace: {
    file: string;
    characters: number;
    words: number;
    readMs: number;
    splitMs: number;
    embedMs: number;
    totalMs: number;
    fragments: number;
    wordsPerFragment: number;
    zeroRows: number;
  };
  throughput: { long: ThroughputResult; short: ThroughputResult };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

function countWords(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

function throughput(model: StaticModel, texts: string[]): ThroughputResult {
  const words = texts.reduce((n, t) => n + countWords(t), 0);
  embedTexts(model, texts.slice(0, 200)); // warm-up
  const ms: number[] = [];
  for (let p = 0; p < PASSES; p++) {
    const t0 = performance.now();
    embedTexts(model, texts);
    ms.push(performance.now() - t0);
  }
  const m = median(ms);
  return {
    texts: texts.length,
    meanWords: words / texts.length,
    fastPathShare: texts.filter(isFastTokenizable).length / texts.length,
    medianMs: m,
    fragmentsPerSecond: (texts.length / m) * 1000,
    wordsPerSecond: (words / m) * 1000,
    bestFragmentsPerSecond: (texts.length / Math.min(...ms)) * 1000,
  };
}

/** Measure without printing or writing (bench/run.ts does both for a section). */
export async function measureEmbedder(
  log: (line: string) => void = () => {},
  which: 'glove' | 'distilled' = 'glove',
): Promise<EmbedderBenchResults> {
  const bookPath = sharedDatasetPath('gutenberg', 'pg2600_war_and_peace.txt');
  // Builds the asset if it is missing, outside the timings below.
  if (which === 'glove') ensureGloveAsset();
  else loadDistilledFromDisk();
  const assetPath = which === 'glove' ? gloveAssetPath : distilledAssetPath;

  // 1. Cold, in the order the app does it.
  let t0 = performance.now();
  const bytes = readFileSync(assetPath);
  const model = decodeStaticModel(bytes);
  const decodeMs = performance.now() - t0;

  t0 = performance.now();
  let book: string;
  try {
    book = readFileSync(bookPath, 'utf8');
  } catch {
    throw new Error(
      `The embedder benchmark needs War and Peace at ${bookPath} (set FRAGREL_SHARED_DIR to the folder holding datasets/).`,
    );
  }
  const readMs = performance.now() - t0;
  t0 = performance.now();
  const fragments = splitProse('war-and-peace', book, { wordsPerFragment: WORDS_PER_FRAGMENT });
  const splitMs = performance.now() - t0;
  const fragmentTexts = fragments.map((f) => book.slice(f.start, f.end));
  t0 = performance.now();
  const vectors = embedTexts(model, fragmentTexts);
  const embedMs = performance.now() - t0;
  let zeroRows = 0;
  for (let i = 0; i < vectors.count; i++) {
    if (vectors.data.subarray(i * vectors.dim, (i + 1) * vectors.dim).every((x) => x === 0)) {
      zeroRows++;
    }
  }
  const bookWords = countWords(book);
  log(
    `War and Peace: ${fragments.length} fragments, split ${splitMs.toFixed(0)} ms, embed ${embedMs.toFixed(0)} ms`,
  );

  // 2. Warm throughput.
  const long = throughput(model, fragmentTexts);
  log(`500-word fragments: ${long.fragmentsPerSecond.toFixed(0)} per second`);
  const bookWordList = book.split(/\s+/).filter(Boolean);
  const shortTexts: string[] = [];
  for (let i = 0; i + SHORT_WORDS <= bookWordList.length; i += SHORT_WORDS) {
    shortTexts.push(bookWordList.slice(i, i + SHORT_WORDS).join(' '));
  }
  const short = throughput(model, shortTexts);
  log(`20-word texts: ${short.fragmentsPerSecond.toFixed(0)} per second`);

  return {
    asset: {
      path: path.relative(process.cwd(), assetPath),
      bytes: statSync(assetPath).size,
      vocabulary: model.size,
      dim: model.dim,
      decodeMs,
    },
    warAndPeace: {
      file: path.basename(bookPath),
      characters: book.length,
      words: bookWords,
      readMs,
      splitMs,
      embedMs,
      totalMs: readMs + splitMs + embedMs,
      fragments: fragments.length,
      wordsPerFragment: WORDS_PER_FRAGMENT,
      zeroRows,
    },
    throughput: { long, short },
  };
}

const fmt = (x: number, digits = 0) =>
  x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export function embedderMarkdown(r: EmbedderBenchResults): string {
  const w = r.warAndPeace;
  const row = (name: string, t: ThroughputResult) =>
    `| ${name} | ${fmt(t.texts)} | ${fmt(t.meanWords, 1)} | ${fmt(t.fragmentsPerSecond)} | ` +
    `${fmt(t.bestFragmentsPerSecond)} | ${fmt(t.wordsPerSecond / 1e6, 2)} M | ${fmt(100 * t.fastPathShare)}% |`;
  return [
    `Static embedder (${r.asset.path}): ${fmt(r.asset.bytes / 1e6, 2)} MB asset, ${fmt(r.asset.vocabulary)} words x ${r.asset.dim} dims, decoded in ${fmt(r.asset.decodeMs)} ms.`,
    '',
    '| War and Peace (cold, one pass) | value |',
    '|---|---|',
    `| text | ${fmt(w.characters)} characters, ${fmt(w.words)} words |`,
    `| read file | ${fmt(w.readMs)} ms |`,
    `| split (splitProse, ${w.wordsPerFragment} words) | ${fmt(w.splitMs)} ms |`,
    `| embed (embedTexts) | ${fmt(w.embedMs)} ms |`,
    `| total | ${fmt(w.totalMs)} ms |`,
    `| fragments | ${fmt(w.fragments)} (${w.zeroRows} with no known word) |`,
    '',
    `| Throughput (warm, median of ${PASSES} passes) | texts | words/text | fragments/s | best fragments/s | words/s | fast tokenizer |`,
    '|---|---|---|---|---|---|---|',
    row('500-word fragments', r.throughput.long),
    row('20-word texts', r.throughput.short),
  ].join('\n');
}

/** bench/run.ts section shape: `{ name, description, run(log) -> { results, markdown } }`. */
export const embedderSection = {
  name: 'embedder',
  description: 'Static GloVe embedder: War and Peace split + embed, and fragments per second.',
  async run(log: (line: string) => void) {
    const results = await measureEmbedder(log);
    return { results, markdown: embedderMarkdown(results) };
  },
};

/** The same measurements for the static vectors distilled from MiniLM (docs/method.md). */
export const embedderDistilledSection = {
  name: 'embedder-distilled',
  description:
    'Static vectors distilled from MiniLM: War and Peace split + embed, and fragments per second.',
  async run(log: (line: string) => void) {
    const results = await measureEmbedder(log, 'distilled');
    return { results, markdown: embedderMarkdown(results) };
  },
};

/** Measure, print the markdown table, write bench/results/embedder.json; returns the results. */
export async function runEmbedderBench(): Promise<EmbedderBenchResults> {
  const results = await measureEmbedder((line) => process.stderr.write(`[embedder] ${line}\n`));
  console.log(embedderMarkdown(results));
  writeResults('embedder', results);
  return results;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runEmbedderBench().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
