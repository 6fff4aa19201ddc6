/**
 * The first question's path on a real repository (this folder's code, parsed with tree-sitter,
 * its code relation and reference counts built as the index worker builds them), held to the
 * path it replaced: BM25 over each window tokenized whole (with its scope names), and the multi-hop relation's graph,
 * walk and contributions as first written (relations/ppr-reference.ts). Rankings, scores,
 * selections and explanations must be identical, for the first question and for re-ranks that
 * reuse the cached relation.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { laidOutRepository, repositoryDocument, sourceFiles } from '../../test/code-repository';
import { bm25Scores, buildBm25Index, rescaleByMax } from './bm25';
import { walkWeights } from './code/references';
import { pprGraphReference, pprReference } from './relations/ppr-reference';
import { defaultPprOptions } from './relations/ppr';
import { buildRun, rankRun, runIndependentScores, type RunDocumentIndex } from './run';
import { tokenize } from './tokenize';

async function realRepository(): Promise<RunDocumentIndex> {
  const repo = await laidOutRepository(
    sourceFiles(['src/core/code', 'src/core/relations'], { prefix: (f) => path.basename(f) }),
  );
  return repositoryDocument('repo', repo, undefined, 'core');
}

describe('the first question on a real repository, against the path it replaced', () => {
  it('ranks, selects and explains identically with BM25 and the multi-hop relation', async () => {
    const doc = await realRepository();
    const n = doc.starts.length;
    expect(n).toBeGreaterThan(300);
    const questions = [
      'How is the environment score of a window computed from its neighbours?',
      'personalised pagerank seeds damping',
      'parse the syntax tree into definitions and call sites',
    ];
    const run = buildRun([doc]);
    // The old BM25: each window tokenized whole.
    // Each window tokenized whole, with its stored scope names (code/scopes.ts).
    expect(doc.codeScopes).toHaveLength(n);
    const oldIndex = buildBm25Index(
      Array.from({ length: n }, (_, i) => [
        ...tokenize(doc.source.slice(doc.starts[i], doc.ends[i])),
        ...tokenize(doc.codeScopes![i]),
      ]),
    );
    // The old multi-hop graph over the code relation as the walk weights it (run.ts, 'ppr').
    const oldGraph = pprGraphReference([0, n], [walkWeights(doc.code!, doc.codeReferences!)], {
      radius: 2,
      wRel: 0.3,
      contextIn: [false],
    });
    for (const question of questions) {
      const tokens = tokenize(question);
      const independent = runIndependentScores(run, { tokens }, 'bm25');
      expect([...independent]).toEqual([...rescaleByMax(bm25Scores(oldIndex, tokens))]);
      const reference = pprReference(oldGraph, independent, defaultPprOptions);
      for (const alpha of [0.5, 0.8, 1.25]) {
        const options = {
          alpha,
          wRel: 0.3,
          relations: ['ppr' as const],
          listed: 40,
          maxSelected: 10,
          mergeWindows: true,
        };
        const ranked = rankRun(run, independent, options);
        // A fresh run (nothing cached) ranks the same.
        const fresh = rankRun(buildRun([doc]), independent, options);
        expect([...ranked.scores.final]).toEqual([...fresh.scores.final]);
        expect([...ranked.top]).toEqual([...fresh.top]);
        expect(ranked.spans).toEqual(fresh.spans);
        expect([...ranked.scores.environment]).toEqual([...reference.environment]);
        const final = Float64Array.from(
          independent,
          (s, i) => s + alpha * reference.environment[i],
        );
        expect([...ranked.scores.final]).toEqual([...final]);
        expect([...ranked.selection.ranked]).toEqual([...fresh.selection.ranked]);
        for (const [i, e] of ranked.explanations) {
          expect(e.byKind.ppr.contributions).toEqual(reference.contributions(i, 5));
        }
      }
    }
  }, 60_000);
});
