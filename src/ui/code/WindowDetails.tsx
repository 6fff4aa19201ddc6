/**
 * @file Why a window scored as it did: its three scores (Eq. 10), per relation kind the windows
 * that lent it their relevance (Eq. 9), and for the code relation the graph neighbourhood behind
 * them (explainCodeWindow): the nodes that cover the window, and the definitions, call sites,
 * files and directories it reaches, each with the strongest path there (edge by edge, with the
 * edge types and weights), its strength Dis and its share of the window's row of Eq. 8.
 */
import { memo, useEffect, useState } from 'react';
import type { CodeEdgeKind } from '../../core/code/graph';
import type { CodeNodeSummary, WindowNeighbourhood } from '../../core/code/explain';
import { documentOf, type RetrievalResult } from '../../workers/retrieval-types';
import { fmt } from '../components/ScoreBar';
import { TableHead } from '../components/TableHead';

const KIND_HELP: Record<string, string> = {
  code: 'Code structure (Eq. 8): windows joined through the code graph (calls 0.8, syntax nesting 0.5, file to its syntax 1.0, directory tree 0.3; path strength = product of the weights on the strongest path) lend their relevance.',
  ppr: 'Multi-hop (personalised PageRank over the code-structure edges of Eq. 8): relevance starts at the 5 best windows and flows along calls, definitions and the directory tree; each row is the relevance that arrived from that window.',
  context: 'Context structure (Eq. 7): neighbouring windows lend their relevance.',
  semantic: 'Semantic (Eq. 6): the windows most similar by embedding lend their relevance.',
};

const EDGE_NAMES: Record<CodeEdgeKind, string> = {
  syntax: 'syntax',
  directory: 'directory',
  'file-root': 'file',
  call: 'call',
};

export function nodeName(n: Pick<CodeNodeSummary, 'kind' | 'name' | 'path'>): string {
  if (n.kind === 'directory') return `directory ${n.name || '/'}`;
  if (n.kind === 'file') return `file ${n.path}`;
  if (n.kind === 'root') return `top level of ${n.path}`;
  return `${n.kind} ${n.name}`;
}

function where(n: CodeNodeSummary): string {
  return n.kind === 'directory' ? '' : `${n.path}:${n.startLine + 1}-${n.endLine + 1}`;
}

/** The neighbourhood of a window, with a summary of every node on its paths. */
export interface ExplainedWindow {
  neighbourhood: WindowNeighbourhood;
  nodes: CodeNodeSummary[];
  /** Time the worker took to parse and graph the repository for this (0: already built). */
  buildMs: number;
}

export type Explainer = (docId: string, window: number) => Promise<ExplainedWindow>;

export const WindowDetails = memo(function WindowDetails({
  result,
  index,
  explain,
  onPick,
}: {
  result: RetrievalResult;
  index: number;
  explain: Explainer;
  onPick: (index: number) => void;
}) {
  const doc = documentOf(result, index);
  const ex = result.explanations[index];
  const alpha = result.settings.alpha;
  const label = result.labels[index] || `#${index + 1}`;
  // The multi-hop relation walks the same code graph, so its neighbourhood is shown too.
  const hasCode = 'code' in result.environmentByKind || 'ppr' in result.environmentByKind;
  const [state, setState] = useState<{
    key: string;
    data: ExplainedWindow | null;
    error: string | null;
  } | null>(null);
  const key = doc ? `${doc.docId}\u0000${index - doc.offset}` : '';

  useEffect(() => {
    if (!doc || !hasCode) return;
    let live = true;
    explain(doc.docId, index - doc.offset).then(
      (data) => live && setState({ key, data, error: null }),
      (e: Error) => live && setState({ key, data: null, error: e.message }),
    );
    return () => {
      live = false;
    };
  }, [doc, index, explain, key, hasCode]);

  const current = state?.key === key ? state : null;
  const toRun = (w: number) => (doc ? doc.offset + w : w);

  return (
    <section
      className="explain"
      aria-labelledby="window-details-title"
      data-testid="window-details"
    >
      <h2 id="window-details-title">Why {label}</h2>
      <p>
        {ex ? `Rank ${ex.rank + 1}. ` : ''}Independent{' '}
        <strong>{fmt(result.independent[index])}</strong> + {fmt(alpha)} × environment{' '}
        <strong>{fmt(result.environment[index])}</strong> = final{' '}
        <strong>{fmt(result.final[index])}</strong>
        {result.excluded?.includes(index)
          ? '. It holds the cursor, so it is kept out of the ranking.'
          : result.selected.includes(index)
            ? '. It is among the windows handed to the model.'
            : result.repeats?.[index] !== undefined
              ? `. Its lines are already in the context (a near-duplicate of selected window ${result.labels[result.repeats[index]]}), so it is not quoted again.`
              : '.'}
      </p>
      {ex &&
        Object.entries(ex.byKind).map(([kind, part]) => (
          <div key={kind} className="explain__kind" data-kind={kind}>
            <h3>
              {kind} relation: environment {fmt(part.environment)}
            </h3>
            <p className="help">{KIND_HELP[kind] ?? ''}</p>
            {part.contributions.length === 0 ? (
              <p>No related window with a score contributes.</p>
            ) : (
              <table className="explain__table">
                <TableHead
                  columns={['Related window', 'Weight w', 'Its independent score', 'Share']}
                />
                <tbody>
                  {part.contributions.map((c) => (
                    <tr key={c.index}>
                      <td>
                        <button type="button" className="link" onClick={() => onPick(c.index)}>
                          {result.labels[c.index] || `#${c.index + 1}`}
                        </button>
                      </td>
                      <td>{fmt(c.weight)}</td>
                      <td>{fmt(result.independent[c.index])}</td>
                      <td>{Math.round(c.share * 100)}%</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </div>
        ))}
      {hasCode && (
        <div className="explain__kind" data-testid="neighbourhood">
          <h3>The code graph around it</h3>
          {!current && <p role="status">Reading the repository’s code graph…</p>}
          {current?.error && <p role="alert">{current.error}</p>}
          {current?.data && current.data.buildMs > 0 && (
            <p
              className="stats"
              data-testid="graph-rebuilt"
              data-ms={Math.round(current.data.buildMs)}
            >
              The code graph is not stored: it was rebuilt from the repository’s text in{' '}
              {Math.round(current.data.buildMs)} ms (once per session).
            </p>
          )}
          {current?.data && (
            <Neighbourhood
              data={current.data.neighbourhood}
              nodes={current.data.nodes}
              toRun={toRun}
              labels={result.labels}
              onPick={onPick}
            />
          )}
        </div>
      )}
    </section>
  );
});

function Neighbourhood({
  data,
  nodes,
  toRun,
  labels,
  onPick,
}: {
  data: WindowNeighbourhood;
  nodes: readonly CodeNodeSummary[];
  toRun: (w: number) => number;
  labels: readonly string[];
  onPick: (index: number) => void;
}) {
  const byNode = new Map<number, CodeNodeSummary>();
  for (const n of nodes) byNode.set(n.node, n);
  for (const c of data.covering) byNode.set(c.node, c);
  for (const n of data.neighbours) byNode.set(n.node, n);
  const coverTotal = data.covering.reduce((s, c) => s + c.length, 0);
  return (
    <>
      <p className="help">
        Covered by:{' '}
        {data.covering.length === 0
          ? 'nothing (only white space)'
          : data.covering
              .map(
                (c) =>
                  `${nodeName(c)} (${Math.round((c.length / Math.max(1, coverTotal)) * 100)}%)`,
              )
              .join(', ')}
        .
      </p>
      {data.neighbours.length === 0 ? (
        <p>No node of another window is reachable above the threshold.</p>
      ) : (
        <table className="explain__table neighbourhood" data-testid="neighbourhood-table">
          <thead>
            <tr>
              <th scope="col">Node</th>
              <th scope="col">Strongest path from this window</th>
              <th scope="col">Dis</th>
              <th scope="col">Share of its relations</th>
              <th scope="col">In windows</th>
            </tr>
          </thead>
          <tbody>
            {data.neighbours.map((n) => {
              const from = byNode.get(n.from);
              return (
                <tr key={n.node} data-node-kind={n.kind}>
                  <td>
                    {nodeName(n)}
                    {where(n) && <div className="stats">{where(n)}</div>}
                  </td>
                  <td className="neighbourhood__path" data-testid="path-steps">
                    {from ? nodeName(from) : 'this window'}
                    {n.steps.map((s, k) => (
                      <span key={k}>
                        {' '}
                        <span className="edge" data-edge={s.edge}>
                          —{EDGE_NAMES[s.edge]} {s.weight.toFixed(1)}→
                        </span>{' '}
                        {k === n.steps.length - 1 ? (
                          <strong>{nodeName(n)}</strong>
                        ) : (
                          nodeName(byNode.get(s.node) ?? { kind: 'root', name: '', path: '?' })
                        )}
                      </span>
                    ))}
                  </td>
                  <td>{fmt(n.strength)}</td>
                  <td>
                    {data.total > 0 ? `${Math.round((n.contribution / data.total) * 100)}%` : '–'}
                  </td>
                  <td>
                    {n.windows.slice(0, 3).map((w) => (
                      <button
                        key={w}
                        type="button"
                        className="link neighbourhood__window"
                        onClick={() => onPick(toRun(w))}
                      >
                        {labels[toRun(w)] || `#${w + 1}`}
                      </button>
                    ))}
                    {n.windows.length > 3 && (
                      <span className="stats"> +{n.windows.length - 3}</span>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </>
  );
}
