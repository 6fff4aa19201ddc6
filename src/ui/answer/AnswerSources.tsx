/**
 * @file Under an answer: the excerpts it cites, as its sources, and the rest of what the model
 * was given folded under "also given to the model". Twenty excerpts listed as one block of links
 * read as if the answer used them all; the citations say which it did.
 */
import type { PromptSource } from '../../core/prompt';
import { countOf } from '../format/numbers';

/** The prompt's sources split by whether the answer cites them, each in label order. */
export function splitByCitation(
  sources: readonly PromptSource[],
  cited: ReadonlySet<number>,
): { cited: PromptSource[]; uncited: PromptSource[] } {
  return {
    cited: sources.filter((s) => cited.has(s.label)),
    uncited: sources.filter((s) => !cited.has(s.label)),
  };
}

export function AnswerSources({
  sources,
  cited,
  activeLabel,
  writing,
  onOpen,
}: {
  sources: readonly PromptSource[];
  /** The labels the answer cites (valid ones only). */
  cited: ReadonlySet<number>;
  activeLabel: number | null;
  /** The answer is still streaming: a missing citation may yet come. */
  writing: boolean;
  onOpen: (source: PromptSource) => void;
}) {
  const split = splitByCitation(sources, cited);
  const item = (s: PromptSource) => (
    <li key={s.label} className={activeLabel === s.label ? 'answer__source--active' : undefined}>
      <button type="button" className="link" onClick={() => onOpen(s)}>
        [{s.label}] {s.location}
      </button>
      {s.truncated && <span className="stats"> (cut to fit)</span>}
    </li>
  );
  return (
    <div className="answer__sourcing" data-testid="answer-sources">
      {split.cited.length > 0 ? (
        <>
          <h3 className="answer__sources-title">Sources</h3>
          <ol
            className="answer__sources answer__sources--cited"
            aria-label="Sources the answer cites"
          >
            {split.cited.map(item)}
          </ol>
        </>
      ) : (
        !writing && (
          <p className="stats" data-testid="answer-no-citation">
            The answer cites none of the excerpts it was given.
          </p>
        )
      )}
      {split.uncited.length > 0 && (
        <details className="answer__also" data-testid="answer-also-given">
          <summary>
            Also given to the model ({countOf(split.uncited.length, 'excerpt')}, not cited)
          </summary>
          <ol className="answer__sources" aria-label="Excerpts also given to the model">
            {split.uncited.map(item)}
          </ol>
        </details>
      )}
    </div>
  );
}
