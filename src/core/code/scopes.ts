/**
 * @file Scope names: the names of the definitions a code window lies in (its function or method
 * and the classes around them), computed at index time and stored beside the code relation, so
 * that BM25 reads a window together with the names of its scope, as a book fragment's heading
 * says what it is about.
 *
 * Why: a method's body seldom repeats its class's name. semver's `Range.test` has "version" in
 * its body but not "range": the question "How does a range check whether a version satisfies
 * it?" met one of its words there. With the scope names the body also holds `Range` and `test`.
 * On RepoEval's tune half this was the best candidate change to the code default (BENCHMARKS.md,
 * the semver section); the index stores them because the retrieval worker has no syntax.
 *
 * A window's names are those of the definitions that cover it (cover.ts: own some of its
 * characters) and their enclosing definitions, up to the file: directories, files, a file's
 * syntax root and call sites name no scope. One string per window, the names joined by spaces
 * (the tokenizer splits them as it splits any identifier); "" for a window outside every
 * definition, and for every window of a file without syntax.
 */
import type { WindowCover } from './cover';
import type { CodeGraph } from './graph';

const NO_SCOPE = new Set(['root', 'file', 'directory']);

/** The scope names of every window, in window order (see the file comment). */
export function windowScopeNames(
  graph: Pick<CodeGraph, 'nodes'>,
  cover: Pick<WindowCover, 'windows' | 'windowPtr' | 'windowNode'>,
): string[] {
  const out: string[] = new Array(cover.windows);
  for (let i = 0; i < cover.windows; i++) {
    const names = new Set<string>();
    for (let p = cover.windowPtr[i]; p < cover.windowPtr[i + 1]; p++) {
      for (let v = cover.windowNode[p]; v >= 0; v = graph.nodes[v].parent) {
        const node = graph.nodes[v];
        if (NO_SCOPE.has(node.kind)) break;
        if (node.kind !== 'call') names.add(node.name);
      }
    }
    out[i] = [...names].join(' ');
  }
  return out;
}
