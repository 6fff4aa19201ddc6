/**
 * Reference counts as the index worker computes them: a small hand-written Python repository
 * parsed with the real tree-sitter grammar (node_modules), the counts checked by hand; the
 * reference weighting equal to the bench's (`ppr (code graph) refs`); and the run's fallback for
 * repositories stored without counts.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CodeParser, parseRepository } from './code-syntax';
import { nodeGrammarSource } from './tree-sitter-node';
import { fragRelScores } from '../core/fragrel';
import { pprGraph, pprRelation } from '../core/relations/ppr';
import { buildRun, runRelations, type RunDocumentIndex } from '../core/run';
import { buildCodeGraph } from '../core/code/graph';
import { identifierStats, weightByIdentifiers } from '../core/code/identifier-weights';
import { fileText, layoutRepository, repositoryWindows } from '../core/code/layout';
import {
  walkWeights,
  WALK_POWER,
  weightByReferences,
  windowIdentifierInputs,
  windowLineRanges,
  windowReferenceCounts,
} from '../core/code/references';
import type { CsrMatrix } from '../core/types';
import { laidOutRepository, sourceFiles } from '../../test/code-repository';

const filler = (n: number, word: string) => Array.from({ length: n }, () => `# ${word}`);

const FILES = {
  'util.py': [
    'def parse_config(path):',
    '    return load_file(path)',
    '',
    '',
    'def load_file(path):',
    '    return open(path).read()',
  ],
  'app.py': [
    'from util import parse_config',
    '',
    '',
    'def main(args):',
    '    cfg = parse_config(args.path)',
    '    return run_job(cfg)',
    '',
    '',
    'def run_job(cfg):',
    '    return cfg',
  ],
  // 25 lines: two windows (lines 1-20 and 11-25); `schedule` starts on line 15, in both.
  'jobs.py': [
    'import os',
    '',
    '',
    'def first_step():',
    '    return os.getcwd()',
    ...filler(9, 'note'),
    'def schedule(task):',
    '    return first_step() + task',
    ...filler(9, 'more'),
  ],
  'cli.py': [
    'from app import main',
    'from jobs import schedule',
    'from util import parse_config',
    '',
    "schedule(main(parse_config('x')))",
  ],
};

async function repository() {
  const list = Object.entries(FILES).map(([p, lines]) => ({ path: p, text: lines.join('\n') }));
  const layout = layoutRepository(list);
  const texts = list.map((f, k) => ({ path: f.path, text: fileText(layout, k) }));
  const parser = new CodeParser(nodeGrammarSource(path.resolve('node_modules')));
  const parsed = await parseRepository(texts, parser);
  expect(parsed.problems).toEqual([]);
  const graph = buildCodeGraph(texts.map((f, k) => ({ ...f, syntax: parsed.syntax[k] })));
  const { fragments, windows } = repositoryWindows('repo', layout);
  return { texts, graph, fragments, windows };
}

/** A chain 0 → 1 → 2 → 3 → 4 (both ways), weight 1. */
const chain: CsrMatrix = {
  size: 5,
  rowPtr: Uint32Array.of(0, 1, 3, 5, 7, 8),
  col: Uint32Array.of(1, 0, 2, 1, 3, 2, 4, 3),
  weight: new Float32Array(8).fill(1),
};

describe('reference counts of a real repository', () => {
  it('counts, per window, the other windows that mention a name it defines', async () => {
    const { texts, graph, fragments, windows } = await repository();
    expect(fragments.map((f) => f.label)).toEqual([
      'util.py:1-6',
      'app.py:1-10',
      'jobs.py:1-20',
      'jobs.py:11-25',
      'cli.py:1-5',
    ]);
    expect(
      windowLineRanges(
        texts.map((t) => t.text),
        windows,
      ),
    ).toEqual([
      { file: 0, first: 0, last: 5 },
      { file: 1, first: 0, last: 9 },
      { file: 2, first: 0, last: 19 },
      { file: 2, first: 10, last: 24 },
      { file: 3, first: 0, last: 4 },
    ]);
    const lines = windowLineRanges(
      texts.map((t) => t.text),
      windows,
    );
    const { defined } = windowIdentifierInputs(texts, lines, graph);
    expect(defined.map((d) => [...d].sort())).toEqual([
      ['load_file', 'parse_config'],
      ['main', 'run_job'],
      ['first_step', 'schedule'],
      ['schedule'],
      [],
    ]);
    // util: parse_config in app and cli (load_file only in util itself) → 2; app: main in cli → 1;
    // jobs 1-20: first_step and schedule in jobs 11-25, schedule in cli → 2; jobs 11-25:
    // schedule in jobs 1-20 and cli → 2; cli defines nothing → 0.
    expect(Array.from(windowReferenceCounts(texts, windows, graph))).toEqual([2, 1, 2, 2, 0]);
  });
});

describe('windowReferenceCounts on a real repository', () => {
  it('equals the full identifier statistics’ counts (src/core and src/ingest parsed)', async () => {
    const { files, graph, windows } = await laidOutRepository(
      sourceFiles(['src/core', 'src/ingest'], { includeTests: true }),
    );
    const lines = windowLineRanges(
      files.map((f) => f.text),
      windows,
    );
    const { identifiers, defined } = windowIdentifierInputs(files, lines, graph);
    const expected = identifierStats(identifiers, defined).refs;
    const counts = windowReferenceCounts(files, windows, graph);
    expect(windows.length).toBeGreaterThan(1000);
    expect(counts.filter((c) => c > 0).length).toBeGreaterThan(100);
    expect(Array.from(counts)).toEqual(Array.from(expected));
  });
});

describe('reference weighting', () => {
  const refs = Float32Array.of(2, 1, 0, 5, 0);

  it('multiplies each edge i → j by 1 + γ ln(1 + refs[j]), as weightByIdentifiers with β 0', () => {
    const w = weightByReferences(chain, refs, 1);
    expect(w.weight[0]).toBeCloseTo(1 + Math.log(2), 6); // 0 → 1
    expect(w.weight[1]).toBeCloseTo(1 + Math.log(3), 6); // 1 → 0
    expect(w.weight[2]).toBe(1); // 1 → 2: refs 0
    const ids = Array.from({ length: 5 }, () => new Set<string>());
    const stats = { ...identifierStats(ids, ids), refs: Float64Array.from(refs) };
    const bench = weightByIdentifiers(chain, ids, stats, { shared: 0, references: 1 });
    expect(Array.from(w.weight)).toEqual(Array.from(bench.weight));
    expect(() => weightByReferences(chain, new Float32Array(4))).toThrow(/4 reference counts/);
  });

  it('walks the weighted edges squared, so a row’s strong links carry more of the walk', () => {
    const w = weightByReferences(chain, refs);
    const walk = walkWeights(chain, refs);
    expect(WALK_POWER).toBe(2);
    expect(Array.from(walk.weight)).toEqual(Array.from(w.weight, (x) => Math.fround(x * x)));
    expect(walk.col).toBe(chain.col);
    expect(Array.from(walkWeights(chain, refs, 1).weight)).toEqual(Array.from(w.weight));
  });

  const doc = (codeReferences?: Float32Array): RunDocumentIndex => ({
    docId: 'repo',
    name: 'repo',
    source: 'abcde',
    starts: Uint32Array.of(0, 1, 2, 3, 4),
    ends: Uint32Array.of(1, 2, 3, 4, 5),
    words: new Uint32Array(5).fill(1),
    labels: ['a.py:1-1', 'a.py:2-2', 'a.py:3-3', 'a.py:4-4', 'a.py:5-5'],
    code: chain,
    ...(codeReferences ? { codeReferences } : {}),
  });
  const independent = Float64Array.of(0, 0, 1, 0, 0);

  it('the run walks the weighted code edges squared, exactly as the bench’s “ppr (code graph) refs, walk w^2”', () => {
    const run = buildRun([doc(refs)]);
    expect(run.documents[0].referenceWeighted).toBe(true);
    const app = fragRelScores(independent, runRelations(run, ['ppr'], 0.3), { alpha: 0.5 });
    const ids = Array.from({ length: 5 }, () => new Set<string>());
    const stats = { ...identifierStats(ids, ids), refs: Float64Array.from(refs) };
    const weighted = weightByIdentifiers(chain, ids, stats, { shared: 0, references: 1 });
    // The walk follows the weighted edges squared (walkWeights), as the bench's
    // "ppr (code graph) refs, walk w^2".
    const squared = { ...weighted, weight: Float32Array.from(weighted.weight, (x) => x ** 2) };
    const bench = fragRelScores(
      independent,
      [pprRelation(pprGraph([0, 5], [squared], { radius: 0, wRel: 0 }))],
      { alpha: 0.5 },
    );
    expect(Array.from(app.final)).toEqual(Array.from(bench.final));
    expect(Array.from(run.pprCode!.weight)).toEqual(Array.from(squared.weight));
    // The walk from window 2 reaches window 3 (refs 5) before window 1 (refs 1).
    expect(app.environment[3]).toBeGreaterThan(app.environment[1]);
  });

  it('falls back to the unweighted walk for a repository stored without counts, and says so', () => {
    const run = buildRun([doc()]);
    expect(run.documents[0].referenceWeighted).toBe(false);
    expect(run.pprCode!.weight).toEqual(chain.weight);
    const app = fragRelScores(independent, runRelations(run, ['ppr'], 0.3), { alpha: 0.5 });
    // Symmetric chain, unweighted: windows 1 and 3 gain the same.
    expect(app.environment[3]).toBeCloseTo(app.environment[1], 12);
    // Counts of another length (a damaged or stale record) are not used either.
    expect(buildRun([doc(new Float32Array(3))]).documents[0].referenceWeighted).toBe(false);
  });
});
