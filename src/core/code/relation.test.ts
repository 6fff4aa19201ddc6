import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { coverWindows } from './cover';
import { pathStrength, StrongestPaths } from './dijkstra';
import { explainCodeWindow } from './explain';
import { buildCodeGraph, type CodeFile, type CodeGraph } from './graph';
import { fileText, layoutRepository, repositoryWindows } from './layout';
import { codeRelation, codeRelationMatrix } from './relation';
import type { CsrMatrix } from '../types';
import { call, definition, randomRepository, syntax } from './testing';

function weightAt(m: CsrMatrix, i: number, j: number): number {
  for (let p = m.rowPtr[i]; p < m.rowPtr[i + 1]; p++) if (m.col[p] === j) return m.weight[p];
  return 0;
}

function nodeOf(graph: CodeGraph, kind: string, name: string): number {
  const id = graph.nodes.findIndex((n) => n.kind === kind && n.name === name);
  if (id < 0) throw new Error(`no ${kind} ${name}`);
  return id;
}

const fullGraph = (g: CodeGraph) => ({ ptr: g.adjPtr, node: g.adjNode, weight: g.adjWeight });

/**
 * The hand-computed repository:
 *   a.py        "def f():\n  g()\n"        f calls g
 *   b.py        "def g():\n  return 1\n"
 *   docs/c.txt  "hello world\n"             no grammar: a file node only
 * Windows of 2 lines (stride 2): one per file, w0 = a.py, w1 = b.py, w2 = docs/c.txt.
 */
function handRepository() {
  const a = 'def f():\n  g()\n';
  const b = 'def g():\n  return 1\n';
  const c = 'hello world\n';
  const files: CodeFile[] = [
    {
      path: 'a.py',
      text: a,
      syntax: syntax({
        definitions: [definition(a, 'function', 'f', 'def f():\n  g()')],
        calls: [call(a, 'g', 'g()', 0)],
      }),
    },
    {
      path: 'b.py',
      text: b,
      syntax: syntax({ definitions: [definition(b, 'function', 'g', 'def g():\n  return 1')] }),
    },
    { path: 'docs/c.txt', text: c, syntax: null },
  ];
  const graph = buildCodeGraph(files);
  const layout = layoutRepository(files);
  const { windows } = repositoryWindows('repo', layout, { windowLines: 2, windowStride: 2 });
  const cover = coverWindows(
    graph,
    files.map((f) => f.text),
    windows,
  );
  return { files, graph, windows, cover };
}

describe('Eq. 8 on a hand-computed repository', () => {
  it('covers each window by the deepest nodes owning its non-whitespace text', () => {
    const { graph, cover } = handRepository();
    const covering = (i: number) =>
      Array.from({ length: cover.windowPtr[i + 1] - cover.windowPtr[i] }, (_, t) => {
        const p = cover.windowPtr[i] + t;
        const node = graph.nodes[cover.windowNode[p]];
        return [node.kind, node.name, cover.windowLength[p]];
      });
    // w0: "def f():" is f's own text (7 non-blank characters), "g()" the call's (3).
    expect(covering(0)).toEqual([
      ['function', 'f', 7],
      ['call', 'g', 3],
    ]);
    // w1: "def g():" (7) + "return 1" (7), all g's.
    expect(covering(1)).toEqual([['function', 'g', 14]]);
    // w2: a file without syntax is covered by its file node: "helloworld" (10).
    expect(covering(2)).toEqual([['file', 'docs/c.txt', 10]]);
    expect(Array.from(cover.total)).toEqual([10, 14, 10]);
  });

  it('gives Dis as the strongest product of edge weights', () => {
    const { graph } = handRepository();
    const adj = fullGraph(graph);
    const f = nodeOf(graph, 'function', 'f');
    const g = nodeOf(graph, 'function', 'g');
    const site = nodeOf(graph, 'call', 'g');
    const c = nodeOf(graph, 'file', 'docs/c.txt');
    // f -syntax 0.5- call -call 0.8- g = 0.4, stronger than through the directories
    // (f - root 0.5 - a.py 1 - '/' 0.3 - b.py 0.3 - root 1 - g 0.5 = 0.0225).
    expect(pathStrength(adj, f, g, 1e-3)).toBeCloseTo(0.4, 7);
    expect(pathStrength(adj, site, g, 1e-3)).toBeCloseTo(0.8, 7);
    // f - root 0.5 - a.py 1 - '/' 0.3 - docs 0.3 - c.txt 0.3 = 0.0135.
    expect(pathStrength(adj, f, c, 1e-3)).toBeCloseTo(0.0135, 7);
    // call -> c: through f 0.5 x 0.0135 = 0.00675, through g 0.8 x 0.0135 = 0.0108: the latter.
    expect(pathStrength(adj, site, c, 1e-3)).toBeCloseTo(0.0108, 7);
  });

  it('computes w[i][j] = sum len_k len_l Dis / sum len_k len_l', () => {
    const { graph, cover } = handRepository();
    const m = codeRelationMatrix(graph, cover);
    // w[0][1] = (7*14*Dis(f,g) + 3*14*Dis(call,g)) / (10*14) = (7*0.4 + 3*0.8) / 10 = 0.52
    expect(weightAt(m, 0, 1)).toBeCloseTo(0.52, 6);
    // w[0][2] = (7*10*0.0135 + 3*10*0.0108) / (10*10) = (0.945 + 0.324) / 100 = 0.01269
    expect(weightAt(m, 0, 2)).toBeCloseTo(0.01269, 6);
    // w[1][2] = Dis(g, c) = g - root 0.5 - b.py 1 - '/' 0.3 - docs 0.3 - c.txt 0.3 = 0.0135
    expect(weightAt(m, 1, 2)).toBeCloseTo(0.0135, 6);
    // Symmetric, and no diagonal.
    for (const [i, j] of [
      [0, 1],
      [0, 2],
      [1, 2],
    ]) {
      expect(weightAt(m, j, i)).toBeCloseTo(weightAt(m, i, j), 7);
    }
    for (let i = 0; i < 3; i++) expect(weightAt(m, i, i)).toBe(0);
  });

  it('prunes paths and weights below the threshold', () => {
    const { graph, cover } = handRepository();
    const adj = fullGraph(graph);
    const site = nodeOf(graph, 'call', 'g');
    const f = nodeOf(graph, 'function', 'f');
    const c = nodeOf(graph, 'file', 'docs/c.txt');
    // Dis(call, c) = 0.0108 falls below 0.012: read as 0; Dis(f, c) = 0.0135 stays.
    expect(pathStrength(adj, site, c, 0.012)).toBe(0);
    expect(pathStrength(adj, f, c, 0.012)).toBeCloseTo(0.0135, 7);
    const m = codeRelationMatrix(graph, cover, { threshold: 0.012 });
    // w[0][2] = (7*10*0.0135 + 3*10*0) / 100 = 0.00945 < 0.012: not stored.
    expect(weightAt(m, 0, 2)).toBe(0);
    // w[1][2] = 0.0135 >= 0.012: kept.
    expect(weightAt(m, 1, 2)).toBeCloseTo(0.0135, 6);
    // A search never settles a node below the threshold.
    const reached = new StrongestPaths(adj, 0.012).search([site], [1]);
    for (let r = 0; r < reached.count; r++)
      expect(reached.strength[r]).toBeGreaterThanOrEqual(0.012);
  });

  it('becomes a relation whose environment scores follow Eq. 9', () => {
    const { graph, cover } = handRepository();
    const relation = codeRelation(graph, cover);
    expect(relation.kind).toBe('code');
    const s = new Float64Array([0, 1, 0.5]);
    const env = relation.environmentScores(s);
    // s_env[0] = (0.52 * 1 + 0.01269 * 0.5) / (0.52 + 0.01269)
    expect(env[0]).toBeCloseTo((0.52 + 0.01269 * 0.5) / (0.52 + 0.01269), 5);
  });

  it('explains a window by the nodes and paths behind its weights', () => {
    const { graph, cover } = handRepository();
    const ex = explainCodeWindow(graph, cover, 0);
    expect(ex.covering.map((c) => [c.kind, c.name, c.length])).toEqual([
      ['function', 'f', 7],
      ['call', 'g', 3],
    ]);
    const top = ex.neighbours[0];
    expect([top.kind, top.name, top.path]).toEqual(['function', 'g', 'b.py']);
    // Strongest path to g: from the call site over its call edge.
    expect(top.strength).toBeCloseTo(0.8, 6);
    expect(top.steps.map((s) => s.edge)).toEqual(['call']);
    expect(top.windows).toEqual([1]);
    // Contributions add up to the row sum of w.
    const m = codeRelationMatrix(graph, cover);
    expect(ex.total).toBeCloseTo(weightAt(m, 0, 1) + weightAt(m, 0, 2), 6);
  });
});

/** A random repository: files in directories, nested definitions over line ranges, calls. */
/** Eq. 8 the slow way: owners by smallest containing span, Dis by full-graph search. */
function bruteForce(
  graph: CodeGraph,
  texts: string[],
  windows: { file: number; start: number; end: number }[],
  threshold: number,
) {
  const covering = windows.map((w) => {
    const lens = new Map<number, number>();
    const ids = graph.nodes
      .map((n, id) => ({ n, id }))
      .filter(
        ({ n }) =>
          n.file === w.file &&
          (graph.files[w.file].root >= 0 ? n.kind !== 'file' : n.kind === 'file'),
      );
    for (let c = w.start; c < w.end; c++) {
      if (/\s/.test(texts[w.file][c])) continue;
      let best = -1;
      for (const { n, id } of ids) {
        if (n.start > c || n.end <= c) continue;
        if (best < 0) best = id;
        else {
          const b = graph.nodes[best];
          const size = n.end - n.start;
          const bestSize = b.end - b.start;
          if (size < bestSize || (size === bestSize && id > best)) best = id;
        }
      }
      lens.set(best, (lens.get(best) ?? 0) + 1);
    }
    return lens;
  });
  const search = new StrongestPaths(fullGraph(graph), threshold);
  const dis = new Map<number, Map<number, number>>();
  const disFrom = (k: number) => {
    let row = dis.get(k);
    if (!row) {
      row = new Map();
      const r = search.search([k], [1]);
      for (let t = 0; t < r.count; t++) row.set(r.nodes[t], r.strength[t]);
      dis.set(k, row);
    }
    return row;
  };
  const n = windows.length;
  const w: number[][] = Array.from({ length: n }, () => new Array(n).fill(0));
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      if (i === j) continue;
      let num = 0;
      let den = 0;
      for (const [k, lk] of covering[i]) {
        for (const [l, ll] of covering[j]) {
          num += lk * ll * (disFrom(k).get(l) ?? 0);
          den += lk * ll;
        }
      }
      const value = den > 0 ? num / den : 0;
      w[i][j] = value >= threshold ? value : 0;
    }
  }
  return w;
}

describe('the fast Eq. 8 (contracted calls, derived rows) equals the definition', () => {
  it('on random repositories, for several thresholds', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        fc.constantFrom(1e-3, 1e-2, 0.05),
        (seed, threshold) => {
          const files = randomRepository(seed);
          const graph = buildCodeGraph(files);
          const layout = layoutRepository(files);
          const texts = files.map((_, k) => fileText(layout, k));
          const { windows } = repositoryWindows('r', layout, { windowLines: 4, windowStride: 2 });
          const cover = coverWindows(graph, texts, windows);
          const fast = codeRelationMatrix(graph, cover, { threshold, maxPerRow: Infinity });
          const slow = bruteForce(graph, texts, windows, threshold);
          for (let i = 0; i < windows.length; i++) {
            for (let j = 0; j < windows.length; j++) {
              const a = weightAt(fast, i, j);
              const b = slow[i][j];
              // Float32 storage; values at the threshold may fall either side by rounding.
              if (Math.abs(b - threshold) < 1e-9) continue;
              expect(Math.abs(a - b)).toBeLessThanOrEqual(1e-6 * Math.max(1, b));
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('keeps the strongest maxPerRow weights of each row', () => {
    const files = randomRepository(12345);
    const graph = buildCodeGraph(files);
    const layout = layoutRepository(files);
    const texts = files.map((_, k) => fileText(layout, k));
    const { windows } = repositoryWindows('r', layout, { windowLines: 2, windowStride: 1 });
    const cover = coverWindows(graph, texts, windows);
    const full = codeRelationMatrix(graph, cover, { maxPerRow: Infinity });
    const top = codeRelationMatrix(graph, cover, { maxPerRow: 3 });
    for (let i = 0; i < full.size; i++) {
      const all = Array.from(full.weight.subarray(full.rowPtr[i], full.rowPtr[i + 1])).sort(
        (a, b) => b - a,
      );
      const kept = Array.from(top.weight.subarray(top.rowPtr[i], top.rowPtr[i + 1])).sort(
        (a, b) => b - a,
      );
      expect(kept).toEqual(all.slice(0, 3));
      const cols = Array.from(top.col.subarray(top.rowPtr[i], top.rowPtr[i + 1]));
      expect(cols).toEqual([...cols].sort((a, b) => a - b));
    }
  });
});
