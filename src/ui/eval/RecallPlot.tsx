/**
 * @file Recall against budget, one line per configuration, drawn with chart.js (the project's one
 * charting library, shared with tuning), loaded only when a plot is first shown. The canvas is a
 * picture; the table beside it carries the same numbers for screen readers.
 */
import { useEffect, useRef, useState } from 'react';
import type { Chart } from 'chart.js';
import { configLabel, type GridSpec, type GridSummaryRow } from '../../core/eval/grid';

const COLOURS = [
  '#1f77b4',
  '#d62728',
  '#2ca02c',
  '#9467bd',
  '#ff7f0e',
  '#8c564b',
  '#e377c2',
  '#17becf',
];

export function RecallPlot({
  spec,
  rows,
  metric,
  unit,
}: {
  spec: GridSpec;
  rows: GridSummaryRow[];
  metric: 'gold' | 'answer';
  unit: 'words' | 'tokens';
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const chart = useRef<Chart | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let cancelled = false;
    const budgets = spec.budgets.map((b, k) => ({ ...b, k })).filter((b) => b.unit === unit);
    const datasets = spec.configs.map((c, i) => ({
      label: configLabel(c),
      data: budgets.map((b) => {
        const cell = rows[i]?.[metric][b.k];
        return { x: b.budget, y: cell && cell.n > 0 ? cell.mean : null };
      }),
      borderColor: COLOURS[i % COLOURS.length],
      backgroundColor: COLOURS[i % COLOURS.length],
      borderDash: i >= COLOURS.length ? [6, 3] : [],
      spanGaps: true,
    }));
    import('chart.js')
      .then((m) => {
        if (cancelled || !canvas.current) return;
        m.Chart.register(
          m.LineController,
          m.LineElement,
          m.PointElement,
          m.LinearScale,
          m.Legend,
          m.Tooltip,
        );
        if (!chart.current) {
          chart.current = new m.Chart(canvas.current, {
            type: 'line',
            data: { datasets },
            options: {
              animation: false,
              responsive: true,
              maintainAspectRatio: false,
              scales: {
                x: { type: 'linear', title: { display: true, text: `budget (${unit})` } },
                y: {
                  min: 0,
                  max: 1,
                  title: {
                    display: true,
                    text: metric === 'gold' ? 'gold recall' : 'answer-in-context',
                  },
                },
              },
            },
          });
        } else {
          chart.current.data.datasets = datasets;
          const y = chart.current.options.scales?.y;
          if (y && 'title' in y && y.title) {
            y.title.text = metric === 'gold' ? 'gold recall' : 'answer-in-context';
          }
          chart.current.update();
        }
      })
      .catch((e: unknown) => setError(`The plot could not be drawn: ${String(e)}`));
    return () => {
      cancelled = true;
    };
  }, [spec, rows, metric, unit]);

  useEffect(
    () => () => {
      chart.current?.destroy();
      chart.current = null;
    },
    [],
  );

  return (
    <figure className="eval-plot" data-testid="eval-plot">
      <div className="eval-plot__canvas">
        <canvas
          ref={canvas}
          role="img"
          aria-label={`${metric === 'gold' ? 'Gold recall' : 'Answer-in-context'} against the budget in ${unit}, one line per configuration; the table above holds the same numbers.`}
        />
      </div>
      <figcaption>
        {metric === 'gold' ? 'Gold recall' : 'Answer-in-context'} against the budget ({unit}), one
        line per configuration.
      </figcaption>
      {error && <p role="alert">{error}</p>}
    </figure>
  );
}
