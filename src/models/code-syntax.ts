/**
 * @file Source files to `FileSyntax` (src/core/code/syntax.ts): the definitions, call sites and
 * imports the code graph needs, as plain data. Trees are walked once with a TreeCursor and freed;
 * no tree-sitter object leaves this module.
 *
 * What is kept, per language (node types of the grammars in @repomix/tree-sitter-wasms 0.1.17):
 *
 * | language | definitions | calls | imports |
 * |---|---|---|---|
 * | Python | `def` (method inside a class), `class`; decorators belong to the span | `f()`, `a.b.f()` | `import a.b as c`, `from ..a import b as c`, `from a import *` |
 * | JS / TS / TSX | function, class, method, `const f = () => ...`, class fields holding arrows, `exports.f = function`, TS interface, enum, type alias, namespace | `f()`, `a.f()`, `new F()`, `<Component />` | `import`, `export ... from`, `require()` |
 * | Java | class, interface, enum, record, annotation type, method, constructor | `f()`, `a.f()`, `new F()` | `import a.b.C`, `import static a.b.C.m`, `import a.b.*` |
 * | Go | func, method (receiver type as `owner`), struct, interface, other named types | `f()`, `pkg.F()`, `x.M()` | import specs (alias, `.`, default name = last path element) |
 * | Rust | fn (method inside impl/trait), struct, enum, union, trait, impl (named by its type), type, inline `mod` | `f()`, `A::f()`, `x.f()` | `use` trees (lists, `as`, `*`, `self`), `mod m;` |
 * | C / C++ | function definitions (C++ `K::f` sets `owner`), struct, union, class, enum (with bodies), namespace | `f()`, `x.f()`, `x->f()`, `ns::f()`, `new K()` | `#include "x.h"` (and `<x>` marked system) |
 *
 * Declarations without bodies (prototypes, abstract and trait method signatures) are not
 * definitions. Macros are not expanded, so calls made inside macro invocations are not seen.
 */
import type { Node, Parser as TsParser, TreeCursor } from 'web-tree-sitter';
import { Parser } from 'web-tree-sitter';
import {
  CLASS_LIKE_KINDS,
  languageOfPath,
  type CallSite,
  type CodeLanguage,
  type DefinitionKind,
  type FileSyntax,
  type ImportSite,
  type NameReference,
  type SyntaxDefinition,
  type SyntaxSpan,
} from '../core/code/syntax';
import { GrammarSet, LANGUAGE_NAMES, type GrammarSource } from './tree-sitter';

export interface ParseOptions {
  /** Also list every identifier use (`FileSyntax.references`); off by default (it is large). */
  references?: boolean;
}

/** Longest qualifier text kept; longer ones (never a plain name path) become '?'. */
const MAX_QUALIFIER = 200;

// A name path: identifiers joined by '.', '::' or '->' (whitespace already removed).
const NAME_PATH = /^[\p{L}_$][\p{L}\p{N}_$]*(?:(?:\.|::|->)[\p{L}_$][\p{L}\p{N}_$]*)*$/u;

/** The qualifier text of an object expression: a name path ('->' written as '.'), else '?'. */
function qualifierOf(node: Node | null): string {
  if (!node) return '';
  if (node.endIndex - node.startIndex > MAX_QUALIFIER) return '?';
  const text = node.text.replace(/\s+/g, '');
  return NAME_PATH.test(text) ? text.replace(/->/g, '.') : '?';
}

/** The last segment of a name path. */
function lastSegment(path: string): string {
  const m = /(?:\.|::)([^.:]+)$/.exec(path);
  return m ? m[1] : path;
}

function field(node: Node, name: string): Node | null {
  return node.childForFieldName(name);
}

function stringContent(node: Node | null): string {
  if (!node) return '';
  return node.text.replace(/^[`'"<]+|[`'">]+$/g, '');
}

interface Collector {
  text: string;
  definitions: SyntaxDefinition[];
  calls: CallSite[];
  imports: ImportSite[];
  references: NameReference[] | null;
  defaultExport: string;
}

function spanOf(node: Node): SyntaxSpan {
  const startLine = node.startPosition.row;
  let endLine = node.endPosition.row;
  // A node that ends just after a newline does not reach into the next line.
  if (node.endPosition.column === 0 && endLine > startLine) endLine--;
  return { start: node.startIndex, end: node.endIndex, startLine, endLine };
}

/** What a language contributes when the walk meets a node of a given type. */
interface LanguageRules {
  /** Definition kind and name of a node, or null when it is not a definition. */
  definition(node: Node, type: string, c: Collector, scope: number): Definition | null;
  /** Call target of a call node, or null (`separator` defaults to '.' when qualified). */
  call(node: Node, type: string): { callee: string; qualifier: string; separator?: string } | null;
  /** Import statements: push ImportSites. Returns true when the node was an import. */
  imports(node: Node, type: string, c: Collector): boolean;
  /** Node types that start a definition, call or import (the others are walked past cheaply). */
  interesting: ReadonlySet<string>;
  /** Leaf node types that are identifier uses (for references). */
  identifiers: ReadonlySet<string>;
  /** Field names under which an identifier is a member name qualified by the parent's object field. */
  memberOf?: Readonly<Record<string, string>>;
  /** Whether an identifier under `parent` (as its field `fieldName`) binds a name (references). */
  isBinding?: (parent: Node, fieldName: string | null) => boolean;
}

const PY_BINDING_PARENTS = new Set([
  'parameters',
  'lambda_parameters',
  'typed_parameter',
  'list_splat_pattern',
  'dictionary_splat_pattern',
  'global_statement',
  'nonlocal_statement',
  'as_pattern_target',
  'pattern_list',
  'tuple_pattern',
  'list_pattern',
  'dotted_name',
  'aliased_import',
  'import_from_statement',
  'import_statement',
]);
const PY_BINDING_NAME = new Set([
  'function_definition',
  'class_definition',
  'keyword_argument',
  'default_parameter',
  'typed_default_parameter',
  'named_expression',
]);
const PY_BINDING_LEFT = new Set([
  'assignment',
  'augmented_assignment',
  'for_statement',
  'for_in_clause',
]);

function pythonBinding(parent: Node, fieldName: string | null): boolean {
  const type = parent.type;
  if (PY_BINDING_PARENTS.has(type)) {
    // `dotted_name` binds only inside imports (elsewhere it is a decorator or type path).
    return (
      type !== 'dotted_name' ||
      parent.parent?.type.startsWith('import') === true ||
      parent.parent?.type === 'aliased_import'
    );
  }
  if (fieldName === 'name' && PY_BINDING_NAME.has(type)) return true;
  if (fieldName === 'left' && PY_BINDING_LEFT.has(type)) return true;
  if (fieldName === 'alias') return true;
  return false;
}

/** Other languages: definition names, parameters and declarators (a best effort). */
function genericBinding(parent: Node, fieldName: string | null): boolean {
  const type = parent.type;
  if (type.includes('parameter') || type.endsWith('_pattern')) return true;
  if (
    fieldName === 'name' ||
    fieldName === 'declarator' ||
    fieldName === 'pattern' ||
    fieldName === 'alias'
  ) {
    return (
      type.endsWith('_declaration') ||
      type.endsWith('_definition') ||
      type.endsWith('declarator') ||
      type.endsWith('_item') ||
      type.endsWith('_spec') ||
      type.endsWith('_specifier') ||
      type === 'let_declaration'
    );
  }
  return false;
}

interface Definition {
  kind: DefinitionKind;
  name: string;
  /** The node whose span the definition takes (a wrapper with decorators, `export`...). */
  spanNode: Node;
  owner?: string;
}

const isClassLike = (c: Collector, scope: number) =>
  scope >= 0 && CLASS_LIKE_KINDS.has(c.definitions[scope].kind);

/** Widen a definition's span to wrappers that belong to it (`export`, decorators, templates). */
function widen(node: Node, wrappers: ReadonlySet<string>): Node {
  let n = node;
  for (let p = n.parent; p && wrappers.has(p.type); p = p.parent) n = p;
  return n;
}

// ---------------------------------------------------------------------------------------------
// Python

const PY_WRAPPERS = new Set(['decorated_definition']);

const python: LanguageRules = {
  interesting: new Set([
    'function_definition',
    'class_definition',
    'call',
    'import_statement',
    'import_from_statement',
  ]),
  identifiers: new Set(['identifier']),
  memberOf: { attribute: 'object' },
  isBinding: pythonBinding,
  definition(node, type, c, scope) {
    if (type !== 'function_definition' && type !== 'class_definition') return null;
    const name = field(node, 'name')?.text ?? '';
    if (!name) return null;
    const kind: DefinitionKind =
      type === 'class_definition' ? 'class' : isClassLike(c, scope) ? 'method' : 'function';
    return { kind, name, spanNode: widen(node, PY_WRAPPERS) };
  },
  call(node, type) {
    if (type !== 'call') return null;
    const fn = field(node, 'function');
    if (!fn) return null;
    if (fn.type === 'identifier') return { callee: fn.text, qualifier: '' };
    if (fn.type === 'attribute') {
      const attr = field(fn, 'attribute');
      return attr ? { callee: attr.text, qualifier: qualifierOf(field(fn, 'object')) } : null;
    }
    return null;
  },
  imports(node, type, c) {
    if (type === 'import_statement') {
      for (const n of node.childrenForFieldName('name')) {
        if (n.type === 'aliased_import') {
          const module = field(n, 'name')?.text ?? '';
          const alias = field(n, 'alias')?.text ?? '';
          if (module) c.imports.push(site(module, [], alias, false, node));
        } else {
          // `import a.b` binds `a`, and `a.b.f()` is then qualified by the module's full path.
          c.imports.push(site(n.text, [], n.text, false, node));
        }
      }
      return true;
    }
    if (type === 'import_from_statement') {
      const module = (field(node, 'module_name')?.text ?? '').replace(/\s+/g, '');
      const names: { name: string; alias: string }[] = [];
      let wildcard = false;
      for (const child of node.namedChildren) {
        if (child?.type === 'wildcard_import') wildcard = true;
      }
      for (const n of node.childrenForFieldName('name')) {
        if (n.type === 'aliased_import') {
          const name = field(n, 'name')?.text ?? '';
          const alias = field(n, 'alias')?.text ?? name;
          if (name) names.push({ name, alias });
        } else {
          names.push({ name: n.text, alias: n.text });
        }
      }
      if (module) c.imports.push(site(module, names, '', wildcard, node));
      return true;
    }
    return false;
  },
};

function site(
  module: string,
  names: { name: string; alias: string }[],
  namespace: string,
  wildcard: boolean,
  node: Node,
  system = false,
): ImportSite {
  return { module, names, namespace, wildcard, system, line: node.startPosition.row };
}

// ---------------------------------------------------------------------------------------------
// JavaScript, TypeScript, TSX

const JS_WRAPPERS = new Set(['export_statement']);
const JS_FUNCTION_VALUES = new Set([
  'arrow_function',
  'function_expression',
  'function',
  'generator_function',
]);

const JS_DEFINITIONS: Readonly<Record<string, DefinitionKind>> = {
  function_declaration: 'function',
  generator_function_declaration: 'function',
  class_declaration: 'class',
  abstract_class_declaration: 'class',
  method_definition: 'method',
  interface_declaration: 'interface',
  enum_declaration: 'enum',
  type_alias_declaration: 'type',
  internal_module: 'namespace',
};

function jsRequire(value: Node | null): string | null {
  if (!value || value.type !== 'call_expression') return null;
  const fn = field(value, 'function');
  if (fn?.type !== 'identifier' || fn.text !== 'require') return null;
  const arg = field(value, 'arguments')?.namedChild(0);
  return arg && (arg.type === 'string' || arg.type === 'template_string')
    ? stringContent(arg)
    : null;
}

function jsMemberCall(fn: Node): { callee: string; qualifier: string } | null {
  if (fn.type === 'identifier') return { callee: fn.text, qualifier: '' };
  if (fn.type === 'member_expression') {
    const prop = field(fn, 'property');
    return prop ? { callee: prop.text, qualifier: qualifierOf(field(fn, 'object')) } : null;
  }
  return null;
}

const javascript: LanguageRules = {
  interesting: new Set([
    ...Object.keys(JS_DEFINITIONS),
    'variable_declarator',
    'public_field_definition',
    'field_definition',
    'call_expression',
    'new_expression',
    'import_statement',
    'export_statement',
    'assignment_expression',
    'jsx_opening_element',
    'jsx_self_closing_element',
  ]),
  identifiers: new Set([
    'identifier',
    'property_identifier',
    'type_identifier',
    'shorthand_property_identifier',
  ]),
  memberOf: { property: 'object' },
  definition(node, type, c, scope) {
    const fixed = JS_DEFINITIONS[type];
    if (fixed) {
      const name = field(node, 'name')?.text ?? '';
      if (!name) return null;
      const kind = fixed === 'function' && isClassLike(c, scope) ? 'method' : fixed;
      return { kind, name, spanNode: widen(node, JS_WRAPPERS) };
    }
    if (type === 'variable_declarator') {
      const nameNode = field(node, 'name');
      const value = field(node, 'value');
      if (nameNode?.type !== 'identifier' || !value) return null;
      if (JS_FUNCTION_VALUES.has(value.type)) {
        // The whole declaration when it declares only this function.
        const decl = node.parent;
        const spanNode =
          decl && decl.namedChildCount === 1 ? widen(decl, JS_WRAPPERS) : (node as Node);
        return { kind: 'function', name: nameNode.text, spanNode };
      }
      if (value.type === 'class') return { kind: 'class', name: nameNode.text, spanNode: node };
      return null;
    }
    if (type === 'public_field_definition' || type === 'field_definition') {
      const value = field(node, 'value');
      const nameNode = field(node, 'name') ?? field(node, 'property');
      if (!value || !nameNode || !JS_FUNCTION_VALUES.has(value.type)) return null;
      return { kind: 'method', name: nameNode.text, spanNode: node };
    }
    if (type === 'assignment_expression') {
      // CommonJS: `exports.f = function () {}` / `module.exports.f = () => {}`.
      const left = field(node, 'left');
      const right = field(node, 'right');
      if (left?.type !== 'member_expression' || !right || !JS_FUNCTION_VALUES.has(right.type)) {
        return null;
      }
      const target = qualifierOf(field(left, 'object'));
      const prop = field(left, 'property')?.text ?? '';
      if (!prop || (target !== 'exports' && target !== 'module.exports')) return null;
      const stmt = node.parent?.type === 'expression_statement' ? node.parent : node;
      return { kind: 'function', name: prop, spanNode: stmt };
    }
    return null;
  },
  call(node, type) {
    if (type === 'call_expression') {
      const fn = field(node, 'function');
      if (!fn || (fn.type === 'identifier' && fn.text === 'require')) return null;
      return jsMemberCall(fn);
    }
    if (type === 'new_expression') {
      const ctor = field(node, 'constructor');
      return ctor ? jsMemberCall(ctor) : null;
    }
    if (type === 'jsx_opening_element' || type === 'jsx_self_closing_element') {
      // `<Button />` renders (calls) the component Button; lower-case tags are HTML elements.
      const name = field(node, 'name');
      if (!name || (name.type === 'identifier' && !/^[A-Z]/.test(name.text))) return null;
      return jsMemberCall(name);
    }
    return null;
  },
  imports(node, type, c) {
    if (type === 'import_statement') {
      const module = stringContent(field(node, 'source'));
      if (!module) return true;
      const names: { name: string; alias: string }[] = [];
      let namespace = '';
      for (const clause of node.namedChildren) {
        if (clause?.type !== 'import_clause') continue;
        for (const part of clause.namedChildren) {
          if (!part) continue;
          if (part.type === 'identifier') names.push({ name: 'default', alias: part.text });
          else if (part.type === 'namespace_import') {
            namespace = part.namedChild(0)?.text ?? '';
          } else if (part.type === 'named_imports') {
            for (const spec of part.namedChildren) {
              if (spec?.type !== 'import_specifier') continue;
              const name = field(spec, 'name')?.text ?? '';
              const alias = field(spec, 'alias')?.text ?? name;
              if (name) names.push({ name, alias });
            }
          }
        }
      }
      c.imports.push(site(module, names, namespace, false, node));
      return true;
    }
    if (type === 'export_statement') {
      // Default exports name the local definition that `import x from` reaches.
      if (node.children.some((ch) => ch?.type === 'default')) {
        const decl = field(node, 'declaration') ?? field(node, 'value');
        const named = decl
          ? (field(decl, 'name') ?? (decl.type === 'identifier' ? decl : null))
          : null;
        if (named) c.defaultExport = named.text;
      }
      const source = field(node, 'source');
      if (!source) return false; // an export of local declarations: walk into them
      const module = stringContent(source);
      const names: { name: string; alias: string }[] = [];
      let namespace = '';
      let clause = false;
      for (const part of node.namedChildren) {
        if (part?.type === 'export_clause') {
          clause = true;
          for (const spec of part.namedChildren) {
            if (spec?.type !== 'export_specifier') continue;
            const name = field(spec, 'name')?.text ?? '';
            const alias = field(spec, 'alias')?.text ?? name;
            if (name) names.push({ name, alias });
          }
        } else if (part?.type === 'namespace_export') {
          clause = true;
          namespace = part.namedChild(0)?.text ?? '';
        }
      }
      // `export * from './m'` re-exports everything: a wildcard import of this file.
      if (module) c.imports.push(site(module, names, namespace, !clause, node));
      return true;
    }
    if (type === 'variable_declarator') {
      const module = jsRequire(field(node, 'value'));
      if (module === null) return false;
      const nameNode = field(node, 'name');
      if (nameNode?.type === 'identifier') {
        // CommonJS: `const m = require('./m')` binds module.exports (the default export too).
        c.imports.push(
          site(module, [{ name: 'default', alias: nameNode.text }], nameNode.text, false, node),
        );
      } else if (nameNode?.type === 'object_pattern') {
        const names: { name: string; alias: string }[] = [];
        for (const p of nameNode.namedChildren) {
          if (p?.type === 'shorthand_property_identifier_pattern') {
            names.push({ name: p.text, alias: p.text });
          } else if (p?.type === 'pair_pattern') {
            const key = field(p, 'key')?.text ?? '';
            const value = field(p, 'value');
            if (key && value?.type === 'identifier') names.push({ name: key, alias: value.text });
          }
        }
        c.imports.push(site(module, names, '', false, node));
      }
      return true;
    }
    if (type === 'assignment_expression') {
      // CommonJS default export: `module.exports = name` or a named function/class.
      const left = field(node, 'left');
      if (left && qualifierOf(left) === 'module.exports') {
        const right = field(node, 'right');
        const named = right?.type === 'identifier' ? right : right ? field(right, 'name') : null;
        if (named) c.defaultExport = named.text;
      }
      return false;
    }
    return false;
  },
};

// ---------------------------------------------------------------------------------------------
// Java

const JAVA_DEFINITIONS: Readonly<Record<string, DefinitionKind>> = {
  class_declaration: 'class',
  interface_declaration: 'interface',
  enum_declaration: 'enum',
  record_declaration: 'class',
  annotation_type_declaration: 'interface',
  method_declaration: 'method',
  constructor_declaration: 'method',
};

function javaTypeName(node: Node | null): { callee: string; qualifier: string } | null {
  if (!node) return null;
  if (node.type === 'type_identifier') return { callee: node.text, qualifier: '' };
  if (node.type === 'generic_type') return javaTypeName(node.namedChild(0));
  if (node.type === 'scoped_type_identifier') {
    const text = qualifierOf(node);
    if (text === '?') return null;
    const callee = lastSegment(text);
    return { callee, qualifier: text.slice(0, text.length - callee.length - 1) };
  }
  return null;
}

const java: LanguageRules = {
  interesting: new Set([
    ...Object.keys(JAVA_DEFINITIONS),
    'method_invocation',
    'object_creation_expression',
    'import_declaration',
  ]),
  identifiers: new Set(['identifier', 'type_identifier']),
  memberOf: { field: 'object', name: 'object' },
  definition(node, type) {
    const kind = JAVA_DEFINITIONS[type];
    if (!kind) return null;
    // Interface methods without a body are declarations, not definitions.
    if (type === 'method_declaration' && !field(node, 'body')) return null;
    const name = field(node, 'name')?.text ?? '';
    return name ? { kind, name, spanNode: node } : null;
  },
  call(node, type) {
    if (type === 'method_invocation') {
      const name = field(node, 'name')?.text ?? '';
      if (!name) return null;
      return { callee: name, qualifier: qualifierOf(field(node, 'object')) };
    }
    if (type === 'object_creation_expression') return javaTypeName(field(node, 'type'));
    return null;
  },
  imports(node, type, c) {
    if (type !== 'import_declaration') return false;
    let path = '';
    let wildcard = false;
    let isStatic = false;
    for (const ch of node.children) {
      if (!ch) continue;
      if (ch.type === 'scoped_identifier' || ch.type === 'identifier') path = ch.text;
      else if (ch.type === 'asterisk') wildcard = true;
      else if (ch.type === 'static') isStatic = true;
    }
    path = path.replace(/\s+/g, '');
    if (!path) return true;
    if (wildcard) {
      c.imports.push(site(path, [], '', true, node));
    } else {
      const name = lastSegment(path);
      // `import a.b.C`: class C of file a/b/C.java. `import static a.b.C.m`: member m of C.
      const module = isStatic ? path.slice(0, path.length - name.length - 1) : path;
      c.imports.push(site(module, [{ name, alias: name }], '', false, node));
    }
    return true;
  },
};

// ---------------------------------------------------------------------------------------------
// Go

function goTypeName(node: Node | null): string {
  if (!node) return '';
  if (node.type === 'type_identifier') return node.text;
  if (node.type === 'pointer_type' || node.type === 'generic_type') {
    return goTypeName(node.namedChild(0));
  }
  return '';
}

const go: LanguageRules = {
  interesting: new Set([
    'function_declaration',
    'method_declaration',
    'type_spec',
    'type_alias',
    'call_expression',
    'import_spec',
  ]),
  identifiers: new Set(['identifier', 'type_identifier', 'field_identifier']),
  memberOf: { field: 'operand' },
  definition(node, type) {
    if (type === 'function_declaration') {
      const name = field(node, 'name')?.text ?? '';
      return name ? { kind: 'function', name, spanNode: node } : null;
    }
    if (type === 'method_declaration') {
      const name = field(node, 'name')?.text ?? '';
      const receiver = field(node, 'receiver')?.namedChild(0);
      const owner = receiver ? goTypeName(field(receiver, 'type')) : '';
      return name ? { kind: 'method', name, spanNode: node, owner } : null;
    }
    if (type === 'type_spec' || type === 'type_alias') {
      const name = field(node, 'name')?.text ?? '';
      if (!name) return null;
      const t = field(node, 'type')?.type;
      const kind: DefinitionKind =
        t === 'struct_type' ? 'struct' : t === 'interface_type' ? 'interface' : 'type';
      const decl = node.parent;
      const spanNode =
        decl?.type === 'type_declaration' && decl.namedChildCount === 1 ? decl : node;
      return { kind, name, spanNode };
    }
    return null;
  },
  call(node, type) {
    if (type !== 'call_expression') return null;
    let fn = field(node, 'function');
    if (fn?.type === 'generic_function' || fn?.type === 'index_expression') {
      fn = field(fn, 'function') ?? field(fn, 'operand');
    }
    if (!fn) return null;
    if (fn.type === 'identifier') return { callee: fn.text, qualifier: '' };
    if (fn.type === 'selector_expression') {
      const f = field(fn, 'field')?.text ?? '';
      return f ? { callee: f, qualifier: qualifierOf(field(fn, 'operand')) } : null;
    }
    return null;
  },
  imports(node, type, c) {
    if (type !== 'import_spec') return false;
    const module = stringContent(field(node, 'path'));
    if (!module) return true;
    const name = field(node, 'name');
    if (name?.type === 'blank_identifier') return true; // imported for side effects only
    if (name?.type === 'dot') {
      c.imports.push(site(module, [], '', true, node));
      return true;
    }
    // The package name defaults to the last path element (a major-version suffix /v2 skipped).
    const parts = module.split('/');
    let last = parts[parts.length - 1];
    if (/^v\d+$/.test(last) && parts.length > 1) last = parts[parts.length - 2];
    c.imports.push(
      site(module, [], name?.text ?? last.replace(/[^\p{L}\p{N}_]/gu, '_'), false, node),
    );
    return true;
  },
};

// ---------------------------------------------------------------------------------------------
// Rust

const RUST_DEFINITIONS: Readonly<Record<string, DefinitionKind>> = {
  function_item: 'function',
  struct_item: 'struct',
  union_item: 'struct',
  enum_item: 'enum',
  trait_item: 'trait',
  impl_item: 'impl',
  type_item: 'type',
  mod_item: 'module',
};

/** Type name without generics or path: `a::Bar<T>` -> 'Bar'. */
function rustTypeName(node: Node | null): string {
  if (!node) return '';
  if (node.type === 'type_identifier' || node.type === 'identifier') return node.text;
  if (node.type === 'generic_type') return rustTypeName(field(node, 'type'));
  if (node.type === 'scoped_type_identifier') return rustTypeName(field(node, 'name'));
  if (node.type === 'reference_type') return rustTypeName(field(node, 'type'));
  return '';
}

/** Flatten a `use` tree into ImportSites, `prefix` being the path so far. */
function rustUse(node: Node, prefix: string, c: Collector, stmt: Node): void {
  const join = (a: string, b: string) => (a && b ? `${a}::${b}` : a || b);
  const text = (n: Node | null) => (n ? n.text.replace(/\s+/g, '') : '');
  switch (node.type) {
    case 'identifier':
    case 'crate':
    case 'super': {
      const path = join(prefix, node.text);
      const name = lastSegment(path);
      const module = path.slice(0, Math.max(0, path.length - name.length - 2));
      c.imports.push(site(module || 'self', [{ name, alias: name }], '', false, stmt));
      return;
    }
    case 'self':
      // `use a::b::{self}` binds the module b itself.
      if (prefix) c.imports.push(site(prefix, [], lastSegment(prefix), false, stmt));
      return;
    case 'scoped_identifier': {
      const path = join(prefix, text(field(node, 'path')));
      const name = field(node, 'name')?.text ?? '';
      if (name) c.imports.push(site(path || 'self', [{ name, alias: name }], '', false, stmt));
      return;
    }
    case 'use_as_clause': {
      const pathNode = field(node, 'path');
      const alias = field(node, 'alias')?.text ?? '';
      if (!pathNode || !alias) return;
      const full = join(prefix, text(pathNode));
      const name = lastSegment(full);
      const module = full.slice(0, Math.max(0, full.length - name.length - 2));
      if (name === 'self') c.imports.push(site(module, [], alias, false, stmt));
      else c.imports.push(site(module || 'self', [{ name, alias }], '', false, stmt));
      return;
    }
    case 'use_wildcard': {
      const inner = node.namedChild(0);
      c.imports.push(site(join(prefix, text(inner)) || 'self', [], '', true, stmt));
      return;
    }
    case 'scoped_use_list': {
      const path = join(prefix, text(field(node, 'path')));
      const list = field(node, 'list');
      if (list) for (const item of list.namedChildren) if (item) rustUse(item, path, c, stmt);
      return;
    }
    case 'use_list':
      for (const item of node.namedChildren) if (item) rustUse(item, prefix, c, stmt);
      return;
    default:
      return;
  }
}

const rust: LanguageRules = {
  interesting: new Set([...Object.keys(RUST_DEFINITIONS), 'call_expression', 'use_declaration']),
  identifiers: new Set(['identifier', 'type_identifier', 'field_identifier']),
  memberOf: { field: 'value', name: 'path' },
  definition(node, type, c, scope) {
    const fixed = RUST_DEFINITIONS[type];
    if (!fixed) return null;
    if (type === 'impl_item') {
      const name = rustTypeName(field(node, 'type'));
      return name ? { kind: 'impl', name, spanNode: node } : null;
    }
    // `mod m;` declares a module file (an import, see `imports`); only inline modules define.
    if (type === 'mod_item' && !field(node, 'body')) return null;
    const name = field(node, 'name')?.text ?? '';
    if (!name) return null;
    const kind = fixed === 'function' && isClassLike(c, scope) ? 'method' : fixed;
    return { kind, name, spanNode: node };
  },
  call(node, type) {
    if (type !== 'call_expression') return null;
    let fn = field(node, 'function');
    if (fn?.type === 'generic_function') fn = field(fn, 'function');
    if (!fn) return null;
    if (fn.type === 'identifier') return { callee: fn.text, qualifier: '' };
    if (fn.type === 'scoped_identifier') {
      const name = field(fn, 'name')?.text ?? '';
      return name
        ? { callee: name, qualifier: qualifierOf(field(fn, 'path')), separator: '::' }
        : null;
    }
    if (fn.type === 'field_expression') {
      const f = field(fn, 'field')?.text ?? '';
      return f ? { callee: f, qualifier: qualifierOf(field(fn, 'value')) } : null;
    }
    return null;
  },
  imports(node, type, c) {
    if (type === 'use_declaration') {
      const arg = field(node, 'argument');
      if (arg) rustUse(arg, '', c, node);
      return true;
    }
    if (type === 'mod_item' && !field(node, 'body')) {
      const name = field(node, 'name')?.text ?? '';
      if (name) c.imports.push(site(`self::${name}`, [], name, false, node));
      return true;
    }
    return false;
  },
};

// ---------------------------------------------------------------------------------------------
// C and C++

const C_WRAPPERS = new Set(['template_declaration']);
const DECLARATOR_WRAPPERS = new Set([
  'pointer_declarator',
  'reference_declarator',
  'parenthesized_declarator',
  'attributed_declarator',
]);

/** Name and owner of a function definition's declarator (`ns::K::run` -> run, owner K). */
function cFunctionName(node: Node): { name: string; owner: string } | null {
  let d = field(node, 'declarator');
  while (d && DECLARATOR_WRAPPERS.has(d.type)) d = field(d, 'declarator') ?? d.namedChild(0);
  if (d?.type !== 'function_declarator') return null;
  let target = field(d, 'declarator');
  if (!target) return null;
  if (target.type === 'template_function') target = field(target, 'name') ?? target;
  const text = target.text.replace(/\s+/g, '');
  if (target.type === 'qualified_identifier') {
    const parts = text.replace(/<[^<>]*>/g, '').split('::');
    const name = parts[parts.length - 1];
    return name ? { name, owner: parts.length > 1 ? parts[parts.length - 2] : '' } : null;
  }
  return text ? { name: text, owner: '' } : null;
}

const C_TYPES: Readonly<Record<string, DefinitionKind>> = {
  struct_specifier: 'struct',
  union_specifier: 'struct',
  class_specifier: 'class',
  enum_specifier: 'enum',
};

function cCallTarget(fn: Node): { callee: string; qualifier: string; separator?: string } | null {
  switch (fn.type) {
    case 'identifier':
      return { callee: fn.text, qualifier: '' };
    case 'field_expression': {
      const f = field(fn, 'field')?.text ?? '';
      return f ? { callee: f, qualifier: qualifierOf(field(fn, 'argument')) } : null;
    }
    case 'qualified_identifier': {
      const text = qualifierOf(fn);
      if (text === '?') return null;
      const callee = lastSegment(text);
      return { callee, qualifier: text.slice(0, text.length - callee.length - 2), separator: '::' };
    }
    case 'template_function': {
      const name = field(fn, 'name');
      return name ? cCallTarget(name) : null;
    }
    case 'type_identifier':
      return { callee: fn.text, qualifier: '' };
    default:
      return null;
  }
}

const cLike: LanguageRules = {
  interesting: new Set([
    'function_definition',
    ...Object.keys(C_TYPES),
    'namespace_definition',
    'call_expression',
    'new_expression',
    'preproc_include',
  ]),
  identifiers: new Set([
    'identifier',
    'type_identifier',
    'field_identifier',
    'namespace_identifier',
  ]),
  memberOf: { field: 'argument' },
  definition(node, type, c, scope) {
    if (type === 'function_definition') {
      const fn = cFunctionName(node);
      if (!fn) return null;
      const kind: DefinitionKind = isClassLike(c, scope) ? 'method' : 'function';
      return { kind, name: fn.name, owner: fn.owner, spanNode: widen(node, C_WRAPPERS) };
    }
    const typeKind = C_TYPES[type];
    if (typeKind) {
      if (!field(node, 'body')) return null; // a use of the type, not its definition
      let name = field(node, 'name')?.text ?? '';
      const parent = node.parent;
      if (!name && parent?.type === 'type_definition') {
        name = field(parent, 'declarator')?.text ?? ''; // typedef struct { ... } Name;
      }
      if (!name) return null;
      const spanNode = parent?.type === 'type_definition' ? parent : widen(node, C_WRAPPERS);
      return { kind: typeKind, name: name.replace(/<.*$/, ''), spanNode };
    }
    if (type === 'namespace_definition') {
      const name = field(node, 'name')?.text ?? '';
      return name ? { kind: 'namespace', name, spanNode: node } : null;
    }
    return null;
  },
  call(node, type) {
    if (type === 'call_expression') {
      const fn = field(node, 'function');
      return fn ? cCallTarget(fn) : null;
    }
    if (type === 'new_expression') {
      const t = field(node, 'type');
      if (!t) return null;
      if (t.type === 'type_identifier') return { callee: t.text, qualifier: '' };
      if (t.type === 'qualified_identifier') return cCallTarget(t);
      if (t.type === 'template_type') {
        const n = field(t, 'name');
        return n ? { callee: n.text, qualifier: '' } : null;
      }
    }
    return null;
  },
  imports(node, type, c) {
    if (type !== 'preproc_include') return false;
    const path = field(node, 'path');
    if (!path) return true;
    const system = path.type === 'system_lib_string';
    const module = stringContent(path);
    if (module) c.imports.push(site(module, [], '', true, node, system));
    return true;
  },
};

const RULES: Readonly<Record<CodeLanguage, LanguageRules>> = {
  python,
  javascript,
  typescript: javascript,
  tsx: javascript,
  java,
  go,
  rust,
  c: cLike,
  cpp: cLike,
};

/** The walk over one tree: definitions with scopes, calls, imports, optional references. */
function collect(
  cursor: TreeCursor,
  rules: LanguageRules,
  c: Collector,
  withReferences: boolean,
): void {
  // scopes[d]: definition index enclosing the nodes at depth d (-1: file level).
  const scopes: number[] = [];
  let scope = -1;
  for (;;) {
    const type = cursor.nodeType;
    let inner = scope;
    if (rules.interesting.has(type)) {
      const node = cursor.currentNode;
      const imported = rules.imports(node, type, c);
      const def = imported ? null : rules.definition(node, type, c, scope);
      if (def) {
        const span = spanOf(def.spanNode);
        c.definitions.push({
          kind: def.kind,
          name: def.name,
          parent: scope,
          owner: def.owner ?? '',
          ...span,
        });
        inner = c.definitions.length - 1;
      }
      const call = rules.call(node, type);
      if (call && call.callee) {
        const separator = call.qualifier ? (call.separator ?? '.') : '';
        c.calls.push({
          callee: call.callee,
          qualifier: call.qualifier,
          separator,
          scope,
          ...spanOf(node),
        });
      }
    } else if (withReferences && rules.identifiers.has(type)) {
      const node = cursor.currentNode;
      let qualifier = '';
      const fieldName = cursor.currentFieldName;
      const parent = node.parent;
      const objectField = fieldName ? rules.memberOf?.[fieldName] : undefined;
      if (objectField && parent) {
        const object = field(parent, objectField);
        if (object && object.id !== node.id) qualifier = qualifierOf(object);
      }
      const binding =
        !qualifier && parent !== null && (rules.isBinding ?? genericBinding)(parent, fieldName);
      c.references!.push({ name: node.text, qualifier, scope, binding, ...spanOf(node) });
    }
    if (cursor.gotoFirstChild()) {
      scopes.push(scope);
      scope = inner;
      continue;
    }
    while (!cursor.gotoNextSibling()) {
      if (!cursor.gotoParent()) return;
      scope = scopes.pop() ?? -1;
    }
  }
}

/** Parsers of one `GrammarSource`, one tree-sitter Parser per language, reused across files. */
export class CodeParser {
  private readonly grammars: GrammarSet;
  private readonly parsers = new Map<CodeLanguage, TsParser>();

  constructor(source: GrammarSource) {
    this.grammars = new GrammarSet(source);
  }

  /** Load the grammars of these languages now (otherwise each loads with its first file). */
  async prepare(languages: Iterable<CodeLanguage>): Promise<void> {
    for (const language of new Set(languages)) await this.parserFor(language);
  }

  private async parserFor(language: CodeLanguage): Promise<TsParser> {
    let parser = this.parsers.get(language);
    if (!parser) {
      const grammar = await this.grammars.load(language);
      parser = this.parsers.get(language);
      if (!parser) {
        parser = new Parser();
        parser.setLanguage(grammar);
        this.parsers.set(language, parser);
      }
    }
    return parser;
  }

  /**
   * The syntax of one file, or null when no grammar reads its extension. Rejects (with a message
   * to show) only when the grammar cannot be loaded or the parser fails on the file.
   */
  async parse(path: string, text: string, options: ParseOptions = {}): Promise<FileSyntax | null> {
    const language = languageOfPath(path);
    if (!language) return null;
    const parser = await this.parserFor(language);
    return extractSyntax(parser, language, text, options);
  }

  /** Free the parsers (the grammars stay loaded for the thread). */
  dispose(): void {
    for (const p of this.parsers.values()) p.delete();
    this.parsers.clear();
  }
}

/** Parse `text` with a parser already set to `language`'s grammar and extract its syntax. */
export function extractSyntax(
  parser: TsParser,
  language: CodeLanguage,
  text: string,
  options: ParseOptions = {},
): FileSyntax {
  const tree = parser.parse(text);
  if (!tree) {
    throw new Error(`The ${LANGUAGE_NAMES[language]} parser gave no tree.`);
  }
  try {
    const c: Collector = {
      text,
      definitions: [],
      calls: [],
      imports: [],
      references: options.references ? [] : null,
      defaultExport: '',
    };
    const cursor = tree.walk();
    try {
      collect(cursor, RULES[language], c, options.references === true);
    } finally {
      cursor.delete();
    }
    const syntax: FileSyntax = {
      language,
      definitions: c.definitions,
      calls: c.calls,
      imports: c.imports,
      defaultExport: c.defaultExport,
      hasErrors: tree.rootNode.hasError,
    };
    if (c.references) syntax.references = c.references;
    return syntax;
  } finally {
    tree.delete();
  }
}

/** A file that could not be parsed: it is still indexed, related only by the directory tree. */
export interface ParseProblem {
  path: string;
  message: string;
}

export interface RepositorySyntax {
  /** Per file, in the order given: its syntax, or null (no grammar, or a problem below). */
  syntax: (FileSyntax | null)[];
  problems: ParseProblem[];
}

/**
 * Parse every file of a repository. A grammar that fails to load or a file the parser chokes on
 * becomes a `problem` (the file then has no syntax); the others go on. `checkpoint` is awaited
 * between files (throw from it to cancel), `onProgress` reports files done.
 */
export async function parseRepository(
  files: readonly { path: string; text: string }[],
  parser: CodeParser,
  options: {
    checkpoint?: () => Promise<void>;
    onProgress?: (done: number, total: number) => void;
  } = {},
): Promise<RepositorySyntax> {
  const syntax: (FileSyntax | null)[] = [];
  const problems: ParseProblem[] = [];
  for (let i = 0; i < files.length; i++) {
    await options.checkpoint?.();
    const { path, text } = files[i];
    try {
      syntax.push(await parser.parse(path, text));
    } catch (error) {
      syntax.push(null);
      const why = error instanceof Error ? error.message : String(error);
      problems.push({
        path,
        message: `“${path}” could not be parsed (${why}); it is indexed as line windows without its definitions and calls.`,
      });
    }
    options.onProgress?.(i + 1, files.length);
  }
  return { syntax, problems };
}
