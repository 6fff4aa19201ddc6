/**
 * @file Issue 13's identifier-weighting ideas for RepoEval (bench/repoeval.ts): the code relation
 * (Eq. 8) reweighted by shared rare identifiers and reference counts
 * (src/core/code/identifier-weights.ts), used directly (Eq. 9, alpha 0.5) and as the graph of the
 * multi-hop relation (personalised PageRank over the code edges, as "ppr (code graph)").
 */
import type { CodeFile, CodeGraph } from '../../src/core/code/graph';
import {
  identifierStats,
  identifiersOf,
  weightByIdentifiers,
  type IdentifierWeightOptions,
} from '../../src/core/code/identifier-weights';
import { fragRelScores } from '../../src/core/fragrel';
import { csrRelation } from '../../src/core/relations/csr';
import { pprGraph, pprRelation } from '../../src/core/relations/ppr';
import type { CsrMatrix } from '../../src/core/types';

const NOT_DEFINITIONS = new Set(['directory', 'file', 'root', 'call']);

/** Identifiers per window and the names whose definitions start in each window. */
export function windowIdentifierInputs(
  files: readonly CodeFile[],
  windowLines: readonly { file: number; first: number; last: number }[],
  graph: CodeGraph,
): { identifiers: Set<string>[]; defined: Set<string>[] } {
  const lines = files.map((f) => f.text.split('\n'));
  const identifiers = windowLines.map((w) =>
    identifiersOf(lines[w.file].slice(w.first, w.last + 1).join('\n')),
  );
  const defined = windowLines.map(() => new Set<string>());
  const byFile = new Map<number, number[]>();
  windowLines.forEach((w, i) => {
    let list = byFile.get(w.file);
    if (!list) byFile.set(w.file, (list = []));
    list.push(i);
  });
  for (const node of graph.nodes) {
    if (NOT_DEFINITIONS.has(node.kind) || node.file < 0) continue;
    const name = node.name.slice(node.name.lastIndexOf('.') + 1);
    for (const i of byFile.get(node.file) ?? []) {
      const w = windowLines[i];
      if (w.first <= node.startLine && node.startLine <= w.last) defined[i].add(name);
    }
  }
  return { identifiers, defined };
}

const VARIANTS: Record<string, IdentifierWeightOptions> = {
  idf: { shared: 4, references: 0 },
  refs: { shared: 0, references: 1 },
  'idf+refs': { shared: 4, references: 1 },
};

/** Final scores of each identifier-weighting idea for one task. */
export function identifierIdeas(
  independent: Float64Array,
  rel: CsrMatrix,
  inputs: { identifiers: Set<string>[]; defined: Set<string>[] },
  alpha: number,
): Record<string, Float64Array> {
  const stats = identifierStats(inputs.identifiers, inputs.defined);
  const out: Record<string, Float64Array> = {};
  for (const [name, options] of Object.entries(VARIANTS)) {
    const weighted = weightByIdentifiers(rel, inputs.identifiers, stats, options);
    out[`code ${name}`] = fragRelScores(independent, [csrRelation('code', weighted)], {
      alpha,
    }).final;
    out[`ppr (code graph) ${name}`] = fragRelScores(
      independent,
      [pprRelation(pprGraph([0, independent.length], [weighted], { radius: 0, wRel: 0 }))],
      { alpha },
    ).final;
  }
  return out;
}
