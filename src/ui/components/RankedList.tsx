import { documentOf, type RetrievalResult } from '../../workers/retrieval-types';
import { describe } from './ExplanationView';
import { ScoreBar } from './ScoreBar';

/** The fragments by final score, each with its equation bar; selected ones marked. */
export function RankedList({
  result,
  focused,
  onPick,
  source,
}: {
  result: RetrievalResult;
  focused: number | null;
  onPick: (index: number) => void;
  /** Source text per document id, for a one-line preview (absent while loading). */
  source: (docId: string) => string | null;
}) {
  const selected = new Set(result.selected);
  let scale = 0;
  for (const i of result.top) scale = Math.max(scale, result.final[i]);
  return (
    <ol className="ranked" aria-label="Fragments ranked by final score" data-testid="ranked-list">
      {[...result.top].map((i, rank) => {
        const doc = documentOf(result, i)!;
        const text = source(doc.docId);
        const preview = text
          ? text.slice(result.starts[i], Math.min(result.ends[i], result.starts[i] + 160))
          : '';
        return (
          <li
            key={i}
            className={`ranked__item${selected.has(i) ? ' ranked__item--selected' : ''}${focused === i ? ' ranked__item--focused' : ''}`}
            data-fragment={i}
            data-selected={selected.has(i)}
          >
            <RankedHead
              result={result}
              index={i}
              rank={rank}
              label={describe(result, i)}
              selected={selected.has(i)}
              scale={scale}
              onPick={onPick}
            />
            {preview && <p className="ranked__preview">{preview.replace(/\s+/g, ' ')}…</p>}
          </li>
        );
      })}
    </ol>
  );
}

/** A ranked entry's head: its rank and name (a button that opens it), and its score bar. */
export function RankedHead({
  result,
  index,
  rank,
  label,
  selected,
  scale,
  onPick,
}: {
  result: RetrievalResult;
  index: number;
  rank: number;
  label: string;
  selected: boolean;
  scale: number;
  onPick: (index: number) => void;
}) {
  return (
    <>
      <button type="button" className="ranked__open" onClick={() => onPick(index)}>
        <span className="ranked__rank">{rank + 1}.</span> {label}
        {selected && <span className="badge badge--selected">selected</span>}
      </button>
      <ScoreBar
        independent={result.independent[index]}
        environment={result.environment[index]}
        alpha={result.settings.alpha}
        scale={scale}
      />
    </>
  );
}
