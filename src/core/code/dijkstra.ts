/**
 * @file Dis(g, h): the strength of the strongest path between two nodes of the code graph, i.e. the
 * largest product of edge weights over paths from g to h (1 for g = h). With every weight in
 * (0, 1] this is Dijkstra on costs -log w: a path's product only falls as it grows, so a max-heap
 * on the product settles nodes in the same order as a min-heap on the summed -log costs.
 *
 * Pruning: a path whose product falls below `threshold` (default 1e-3) is dropped, so a search
 * settles only the nodes with Dis >= threshold, and Dis below it reads as 0. With the default
 * weights -log(0.5) = 0.69, -log(0.3) = 1.20, -log(0.8) = 0.22 against -log(1e-3) = 6.9: a path
 * dies after about 9 syntax edges or 5 directory edges. That does not make searches local: four
 * directory edges (0.008) join every file of a directory, its parent and its siblings, so in a
 * repository of a few hundred files a search typically reaches most nodes (relation.ts copes).
 *
 * Searches may start from several seeds with initial strengths (a node reached only through a
 * neighbour: Dis(c, x) = max over c's edges of w(c, y) Dis(y, x)).
 */

/** A sparse undirected graph in CSR form: neighbours of v are node[ptr[v] .. ptr[v+1]). */
export interface Adjacency {
  ptr: Uint32Array;
  node: Uint32Array;
  weight: Float32Array;
}

/** The nodes a search settled, strongest first, with their strengths. */
export interface Reached {
  count: number;
  nodes: Uint32Array;
  strength: Float64Array;
}

/**
 * Reusable state for searches over one graph: typed arrays sized once, reset by a generation
 * stamp instead of clearing, so a search costs only what it touches.
 */
export class StrongestPaths {
  private readonly best: Float64Array;
  private readonly stamp: Uint32Array;
  private readonly settled: Uint32Array;
  private generation = 0;
  private heapNode: Uint32Array;
  private heapValue: Float64Array;
  private outNodes: Uint32Array;
  private outStrength: Float64Array;
  /** When tracking: the node each settled node was reached from (-1 for seeds) and the edge slot. */
  readonly predecessor: Int32Array;
  readonly predecessorEdge: Int32Array;

  constructor(
    private readonly graph: Adjacency,
    private readonly threshold: number,
  ) {
    if (!(threshold > 0 && threshold <= 1)) {
      throw new Error(`FragRel: the path threshold must lie in (0, 1], got ${threshold}.`);
    }
    const n = graph.ptr.length - 1;
    this.best = new Float64Array(n);
    this.stamp = new Uint32Array(n);
    this.settled = new Uint32Array(n);
    this.heapNode = new Uint32Array(64);
    this.heapValue = new Float64Array(64);
    this.outNodes = new Uint32Array(64);
    this.outStrength = new Float64Array(64);
    this.predecessor = new Int32Array(n).fill(-1);
    this.predecessorEdge = new Int32Array(n).fill(-1);
  }

  /**
   * Strongest paths from the seeds (node, initial strength in (0, 1]) to every node with
   * strength >= threshold. The returned arrays are reused by the next search: copy what you keep.
   * With `limit`, the search stops once it has settled that many nodes: they are the `limit`
   * strongest (settling goes strongest first), and every node left out has a strength at most the
   * last one settled.
   */
  search(
    seedNodes: ArrayLike<number>,
    seedStrengths: ArrayLike<number>,
    track = false,
    limit = Infinity,
  ): Reached {
    const gen = ++this.generation;
    if (gen === 0xffffffff) {
      this.stamp.fill(0);
      this.settled.fill(0);
      this.generation = 1;
    }
    const g = this.generation;
    const { best, stamp, settled, threshold } = this;
    const { ptr, node: adjNode, weight: adjWeight } = this.graph;
    let size = 0;
    let count = 0;

    const pushHeap = (v: number, value: number) => {
      if (size === this.heapNode.length) {
        const nn = new Uint32Array(size * 2);
        nn.set(this.heapNode);
        const nv = new Float64Array(size * 2);
        nv.set(this.heapValue);
        this.heapNode = nn;
        this.heapValue = nv;
      }
      const hn = this.heapNode;
      const hv = this.heapValue;
      let i = size++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (hv[parent] >= value) break;
        hn[i] = hn[parent];
        hv[i] = hv[parent];
        i = parent;
      }
      hn[i] = v;
      hv[i] = value;
    };

    for (let s = 0; s < seedNodes.length; s++) {
      const v = seedNodes[s];
      const value = seedStrengths[s];
      if (!(value >= threshold)) continue;
      if (stamp[v] === g && best[v] >= value) continue;
      stamp[v] = g;
      best[v] = value;
      if (track) {
        this.predecessor[v] = -1;
        this.predecessorEdge[v] = -1;
      }
      pushHeap(v, value);
    }

    while (size > 0) {
      const hn = this.heapNode;
      const hv = this.heapValue;
      const v = hn[0];
      const value = hv[0];
      // Pop: move the last entry down from the top.
      size--;
      if (size > 0) {
        const lastNode = hn[size];
        const lastValue = hv[size];
        let i = 0;
        for (;;) {
          let child = 2 * i + 1;
          if (child >= size) break;
          if (child + 1 < size && hv[child + 1] > hv[child]) child++;
          if (hv[child] <= lastValue) break;
          hn[i] = hn[child];
          hv[i] = hv[child];
          i = child;
        }
        hn[i] = lastNode;
        hv[i] = lastValue;
      }
      if (settled[v] === g || value < best[v]) continue; // a stale entry
      settled[v] = g;
      if (count === this.outNodes.length) {
        const nn = new Uint32Array(count * 2);
        nn.set(this.outNodes);
        const ns = new Float64Array(count * 2);
        ns.set(this.outStrength);
        this.outNodes = nn;
        this.outStrength = ns;
      }
      this.outNodes[count] = v;
      this.outStrength[count] = value;
      count++;
      if (count >= limit) break;
      for (let p = ptr[v], end = ptr[v + 1]; p < end; p++) {
        const u = adjNode[p];
        if (settled[u] === g) continue;
        const next = value * adjWeight[p];
        if (next < threshold) continue;
        if (stamp[u] === g && best[u] >= next) continue;
        stamp[u] = g;
        best[u] = next;
        if (track) {
          this.predecessor[u] = v;
          this.predecessorEdge[u] = p;
        }
        pushHeap(u, next);
      }
    }
    return { count, nodes: this.outNodes, strength: this.outStrength };
  }
}

/** Dis(g, h) for one pair (tests, explanations): 0 below the threshold. */
export function pathStrength(
  graph: Adjacency,
  from: number,
  to: number,
  threshold: number,
): number {
  const reached = new StrongestPaths(graph, threshold).search([from], [1]);
  for (let k = 0; k < reached.count; k++) if (reached.nodes[k] === to) return reached.strength[k];
  return 0;
}
