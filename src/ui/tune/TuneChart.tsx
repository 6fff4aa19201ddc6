/**
 * @file The tuning curve: pseudo-question recall against alpha, one line per relation set (at its
 * best w_rel), alpha 0 being plain retrieval. chart.js (4.6.1, the project's one charting library,
 * shared with the evaluation page) is loaded on first draw, so the app's first page does not
 * carry it. The panel's data table holds the same numbers for screen readers and for copying.
 */
import { useEffect, useRef, useState } from 'react';
import { usesWRel } from '../../core/relations/kinds';
import type { TuneCurve } from '../../core/tune';

const COLOURS = ['#2563eb', '#16a34a', '#dc2626', '#9333ea', '#ea580c'];

export function TuneChart({ curves }: { curves: TuneCurve[] }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const [state, setState] = useState<'loading' | 'ready' | 'failed'>('loading');
  useEffect(() => {
    let chart: { destroy(): void } | null = null;
    let closed = false;
    void import('chart.js/auto')
      .then(({ default: Chart }) => {
        if (closed || !canvas.current) return;
        chart = new Chart(canvas.current, {
          type: 'line',
          data: {
            datasets: curves.map((c, k) => ({
              label: `${c.label}${usesWRel(c.relations) ? ` (w_rel ${c.wRel})` : ''}`,
              data: c.points.map((p) => ({ x: p.alpha, y: Math.round(p.score * 1000) / 10 })),
              borderColor: COLOURS[k % COLOURS.length],
              backgroundColor: COLOURS[k % COLOURS.length],
            })),
          },
          options: {
            animation: false,
            responsive: true,
            maintainAspectRatio: false,
            scales: {
              x: { type: 'linear', title: { display: true, text: 'α (0 = plain retrieval)' } },
              y: { title: { display: true, text: 'sources retrieved (%)' }, suggestedMin: 0 },
            },
          },
        });
        setState('ready');
      })
      .catch(() => setState('failed'));
    return () => {
      closed = true;
      chart?.destroy();
    };
  }, [curves]);
  return (
    <div
      className="tune__chart"
      data-testid="tune-chart"
      data-state={state}
      // Chart.js sizes a responsive chart to its container, which needs a height of its own.
      style={{ position: 'relative', height: 240 }}
    >
      <canvas
        ref={canvas}
        role="img"
        aria-label="Pseudo-question recall against alpha, one line per relation; the table below has the numbers"
      />
      {state === 'failed' && (
        <p className="hint">The chart could not be drawn; the table has the numbers.</p>
      )}
    </div>
  );
}
