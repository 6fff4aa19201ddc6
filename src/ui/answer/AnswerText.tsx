import { useMemo } from 'react';
import { splitCitations } from '../../core/citations';
import type { PromptSource } from '../../core/prompt';

/**
 * The answer as it streams in, with each cited label a link to its fragment. A citation that is
 * still being written ("[1") stays text until its bracket closes.
 */
export function AnswerText({
  text,
  sources,
  onCite,
}: {
  text: string;
  /** The prompt's labels: `[label]` stands for fragment `index`. */
  sources: readonly PromptSource[];
  onCite: (source: PromptSource) => void;
}) {
  const pieces = useMemo(() => splitCitations(text, sources.length), [text, sources.length]);
  return (
    <>
      {pieces.map((piece, i) =>
        piece.kind === 'text' ? (
          <span key={i}>{piece.text}</span>
        ) : (
          <span key={i} className="cite-group">
            {piece.labels.map((label) => {
              const source = sources[label - 1];
              return (
                <a
                  key={label}
                  href={`#fragment-${source.index}`}
                  className="cite"
                  data-fragment={source.index}
                  data-label={label}
                  title={`Open excerpt ${label}: ${source.location}`}
                  onClick={(e) => {
                    e.preventDefault();
                    onCite(source);
                  }}
                >
                  [{label}]
                </a>
              );
            })}
          </span>
        ),
      )}
    </>
  );
}
