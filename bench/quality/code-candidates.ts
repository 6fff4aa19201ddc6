/**
 * @file Candidate changes to the code default, measured for the semver question "How does a range
 * check whether a version satisfies it?" (bench/semver-question.ts) and on RepoEval
 * (bench/repoeval.ts with REPOEVAL_CANDIDATES=1); BENCHMARKS.md, the semver section, has the
 * figures. None is in the app: each is the app default (`ppr (code graph) refs`,
 * core/run.ts) with one thing changed.
 *
 *   - Markdown sections: a Markdown file (no grammar) gets its headings as nested nodes, so Eq. 8
 *     covers its windows by section instead of relating all of them through the file node at 1.0;
 *   - walk w^p: the walk's transitions proportional to w^p instead of w (p > 1 favours a row's
 *     strongest edges, e.g. a call, over the many weak directory-level ones);
 *   - seeds from parsed files: the walk restarts only at windows of files with syntax;
 *   - scope names: each window's BM25 tokens also hold the names of the definitions it lies in
 *     (its function or method and their enclosing class), as a book fragment carries its heading.
 */
import type { CodeFile, CodeGraph } from '../../src/core/code/graph';
import type { WindowCover } from '../../src/core/code/cover';
import type { FileSyntax, SyntaxDefinition } from '../../src/core/code/syntax';
import { pprGraph, pprRelation } from '../../src/core/relations/ppr';
import { tokenize } from '../../src/core/tokenize';
import type { CsrMatrix } from '../../src/core/types';

/** A Markdown file's heading tree (ATX headings outside fences) as definitions. */
export function markdownSections(text: string): SyntaxDefinition[] {
  const definitions: SyntaxDefinition[] = [];
  const open: { level: number; k: number }[] = [];
  const lines = text.split('\n');
  let at = 0;
  let fence = false;
  const close = (k: number, end: number, endLine: number) => {
    definitions[k].end = end;
    definitions[k].endLine = endLine;
  };
  lines.forEach((line, n) => {
    const start = at;
    at += line.length + 1;
    if (/^\s{0,3}(```|~~~)/.test(line)) fence = !fence;
    const m = fence ? null : /^\s{0,3}(#{1,6})\s+\S/.exec(line);
    if (!m) return;
    const level = m[1].length;
    while (open.length > 0 && open[open.length - 1].level >= level) {
      close(open.pop()!.k, start, Math.max(0, n - 1));
    }
    definitions.push({
      // Headings never resolve a call: a name no identifier can spell.
      kind: 'module',
      name: `# ${line.trim()}`,
      start,
      end: text.length,
      startLine: n,
      endLine: Math.max(0, lines.length - 1),
      parent: open.length > 0 ? open[open.length - 1].k : -1,
      owner: '',
    });
    open.push({ level, k: definitions.length - 1 });
  });
  return definitions;
}

/**
 * The syntax the graph builder takes for a Markdown file: its sections, no calls or imports. The
 * language field must name a grammar; no resolution rule reads it for a file without imports.
 */
export function markdownSyntax(text: string): FileSyntax {
  return {
    language: 'python',
    definitions: markdownSections(text),
    calls: [],
    imports: [],
    defaultExport: '',
    hasErrors: false,
  };
}

/** Files without syntax whose path ends in .md get their sections (others unchanged). */
export function withMarkdownSections(files: readonly CodeFile[]): CodeFile[] {
  return files.map((f) =>
    !f.syntax && /\.(md|markdown)$/i.test(f.path) ? { ...f, syntax: markdownSyntax(f.text) } : f,
  );
}

/** Each window's tokens plus the names of the definitions that cover it and their ancestors. */
export function scopeNameTokens(
  windowTokens: readonly (readonly string[])[],
  graph: CodeGraph,
  cover: WindowCover,
): string[][] {
  return windowTokens.map((tokens, i) => {
    const names = new Set<string>();
    for (let p = cover.windowPtr[i]; p < cover.windowPtr[i + 1]; p++) {
      for (let v = cover.windowNode[p]; v >= 0; v = graph.nodes[v].parent) {
        const node = graph.nodes[v];
        if (node.kind === 'root' || node.kind === 'file' || node.kind === 'directory') break;
        if (node.kind !== 'call') names.add(node.name);
      }
    }
    return [...tokens, ...[...names].flatMap((name) => tokenize(name))];
  });
}

/** The walk's graph with every weight raised to the power p. */
export function powerWeights(m: CsrMatrix, p: number): CsrMatrix {
  return p === 1 ? m : { ...m, weight: Float32Array.from(m.weight, (w) => w ** p) };
}

/**
 * The app's multi-hop environment (relations/ppr.ts over the code edges alone) with the walk
 * seeded by `seeds` (the independent scores, or a masked copy), on the scale of `independent`.
 */
export function walkEnvironment(
  walk: CsrMatrix,
  independent: Float64Array,
  seeds: Float64Array = independent,
): Float64Array {
  const env = pprRelation(
    pprGraph([0, walk.size], [walk], { radius: 0, wRel: 0 }),
  ).environmentScores(seeds);
  let maxInd = 0;
  let maxSeed = 0;
  for (let i = 0; i < independent.length; i++) {
    maxInd = Math.max(maxInd, independent[i]);
    maxSeed = Math.max(maxSeed, seeds[i]);
  }
  const k = maxSeed > 0 ? maxInd / maxSeed : 0;
  return Float64Array.from(env, (x) => x * k);
}

/** Eq. 10. */
export function finalScores(independent: Float64Array, environment: Float64Array, alpha: number) {
  return Float64Array.from(independent, (x, i) => x + alpha * environment[i]);
}
