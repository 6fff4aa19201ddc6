/**
 * @file The windows ranked by final score (Eq. 10), each with its equation bar and, per relation
 * kind, the environment score it got; the selected ones (the top windows handed to the model)
 * marked. Windows kept out of the ranking (they hold a completion's cursor) are listed apart.
 */
import { memo } from 'react';
import type { RetrievalResult } from '../../workers/retrieval-types';
import { RankedHead } from '../components/RankedList';
import { fmt } from '../components/ScoreBar';

export const WindowList = memo(function WindowList({
  result,
  focused,
  onPick,
}: {
  result: RetrievalResult;
  focused: number | null;
  onPick: (index: number) => void;
}) {
  const selected = new Set(result.selected);
  let scale = 0;
  for (const i of result.top) scale = Math.max(scale, result.final[i]);
  const kinds = Object.keys(result.environmentByKind);
  const excluded = [...(result.excluded ?? [])];
  return (
    <>
      <ol className="ranked" aria-label="Windows ranked by final score" data-testid="window-list">
        {[...result.top].map((i, rank) => (
          <li
            key={i}
            className={`ranked__item${selected.has(i) ? ' ranked__item--selected' : ''}${focused === i ? ' ranked__item--focused' : ''}`}
            data-fragment={i}
            data-label={result.labels[i]}
            data-selected={selected.has(i)}
          >
            <RankedHead
              result={result}
              index={i}
              rank={rank}
              label={result.labels[i] || `#${i + 1}`}
              selected={selected.has(i)}
              scale={scale}
              onPick={onPick}
            />
            {kinds.length > 0 && (
              <p className="ranked__preview" data-testid="window-kinds">
                {kinds
                  .map((k) => `${k} environment ${fmt(result.environmentByKind[k][i])}`)
                  .join(' · ')}
              </p>
            )}
          </li>
        ))}
      </ol>
      {excluded.length > 0 && (
        <p className="stats" data-testid="excluded-windows">
          Kept out of the ranking (they hold the cursor or repeat the lines before it):{' '}
          {excluded.map((i) => result.labels[i]).join(', ')}.
        </p>
      )}
    </>
  );
});
