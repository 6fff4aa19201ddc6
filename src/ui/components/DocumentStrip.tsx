import { useMemo } from 'react';
import type { RunDocument } from '../../workers/retrieval-types';
import { countOf, formatCount } from '../format/numbers';

/**
 * One document seen whole: position across, the three scores as lines, the selected fragments
 * as marks, and the budget line (core/why `budgetLine`: the final score of the best fragment
 * left out). Every fragment whose final score is above the line was taken; a mark below it is a
 * shorter fragment that fitted what was left of the budget.
 */
export interface DocumentStripProps {
  doc: RunDocument;
  independent: Float64Array;
  environment: Float64Array;
  final: Float64Array;
  selected: Set<number>;
  /** The budget line's score; null: no line (nothing selected). */
  cutoff: number | null;
  /** Score range drawn, shared by the strips of all documents of a run. */
  scale: { low: number; high: number };
  focused: number | null;
  onPick: (index: number) => void;
  /** Passages holding the phrase found in the book (FindInBook), ticked under the curves. */
  hits?: ReadonlySet<number>;
}

const W = 1000;
const H = 120;
const PAD = 6;

export function DocumentStrip(props: DocumentStripProps) {
  const { doc, independent, environment, final, selected, cutoff, scale, focused, onPick, hits } =
    props;
  const { offset, count } = doc;
  const x = (i: number) => (count <= 1 ? W / 2 : ((i - offset) / (count - 1)) * W);
  const span = scale.high - scale.low;
  const y = (v: number) => H - PAD - (span > 0 ? ((v - scale.low) / span) * (H - 2 * PAD) : 0);

  const paths = useMemo(() => {
    const line = (a: Float64Array) => {
      // Down-sample to at most one point per horizontal unit, keeping each bucket's maximum,
      // so a 50,000-fragment book still draws a faithful envelope.
      const step = Math.max(1, Math.floor(count / W));
      let d = '';
      for (let i = offset; i < offset + count; i += step) {
        let m = a[i];
        for (let k = i + 1; k < Math.min(i + step, offset + count); k++) m = Math.max(m, a[k]);
        d += `${d ? 'L' : 'M'}${x(i).toFixed(1)},${y(m).toFixed(1)}`;
      }
      return d;
    };
    return { ind: line(independent), env: line(environment), fin: line(final) };
    // x and y depend only on these values
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [independent, environment, final, offset, count, scale]);

  const marks = [...selected].filter((i) => i >= offset && i < offset + count);
  const found = hits ? [...hits].filter((i) => i >= offset && i < offset + count) : [];
  const current =
    focused !== null && focused >= offset && focused < offset + count ? focused : offset;

  const pick = (clientX: number, rect: DOMRect) => {
    const rel = (clientX - rect.left) / rect.width;
    onPick(offset + Math.round(rel * (count - 1)));
  };

  return (
    <figure className="strip">
      <figcaption>
        <strong>{doc.name}</strong> — {countOf(count, 'fragment')}, {formatCount(marks.length)}{' '}
        selected
      </figcaption>
      {/* A slider over fragment positions: arrows, Home/End and PageUp/PageDown move the reader. */}
      <svg
        viewBox={`0 0 ${W} ${H}`}
        preserveAspectRatio="none"
        role="slider"
        tabIndex={0}
        aria-label={`Fragment of ${doc.name} to read. The strip plots independent, environment and final scores by position; ${countOf(marks.length, 'selected fragment')} marked.`}
        aria-valuemin={1}
        aria-valuemax={count}
        aria-valuenow={current - offset + 1}
        aria-valuetext={`fragment ${current - offset + 1} of ${count}${selected.has(current) ? ', selected' : ''}`}
        onClick={(e) => pick(e.clientX, e.currentTarget.getBoundingClientRect())}
        onKeyDown={(e) => {
          const step = {
            ArrowLeft: -1,
            ArrowDown: -1,
            ArrowRight: 1,
            ArrowUp: 1,
            PageDown: -10,
            PageUp: 10,
          }[e.key];
          let next: number | null = null;
          if (step !== undefined) next = current + step;
          else if (e.key === 'Home') next = offset;
          else if (e.key === 'End') next = offset + count - 1;
          if (next === null) return;
          e.preventDefault();
          onPick(Math.min(offset + count - 1, Math.max(offset, next)));
        }}
      >
        {marks.map((i) => (
          <rect key={i} className="strip__mark" x={x(i) - 1.5} y={0} width={3} height={H} />
        ))}
        {found.map((i) => (
          <rect
            key={`hit${i}`}
            className="strip__hit"
            data-testid="strip-hit"
            x={x(i) - 1}
            y={H - 14}
            width={2}
            height={14}
          />
        ))}
        <path className="strip__line strip__line--env" d={paths.env} />
        <path className="strip__line strip__line--ind" d={paths.ind} />
        <path className="strip__line strip__line--final" d={paths.fin} />
        {cutoff !== null && (
          <line className="strip__cutoff" x1={0} x2={W} y1={y(cutoff)} y2={y(cutoff)} />
        )}
        {focused !== null && focused >= offset && focused < offset + count && (
          <rect className="strip__focus" x={x(focused) - 2} y={0} width={4} height={H} />
        )}
      </svg>
      <div className="strip__legend" aria-hidden="true">
        <span className="swatch swatch--ind" /> independent <span className="swatch swatch--env" />{' '}
        environment <span className="swatch swatch--final" /> final{' '}
        <span className="swatch swatch--mark" /> selected <span className="swatch swatch--cutoff" />{' '}
        budget line
      </div>
      <p className="strip__note help">
        Everything scoring above the budget line was put in the context; a selected mark below it is
        a shorter passage that fitted what was left.
      </p>
    </figure>
  );
}
