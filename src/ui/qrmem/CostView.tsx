/**
 * @file QRMeM's cost split: construction, with what does not depend on the
 * question (cached per document, so free for the next question) apart from what does, against
 * navigation: LLM calls, tokens in and out, and time of each.
 */
import { qrmemCost, type PhaseCost } from '../../core/pipelines/qrmem/cost';
import type { Trace } from '../../core/pipelines/types';

const rows: Array<{ key: keyof ReturnType<typeof qrmemCost>; label: string }> = [
  {
    key: 'constructionIndependent',
    label: 'Construction, question-independent (kept per document)',
  },
  { key: 'constructionDependent', label: 'Construction, for this question' },
  { key: 'construction', label: 'Construction, all' },
  { key: 'navigation', label: 'Navigation' },
];

export function QrmemCostView({ trace }: { trace: Trace }) {
  const cost = qrmemCost(trace);
  const cell = (c: PhaseCost) => [
    c.calls.toLocaleString('en'),
    c.tokensIn.toLocaleString('en'),
    c.tokensOut.toLocaleString('en'),
    `${(c.ms / 1000).toFixed(2)} s`,
  ];
  return (
    <table className="trace__cost" data-testid="qrmem-cost">
      <caption>Cost: construction and navigation</caption>
      <thead>
        <tr>
          <th scope="col">phase</th>
          <th scope="col">LLM calls</th>
          <th scope="col">tokens in</th>
          <th scope="col">tokens out</th>
          <th scope="col">time</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(({ key, label }) => (
          <tr key={key} data-phase={key} data-calls={cost[key].calls}>
            <th scope="row">{label}</th>
            {cell(cost[key]).map((v, i) => (
              <td key={i}>{v}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
