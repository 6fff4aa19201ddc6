/**
 * @file Grammar files for Node (tests, benchmarks): paths into node_modules, which
 * web-tree-sitter's `Language.load` reads with `fs` when it runs under Node. No Node import here,
 * so the file also type-checks with the app; the caller passes the node_modules directory.
 */
import type { CodeLanguage } from '../core/code/syntax';
import type { GrammarSource } from './tree-sitter';

/** Grammars from `<nodeModules>/@repomix/tree-sitter-wasms/out/`. */
export function nodeGrammarSource(nodeModules: string): GrammarSource {
  const dir = `${nodeModules.replace(/[\\/]+$/, '')}/@repomix/tree-sitter-wasms/out`;
  return { grammar: (language: CodeLanguage) => `${dir}/tree-sitter-${language}.wasm` };
}
