/**
 * @file Agreement at a glance: the fragments every finished column used, those only one used
 * (per column), and how much each pair's fragments overlap. Each fragment opens in the reader.
 */
import { useState } from 'react';
import { COMPARE_PIPELINE_NAMES, type Agreement, type ComparePipelineId } from '../../core/compare';
import { PIPELINE_COLOURS } from '../pipelines/registry';
import { TableHead } from '../components/TableHead';

const SHOWN = 12;

function Fragments({
  list,
  locationOf,
  onOpen,
}: {
  list: readonly number[];
  locationOf: (index: number) => string;
  onOpen: (index: number) => void;
}) {
  const [all, setAll] = useState(false);
  if (!list.length) return <span className="stats">none</span>;
  // SEGMENT+ reads the whole library: its "only" list can run to hundreds.
  const shown = all ? list : list.slice(0, SHOWN);
  return (
    <ul className="compare__fragments">
      {shown.map((i) => (
        <li key={i}>
          <button type="button" className="link" onClick={() => onOpen(i)}>
            {locationOf(i)}
          </button>
        </li>
      ))}
      {shown.length < list.length && (
        <li>
          <button type="button" onClick={() => setAll(true)}>
            Show all {list.length}
          </button>
        </li>
      )}
    </ul>
  );
}

export function AgreementView({
  agreement,
  locationOf,
  onOpen,
}: {
  agreement: Agreement<ComparePipelineId>;
  locationOf: (index: number) => string;
  onOpen: (index: number) => void;
}) {
  const n = agreement.columns.length;
  return (
    <section className="compare__agreement" aria-label="Agreement" data-testid="compare-agreement">
      <h3 className="compare__name">Agreement</h3>
      {n < 2 ? (
        <p className="stats">Agreement is shown once at least two columns have finished.</p>
      ) : (
        <>
          <p data-testid="agreement-all" data-count={agreement.byAll.length}>
            Used by all {n}: {agreement.byAll.length} fragment
            {agreement.byAll.length === 1 ? '' : 's'}
          </p>
          <Fragments list={agreement.byAll} locationOf={locationOf} onOpen={onOpen} />
          <p>Used by only one:</p>
          <ul className="compare__only">
            {agreement.columns.map((c) => (
              <li
                key={c}
                data-testid="agreement-only"
                data-pipeline={c}
                data-count={agreement.byOnly[c].length}
              >
                <span
                  className="compare__swatch"
                  style={{ background: PIPELINE_COLOURS[c] }}
                  aria-hidden="true"
                />
                {COMPARE_PIPELINE_NAMES[c]}: {agreement.byOnly[c].length}
                <Fragments list={agreement.byOnly[c]} locationOf={locationOf} onOpen={onOpen} />
              </li>
            ))}
          </ul>
          <table className="compare__pairs">
            <caption>Overlap of each pair (shared fragments / fragments used by either)</caption>
            <TableHead columns={['Pair', 'Shared', 'Overlap']} />
            <tbody>
              {agreement.pairs.map((p) => (
                <tr key={`${p.a}-${p.b}`}>
                  <td>
                    {COMPARE_PIPELINE_NAMES[p.a]} – {COMPARE_PIPELINE_NAMES[p.b]}
                  </td>
                  <td>{p.shared}</td>
                  <td>{Math.round(p.jaccard * 100)}%</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}
