/**
 * @file Where each compared pipeline's fragments sit in the documents: per document one strip,
 * one row per pipeline in its colour, a mark at each fragment it used (position across = the
 * fragment's place in the document). Drawn as plain SVG: document names and pipeline names are
 * React text, never markup. The agreement below lists the same fragments as buttons, so the
 * picture needs no keyboard of its own.
 */
import { COMPARE_PIPELINE_NAMES, type ComparePipelineId } from '../../core/compare';
import type { RunDocument } from '../../workers/retrieval-types';
import { PIPELINE_COLOURS } from '../pipelines/registry';
import { countOf } from '../format/numbers';

const W = 1000;
const ROW = 14;
const GAP = 4;

export function UsageOverlay({
  documents,
  rows,
}: {
  documents: readonly RunDocument[];
  rows: ReadonlyArray<{ pipeline: ComparePipelineId; used: readonly number[] }>;
}) {
  const height = rows.length * (ROW + GAP);
  return (
    <figure className="compare__overlay" data-testid="compare-overlay">
      <figcaption>Where each pipeline&apos;s fragments sit</figcaption>
      <ul className="compare__legend">
        {rows.map((r) => (
          <li key={r.pipeline}>
            <span
              className="compare__swatch"
              style={{ background: PIPELINE_COLOURS[r.pipeline] }}
              aria-hidden="true"
            />
            {COMPARE_PIPELINE_NAMES[r.pipeline]} ({r.used.length})
          </li>
        ))}
      </ul>
      {documents.map((d) => {
        const width = Math.max(2, W / Math.max(1, d.count));
        const x = (i: number) => ((i - d.offset) / Math.max(1, d.count)) * W;
        const summary = rows
          .map((r) => {
            const n = r.used.filter((i) => i >= d.offset && i < d.offset + d.count).length;
            return `${COMPARE_PIPELINE_NAMES[r.pipeline]} ${n}`;
          })
          .join(', ');
        return (
          <div key={d.docId} className="compare__overlay-doc">
            <p className="stats">
              <strong>{d.name}</strong> — {countOf(d.count, 'fragment')}
            </p>
            <svg
              viewBox={`0 0 ${W} ${height}`}
              preserveAspectRatio="none"
              role="img"
              aria-label={`Fragments used in ${d.name}: ${summary}.`}
              data-doc={d.docId}
            >
              {rows.map((r, k) => (
                <g key={r.pipeline} data-pipeline={r.pipeline} fill={PIPELINE_COLOURS[r.pipeline]}>
                  <rect
                    x={0}
                    y={k * (ROW + GAP)}
                    width={W}
                    height={ROW}
                    className="compare__track"
                  />
                  {r.used
                    .filter((i) => i >= d.offset && i < d.offset + d.count)
                    .map((i) => (
                      <rect
                        key={i}
                        data-fragment={i}
                        x={x(i)}
                        y={k * (ROW + GAP)}
                        width={width}
                        height={ROW}
                      />
                    ))}
                </g>
              ))}
            </svg>
          </div>
        );
      })}
    </figure>
  );
}
