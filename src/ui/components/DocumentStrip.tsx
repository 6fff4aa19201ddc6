import { useMemo } from 'react';
import type { RunDocument } from '../../workers/retrieval-types';

/**
 * One document seen whole: position across, the three scores as lines, the selected fragments
 * as marks, and the budget line (the final score of the last fragment that fit). Fragments above
 * the line in the final curve are the ones the budget took.
 */
export interface DocumentStripProps {
  doc: RunDocument;
  independent: Float64Array;
  environment: Float64Array;
  final: Float64Array;
  selected: Set<number>;
  cutoff: number;
  /** Score range drawn, shared by the strips of all documents of a run. */
  scale: { low: number; high: number };
  focused: number | null;
  onPick: (index: number) => void;
}

const W = 1000;
const H = 120;
const PAD = 6;

export function DocumentStrip(props: DocumentStripProps) {
  const { doc, independent, environment, final, selected, cutoff, scale, focused, onPick } = props;
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

  const pick = (clientX: number, rect: DOMRect) => {
    const rel = (clientX - rect.left) / rect.width;
    onPick(offset + Math.round(rel * (count - 1)));
  };

  return (
    <figure className="strip">
      <figcaption>
        <strong>{doc.name}</strong> — {count} fragments, {marks.length} selected
      </figcaption>
      <svg
        viewBox={`0 0 ${W} ${H}`}
        preserveAspectRatio="none"
        role="img"
        aria-label={`Scores across ${doc.name}: independent, environment and final score by position; ${marks.length} selected fragments marked`}
        onClick={(e) => pick(e.clientX, e.currentTarget.getBoundingClientRect())}
      >
        {marks.map((i) => (
          <rect key={i} className="strip__mark" x={x(i) - 1.5} y={0} width={3} height={H} />
        ))}
        <path className="strip__line strip__line--env" d={paths.env} />
        <path className="strip__line strip__line--ind" d={paths.ind} />
        <path className="strip__line strip__line--final" d={paths.fin} />
        {cutoff > 0 && (
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
    </figure>
  );
}
