/**
 * @file The results table: per configuration, the mean at each budget and its change against
 * the baseline with the paired bootstrap 95% interval. A change whose interval excludes 0 is
 * marked. This table is also the plot's accessible data.
 */
import {
  budgetKey,
  configKey,
  configLabel,
  type GridCell,
  type GridSpec,
  type GridSummaryRow,
} from '../../core/eval/grid';

const pct = (x: number) => (100 * x).toFixed(1);
const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}`;

function Cell({ cell }: { cell: GridCell }) {
  if (cell.n === 0) return <td className="eval-num">—</td>;
  const d = cell.delta;
  const clear = d && (d.ci95[0] > 0 || d.ci95[1] < 0);
  return (
    <td className="eval-num">
      {pct(cell.mean)}
      {d && (
        <span className={`eval-delta${clear ? ' eval-delta--clear' : ''}`}>
          {' '}
          ({signed(d.mean)} [{signed(d.ci95[0])}, {signed(d.ci95[1])}])
        </span>
      )}
    </td>
  );
}

export function ResultsTable({
  spec,
  rows,
  metric,
  baseline,
  questions,
}: {
  spec: GridSpec;
  rows: GridSummaryRow[];
  metric: 'gold' | 'answer';
  baseline: string;
  questions: number;
}) {
  const title = metric === 'gold' ? 'Gold recall (%)' : 'Answer-in-context (%)';
  return (
    <table className="eval-table" data-testid={`eval-table-${metric}`}>
      <caption>
        {title} at each budget; in brackets the change against the baseline in points with its
        paired bootstrap 95% interval (bold: the interval excludes 0).
      </caption>
      <thead>
        <tr>
          <th scope="col">configuration</th>
          <th scope="col">questions done</th>
          {spec.budgets.map((b) => (
            <th scope="col" key={budgetKey(b)}>
              {b.budget} {b.unit}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {spec.configs.map((c, i) => {
          const key = configKey(c);
          const row = rows[i];
          return (
            <tr key={key} data-config={key}>
              <th scope="row">
                {configLabel(c)}
                {key === baseline && <span className="eval-baseline"> (baseline)</span>}
              </th>
              <td className="eval-num">
                {row?.questions ?? 0} / {questions}
              </td>
              {spec.budgets.map((b, k) =>
                row ? (
                  <Cell key={budgetKey(b)} cell={row[metric][k]} />
                ) : (
                  <td key={budgetKey(b)}>—</td>
                ),
              )}
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
