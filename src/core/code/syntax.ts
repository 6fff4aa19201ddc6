/**
 * @file The language-neutral syntax of one source file: what the parser (src/models/code-syntax.ts,
 * tree-sitter) hands to the code graph (graph.ts). Plain data only, so it crosses worker
 * boundaries and is stored as is; no tree-sitter object ever appears here.
 *
 * Spans are half-open character offsets [start, end) into the file's text (JavaScript string
 * indices, i.e. UTF-16 code units) plus 0-based inclusive line numbers, so the UI can show
 * `file:12-31` without recounting lines.
 */

/** Languages with a grammar (DESIGN.md section 2; ../shared/PLATFORM.md lists the ones that load). */
export type CodeLanguage =
  'python' | 'javascript' | 'typescript' | 'tsx' | 'java' | 'go' | 'rust' | 'c' | 'cpp';

export const CODE_LANGUAGES: readonly CodeLanguage[] = Object.freeze([
  'python',
  'javascript',
  'typescript',
  'tsx',
  'java',
  'go',
  'rust',
  'c',
  'cpp',
]);

/** File extensions (lower case, no dot) read with each grammar. `.h` goes to C++, a superset of C. */
export const LANGUAGE_BY_EXTENSION: Readonly<Record<string, CodeLanguage>> = Object.freeze({
  py: 'python',
  pyi: 'python',
  js: 'javascript',
  jsx: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'tsx',
  java: 'java',
  go: 'go',
  rs: 'rust',
  c: 'c',
  h: 'cpp',
  cc: 'cpp',
  cpp: 'cpp',
  cxx: 'cpp',
  'c++': 'cpp',
  hh: 'cpp',
  hpp: 'cpp',
  hxx: 'cpp',
  'h++': 'cpp',
});

/** The grammar for a file path by its extension, or null (the file gets no syntax). */
export function languageOfPath(path: string): CodeLanguage | null {
  const slash = path.lastIndexOf('/');
  const base = path.slice(slash + 1);
  const dot = base.lastIndexOf('.');
  if (dot <= 0) return null;
  return LANGUAGE_BY_EXTENSION[base.slice(dot + 1).toLowerCase()] ?? null;
}

/** Character span [start, end) and 0-based inclusive lines [startLine, endLine]. */
export interface SyntaxSpan {
  start: number;
  end: number;
  startLine: number;
  endLine: number;
}

/** Kinds of definitions kept as syntax nodes. */
export type DefinitionKind =
  | 'function'
  | 'method'
  | 'class'
  | 'struct'
  | 'interface'
  | 'enum'
  | 'trait'
  | 'impl'
  | 'module'
  | 'namespace'
  | 'type';

/** Kinds whose members are looked up through a qualifier (`Foo.bar()`, `self.bar()`, `Foo::bar()`). */
export const CLASS_LIKE_KINDS: ReadonlySet<DefinitionKind> = new Set<DefinitionKind>([
  'class',
  'struct',
  'interface',
  'enum',
  'trait',
  'impl',
]);

/** Kinds that act as namespaces for `ns::f()` (C++ namespaces, Rust inline modules). */
export const NAMESPACE_KINDS: ReadonlySet<DefinitionKind> = new Set<DefinitionKind>([
  'module',
  'namespace',
]);

/** A definition: a function, method, class, struct... with its name and span. */
export interface SyntaxDefinition extends SyntaxSpan {
  kind: DefinitionKind;
  /** The defined name (`impl` blocks: the implemented type's name). */
  name: string;
  /**
   * Index of the enclosing definition in `FileSyntax.definitions`, or -1 when the definition sits
   * at file level (its parent is then the file's syntax root). Parents come before children.
   */
  parent: number;
  /**
   * The type a definition belongs to when that is written outside its body: C++ `void K::run()`
   * ('K'), a Go method's receiver type (`func (s *S) M()`: 'S'). '' otherwise.
   */
  owner: string;
}

/** A call (or `new`) expression, with the name it calls. */
export interface CallSite extends SyntaxSpan {
  /** The called name: `f` in `f(x)`, `a.b.f(x)`, `A::f()`, `new F()`. */
  callee: string;
  /**
   * What the callee is looked up in: '' for a bare call; the qualifier's source text when it is a
   * name or a dotted path (`self`, `this`, `np`, `os.path`, `Foo`); '?' when it is any other
   * expression (`a[0].f()`, `g().f()`).
   */
  qualifier: string;
  /** How the source joins qualifier and callee: '.' (also for `->`) or '::'; '' for a bare call. */
  separator: string;
  /** Index of the innermost enclosing definition, or -1 at file level. */
  scope: number;
}

/** One name an import brings in. */
export interface ImportBinding {
  /** The name in the imported module ('default' for a JS default import). */
  name: string;
  /** The local name it is bound to (equal to `name` without `as`). */
  alias: string;
}

/** An import, include or use statement, one per imported module. */
export interface ImportSite {
  /**
   * The module as written, in the language's own syntax: Python `a.b` or `..a.b` (leading dots
   * are relative levels), JS/TS `./x` or `pkg`, Java `com.ex.util` or `com.ex.util.Helper`, Go
   * `github.com/me/p/util`, Rust `crate::a::b`, `super::x`, `self::m`, C/C++ `util.h`.
   */
  module: string;
  /** Names bound by the import (`from m import a as b`, `import { a as b }`, `use m::{a as b}`). */
  names: ImportBinding[];
  /** Local name bound to the module itself (`import m as ns`, `import * as ns`, Go's package name), or ''. */
  namespace: string;
  /** Everything the module defines becomes visible (`from m import *`, `import a.*`, `use m::*`, `#include`). */
  wildcard: boolean;
  /** C/C++ `#include <...>`: a system header, never in the repository. */
  system: boolean;
  /** 0-based line of the statement. */
  line: number;
}

/** An identifier use (only when asked for: the benchmark finds the names a function body uses). */
export interface NameReference extends SyntaxSpan {
  name: string;
  /** As in `CallSite.qualifier`: '' for a bare name, the object's text for `obj.name`. */
  qualifier: string;
  /** Index of the innermost enclosing definition, or -1. */
  scope: number;
  /**
   * The identifier binds the name rather than using it: a parameter, an assignment or loop
   * target, a keyword argument's name, a definition's own name, an import alias. Precise for
   * Python; a best effort (parameters, declarators, definition names) for the other languages.
   */
  binding: boolean;
}

/** The syntax of one file in a supported language. */
export interface FileSyntax {
  language: CodeLanguage;
  /** Definitions in source order (preorder: a parent comes before its children). */
  definitions: SyntaxDefinition[];
  /** Call sites in source order. */
  calls: CallSite[];
  imports: ImportSite[];
  /** JS/TS: the local name of the default export ('' when none or anonymous). */
  defaultExport: string;
  /** Identifier uses, only when the parser was asked for them. */
  references?: NameReference[];
  /** Whether the parser had to recover from syntax errors (the syntax is then partial). */
  hasErrors: boolean;
}
