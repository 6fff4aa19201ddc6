/**
 * @file `npx tsx scripts/compare-kernels.ts BEFORE_ROOT AFTER_ROOT`: the semantic relation's and
 * the context relation's hot loops of two checkouts (e.g. a worktree of main and a branch),
 * loaded side by side in one process and timed interleaved (before, after, after, before, ...),
 * with a hash of each output. A change that only moves these loops must give the same hashes;
 * the time ratio says what the move cost. Take the bench lock: `flock /tmp/bench.lock npx tsx ...`.
 *
 * Cases: the exact kNN search (N = 3,001, 100 dimensions: the 1 x 4 and 2 x 4 JS tiles), the
 * inverted file on its JS tiles with two NN-descent rounds and on the wasm SIMD kernel (N =
 * 20,000: the centroid searches, the JS cross blocks and the offers' order, which the rounds
 * read), and Eq. 9 of the context relation (N = 1M, two documents). Vectors are synthetic
 * clustered unit vectors with exact duplicates (seeded). ONLY=text runs the cases whose name
 * holds it; REPS=n sets the repetitions.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';

interface Csr {
  rowPtr: Uint32Array;
  col: Uint32Array;
  weight: Float32Array;
}
interface Tree {
  semanticNeighbours: (v: unknown, segments: number[], k: number, options: object) => Csr;
  contextRelation: (
    segments: number[],
    wRel: number,
  ) => { environmentScores(s: Float64Array, out: Float64Array): Float64Array };
}

const [beforeRoot, afterRoot] = process.argv.slice(2).map((p) => path.resolve(p));
if (!beforeRoot || !afterRoot) {
  console.error('Usage: npx tsx scripts/compare-kernels.ts BEFORE_ROOT AFTER_ROOT');
  process.exit(2);
}
async function load(root: string): Promise<Tree> {
  const semantic = await import(path.join(root, 'src/core/relations/semantic.ts'));
  const context = await import(path.join(root, 'src/core/relations/context.ts'));
  return {
    semanticNeighbours: semantic.semanticNeighbours,
    contextRelation: context.contextRelation,
  };
}
const trees = { before: await load(beforeRoot), after: await load(afterRoot) };

function lcg(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** n unit vectors around 50 random centres, the last 20 copies of the first 20. */
function vectors(n: number, dim: number, seed: number) {
  const r = lcg(seed);
  const centres = new Float32Array(50 * dim).map(() => r() - 0.5);
  const data = new Float32Array(n * dim);
  for (let i = 0; i < n; i++) {
    const c = Math.floor(r() * 50);
    let norm = 0;
    for (let d = 0; d < dim; d++) {
      const v = centres[c * dim + d] + 0.3 * (r() - 0.5);
      data[i * dim + d] = v;
      norm += v * v;
    }
    for (let d = 0; d < dim; d++) data[i * dim + d] /= Math.sqrt(norm);
  }
  for (let i = 0; i < 20; i++) data.copyWithin((n - 1 - i) * dim, i * dim, (i + 1) * dim);
  return { dim, count: n, data };
}

const digest = (...buffers: ArrayBufferView[]) => {
  const h = createHash('sha256');
  for (const b of buffers) h.update(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
  return h.digest('hex').slice(0, 16);
};
const csrDigest = (m: Csr) => digest(m.rowPtr, m.col, m.weight);
const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const exact = vectors(3001, 100, 1);
const inverted = vectors(20_000, 100, 2);
const N = 1_000_000;
const rand = lcg(3);
const independent = new Float64Array(N).map(() => rand());

const cases: { name: string; reps: number; run: (t: Tree) => string }[] = [
  {
    name: 'semantic exact, N=3001, dim 100',
    reps: 5,
    run: (t) => csrDigest(t.semanticNeighbours(exact, [0, 3001], 16, { method: 'exact' })),
  },
  {
    name: 'semantic inverted file, JS tiles, 2 NN-descent rounds, N=20000',
    reps: 3,
    run: (t) =>
      csrDigest(
        t.semanticNeighbours(inverted, [0, 20_000], 16, {
          method: 'inverted-file',
          kernel: 'js',
          refine: { rounds: 2, sample: 8, stopShare: 0.01 },
        }),
      ),
  },
  {
    name: 'semantic inverted file, wasm SIMD, N=20000',
    reps: 3,
    run: (t) =>
      csrDigest(t.semanticNeighbours(inverted, [0, 20_000], 16, { method: 'inverted-file' })),
  },
  {
    name: 'context Eq. 9 x 10, N=1M',
    reps: 15,
    run: (t) => {
      const relation = t.contextRelation([0, N / 2, N], 0.3);
      const out = new Float64Array(N);
      for (let k = 0; k < 10; k++) relation.environmentScores(independent, out);
      return digest(out);
    },
  },
];

let differ = false;
for (const c of cases) {
  if (process.env.ONLY && !c.name.includes(process.env.ONLY)) continue;
  const reps = Number(process.env.REPS ?? c.reps);
  const times = { before: [] as number[], after: [] as number[] };
  const outputs = { before: new Set<string>(), after: new Set<string>() };
  for (const side of ['before', 'after'] as const) c.run(trees[side]); // warm-up
  for (let k = 0; k < reps; k++) {
    for (const side of k % 2 ? (['after', 'before'] as const) : (['before', 'after'] as const)) {
      const t0 = performance.now();
      outputs[side].add(c.run(trees[side]));
      times[side].push(performance.now() - t0);
    }
  }
  const [b, a] = [median(times.before), median(times.after)];
  const same = [...outputs.before].join() === [...outputs.after].join();
  if (!same) differ = true;
  console.log(
    `${c.name}: before ${b.toFixed(0)} ms, after ${a.toFixed(0)} ms (medians of ${reps}), ` +
      `after/before ${(a / b).toFixed(3)}; output ${[...outputs.before].join(',')} vs ` +
      `${[...outputs.after].join(',')}: ${same ? 'same' : 'DIFFERENT'}`,
  );
}
process.exit(differ ? 1 : 0);
