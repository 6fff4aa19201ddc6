/**
 * @file Reference counts of a repository's windows, computed at index time and stored beside the
 * code relation, so that the multi-hop relation can walk the code edges weighted as
 * the RepoEval tune winner `ppr (code graph) refs` did (BENCHMARKS.md, docs/method.md):
 *
 *   w'[i][j] = w[i][j] · (1 + γ ln(1 + refs[j])),   γ = 1
 *
 *   refs[j] = windows other than j that mention a name whose definition starts in window j
 *
 * The inputs (identifiers per window, definitions per window) are read the same way by the app's
 * index worker and by bench/repoeval.ts, so the app's ranking is the bench's. The definitions
 * come from the code graph's definition nodes; identifiers are whole names of ≥ 3 characters
 * (identifier-weights.ts). A repository stored before the counts existed has none: its walk
 * uses the unweighted code edges (the earlier default) and the panel says so.
 *
 * The walk then follows these weights squared (`walkWeights`): Eq. 8's rows are dense (directory
 * edges of 0.3 keep most of a repository above the threshold), so a walk proportional to w spends
 * most of each step on the many weak directory-level weights and little on a window's few strong
 * links (the callee its call leads to, the rest of its own definition). Squaring keeps the order
 * of a row and lets the strong links carry the walk: on RepoEval no worse on the tune half and
 * +1.3 window recall, +3.0 definition recall on held-out (within noise), and semver's `Range.test`,
 * which `satisfies()` calls, ranks 33 instead of 62 for "How does a range check whether a version
 * satisfies it?" (BENCHMARKS.md, the semver section).
 */
import type { CodeGraph } from './graph';
import { IDENTIFIER, identifiersOf } from './identifier-weights';
import type { CodeWindow } from './layout';
import type { CsrMatrix } from '../types';

/** γ of the reference factor: the value measured on RepoEval's tune half (BENCHMARKS.md). */
export const REFERENCE_WEIGHT = 1;

/** The power the multi-hop walk raises the reference-weighted code edges to (see the file comment). */
export const WALK_POWER = 2;

/** A window as lines of its file: 0-based, inclusive. */
export interface WindowLines {
  file: number;
  first: number;
  last: number;
}

/** Node kinds of the code graph that are not definitions. */
const NOT_DEFINITIONS = new Set(['directory', 'file', 'root', 'call']);

/** Offsets where the lines of `text` start (a final newline starts no line). */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1 && i + 1 < text.length; i = text.indexOf('\n', i + 1))
    starts.push(i + 1);
  return starts;
}

/** Line (0-based) holding character `offset`, by binary search over `lineStarts`. */
export function lineOf(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Line (0-based) of each window's first and last character in its file's text. */
export function windowLineRanges(
  fileTexts: readonly string[],
  windows: readonly CodeWindow[],
): WindowLines[] {
  const starts = fileTexts.map(lineStarts);
  return windows.map((w) => ({
    file: w.file,
    first: lineOf(starts[w.file], w.start),
    last: lineOf(starts[w.file], Math.max(w.start, w.end - 1)),
  }));
}

/** The names whose definitions start in each window (from the graph's definition nodes). */
function definitionsPerWindow(
  windowLines: readonly WindowLines[],
  graph: Pick<CodeGraph, 'nodes'>,
): Set<string>[] {
  const defined = windowLines.map(() => new Set<string>());
  const byFile = new Map<number, number[]>();
  windowLines.forEach((w, i) => {
    let list = byFile.get(w.file);
    if (!list) byFile.set(w.file, (list = []));
    list.push(i);
  });
  for (const node of graph.nodes) {
    if (NOT_DEFINITIONS.has(node.kind) || node.file < 0) continue;
    // A method's qualified name (`Loader.load`) is referenced by its last part.
    const name = node.name.slice(node.name.lastIndexOf('.') + 1);
    for (const i of byFile.get(node.file) ?? []) {
      const w = windowLines[i];
      if (w.first <= node.startLine && node.startLine <= w.last) defined[i].add(name);
    }
  }
  return defined;
}

/** Identifiers per window and the names whose definitions start in each window. */
export function windowIdentifierInputs(
  files: readonly { text: string }[],
  windowLines: readonly WindowLines[],
  graph: Pick<CodeGraph, 'nodes'>,
): { identifiers: Set<string>[]; defined: Set<string>[] } {
  const lines = files.map((f) => f.text.split('\n'));
  const identifiers = windowLines.map((w) =>
    identifiersOf(lines[w.file].slice(w.first, w.last + 1).join('\n')),
  );
  return { identifiers, defined: definitionsPerWindow(windowLines, graph) };
}

/**
 * refs[j] of every window (what the index stores beside the code relation): identifierStats(
 * windowIdentifierInputs(...)).refs, computed without what refs does not need. Only names
 * defined somewhere are looked up (not every identifier of every window, nor their IDF), and a
 * window's text is its lines' slice of the file (the same identifiers as the joined lines: a
 * final newline is no identifier). On the 30k-file zip the full statistics took about 2.8 s of
 * the index worker (docs/scale.md section 12); references.test.ts checks both give the same.
 */
export function windowReferenceCounts(
  files: readonly { text: string }[],
  windows: readonly CodeWindow[],
  graph: Pick<CodeGraph, 'nodes'>,
): Float32Array {
  const starts = files.map((f) => lineStarts(f.text));
  const windowLines = windows.map((w) => ({
    file: w.file,
    first: lineOf(starts[w.file], w.start),
    last: lineOf(starts[w.file], Math.max(w.start, w.end - 1)),
  }));
  const defined = definitionsPerWindow(windowLines, graph);
  const names = new Set<string>();
  for (const d of defined) for (const name of d) names.add(name);
  // The windows that mention each defined name, in window order, each once.
  const mentions = new Map<string, number[]>();
  const identifier = new RegExp(IDENTIFIER.source, 'g');
  windowLines.forEach((w, i) => {
    const text = files[w.file].text;
    const lineStart = starts[w.file];
    const end = w.last + 1 < lineStart.length ? lineStart[w.last + 1] - 1 : text.length;
    const slice = text.slice(lineStart[w.first], end);
    identifier.lastIndex = 0;
    for (let m = identifier.exec(slice); m !== null; m = identifier.exec(slice)) {
      const name = m[0];
      if (!names.has(name)) continue;
      let list = mentions.get(name);
      if (!list) mentions.set(name, (list = []));
      if (list[list.length - 1] !== i) list.push(i);
    }
  });
  const refs = new Float32Array(windows.length);
  const stamp = new Int32Array(windows.length);
  for (let j = 0; j < windows.length; j++) {
    let count = 0;
    for (const name of defined[j]) {
      for (const i of mentions.get(name) ?? []) {
        if (i === j || stamp[i] === j + 1) continue;
        stamp[i] = j + 1;
        count++;
      }
    }
    refs[j] = count;
  }
  return refs;
}

/**
 * The code relation's rows with each edge i → j multiplied by 1 + γ ln(1 + refs[j]) (a new
 * matrix; the same as weightByIdentifiers with β = 0, without needing the identifiers).
 */
export function weightByReferences(
  m: CsrMatrix,
  refs: ArrayLike<number>,
  gamma: number = REFERENCE_WEIGHT,
): CsrMatrix {
  if (refs.length !== m.size) {
    throw new Error(`FragRel: ${refs.length} reference counts for ${m.size} windows.`);
  }
  const factor = Float64Array.from({ length: m.size }, (_, j) => 1 + gamma * Math.log1p(refs[j]));
  const weight = new Float32Array(m.weight.length);
  for (let p = 0; p < weight.length; p++) weight[p] = m.weight[p] * factor[m.col[p]];
  return { size: m.size, rowPtr: m.rowPtr, col: m.col, weight };
}

/**
 * The code edges as a repository's multi-hop walk follows them: reference-weighted, then raised to
 * WALK_POWER (a new matrix; the pattern is the relation's).
 */
export function walkWeights(
  m: CsrMatrix,
  refs: ArrayLike<number>,
  power: number = WALK_POWER,
): CsrMatrix {
  const weighted = weightByReferences(m, refs);
  if (power === 1) return weighted;
  const weight = weighted.weight;
  for (let p = 0; p < weight.length; p++) weight[p] = weight[p] ** power;
  return weighted;
}
