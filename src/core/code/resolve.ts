/**
 * @file Which definition a call (or any name use) refers to, from syntax alone: no types, no
 * evaluation. A call `q.n()` (or bare `n()`, q = '') in file F, inside scope s, resolves by the
 * FIRST rule that applies; a rule that finds nothing passes to the next, and a rule that proves
 * the name external stops the search (unresolved: no edge).
 *
 * Bare name (q = ''):
 *   1. same file: the lexical scopes from s outwards (each scope's direct children named n; a
 *      C++ method defined out of class also sees its class's members); Python skips class bodies,
 *      whose names a method cannot see unqualified. Overloads: the first in source order.
 *   2. imports: an import binding n (`from m import n`, `import { n }`, `use m::n`, `import a.b.n`,
 *      `const { n } = require(m)`) leads into its module's files: their top-level definitions
 *      named n, following re-exports (`from .x import n` in `__init__.py`, `export * from`) up to
 *      a few hops; JS default imports follow the module's default export. If the module is not
 *      in the repository (a package), the name is external: STOP, unresolved, even if some
 *      repository file defines n. Then wildcard imports (`from m import *`, `import a.*`,
 *      `use m::*`, Go `.` imports, C/C++ `#include`), in source order. Then, for Java and Go,
 *      the implicit import of the file's own package (the other files of its directory).
 *   3. repository-wide unique name: exactly one definition named n in the repository (impl
 *      blocks not counted).
 * Qualified name (q.n, q::n, q->n):
 *   - q is self / this / cls / Self: members named n of the nearest enclosing class (struct,
 *     impl, trait, or a C++/Go method's owner type), same file or the owner's other blocks;
 *     else rule 3 (an inherited member defined elsewhere).
 *   - q names an import (namespace `import m as q`, `import * as q`, Go package q; or an
 *     imported name q): its module's top-level n, or the members n of the imported class q;
 *     external module: STOP. A module that does not define n: unresolved (no guessing).
 *   - q names a definition in scope (rule 1 for q, then rule 3 for q) that is a class, struct,
 *     namespace or module: its members n (children, same-named impl blocks, definitions whose
 *     `owner` is q); none: rule 3 for n.
 *   - anything else (a local variable, `a[0].f()`): a definition named n that is unique within
 *     F, then rule 3; for a named qualifier (a local variable or parameter), then the member n
 *     of the one class the enclosing scope constructs that has one (`r = new Range(x); r.test()`,
 *     `p = Parser(); p.parse()`): local type inference from the scope's calls alone.
 * Members of a type or namespace are looked up by its name across the repository (impl blocks,
 * owners, C++ namespaces reopened in other files), so two same-named types in different files
 * share their members. Calls whose name nothing
 * defines (built-ins, library functions) are unresolved and make no edge.
 */
import { ModuleIndex, type ModuleTarget } from './modules';
import {
  CLASS_LIKE_KINDS,
  NAMESPACE_KINDS,
  type CodeLanguage,
  type FileSyntax,
  type ImportBinding,
  type ImportSite,
} from './syntax';

/** A definition: `definitions[def]` of file `file`. */
export interface DefinitionRef {
  file: number;
  def: number;
}

/** Which rule resolved a name (see the file comment). 'package' is rule 2's implicit import. */
export type ResolutionRule = 'same-file' | 'import' | 'package' | 'unique-name';

export interface Resolution extends DefinitionRef {
  rule: ResolutionRule;
}

/** A file of the repository as the resolver sees it. */
export interface ResolverFile {
  path: string;
  syntax: FileSyntax | null;
}

const SELF_WORDS = new Set(['self', 'this', 'cls', 'Self']);
/** Re-export hops followed from an import to the definition. */
const MAX_HOPS = 5;

type Lookup = DefinitionRef | 'external' | null;
/** What a qualifier names: a module (files), a definition, or something outside the repository. */
type QualifierTarget =
  | { kind: 'module'; target: ModuleTarget }
  | { kind: 'definition'; ref: DefinitionRef; rule: ResolutionRule }
  | { kind: 'external' };

interface FileIndex {
  /** Children of each scope (-1: file level, else a definition index) by name. */
  children: Map<number, Map<string, number[]>>;
  /** All definitions of the file by name. */
  byName: Map<string, number[]>;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

export class Resolver {
  readonly modules: ModuleIndex;
  private readonly index: (FileIndex | null)[];
  /** Repository-wide definitions by name (impl blocks left out). */
  private readonly global = new Map<string, DefinitionRef[]>();
  /** Members of a type by the type's name: children of same-named classes and impls, owned defs. */
  private readonly members = new Map<string, DefinitionRef[]>();
  /** Names of class-like definitions anywhere in the repository. */
  private readonly classNames = new Set<string>();
  /** Per file, per scope: the class names its bare calls call (constructedIn). */
  private readonly classCalls = new Map<number, Map<number, Set<string>>>();
  /** Per `file:scope`, the classes its bare calls construct (constructedIn, built on demand). */
  private readonly constructed = new Map<string, Resolution[]>();

  constructor(private readonly files: readonly ResolverFile[]) {
    this.modules = new ModuleIndex(files.map((f) => f.path));
    this.index = files.map((file, f) => {
      const syntax = file.syntax;
      if (!syntax) return null;
      const children = new Map<number, Map<string, number[]>>();
      const byName = new Map<string, number[]>();
      syntax.definitions.forEach((d, k) => {
        let scope = children.get(d.parent);
        if (!scope) children.set(d.parent, (scope = new Map()));
        push(scope, d.name, k);
        push(byName, d.name, k);
        if (d.kind !== 'impl') push(this.global, d.name, { file: f, def: k });
        if (CLASS_LIKE_KINDS.has(d.kind)) this.classNames.add(d.name);
        if (d.owner) push(this.members, d.owner, { file: f, def: k });
        const parent = d.parent >= 0 ? syntax.definitions[d.parent] : null;
        if (parent && (CLASS_LIKE_KINDS.has(parent.kind) || NAMESPACE_KINDS.has(parent.kind))) {
          push(this.members, parent.name, { file: f, def: k });
        }
      });
      return { children, byName };
    });
  }

  private syntax(file: number): FileSyntax | null {
    return this.files[file].syntax;
  }

  /** Resolve a call or name use `qualifier.name` in `file` at `scope` (-1: file level). */
  resolve(file: number, name: string, qualifier: string, scope: number): Resolution | null {
    const syntax = this.syntax(file);
    if (!syntax || !name) return null;
    if (qualifier === '') return this.resolveBare(file, name, scope);
    if (SELF_WORDS.has(qualifier)) {
      const own = this.enclosingMember(file, name, scope);
      if (own) return own;
      return this.unique(name);
    }
    if (qualifier === '?') {
      const local = this.index[file]!.byName.get(name);
      if (local && local.length === 1) return { file, def: local[0], rule: 'same-file' };
      return this.unique(name);
    }
    const target = this.resolveQualifier(file, qualifier, scope);
    if (target?.kind === 'external') return null;
    if (target?.kind === 'module') {
      const hit = this.lookupIn(syntax.language, target.target, name, 0, new Set());
      return hit && hit !== 'external' ? { ...hit, rule: 'import' } : null;
    }
    if (target?.kind === 'definition') {
      const member = this.memberOf(target.ref, name);
      if (member) return { ...member, rule: target.rule };
      return this.unique(name);
    }
    const local = this.index[file]!.byName.get(name);
    if (local && local.length === 1) return { file, def: local[0], rule: 'same-file' };
    return this.unique(name) ?? this.constructedMember(file, name, scope);
  }

  /**
   * `q.n()` on a local variable or parameter q whose type is not written: the member n of a class
   * the same function constructs (`range = new Range(r); range.test(v)`, Python `p = Parser();
   * p.parse()`), when exactly one constructed class has one. The call-site form of local type
   * inference: the calls of a scope are all the syntax keeps of its data flow.
   */
  private constructedMember(file: number, name: string, scope: number): Resolution | null {
    let found: Resolution | null = null;
    for (const cls of this.constructedIn(file, scope)) {
      const member = this.memberOf(cls, name);
      if (!member) continue;
      if (found && (found.file !== member.file || found.def !== member.def)) return null;
      found = { ...member, rule: cls.rule };
    }
    return found;
  }

  /**
   * The class-like definitions that bare calls in `scope` of `file` resolve to, cached per scope.
   * Only calls of a name some class-like definition has are resolved (most calls are of functions).
   */
  private constructedIn(file: number, scope: number): Resolution[] {
    const key = `${file}:${scope}`;
    const cached = this.constructed.get(key);
    if (cached) return cached;
    let byScope = this.classCalls.get(file);
    if (!byScope) {
      byScope = new Map();
      for (const call of this.syntax(file)!.calls) {
        if (call.qualifier !== '' || !this.classNames.has(call.callee)) continue;
        const list = byScope.get(call.scope);
        if (!list) byScope.set(call.scope, new Set([call.callee]));
        else list.add(call.callee);
      }
      this.classCalls.set(file, byScope);
    }
    const found: Resolution[] = [];
    for (const callee of byScope.get(scope) ?? []) {
      const cls = this.resolveBare(file, callee, scope);
      if (!cls || found.some((c) => c.file === cls.file && c.def === cls.def)) continue;
      if (CLASS_LIKE_KINDS.has(this.syntax(cls.file)!.definitions[cls.def].kind)) found.push(cls);
    }
    this.constructed.set(key, found);
    return found;
  }

  /** Rules 1-3 for a bare name. */
  private resolveBare(file: number, name: string, scope: number): Resolution | null {
    const lexical = this.lexical(file, name, scope);
    if (lexical) return { ...lexical, rule: 'same-file' };
    const imported = this.throughImports(file, name);
    if (imported === 'external') return null;
    if (imported) return imported;
    return this.unique(name);
  }

  /** Rule 3. */
  private unique(name: string): Resolution | null {
    const all = this.global.get(name);
    return all && all.length === 1 ? { ...all[0], rule: 'unique-name' } : null;
  }

  /** Rule 1: the scopes from `scope` outwards, then the file level. */
  private lexical(file: number, name: string, scope: number): DefinitionRef | null {
    const syntax = this.syntax(file)!;
    const index = this.index[file]!;
    const python = syntax.language === 'python';
    for (let s = scope; ; s = syntax.definitions[s].parent) {
      const def = s >= 0 ? syntax.definitions[s] : null;
      // Python: names in a class body are not visible unqualified inside its methods.
      const visible = !(python && def && CLASS_LIKE_KINDS.has(def.kind) && s !== scope);
      if (visible) {
        const hits = index.children.get(s)?.get(name);
        if (hits && hits.length > 0) return { file, def: hits[0] };
      }
      if (def?.owner && !python) {
        const member = this.membersByType(def.owner, name, file);
        if (member) return member;
      }
      if (s < 0) return null;
    }
  }

  /** self.n / this.n: members of the nearest enclosing class-like definition or owner type. */
  private enclosingMember(file: number, name: string, scope: number): Resolution | null {
    const syntax = this.syntax(file)!;
    for (let s = scope; s >= 0; s = syntax.definitions[s].parent) {
      const def = syntax.definitions[s];
      if (CLASS_LIKE_KINDS.has(def.kind)) {
        const member = this.memberOf({ file, def: s }, name);
        if (member) return { ...member, rule: member.file === file ? 'same-file' : 'import' };
        return null;
      }
      if (def.owner) {
        const member = this.membersByType(def.owner, name, file);
        if (member) return { ...member, rule: member.file === file ? 'same-file' : 'import' };
        return null;
      }
    }
    return null;
  }

  /** Members named `name` of the definition `ref` (a class, struct, namespace, module...). */
  private memberOf(ref: DefinitionRef, name: string): DefinitionRef | null {
    const hits = this.index[ref.file]?.children.get(ref.def)?.get(name);
    if (hits && hits.length > 0) return { file: ref.file, def: hits[0] };
    const def = this.syntax(ref.file)!.definitions[ref.def];
    if (CLASS_LIKE_KINDS.has(def.kind) || NAMESPACE_KINDS.has(def.kind)) {
      return this.membersByType(def.name, name, ref.file);
    }
    return null;
  }

  /** Members of any type named `type` (impl blocks, owned definitions), same file first. */
  private membersByType(type: string, name: string, preferFile: number): DefinitionRef | null {
    const list = this.members.get(type);
    if (!list) return null;
    let found: DefinitionRef | null = null;
    for (const ref of list) {
      if (this.syntax(ref.file)!.definitions[ref.def].name !== name) continue;
      if (ref.file === preferFile) return ref;
      found ??= ref;
    }
    return found;
  }

  /** Rule 2 for a bare name: bindings, wildcards, then the file's own package. */
  private throughImports(file: number, name: string): Resolution | 'external' | null {
    const syntax = this.syntax(file)!;
    for (const site of syntax.imports) {
      for (const binding of site.names) {
        if (binding.alias !== name) continue;
        const hit = this.resolveBinding(file, site, binding, 0, new Set());
        if (hit === 'external') return 'external';
        if (hit?.kind === 'definition') return { ...hit.ref, rule: 'import' };
        if (hit?.kind === 'module') return null; // a module is not callable: no definition
      }
    }
    for (const site of syntax.imports) {
      if (!site.wildcard) continue;
      const target = this.modules.resolveImport(syntax.language, this.files[file].path, site);
      const hit = this.lookupIn(syntax.language, target, name, 0, new Set([file]));
      if (hit && hit !== 'external') return { ...hit, rule: 'import' };
    }
    const pkg = this.samePackage(file, name);
    if (pkg) return { ...pkg, rule: 'package' };
    return null;
  }

  /** Java and Go: top-level definitions of the other files of the directory, same language. */
  private samePackage(file: number, name: string): DefinitionRef | null {
    const syntax = this.syntax(file)!;
    if (syntax.language !== 'java' && syntax.language !== 'go') return null;
    const dir = this.files[file].path.slice(0, Math.max(0, this.files[file].path.lastIndexOf('/')));
    for (const other of this.modules.filesIn(dir)) {
      if (other === file || this.syntax(other)?.language !== syntax.language) continue;
      const hits = this.index[other]!.children.get(-1)?.get(name);
      if (hits && hits.length > 0) return { file: other, def: hits[0] };
    }
    return null;
  }

  /** What an import binding names: a definition, a module (submodule import), or external. */
  private resolveBinding(
    file: number,
    site: ImportSite,
    binding: ImportBinding,
    hops: number,
    seen: Set<number>,
  ): QualifierTarget | 'external' | null {
    const syntax = this.syntax(file)!;
    const from = this.files[file].path;
    const target = this.modules.resolveImport(syntax.language, from, site);
    if (target.files.length === 0) return 'external';
    const hit = this.lookupIn(syntax.language, target, binding.name, hops, seen);
    if (hit === 'external') return 'external';
    if (hit) return { kind: 'definition', ref: hit, rule: 'import' };
    // `from pkg import mod`, `use crate::a::b`: the name may be a module itself.
    const sep = syntax.language === 'rust' || syntax.language === 'cpp' ? '::' : '.';
    const sub = this.modules.resolve(syntax.language, from, `${site.module}${sep}${binding.name}`);
    if (sub.files.length > 0 && !sameTarget(sub, target)) return { kind: 'module', target: sub };
    return null;
  }

  /**
   * Top-level `name` in a module's files (inside its inner path), following re-exports. Java's
   * static imports also reach members of the file's top-level classes.
   */
  private lookupIn(
    language: CodeLanguage,
    target: ModuleTarget,
    name: string,
    hops: number,
    seen: Set<number>,
  ): Lookup {
    for (const f of target.files) {
      const index = this.index[f];
      const syntax = this.syntax(f);
      if (!index || !syntax) continue;
      let scope = -1;
      let reachable = true;
      for (const segment of target.inner) {
        const next = index.children
          .get(scope)
          ?.get(segment)
          ?.find((k) => {
            const kind = syntax.definitions[k].kind;
            return NAMESPACE_KINDS.has(kind) || CLASS_LIKE_KINDS.has(kind);
          });
        if (next === undefined) {
          reachable = false;
          break;
        }
        scope = next;
      }
      if (!reachable) continue;
      const wanted = name === 'default' && syntax.defaultExport ? syntax.defaultExport : name;
      const hits = index.children.get(scope)?.get(wanted);
      if (hits && hits.length > 0) return { file: f, def: hits[0] };
      if (language === 'java' && scope === -1) {
        for (const top of index.children.get(-1)?.values() ?? []) {
          for (const k of top) {
            const member = index.children.get(k)?.get(wanted);
            if (member && member.length > 0) return { file: f, def: member[0] };
          }
        }
      }
    }
    if (hops >= MAX_HOPS) return null;
    // Re-exports: the module's own imports of the name, then its wildcard imports.
    for (const f of target.files) {
      if (seen.has(f)) continue;
      seen.add(f);
      const syntax = this.syntax(f);
      if (!syntax) continue;
      for (const site of syntax.imports) {
        for (const binding of site.names) {
          if (binding.alias !== name) continue;
          const hit = this.resolveBinding(f, site, binding, hops + 1, seen);
          if (hit === 'external') return 'external';
          if (hit?.kind === 'definition') return hit.ref;
        }
      }
      for (const site of syntax.imports) {
        if (!site.wildcard) continue;
        const next = this.modules.resolveImport(syntax.language, this.files[f].path, site);
        const hit = this.lookupIn(syntax.language, next, name, hops + 1, seen);
        if (hit && hit !== 'external') return hit;
      }
    }
    return null;
  }

  /** What a qualifier (a name path like `np`, `os.path`, `Foo`, `crate::a`) refers to. */
  private resolveQualifier(file: number, qualifier: string, scope: number): QualifierTarget | null {
    const syntax = this.syntax(file)!;
    const from = this.files[file].path;
    const language = syntax.language;
    const sep = qualifier.includes('::') ? '::' : '.';
    const segments = qualifier.split(sep);
    if (language === 'rust' && ['crate', 'self', 'super'].includes(segments[0])) {
      const target = this.modules.resolve(language, from, qualifier);
      return target.files.length > 0 ? { kind: 'module', target } : { kind: 'external' };
    }
    // A namespace binding for the whole path (`import os.path`), or for its first segment.
    for (const site of syntax.imports) {
      if (!site.namespace) continue;
      if (site.namespace === qualifier) {
        const target = this.modules.resolveImport(language, from, site);
        return target.files.length > 0 ? { kind: 'module', target } : { kind: 'external' };
      }
    }
    for (const site of syntax.imports) {
      if (site.namespace !== segments[0] || segments.length < 2) continue;
      const rest = segments.slice(1).join(sep);
      const target = this.modules.resolve(language, from, `${site.module}${sep}${rest}`);
      if (target.files.length > 0) return { kind: 'module', target };
      const base = this.modules.resolveImport(language, from, site);
      if (base.files.length === 0) return { kind: 'external' };
      return this.descend({ kind: 'module', target: base }, segments.slice(1), language);
    }
    // The first segment as a name: imported, else in scope, else unique in the repository.
    let head: QualifierTarget | null = null;
    for (const site of syntax.imports) {
      const binding = site.names.find((b) => b.alias === segments[0]);
      if (!binding) continue;
      const hit = this.resolveBinding(file, site, binding, 0, new Set());
      head = hit === 'external' ? { kind: 'external' } : hit;
      break;
    }
    if (!head) {
      const lexical = this.lexical(file, segments[0], scope);
      if (lexical) head = { kind: 'definition', ref: lexical, rule: 'same-file' };
    }
    if (!head) {
      const imported = this.throughImports(file, segments[0]);
      if (imported === 'external') head = { kind: 'external' };
      else if (imported) head = { kind: 'definition', ref: imported, rule: imported.rule };
    }
    if (!head) {
      const unique = this.unique(segments[0]);
      if (unique) head = { kind: 'definition', ref: unique, rule: 'unique-name' };
    }
    if (!head) return null;
    if (head.kind === 'definition') {
      const def = this.syntax(head.ref.file)!.definitions[head.ref.def];
      if (!CLASS_LIKE_KINDS.has(def.kind) && !NAMESPACE_KINDS.has(def.kind)) return null;
    }
    return this.descend(head, segments.slice(1), language);
  }

  /** Follow the rest of a qualifier path through modules and definitions. */
  private descend(
    start: QualifierTarget,
    rest: string[],
    language: CodeLanguage,
  ): QualifierTarget | null {
    let current: QualifierTarget = start;
    for (const segment of rest) {
      if (current.kind === 'external') return current;
      if (current.kind === 'module') {
        const hit = this.lookupIn(language, current.target, segment, 0, new Set());
        if (hit === 'external') return { kind: 'external' };
        if (!hit) return null;
        current = { kind: 'definition', ref: hit, rule: 'import' };
      } else {
        const member = this.memberOf(current.ref, segment);
        if (!member) return null;
        current = { kind: 'definition', ref: member, rule: current.rule };
      }
    }
    return current;
  }
}

function sameTarget(a: ModuleTarget, b: ModuleTarget): boolean {
  return (
    a.files.length === b.files.length &&
    a.files.every((f, i) => f === b.files[i]) &&
    a.inner.join('/') === b.inner.join('/')
  );
}
