/**
 * @file Issue 13's identifier-weighting ideas for RepoEval (bench/repoeval.ts): the code relation
 * (Eq. 8) reweighted by shared rare identifiers and reference counts
 * (src/core/code/identifier-weights.ts), used directly (Eq. 9, alpha 0.5) and as the graph of the
 * multi-hop relation (personalised PageRank over the code edges, as "ppr (code graph)").
 */
import {
  identifierStats,
  weightByIdentifiers,
  type IdentifierWeightOptions,
} from '../../src/core/code/identifier-weights';
import type { CodeGraph } from '../../src/core/code/graph';
import type { CodeWindow } from '../../src/core/code/layout';
import { windowIdentifierInputs, windowReferenceCounts } from '../../src/core/code/references';
import { retrievalPreset } from '../../src/core/retrieval/presets';
import { buildRun, runRelations } from '../../src/core/run';
import { fragRelScores } from '../../src/core/fragrel';
import { csrRelation } from '../../src/core/relations/csr';
import { pprGraph, pprRelation } from '../../src/core/relations/ppr';
import type { CsrMatrix } from '../../src/core/types';
import { powerWeights } from './code-candidates';

/** Identifiers per window and the definitions starting in each: the app's own reader. */
export { windowIdentifierInputs };

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
    // The app's walk since the semver question: the reference-weighted edges squared.
    if (name === 'refs') {
      out['ppr (code graph) refs, walk w^2'] = fragRelScores(
        independent,
        [
          pprRelation(
            pprGraph([0, independent.length], [powerWeights(weighted, 2)], { radius: 0, wRel: 0 }),
          ),
        ],
        { alpha },
      ).final;
    }
  }
  return out;
}

/**
 * The app's own path to the code default: reference counts as the index worker
 * computes and stores them (core/code/references.ts), the run as the retrieval worker builds it
 * (core/run.ts), its multi-hop relation. Its scores must equal `ppr (code graph) refs, walk w^2`.
 */
export function appDefaultScores(
  independent: Float64Array,
  rel: CsrMatrix,
  files: readonly { text: string }[],
  windows: readonly CodeWindow[],
  graph: CodeGraph,
  alpha: number,
): Float64Array {
  const n = independent.length;
  const run = buildRun([
    {
      docId: 'repo',
      name: 'repo',
      source: '',
      starts: new Uint32Array(n),
      ends: new Uint32Array(n),
      words: new Uint32Array(n),
      labels: [],
      code: rel,
      codeReferences: windowReferenceCounts(files, windows, graph),
    },
  ]);
  const code = retrievalPreset('code', 'measured');
  return fragRelScores(independent, runRelations(run, code.relations, code.wRel), { alpha }).final;
}
