/**
 * @file The line that says a question was scored by another scorer than the one chosen (the
 * embedder had no vectors for the text's language). Plain text: the notice names a model, and
 * nothing from outside the app is ever markup.
 */
import type { RetrievalResult } from '../../workers/retrieval-types';

export function ScoringNotice({ result }: { result: Pick<RetrievalResult, 'scoringNotice'> }) {
  if (!result.scoringNotice) return null;
  return (
    <p className="notice" role="status" data-testid="scoring-notice">
      {result.scoringNotice}
    </p>
  );
}
