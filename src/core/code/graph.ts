/**
 * @file The repository graph G of Eq. 8 (DESIGN.md section 2, appendix A).
 *
 * Nodes: directories (the repository root '' included), files, and the syntax nodes we keep: the
 * root of each parsed file's syntax tree, its definitions (syntax.ts), and its call sites that
 * resolve to a definition (resolve.ts; an unresolved call adds nothing: it would be a node whose
 * only edge leads back to its parent). Undirected weighted edges:
 *   - syntax parent-child (0.5): root to file-level definitions and calls, a definition to the
 *     definitions and calls directly inside it;
 *   - directory tree (0.3): directory to subdirectory, directory to the files directly in it;
 *   - file to the root of its syntax tree (1.0);
 *   - call site to the definition it calls, in-file or cross-file (0.8).
 * Files in languages without a grammar are file nodes with directory edges only.
 *
 * Every node has a character span in its file (directories: none), used to decide which nodes
 * cover a window (cover.ts).
 */
import { defaultCodeEdgeWeights, type CodeEdgeWeights } from './options';
import { Resolver, type ResolutionRule } from './resolve';
import type { CodeLanguage, DefinitionKind, FileSyntax } from './syntax';
import { dirname } from './modules';

export type CodeNodeKind = 'directory' | 'file' | 'root' | 'call' | DefinitionKind;

/** Edge types, stored as small integers in `CodeGraph.adjKind`. */
export const EDGE_KINDS = ['syntax', 'directory', 'file-root', 'call'] as const;
export type CodeEdgeKind = (typeof EDGE_KINDS)[number];
export const EDGE_SYNTAX = 0;
export const EDGE_DIRECTORY = 1;
export const EDGE_FILE_ROOT = 2;
export const EDGE_CALL = 3;

/** One file of the repository, as the graph builder takes it. */
export interface CodeFile {
  /** '/'-separated, relative to the repository root. */
  path: string;
  /** The file's text; syntax spans index into it. */
  text: string;
  /** Its syntax, or null (no grammar for its language, or parsing failed). */
  syntax: FileSyntax | null;
}

export interface CodeNode {
  kind: CodeNodeKind;
  /**
   * Directories and files: their path ('' is the repository root); root: the file's path;
   * definitions: the defined name; calls: the callee as written (`np.sum`, `self.run`).
   */
  name: string;
  /** File index, -1 for directories. */
  file: number;
  /** Character span in the file, half-open; 0-based inclusive lines. Directories: all 0. */
  start: number;
  end: number;
  startLine: number;
  endLine: number;
  /**
   * The node above: the enclosing directory (directories, files), the file (syntax roots), the
   * enclosing definition or root (definitions, calls); -1 for the repository root directory.
   */
  parent: number;
}

export interface CodeGraphFile {
  path: string;
  language: CodeLanguage | null;
  /** Text length in characters and lines. */
  length: number;
  lines: number;
  /** The file node, and the root of its syntax tree (-1 when it has no syntax). */
  node: number;
  root: number;
  /** Node of each definition of its syntax (by index in `syntax.definitions`). */
  definitionNodes: Int32Array;
}

export interface CodeGraphStats {
  directories: number;
  files: number;
  parsedFiles: number;
  definitions: number;
  calls: number;
  resolvedCalls: number;
  byRule: Record<ResolutionRule, number>;
  edges: number;
}

export interface CodeGraph {
  nodes: CodeNode[];
  files: CodeGraphFile[];
  /** Undirected adjacency as CSR, each edge listed from both ends. */
  adjPtr: Uint32Array;
  adjNode: Uint32Array;
  adjWeight: Float32Array;
  /** Index into EDGE_KINDS. */
  adjKind: Uint8Array;
  /** For a call node: the definition node it calls and the rule that resolved it. */
  callTarget: Map<number, { target: number; rule: ResolutionRule }>;
  weights: CodeEdgeWeights;
  /** The resolver over the repository (also for names other than calls, e.g. the benchmark's). */
  resolver: Resolver;
  stats: CodeGraphStats;
}

function lineCount(text: string): number {
  if (text.length === 0) return 0;
  let lines = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i + 1 < text.length; i = text.indexOf('\n', i + 1)) {
    lines++;
  }
  return lines;
}

function checkWeights(weights: CodeEdgeWeights): void {
  for (const [name, w] of Object.entries(weights)) {
    if (!(w > 0 && w <= 1)) {
      throw new Error(
        `FragRel: the code graph's ${name} edge weight must lie in (0, 1], got ${w}.`,
      );
    }
  }
}

/** Build G from the repository's files (paths unique). */
export function buildCodeGraph(
  files: readonly CodeFile[],
  weightsOption: Partial<CodeEdgeWeights> = {},
): CodeGraph {
  const weights: CodeEdgeWeights = { ...defaultCodeEdgeWeights, ...weightsOption };
  checkWeights(weights);
  const seen = new Set<string>();
  for (const f of files) {
    if (seen.has(f.path)) throw new Error(`FragRel: the repository lists “${f.path}” twice.`);
    seen.add(f.path);
  }

  const nodes: CodeNode[] = [];
  const edgeA: number[] = [];
  const edgeB: number[] = [];
  const edgeW: number[] = [];
  const edgeK: number[] = [];
  const addEdge = (a: number, b: number, kind: number, w: number) => {
    edgeA.push(a);
    edgeB.push(b);
    edgeW.push(w);
    edgeK.push(kind);
  };
  const addNode = (node: CodeNode) => nodes.push(node) - 1;

  // Directories, parents before children.
  const dirNodes = new Map<string, number>();
  const dirNode = (dir: string): number => {
    let id = dirNodes.get(dir);
    if (id !== undefined) return id;
    const parent = dir === '' ? -1 : dirNode(dirname(dir));
    id = addNode({
      kind: 'directory',
      name: dir,
      file: -1,
      start: 0,
      end: 0,
      startLine: 0,
      endLine: 0,
      parent,
    });
    dirNodes.set(dir, id);
    if (parent >= 0) addEdge(parent, id, EDGE_DIRECTORY, weights.directory);
    return id;
  };
  if (files.length > 0) dirNode('');

  const resolver = new Resolver(files);
  const stats: CodeGraphStats = {
    directories: 0,
    files: files.length,
    parsedFiles: 0,
    definitions: 0,
    calls: 0,
    resolvedCalls: 0,
    byRule: { 'same-file': 0, import: 0, package: 0, 'unique-name': 0 },
    edges: 0,
  };

  const graphFiles: CodeGraphFile[] = files.map((file, f) => {
    const length = file.text.length;
    const lines = lineCount(file.text);
    const lastLine = Math.max(0, lines - 1);
    const dir = dirNode(dirname(file.path));
    // The file node and its syntax root both span the whole file.
    const wholeFile = (kind: 'file' | 'root', parent: number) =>
      addNode({
        kind,
        name: file.path,
        file: f,
        start: 0,
        end: length,
        startLine: 0,
        endLine: lastLine,
        parent,
      });
    const node = wholeFile('file', dir);
    addEdge(dir, node, EDGE_DIRECTORY, weights.directory);
    const syntax = file.syntax;
    if (!syntax) {
      return {
        path: file.path,
        language: null,
        length,
        lines,
        node,
        root: -1,
        definitionNodes: new Int32Array(0),
      };
    }
    stats.parsedFiles++;
    const root = wholeFile('root', node);
    addEdge(node, root, EDGE_FILE_ROOT, weights.fileRoot);
    const definitionNodes = new Int32Array(syntax.definitions.length);
    syntax.definitions.forEach((d, k) => {
      const parent = d.parent >= 0 ? definitionNodes[d.parent] : root;
      const id = addNode({
        kind: d.kind,
        name: d.name,
        file: f,
        start: d.start,
        end: d.end,
        startLine: d.startLine,
        endLine: d.endLine,
        parent,
      });
      definitionNodes[k] = id;
      addEdge(parent, id, EDGE_SYNTAX, weights.syntax);
    });
    stats.definitions += syntax.definitions.length;
    return {
      path: file.path,
      language: syntax.language,
      length,
      lines,
      node,
      root,
      definitionNodes,
    };
  });

  // Call sites, once every definition has its node.
  const callTarget = new Map<number, { target: number; rule: ResolutionRule }>();
  files.forEach((file, f) => {
    const syntax = file.syntax;
    if (!syntax) return;
    const g = graphFiles[f];
    stats.calls += syntax.calls.length;
    for (const call of syntax.calls) {
      const hit = resolver.resolve(f, call.callee, call.qualifier, call.scope);
      if (!hit) continue;
      const target = graphFiles[hit.file].definitionNodes[hit.def];
      const parent = call.scope >= 0 ? g.definitionNodes[call.scope] : g.root;
      const id = addNode({
        kind: 'call',
        name:
          call.qualifier && call.qualifier !== '?'
            ? `${call.qualifier}${call.separator || '.'}${call.callee}`
            : call.callee,
        file: f,
        start: call.start,
        end: call.end,
        startLine: call.startLine,
        endLine: call.endLine,
        parent,
      });
      addEdge(parent, id, EDGE_SYNTAX, weights.syntax);
      addEdge(id, target, EDGE_CALL, weights.call);
      callTarget.set(id, { target, rule: hit.rule });
      stats.resolvedCalls++;
      stats.byRule[hit.rule]++;
    }
  });
  stats.directories = dirNodes.size;
  stats.edges = edgeA.length;

  // CSR adjacency, both directions.
  const n = nodes.length;
  const degree = new Uint32Array(n + 1);
  for (let e = 0; e < edgeA.length; e++) {
    degree[edgeA[e] + 1]++;
    degree[edgeB[e] + 1]++;
  }
  for (let i = 0; i < n; i++) degree[i + 1] += degree[i];
  const adjPtr = degree;
  const fill = adjPtr.slice(0, n);
  const m = adjPtr[n];
  const adjNode = new Uint32Array(m);
  const adjWeight = new Float32Array(m);
  const adjKind = new Uint8Array(m);
  for (let e = 0; e < edgeA.length; e++) {
    for (const [from, to] of [
      [edgeA[e], edgeB[e]],
      [edgeB[e], edgeA[e]],
    ]) {
      const p = fill[from]++;
      adjNode[p] = to;
      adjWeight[p] = edgeW[e];
      adjKind[p] = edgeK[e];
    }
  }
  return {
    nodes,
    files: graphFiles,
    adjPtr,
    adjNode,
    adjWeight,
    adjKind,
    callTarget,
    weights,
    resolver,
    stats,
  };
}

/** A short description of a node for people: `def run (a/b.py:12-30)`. */
export function describeNode(graph: CodeGraph, id: number): string {
  const node = graph.nodes[id];
  if (node.kind === 'directory') return `directory ${node.name || '/'}`;
  const path = graph.files[node.file].path;
  if (node.kind === 'file') return `file ${path}`;
  if (node.kind === 'root') return `file-level code of ${path}`;
  return `${node.kind} ${node.name} (${path}:${node.startLine + 1}-${node.endLine + 1})`;
}
