/**
 * @file Test helpers for the code graph: hand-written syntax for texts, located by markers, so
 * core tests need no parser. Used by tests only.
 */
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
