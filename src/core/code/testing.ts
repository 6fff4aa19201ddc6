/**
 * @file Test helpers for the code graph: hand-written syntax for texts, located by markers, so
 * core tests need no parser. Used by tests only.
 */
import type { CodeFile } from './graph';
import type { CallSite, DefinitionKind, FileSyntax, SyntaxDefinition, SyntaxSpan } from './syntax';

/** Span of the first occurrence of `snippet` in `text` (at or after `from`). */
export function spanOf(text: string, snippet: string, from = 0): SyntaxSpan {
  const start = text.indexOf(snippet, from);
  if (start < 0) throw new Error(`test fixture: “${snippet}” not in text`);
  const end = start + snippet.length;
  const lineAt = (i: number) => text.slice(0, i).split('\n').length - 1;
  return { start, end, startLine: lineAt(start), endLine: lineAt(Math.max(start, end - 1)) };
}

export function definition(
  text: string,
  kind: DefinitionKind,
  name: string,
  snippet: string,
  parent = -1,
  owner = '',
): SyntaxDefinition {
  return { kind, name, parent, owner, ...spanOf(text, snippet) };
}

export function call(
  text: string,
  callee: string,
  snippet: string,
  scope: number,
  qualifier = '',
): CallSite {
  return { callee, qualifier, separator: qualifier ? '.' : '', scope, ...spanOf(text, snippet) };
}

export function syntax(partial: Partial<FileSyntax>): FileSyntax {
  return {
    language: 'python',
    definitions: [],
    calls: [],
    imports: [],
    defaultExport: '',
    hasErrors: false,
    ...partial,
  };
}

/**
 * A small random repository (files with nested definitions and call sites, some without syntax),
 * from a seed. `calls: false` leaves out call sites (the graph is then a tree); `dirs` are the
 * directories files are put in.
 */
export function randomRepository(
  seed: number,
  options: { calls?: boolean; dirs?: readonly string[]; maxFiles?: number } = {},
): CodeFile[] {
  let state = seed >>> 0 || 1;
  const rand = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x100000000;
  };
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
  const dirs = options.dirs ?? ['', 'a', 'a/b', 'c'];
  const names = ['f', 'g', 'h', 'k', 'run', 'step'];
  const fileCount = 1 + Math.floor(rand() * (options.maxFiles ?? 4));
  const files: CodeFile[] = [];
  for (let f = 0; f < fileCount; f++) {
    const dir = pick(dirs);
    const path = `${dir ? dir + '/' : ''}m${f}.${rand() < 0.2 ? 'txt' : 'py'}`;
    const lineCount = 3 + Math.floor(rand() * 30);
    const lines = Array.from({ length: lineCount }, (_, k) =>
      rand() < 0.15
        ? ''
        : `${'  '.repeat(Math.floor(rand() * 3))}x${k} ${'y'.repeat(Math.floor(rand() * 6))}`,
    );
    const text = lines.join('\n') + '\n';
    const starts: number[] = [];
    let at = 0;
    for (const l of lines) {
      starts.push(at);
      at += l.length + 1;
    }
    const lineEnd = (k: number) => starts[k] + lines[k].length;
    if (path.endsWith('.txt')) {
      files.push({ path, text, syntax: null });
      continue;
    }
    const s: FileSyntax = syntax({});
    // Nested definitions over line ranges.
    const addDefs = (from: number, to: number, parent: number, depth: number) => {
      let k = from;
      while (k < to) {
        const len = 1 + Math.floor(rand() * Math.min(8, to - k));
        if (rand() < 0.6) {
          const idx = s.definitions.length;
          s.definitions.push({
            kind: depth === 0 && rand() < 0.3 ? 'class' : 'function',
            name: pick(names),
            parent,
            owner: '',
            start: starts[k],
            end: lineEnd(k + len - 1),
            startLine: k,
            endLine: k + len - 1,
          });
          if (depth < 2 && len > 2) addDefs(k + 1, k + len, idx, depth + 1);
        }
        k += len;
      }
    };
    addDefs(0, lineCount, -1, 0);
    for (let k = 0; k < lineCount; k++) {
      if (options.calls === false || lines[k].length < 4 || rand() < 0.5) continue;
      let scope = -1;
      s.definitions.forEach((d, i) => {
        if (d.startLine <= k && d.endLine >= k) scope = i;
      });
      const start = starts[k] + lines[k].length - 3;
      s.calls.push({
        callee: pick(names),
        qualifier: '',
        separator: '',
        scope,
        start,
        end: start + 2,
        startLine: k,
        endLine: k,
      });
    }
    files.push({ path, text, syntax: s });
  }
  // Unique paths.
  const seen = new Set<string>();
  return files.filter((f) => (seen.has(f.path) ? false : (seen.add(f.path), true)));
}
