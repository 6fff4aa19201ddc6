/**
 * @file Tuning questions (grid.ts) from pseudo-questions (no labels) or from labelled gold spans
 * (a benchmark file for the document), over one document of a run.
 */
import type { Span } from '../eval/retrieval';
import type { HybridOptions } from '../options';
import type { Run, ScoringMode } from '../run';
import { fragmentsCovering, type TuneQuestion } from './grid';
import { maskedFragment, type PseudoQuestion } from './pseudo';
import { maskedIndependentScores } from './scores';

/** The texts a dense or hybrid scorer must embed for these pseudo-questions, in this order. */
export function pseudoTexts(
  run: Run,
  document: number,
  pseudo: readonly PseudoQuestion[],
): { queries: string[]; masked: string[] } {
  const { offset } = run.documents[document];
  const source = run.sources[document];
  return {
    queries: pseudo.map((p) => p.query),
    masked: pseudo.map((p) =>
      maskedFragment(
        source,
        run.starts[offset + p.fragment],
        run.ends[offset + p.fragment],
        p.sentence,
      ),
    ),
  };
}

/**
 * One tuning question per pseudo-question of document `document` of the run: its gold is the
 * source fragment alone; its scores read that fragment without the cut-out sentence. Dense and
 * hybrid need `vectors` (row k: the embedding of pseudoTexts' queries[k] / masked[k]).
 */
export function pseudoTuneQuestions(
  run: Run,
  document: number,
  pseudo: readonly PseudoQuestion[],
  mode: ScoringMode,
  vectors?: { queries: readonly Float32Array[]; masked: readonly Float32Array[] },
  hybrid?: Partial<HybridOptions>,
): TuneQuestion[] {
  const { offset } = run.documents[document];
  const { masked } = pseudoTexts(run, document, pseudo);
  return pseudo.map((p, k) => ({
    independent: maskedIndependentScores(
      run,
      {
        gold: offset + p.fragment,
        maskedText: masked[k],
        terms: p.terms,
        queryVector: vectors?.queries[k],
        maskedVector: vectors?.masked[k],
      },
      mode,
      hybrid,
    ),
    gold: [[offset + p.fragment]],
  }));
}

/**
 * A labelled question over document `document`: gold spans of its source (document-local
 * character offsets), each an item whose covering fragments must all be selected.
 */
export function labelledTuneQuestion(
  run: Run,
  document: number,
  independent: Float64Array,
  gold: readonly Span[],
): TuneQuestion {
  const { offset, count } = run.documents[document];
  return {
    independent,
    gold: gold.map((span) => fragmentsCovering(run.starts, run.ends, offset, count, span)),
  };
}
