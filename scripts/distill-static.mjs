/**
 * @file Build step: a static word embedder distilled from all-MiniLM-L6-v2 by the Model2Vec
 * method (Tulkens and van Dongen, 2024; docs/method.md, "A static embedder distilled from
 * MiniLM"), written in the offline embedder's asset format (src/core/embed/static.ts) to
 * public/models/distilled/minilm-distilled-256d.bin, plus manifest.json beside it. Generated and
 * gitignored, like the GloVe asset.
 *
 * 1. Vocabulary: the GloVe asset's 50,000 words and their frequency ranks (so the tokenizer, the
 *    coverage and the Zipf estimate of p(w) are the same as the offline GloVe embedder's; Model2Vec
 *    calls this distilling onto a custom word vocabulary). Build it first (`npm run assets`).
 * 2. Each word alone goes through MiniLM with native ONNX Runtime (onnxruntime-node, through
 *    transformers.js, the int8 weights `npm run models` fetched): the sentence-transformer's own
 *    output, mean-pooled over [CLS] word-pieces [SEP] and L2-normalised.
 * 3. PCA: the rows are centred and projected on the top DIM eigenvectors of their covariance
 *    (cyclic Jacobi on the 384 x 384 matrix; no linear-algebra package is installed, and the
 *    method is thirty lines).
 * 4. Zipf weighting happens at embedding time: the asset stores each word's rank, and the static
 *    embedder weights a word by a / (a + p(w)) with p(w) from Zipf's law (static.ts, SIF), the
 *    weighting Model2Vec itself adopted; the SIF common component is computed exactly from the
 *    quantised rows as for GloVe.
 *
 * Runs only when the weights are there (`--if-weights` exits quietly otherwise) and does nothing
 * when the manifest records the same inputs, and copies the result from the models cache
 * (`<cache>/distilled/<inputs' hash>/`) when this machine distilled the same inputs before;
 * `--force` rebuilds. 16 minutes on this VM's 2 cores
 * while shared with six other jobs (load average 15-19); MiniLM over the 50,000 words is most of it.
 */
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { modelsCacheDir } from './models.mjs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const DIM = 256;
const SIF_A = 1e-3;
const COMPONENT_TEXT_LENGTH = 20;
const BATCH = 512;

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const scriptPath = fileURLToPath(import.meta.url);
const gloveFile = join(root, 'public/models/glove/glove-100d.bin');
const outDir = join(root, 'public/models/distilled');
const outFile = join(outDir, 'minilm-distilled-256d.bin');
const manifestFile = join(outDir, 'manifest.json');
const rel = (p) => relative(root, p);

/**
 * Eigen-decomposition of a symmetric n x n matrix (row-major Float64Array, destroyed) by cyclic
 * Jacobi rotations. Returns eigenvalues and the eigenvectors as rows, largest eigenvalue first.
 */
export function symmetricEigen(a, n) {
  const v = new Float64Array(n * n);
  for (let i = 0; i < n; i++) v[i * n + i] = 1;
  for (let sweep = 0; sweep < 50; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += a[p * n + q] ** 2;
    if (off < 1e-22) break;
    for (let p = 0; p < n; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = a[p * n + q];
        if (Math.abs(apq) < 1e-300) continue;
        const theta = (a[q * n + q] - a[p * n + p]) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          // columns p and q
          const akp = a[k * n + p];
          const akq = a[k * n + q];
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (let k = 0; k < n; k++) {
          // rows p and q
          const apk = a[p * n + k];
          const aqk = a[q * n + k];
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
        for (let k = 0; k < n; k++) {
          const vkp = v[k * n + p];
          const vkq = v[k * n + q];
          v[k * n + p] = c * vkp - s * vkq;
          v[k * n + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  const order = Array.from({ length: n }, (_, i) => i).sort((i, j) => a[j * n + j] - a[i * n + i]);
  const values = order.map((i) => a[i * n + i]);
  const vectors = order.map((i) => Float64Array.from({ length: n }, (_, k) => v[k * n + i]));
  return { values, vectors };
}

/** Centre `rows` (count x dim) and project them on the top `keep` principal components. */
export function pcaProject(rows, count, dim, keep) {
  const mean = new Float64Array(dim);
  for (let i = 0; i < count; i++) for (let d = 0; d < dim; d++) mean[d] += rows[i * dim + d];
  for (let d = 0; d < dim; d++) mean[d] /= count;
  const cov = new Float64Array(dim * dim);
  const x = new Float64Array(dim);
  for (let i = 0; i < count; i++) {
    for (let d = 0; d < dim; d++) x[d] = rows[i * dim + d] - mean[d];
    for (let p = 0; p < dim; p++) {
      const xp = x[p];
      for (let q = p; q < dim; q++) cov[p * dim + q] += xp * x[q];
    }
  }
  for (let p = 0; p < dim; p++) {
    for (let q = p; q < dim; q++) {
      cov[p * dim + q] /= count;
      cov[q * dim + p] = cov[p * dim + q];
    }
  }
  const total = Array.from({ length: dim }, (_, d) => cov[d * dim + d]).reduce((s, y) => s + y, 0);
  const { values, vectors } = symmetricEigen(cov, dim);
  const out = new Float32Array(count * keep);
  for (let i = 0; i < count; i++) {
    for (let d = 0; d < dim; d++) x[d] = rows[i * dim + d] - mean[d];
    for (let k = 0; k < keep; k++) {
      const e = vectors[k];
      let s = 0;
      for (let d = 0; d < dim; d++) s += e[d] * x[d];
      out[i * keep + k] = s;
    }
  }
  const kept = values.slice(0, keep).reduce((s, y) => s + y, 0);
  return { projected: out, explained: kept / total };
}

/** The sha256 pins of MiniLM's files in scripts/models.manifest.json. */
function pinnedWeights() {
  const manifest = JSON.parse(readFileSync(join(root, 'scripts/models.manifest.json'), 'utf8'));
  const model = manifest.models.find((m) => m.id === 'all-MiniLM-L6-v2');
  return model.files.map((f) => `${f.path}:${f.sha256}`).join(' ');
}

async function main() {
  const args = process.argv.slice(2);
  const { tsImport } = await import('tsx/esm/api');
  const real = await tsImport('../test/real-models.ts', import.meta.url);
  try {
    real.requireRealModel('all-MiniLM-L6-v2');
  } catch (error) {
    if (args.includes('--if-weights')) {
      console.log('distilled asset: MiniLM weights not fetched (`npm run models`); skipped.');
      return;
    }
    throw error;
  }
  if (!existsSync(gloveFile)) {
    throw new Error(`distilled asset: ${rel(gloveFile)} is missing; run "npm run assets" first.`);
  }
  // Up to date when the same inputs made it: the GloVe asset's bytes (its words and ranks), this
  // script, and the weights' pinned sha256 (not modification times: rebuilding the GloVe asset
  // gives the same bytes, and the distillation takes minutes).
  const core = await tsImport('../src/core/embed/static.ts', import.meta.url);
  const sha = (bytes) => createHash('sha256').update(bytes).digest('hex');
  const inputs = {
    glove: sha(readFileSync(gloveFile)),
    script: sha(readFileSync(scriptPath)),
    format: core.STATIC_MODEL_VERSION,
    weights: pinnedWeights(),
  };
  const previous = existsSync(manifestFile)
    ? JSON.parse(readFileSync(manifestFile, 'utf8')).inputs
    : null;
  if (
    !args.includes('--force') &&
    existsSync(outFile) &&
    JSON.stringify(previous) === JSON.stringify(inputs)
  ) {
    console.log(`distilled asset: ${rel(outFile)} is up to date.`);
    return;
  }
  // The same inputs distilled before on this machine (another checkout, or CI's fresh clone):
  // copied from the cache beside the model weights instead of running MiniLM again.
  const cacheKey = sha(JSON.stringify(inputs));
  const cached = join(modelsCacheDir(), 'distilled', cacheKey);
  if (!args.includes('--force') && existsSync(join(cached, 'manifest.json'))) {
    mkdirSync(outDir, { recursive: true });
    for (const [from, to] of [
      [join(cached, 'minilm-distilled-256d.bin'), outFile],
      [join(cached, 'manifest.json'), manifestFile],
    ]) {
      copyFileSync(from, `${to}.${process.pid}.tmp`);
      renameSync(`${to}.${process.pid}.tmp`, to);
    }
    console.log(`distilled asset: ${rel(outFile)} copied from the cache (${cached}).`);
    return;
  }

  const started = performance.now();
  const glove = core.decodeStaticModel(readFileSync(gloveFile));
  const words = glove.words;
  const model = await real.loadMiniLM();
  let raw;
  try {
    // Shorter words first: batches of similar length, little padding.
    const order = words.map((_, i) => i).sort((i, j) => words[i].length - words[j].length);
    raw = new Float32Array(words.length * model.dim);
    for (let at = 0; at < order.length; at += BATCH) {
      const idx = order.slice(at, at + BATCH);
      const rows = await model.embed(
        idx.map((i) => words[i]),
        BATCH,
      );
      idx.forEach((row, k) =>
        raw.set(rows.subarray(k * model.dim, (k + 1) * model.dim), row * model.dim),
      );
      if ((at / BATCH) % 20 === 0) {
        process.stderr.write(`distilled asset: ${at + idx.length} of ${words.length} words\r`);
      }
    }
  } finally {
    await model.close();
  }
  const embeddedAt = performance.now();
  const { projected, explained } = pcaProject(raw, words.length, model.dim, DIM);

  const plain = {
    words,
    ranks: glove.ranks,
    dim: DIM,
    sourceSize: glove.sourceSize,
    vectors: projected,
  };
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
    file: 'minilm-distilled-256d.bin',
    format: `${core.STATIC_MODEL_MAGIC} v${core.STATIC_MODEL_VERSION} (see src/core/embed/static.ts)`,
    bytes: bytes.length,
    sha256,
    vocabulary: words.length,
    dim: DIM,
    pcaExplainedVariance: Number(explained.toFixed(4)),
    method:
      'Model2Vec (Tulkens and van Dongen 2024): each word through all-MiniLM-L6-v2 (int8, native ONNX Runtime), mean-pooled and normalised; PCA 384 -> 256; Zipf-rank SIF weights at embedding time',
    words: 'the GloVe asset vocabulary and ranks',
    sif: { a: SIF_A, componentTextLength: COMPONENT_TEXT_LENGTH, pOfW: 'Zipf: 1 / (rank * H_N)' },
    inputs,
  };
  mkdirSync(outDir, { recursive: true });
  const tmp = (file) => `${file}.${process.pid}.tmp`;
  writeFileSync(tmp(outFile), bytes);
  renameSync(tmp(outFile), outFile);
  writeFileSync(tmp(manifestFile), `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(tmp(manifestFile), manifestFile);
  mkdirSync(cached, { recursive: true });
  copyFileSync(outFile, join(cached, 'minilm-distilled-256d.bin'));
  copyFileSync(manifestFile, join(cached, 'manifest.json'));
  console.log(
    `distilled asset: wrote ${rel(outFile)}: ${(bytes.length / 1e6).toFixed(2)} MB, ${words.length} words x ${DIM} dims ` +
      `(PCA keeps ${(100 * explained).toFixed(1)}% of the variance); MiniLM ${((embeddedAt - started) / 1000).toFixed(1)} s, ` +
      `total ${((performance.now() - started) / 1000).toFixed(1)} s.`,
  );
}

if (process.argv[1] === scriptPath) {
  main().catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
}
