/**
 * @file Defaults of the code-structure relation (DESIGN.md section 2, Eq. 8 and appendix A), in one
 * place. Edge weights are the paper's; the threshold is ours (documented in dijkstra.ts).
 */

/** Weights of the code graph's undirected edges, each in (0, 1]. */
export interface CodeEdgeWeights {
  /** Syntax parent to child (definition in definition, call site in its enclosing definition). */
  syntax: number;
  /** Directory tree: directory to subdirectory and directory to file. */
  directory: number;
  /** A file node to the root of its syntax tree. */
  fileRoot: number;
  /** A call site to the definition it calls (in-file or cross-file). */
  call: number;
}

export const defaultCodeEdgeWeights: Readonly<CodeEdgeWeights> = Object.freeze({
  syntax: 0.5,
  directory: 0.3,
  fileRoot: 1.0,
  call: 0.8,
});

export interface CodeRelationOptions {
  /**
   * Dis(g, h) below this is taken as 0: the search from a node stops where the path strength
   * would fall below it, and window weights w[i][j] below it are not stored.
   */
  threshold: number;
  /**
   * Largest number of weights stored per window (the strongest; Infinity keeps all). Eq. 8 is
   * dense in practice: with directory edges of 0.3, files in one directory are 0.09 apart and
   * files two directories apart 0.008, both above the threshold, so a window of a 400-file
   * repository relates to nearly every other window (eslint/lib: 10k windows, 10k weights each,
   * 0.86 GB as CSR). 256 per row bounds storage at 2 KB per window, like the semantic relation's
   * k nearest neighbours; Eq. 9 then averages over the strongest 256. Chosen before measuring.
   */
  maxPerRow: number;
}

export const defaultCodeRelationOptions: Readonly<CodeRelationOptions> = Object.freeze({
  threshold: 1e-3,
  maxPerRow: 256,
});
