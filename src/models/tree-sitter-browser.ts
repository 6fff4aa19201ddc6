/**
 * @file Grammar files for the browser, served from our own build: Vite turns each `?url` import
 * into the hashed URL of the copied wasm file. Browser-only (Node has no `?url` imports; it uses
 * tree-sitter-node.ts). The grammars are fetched when a repository in their language is parsed.
 */
import runtimeUrl from 'web-tree-sitter/web-tree-sitter.wasm?url';
import pythonUrl from '@repomix/tree-sitter-wasms/out/tree-sitter-python.wasm?url';
import javascriptUrl from '@repomix/tree-sitter-wasms/out/tree-sitter-javascript.wasm?url';
import typescriptUrl from '@repomix/tree-sitter-wasms/out/tree-sitter-typescript.wasm?url';
import tsxUrl from '@repomix/tree-sitter-wasms/out/tree-sitter-tsx.wasm?url';
import javaUrl from '@repomix/tree-sitter-wasms/out/tree-sitter-java.wasm?url';
import goUrl from '@repomix/tree-sitter-wasms/out/tree-sitter-go.wasm?url';
import rustUrl from '@repomix/tree-sitter-wasms/out/tree-sitter-rust.wasm?url';
import cUrl from '@repomix/tree-sitter-wasms/out/tree-sitter-c.wasm?url';
import cppUrl from '@repomix/tree-sitter-wasms/out/tree-sitter-cpp.wasm?url';
import type { CodeLanguage } from '../core/code/syntax';
import type { GrammarSource } from './tree-sitter';

export const GRAMMAR_URLS: Readonly<Record<CodeLanguage, string>> = Object.freeze({
  python: pythonUrl,
  javascript: javascriptUrl,
  typescript: typescriptUrl,
  tsx: tsxUrl,
  java: javaUrl,
  go: goUrl,
  rust: rustUrl,
  c: cUrl,
  cpp: cppUrl,
});

/** Absolute URL, as transformers-env.ts makes them (the same in pages and workers). */
function absolute(url: string): string {
  return new URL(url, self.location.href).href;
}

export const browserGrammarSource: GrammarSource = {
  runtime: absolute(runtimeUrl),
  grammar: (language) => absolute(GRAMMAR_URLS[language]),
};
