/**
 * @file Issue 16, the first question on the million-line repository, in Node: the retrieval
 * worker's pieces before and after branch `query`, each timed in one process on the same inputs.
 * The text and windows are the real ones (bench/scale-repo.ts's million lines, the app's 20-line
 * windows); the code relation is synthetic but shaped like the stored one (133 weights a window,
 * half of them near the window, half anywhere), since building the real one takes minutes.
 *
 *   npx tsx bench/first-question-node.ts
 *
 * Before: BM25 over every window tokenized whole, the multi-hop graph with a Map per row
 * (relations/ppr-reference.ts), every row scanned for each explained window's incoming edges.
 */
import os from 'node:os';
import { buildBm25Index } from '../src/core/bm25';
import { layoutRepository, repositoryWindows } from '../src/core/code/layout';
import { prng } from '../src/core/prng';
import { pprGraph, pprRelation, defaultPprOptions } from '../src/core/relations/ppr';
import { pprGraphReference, pprReference } from '../src/core/relations/ppr-reference';
import { buildRun, runBm25, runIndependentScores } from '../src/core/run';
import { tokenize } from '../src/core/tokenize';
import { millionLines } from './scale-repo';

const now = () => performance.now();
const time = <T>(what: string, f: () => T): T => {
  const t = now();
  const out = f();
  console.log(`${what.padEnd(52)} ${(now() - t).toFixed(0).padStart(7)} ms`);
  return out;
};

const { sources } = millionLines();
const layout = layoutRepository(
  sources.map((s) => ({ path: s.zipPath, text: Buffer.from(s.bytes).toString('utf8') })),
);
const { fragments } = repositoryWindows('million', layout);
const n = fragments.length;
const rnd = prng(7);
const per = 133;
const rowPtr = new Uint32Array(n + 1);
const col = new Uint32Array(n * per);
const weight = new Float32Array(n * per);
for (let i = 0, at = 0; i < n; i++) {
  const row = new Set<number>();
  while (row.size < per) {
    const j =
      rnd() < 0.5
        ? Math.min(n - 1, Math.max(0, i + Math.floor((rnd() - 0.5) * 400)))
        : Math.floor(rnd() * n);
    if (j !== i) row.add(j);
  }
  for (const j of [...row].sort((a, b) => a - b)) {
    col[at] = j;
    weight[at++] = 0.001 + rnd();
  }
  rowPtr[i + 1] = at;
}
const doc = {
  docId: 'million',
  name: 'million',
  source: layout.text,
  starts: Uint32Array.from(fragments, (f) => f.start),
  ends: Uint32Array.from(fragments, (f) => f.end),
  words: Uint32Array.from(fragments, (f) => f.words ?? 0),
  labels: fragments.map((f) => f.label ?? ''),
  code: { size: n, rowPtr, col, weight },
};
console.log(
  `${n} windows, ${rowPtr[n]} code weights; load ${os.loadavg().map((x) => x.toFixed(2))}`,
);
const run = buildRun([doc]);
const tokens = tokenize('How are command line arguments parsed into options?');

time('before: BM25, every window tokenized whole', () =>
  buildBm25Index(fragments.map((f) => tokenize(layout.text.slice(f.start, f.end)))),
);
time('after:  BM25 from shared pieces (runBm25)', () => runBm25(run));
const independent = runIndependentScores(run, { tokens }, 'bm25');
const graphOld = time('before: multi-hop graph, a Map per row', () =>
  pprGraphReference([0, n], [run.code!], { radius: 2, wRel: 0.3, contextIn: [false] }),
);
const graph = time('after:  multi-hop graph, slot table', () =>
  pprGraph([0, n], [run.code!], { radius: 2, wRel: 0.3, contextIn: [false] }),
);
const old = time('before: walk (30 steps)', () =>
  pprReference(graphOld, independent, defaultPprOptions),
);
const relation = time('after:  relation (incoming edges indexed)', () => pprRelation(graph));
time('after:  walk (30 steps)', () => relation.environmentScores(independent));
const explained = Array.from({ length: 50 }, (_, k) => (k * 1879) % n);
time('before: contributions of 50 windows', () => explained.map((i) => old.contributions(i, 5)));
time('after:  contributions of 50 windows', () =>
  explained.map((i) => relation.contributions(i, independent, 5)),
);
time('after:  a slider move (walk reused)', () => relation.environmentScores(independent));
console.log(`load ${os.loadavg().map((x) => x.toFixed(2))}`);
