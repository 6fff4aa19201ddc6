/**
 * @file Why a window has the code relations it has: the graph neighbourhood behind its row of Eq. 8
 * (the definitions, call sites and files whose text lies in other windows), each with the
 * strongest path from one of the window's covering nodes, its edges and its strength.
 *
 * A neighbour l's contribution is its part of the row sum sum_{j != i} w[i][j]:
 *   sum_k (len_k / L_i) Dis(k, l) sum_{j != i, l in C(j)} len_l / L_j
 * (before the small-weight cut that storage applies), so the list ranks nodes by how much they
 * made this window's environment, and the contributions add up to the row's total.
 */
import type { WindowCover } from './cover';
import { StrongestPaths } from './dijkstra';
import { EDGE_KINDS, type CodeEdgeKind, type CodeGraph, type CodeNodeKind } from './graph';
import { defaultCodeRelationOptions } from './options';

export interface PathStep {
  /** The node this step arrives at. */
  node: number;
  /** The edge taken to it and its weight. */
  edge: CodeEdgeKind;
  weight: number;
}

export interface CodeNodeSummary {
  node: number;
  kind: CodeNodeKind;
  /** Definition or callee name; the path for files, roots and directories. */
  name: string;
  /** File path ('' for directories). */
  path: string;
  /** 0-based inclusive lines in the file. */
  startLine: number;
  endLine: number;
}

export interface CoveringEntry extends CodeNodeSummary {
  /** len_k: non-whitespace characters of the window this node owns. */
  length: number;
}

export interface NeighbourEntry extends CodeNodeSummary {
  /** Dis from the window's covering node `from` (the strongest over the covering nodes). */
  strength: number;
  /** Its part of the window's row sum (see the file comment). */
  contribution: number;
  from: number;
  /** The strongest path from `from` to this node, edge by edge. */
  steps: PathStep[];
  /** The other windows this node covers. */
  windows: number[];
}

export interface WindowNeighbourhood {
  window: number;
  covering: CoveringEntry[];
  /** Strongest contributions first. */
  neighbours: NeighbourEntry[];
  /** Sum of all contributions (= the row sum of w before the small-weight cut). */
  total: number;
}

function summary(graph: CodeGraph, id: number): CodeNodeSummary {
  const node = graph.nodes[id];
  return {
    node: id,
    kind: node.kind,
    name: node.name,
    path: node.file >= 0 ? graph.files[node.file].path : '',
    startLine: node.startLine,
    endLine: node.endLine,
  };
}

/**
 * The neighbourhood behind window i's code relations: at most `limit` nodes, strongest
 * contribution first. Runs one tracked search per covering node over the full graph.
 */
export function explainCodeWindow(
  graph: CodeGraph,
  cover: WindowCover,
  i: number,
  options: { limit?: number; threshold?: number } = {},
): WindowNeighbourhood {
  if (!Number.isInteger(i) || i < 0 || i >= cover.windows) {
    throw new Error(`FragRel: window ${i} is out of range (0..${cover.windows - 1}).`);
  }
  const limit = options.limit ?? 12;
  const threshold = options.threshold ?? defaultCodeRelationOptions.threshold;
  const paths = new StrongestPaths(
    { ptr: graph.adjPtr, node: graph.adjNode, weight: graph.adjWeight },
    threshold,
  );
  const { windowPtr, windowNode, windowLength, total, nodePtr, nodeWindow, nodeLength } = cover;
  const covering: CoveringEntry[] = [];
  const best = new Map<number, { strength: number; from: number; steps: PathStep[] }>();
  const contribution = new Map<number, number>();
  const Li = total[i];

  for (let p = windowPtr[i]; p < windowPtr[i + 1]; p++) {
    const k = windowNode[p];
    covering.push({ ...summary(graph, k), length: windowLength[p] });
    const share = windowLength[p] / Li;
    const reached = paths.search([k], [1], true);
    for (let r = 0; r < reached.count; r++) {
      const l = reached.nodes[r];
      const d = reached.strength[r];
      let mass = 0;
      for (let q = nodePtr[l]; q < nodePtr[l + 1]; q++) {
        if (nodeWindow[q] !== i) mass += nodeLength[q] / total[nodeWindow[q]];
      }
      if (mass === 0) continue;
      contribution.set(l, (contribution.get(l) ?? 0) + share * d * mass);
      const prev = best.get(l);
      if (prev && prev.strength >= d) continue;
      const steps: PathStep[] = [];
      for (let v = l; paths.predecessor[v] >= 0 && v !== k; v = paths.predecessor[v]) {
        const e = paths.predecessorEdge[v];
        steps.push({ node: v, edge: EDGE_KINDS[graph.adjKind[e]], weight: graph.adjWeight[e] });
      }
      steps.reverse();
      best.set(l, { strength: d, from: k, steps });
    }
  }

  let sum = 0;
  for (const c of contribution.values()) sum += c;
  const ranked = [...contribution.entries()]
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, Math.max(0, limit));
  const neighbours: NeighbourEntry[] = ranked.map(([l, c]) => {
    const b = best.get(l)!;
    const windows: number[] = [];
    for (let q = nodePtr[l]; q < nodePtr[l + 1]; q++) {
      if (nodeWindow[q] !== i) windows.push(nodeWindow[q]);
    }
    return {
      ...summary(graph, l),
      strength: b.strength,
      contribution: c,
      from: b.from,
      steps: b.steps,
      windows,
    };
  });
  return { window: i, covering, neighbours, total: sum };
}
