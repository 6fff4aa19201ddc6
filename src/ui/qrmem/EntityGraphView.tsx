/**
 * @file QRMeM's entity graph in the trace: the navigation round by round (the model's verdict and
 * reason, the edge followed and its similarity, segments added and evicted), the segments that
 * went into the answer (each opens in the reader), and the graph drawn with cytoscape.
 *
 * cytoscape (MIT, maintained, canvas rendering, its own layouts) rather than a hand-written
 * force layout: it stays responsive at a few thousand nodes, and it is loaded only when a QRMeM
 * trace is shown (a dynamic import, its own chunk). By default only the navigated part (the
 * question's entities, the entities the navigation added, and the edges between them) is drawn;
 * a checkbox draws the whole graph, the navigated part highlighted.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import type { Trace } from '../../core/pipelines/types';
import type { QrmemRound } from '../../core/pipelines/qrmem/settings';
import { countOf } from '../format/numbers';

interface Props {
  trace: Trace;
  onOpen?: (fragmentIndex: number) => void;
}

export function EntityGraphView({ trace, onOpen }: Props) {
  const graph = trace.graph!;
  const [whole, setWhole] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  const [drawError, setDrawError] = useState<string | null>(null);
  const last = trace.steps.at(-1)?.output ?? {};
  const path = (last.path as string[] | undefined) ?? [];
  const rounds = (last.rounds as QrmemRound[] | undefined) ?? [];
  const stop = last.stop as string | undefined;
  const answerItems = trace.items.filter((i) => i.id.startsWith('answer-segment:'));
  const names = useMemo(
    () => new Map(graph.nodes.map((n) => [n.id.replace(/^entity:/, ''), n.label])),
    [graph],
  );
  const name = (key: string) => names.get(key) ?? key;

  const shown = useMemo(() => {
    const navigated = new Set(
      graph.nodes.filter((n) => n.group === 'start' || n.group === 'path').map((n) => n.id),
    );
    const nodes = whole ? graph.nodes : graph.nodes.filter((n) => navigated.has(n.id));
    const ids = new Set(nodes.map((n) => n.id));
    const edges = graph.edges.filter((e) => ids.has(e.from) && ids.has(e.to));
    return { nodes, edges, navigated };
  }, [graph, whole]);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    let destroyed = false;
    let cy: { destroy(): void } | null = null;
    void import('cytoscape')
      .then(({ default: cytoscape }) => {
        if (destroyed) return;
        cy = cytoscape({
          container: el,
          elements: [
            ...shown.nodes.map((n) => ({
              data: { id: n.id, label: n.label, group: n.group ?? 'other' },
            })),
            ...shown.edges.map((e, i) => ({
              data: {
                id: `e${i}`,
                source: e.from,
                target: e.to,
                label: e.label ?? '',
                onPath: shown.navigated.has(e.from) && shown.navigated.has(e.to) ? 1 : 0,
              },
            })),
          ],
          style: [
            {
              selector: 'node',
              style: { label: 'data(label)', 'font-size': 10, 'background-color': '#9aa5b1' },
            },
            { selector: 'node[group = "start"]', style: { 'background-color': '#1f6feb' } },
            { selector: 'node[group = "path"]', style: { 'background-color': '#d97706' } },
            { selector: 'edge', style: { width: 1, 'line-color': '#ccd' } },
            { selector: 'edge[onPath = 1]', style: { width: 3, 'line-color': '#d97706' } },
          ],
          // cose (cytoscape's built-in force-directed layout) only for small graphs: measured in
          // Chromium on the 2-core VM, 100 nodes take 0.9 s, 500 take 7.6 s and 3,000 over 4 min;
          // a grid draws 3,000 in 0.8 s. Big graphs also skip edges and labels while panning.
          layout: { name: shown.nodes.length > 150 ? 'grid' : 'cose', animate: false },
          ...(shown.nodes.length > 150
            ? { hideEdgesOnViewport: true, hideLabelsOnViewport: true, textureOnViewport: true }
            : {}),
        });
      })
      .catch((e: Error) => setDrawError(`The graph could not be drawn: ${e.message}`));
    return () => {
      destroyed = true;
      cy?.destroy();
    };
  }, [shown]);

  return (
    <section aria-label="Entity graph" data-testid="qrmem-graph">
      <h3 className="card__title">Entity graph and navigation</h3>
      <p className="stats">
        {countOf(graph.nodes.length, 'entity', 'entities')},{' '}
        {countOf(graph.edges.length, 'relation')}. Stopped: {stop ?? '?'}.
      </p>
      <p data-testid="qrmem-path">
        Path: {path.map(name).join(' → ') || '(no entity of the question is in the graph)'}
      </p>
      <ol data-testid="qrmem-rounds">
        {rounds.map((r) => (
          <li key={r.trial} data-testid="qrmem-round">
            Round {r.trial}: {r.answerable ? 'answerable' : 'not answerable'}
            {r.reason && <> — {r.reason}</>}
            {r.edge && (
              <>
                {' '}
                · next: {name(r.edge.from)} → {name(r.edge.to)} (“{r.edge.relation}”, similarity{' '}
                {r.edge.similarity})
              </>
            )}
            {r.added.length > 0 && <> · added segments {r.added.map((s) => s + 1).join(', ')}</>}
            {r.evicted.length > 0 && (
              <> · evicted segments {r.evicted.map((s) => s + 1).join(', ')}</>
            )}
          </li>
        ))}
      </ol>
      <p>Segments in the answer:</p>
      <ul>
        {answerItems.map((i) => (
          <li key={i.id}>
            <button
              type="button"
              className="linklike"
              data-testid="qrmem-segment"
              onClick={() => i.fragments?.length && onOpen?.(i.fragments[0])}
            >
              {i.label}
            </button>{' '}
            <span className="stats">{i.reason}</span>
          </li>
        ))}
      </ul>
      <label>
        <input type="checkbox" checked={whole} onChange={(e) => setWhole(e.target.checked)} /> Show
        the whole graph ({countOf(graph.nodes.length, 'entity', 'entities')}), not only the
        navigated part
      </label>
      {drawError && <p className="answer__error">{drawError}</p>}
      <div
        ref={box}
        className="qrmem__canvas"
        style={{ height: 360, border: '1px solid #ccd' }}
        data-testid="qrmem-canvas"
        data-nodes={shown.nodes.length}
        data-edges={shown.edges.length}
      />
    </section>
  );
}
