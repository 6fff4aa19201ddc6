import { useMemo } from 'react';
import { selectionReasons } from '../../core/why/reasons';
import { documentOf, type RetrievalResult } from '../../workers/retrieval-types';
import { reasonText } from './reasonText';
import { fmt } from './ScoreBar';
import { TableHead } from './TableHead';

const KIND_HELP: Record<string, string> = {
  context:
    'Context structure (Eq. 7): nearby fragments lend their relevance, with weight w_rel to the power of the distance.',
  semantic:
    'Semantic (Eq. 6): the fragments most similar to this one lend their relevance, weighted by max(0, cosine). The paper prints 1 − cos, a distance; we use the similarity so that larger means more related.',
  section:
    'Same section: the other fragments under the same heading or chapter (as found when the document was read) lend their relevance, each with the same weight. Fragments outside any section have none.',
  ppr: 'Multi-hop (personalised PageRank): relevance starts at the 5 best fragments and flows along neighbouring fragments (w_rel to the power of the distance, up to 2 away), so a passage next to a passage next to the evidence still gains. Each row is the relevance that arrived from that fragment.',
};

const KIND_NAME: Record<string, string> = {
  ppr: 'multi-hop (PageRank)',
  section: 'same section',
};

/** Why a fragment scored as it did: its environment score taken apart by relation kind. */
export function ExplanationView({
  result,
  index,
  onPick,
}: {
  result: RetrievalResult;
  index: number;
  onPick: (index: number) => void;
}) {
  const ex = result.explanations[index];
  const { alpha } = result.settings;
  // Replays Eq. 11 as far as this fragment's rank to name why it was taken or left.
  const reason = useMemo(
    () =>
      selectionReasons(
        {
          final: result.final,
          costs: result.costs,
          selected: result.selected,
          budget: result.budget,
          maxSelected: result.maxSelected,
          excluded: result.excluded,
        },
        [index],
      ).get(index),
    [result, index],
  );
  const because = (
    <span data-testid="why-reason" data-reason={reason?.kind}>
      {reasonText(reason, result.budget, 'word', (i) => describe(result, i))}
    </span>
  );
  if (!ex) {
    return (
      <section className="explain">
        <h2>Why this fragment</h2>
        <p>
          Independent {fmt(result.independent[index])} + {fmt(alpha)} × environment{' '}
          {fmt(result.environment[index])} = final {fmt(result.final[index])}. {because}
        </p>
      </section>
    );
  }
  return (
    <section className="explain" aria-labelledby="explain-title" data-testid="explanation">
      <h2 id="explain-title">Why this fragment</h2>
      <p>
        Rank {ex.rank + 1}. Its own relevance to the question is{' '}
        <strong>{fmt(ex.independent)}</strong>; its related fragments' relevance averages{' '}
        <strong>{fmt(ex.environment)}</strong>; so its final score is {fmt(ex.independent)} +{' '}
        {fmt(alpha)} × {fmt(ex.environment)} = <strong>{fmt(ex.final)}</strong>. {because}
      </p>
      {Object.entries(ex.byKind).map(([kind, part]) => (
        <div key={kind} className="explain__kind">
          <h3>
            {KIND_NAME[kind] ?? kind} relation: environment {fmt(part.environment)}
          </h3>
          <p className="help">{KIND_HELP[kind] ?? ''}</p>
          {part.contributions.length === 0 ? (
            <p>No related fragment contributes.</p>
          ) : (
            <table className="explain__table">
              <TableHead
                columns={[
                  'Related fragment',
                  'Weight w',
                  'Its independent score',
                  'Share of environment',
                ]}
              />
              <tbody>
                {part.contributions.map((c) => (
                  <tr key={c.index}>
                    <td>
                      <button type="button" className="link" onClick={() => onPick(c.index)}>
                        {describe(result, c.index)}
                      </button>
                    </td>
                    <td>{fmt(c.weight)}</td>
                    <td>
                      {fmt(result.independent[c.index])}
                      {flowsThrough(kind, result.independent[c.index], c.share) && (
                        <span className="stats" data-testid="why-flows-through">
                          {' '}
                          (no relevance of its own: the relevance of its own neighbours flows on
                          through it)
                        </span>
                      )}
                    </td>
                    <td>
                      <span className="share" style={{ width: `${Math.round(c.share * 100)}%` }} />{' '}
                      {Math.round(c.share * 100)}%
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      ))}
    </section>
  );
}

/**
 * Whether a contribution is relevance passed along rather than the fragment's own: in the
 * multi-hop relation a fragment that scores 0.000 still carries a share, the relevance that
 * reached it from its neighbours and flowed on. Shown as "0.000" with a 20 % share, it reads as
 * a mistake without that said.
 */
export function flowsThrough(kind: string, independent: number, share: number): boolean {
  return kind === 'ppr' && share > 0 && Math.abs(independent) < 0.0005;
}

export function describe(result: RetrievalResult, index: number): string {
  const doc = documentOf(result, index);
  const n = doc ? index - doc.offset + 1 : index + 1;
  const label = result.labels[index];
  return `#${n}${label ? ` (${label})` : ''}${doc && result.documents.length > 1 ? ` · ${doc.name}` : ''}`;
}
