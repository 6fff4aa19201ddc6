/**
 * @file Under an answer: the excerpts it cites, as its sources, and the rest of what the model
 * was given folded under "also given to the model". Twenty excerpts listed as one block of links
 * read as if the answer used them all; the citations say which it did.
 */
import type { PromptSource } from '../../core/prompt';
import { countOf } from '../format/numbers';

/** The prompt's sources split by whether the answer cites them, each in label order. */
const clip = (text: string, max = 80) =>
  text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;

export function splitByCitation(
  sources: readonly PromptSource[],
  cited: ReadonlySet<number>,
): { cited: PromptSource[]; uncited: PromptSource[] } {
  return {
    cited: sources.filter((s) => cited.has(s.label)),
    uncited: sources.filter((s) => !cited.has(s.label)),
  };
}

/** An excerpt matched to a sentence of an answer that cites nothing (core/evidence/attribute.ts). */
export interface InferredSource {
  label: number;
  /** The answer's sentence it supports. */
  claim: string;
}

export function AnswerSources({
  sources,
  cited,
  inferred = [],
  activeLabel,
  writing,
  onOpen,
}: {
  sources: readonly PromptSource[];
  /** The labels the answer cites (valid ones only). */
  cited: ReadonlySet<number>;
  /** For an answer without citations: the excerpts its sentences were matched to, in order. */
  inferred?: readonly InferredSource[];
  activeLabel: number | null;
  /** The answer is still streaming: a missing citation may yet come. */
  writing: boolean;
  onOpen: (source: PromptSource, claim?: string) => void;
}) {
  const split = splitByCitation(sources, cited);
  const byLabel = new Map(sources.map((s) => [s.label, s]));
  // One entry per excerpt, with the first sentence it was matched to.
  const firstClaim = new Map<number, string>();
  for (const i of inferred) if (!firstClaim.has(i.label)) firstClaim.set(i.label, i.claim);
  const inferredSources = [...firstClaim].flatMap(([label, claim]) => {
    const source = byLabel.get(label);
    return source ? [{ source, claim }] : [];
  });
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
          <>
            <p className="stats" data-testid="answer-no-citation">
              The answer cites none of the excerpts it was given.
              {inferredSources.length > 0 &&
                ' These excerpts share most words with its sentences (inferred here, not cited by the model):'}
            </p>
            {inferredSources.length > 0 && (
              <ol
                className="answer__sources answer__sources--inferred"
                aria-label="Sources inferred from the answer's sentences"
                data-testid="answer-inferred-sources"
              >
                {inferredSources.map(({ source, claim }) => (
                  <li
                    key={source.label}
                    className={activeLabel === source.label ? 'answer__source--active' : undefined}
                  >
                    <button
                      type="button"
                      className="link"
                      onClick={() => onOpen(source, claim)}
                      title={`Matched to: ${claim}`}
                    >
                      [{source.label}?] {source.location}
                    </button>
                    <span className="stats"> inferred, for “{clip(claim)}”</span>
                  </li>
                ))}
              </ol>
            )}
          </>
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
