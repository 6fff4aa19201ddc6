/**
 * @file Which repository files an import names: module strings (as `ImportSite.module` writes
 * them) to file indices, per language. Pure string work over the repository's path list; a module
 * that names no file of the repository is external (a package, the standard library) and
 * resolves to nothing.
 *
 * Rules (paths are '/'-separated and relative to the repository root):
 * - Python: leading dots are relative levels from the importing file's package (`.m` beside it,
 *   `..m` one up); `a.b` is `a/b.py`, `a/b.pyi` or `a/b/__init__.py`, found at the repository root
 *   or below any directory (src layouts, a repository's top folder); when several match, the one
 *   sharing the longest directory prefix with the importing file wins, then the shortest path.
 * - JavaScript / TypeScript: relative specifiers only (`./`, `../`), tried as written, with the
 *   extensions .ts .tsx .d.ts .js .jsx .mjs .cjs .mts .cts, and as a directory's index file; a `.js`
 *   specifier also tries the `.ts` source TypeScript compiles it from. Bare specifiers (packages,
 *   tsconfig `paths` aliases) are external: aliases are not supported.
 * - Java: `a.b.C` is the file `a/b/C.java`, else the package directory `a/b/C` (its .java files),
 *   matched as a path suffix like Python.
 * - Go: the repository directory whose path (from the root) is the longest suffix of the import
 *   path (`github.com/me/p/internal/util` -> `internal/util`); its .go files are the package.
 * - Rust: `crate::` starts at the crate root (the nearest directory above the file that holds
 *   lib.rs or main.rs), `self::` at the file's module, `super::` one module up; a module `a::b` is
 *   `a/b.rs` or `a/b/mod.rs`. A path that reaches no file keeps its tail as `inner` (inline
 *   modules, or items, inside the last file found). Other first segments (std, serde...) are
 *   tried as `self::` then `crate::` paths, else external.
 * - C / C++: `"x.h"` beside the including file, else by path suffix anywhere; the header's
 *   implementation files (same directory and base name, .c .cc .cpp .cxx; failing that, the
 *   closest file with that base name, for include/ + src/ layouts) count as included too, since
 *   that is where its functions are defined. `<x.h>` the same, but only if found.
 */
import type { CodeLanguage, ImportSite } from './syntax';

/** Directory of a path ('' for a top-level file). */
export function dirname(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

export function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Join and normalise '.' and '..'; null when '..' climbs above the repository root. */
export function joinPath(base: string, relative: string): string | null {
  const parts = base ? base.split('/') : [];
  for (const part of relative.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.length === 0) return null;
      parts.pop();
    } else {
      parts.push(part);
    }
  }
  return parts.join('/');
}

/** Where a module path leads: files, plus names still to look up inside them (Rust). */
export interface ModuleTarget {
  files: number[];
  /** Path segments below the files (inline modules or items), outermost first. */
  inner: string[];
}

const NONE: ModuleTarget = Object.freeze({ files: [], inner: [] }) as ModuleTarget;

const JS_EXTENSIONS = ['.ts', '.tsx', '.d.ts', '.js', '.jsx', '.mjs', '.cjs', '.mts', '.cts'];
const C_IMPLEMENTATIONS = ['.c', '.cc', '.cpp', '.cxx', '.c++'];

/** The repository's paths, indexed for module lookups. Built once per graph. */
export class ModuleIndex {
  private readonly byPath = new Map<string, number>();
  /** Every '/'-suffix of every file path -> files ending so. */
  private readonly bySuffix = new Map<string, number[]>();
  private readonly dirFiles = new Map<string, number[]>();
  private readonly cache = new Map<string, ModuleTarget>();

  constructor(readonly paths: readonly string[]) {
    paths.forEach((path, i) => {
      this.byPath.set(path, i);
      const parts = path.split('/');
      for (let k = 0; k < parts.length; k++) {
        const suffix = parts.slice(k).join('/');
        let list = this.bySuffix.get(suffix);
        if (!list) this.bySuffix.set(suffix, (list = []));
        list.push(i);
      }
      const dir = dirname(path);
      let files = this.dirFiles.get(dir);
      if (!files) this.dirFiles.set(dir, (files = []));
      files.push(i);
    });
  }

  fileAt(path: string): number | undefined {
    return this.byPath.get(path);
  }

  /** Files directly in a directory. */
  filesIn(dir: string): readonly number[] {
    return this.dirFiles.get(dir) ?? [];
  }

  hasDir(dir: string): boolean {
    return this.dirFiles.has(dir);
  }

  /** Files whose path is `rel` or ends with '/' + rel; the best by closeness to `from`. */
  private bySuffixClosest(rel: string, from: string): number[] {
    const hits = this.bySuffix.get(rel);
    if (!hits || hits.length === 0) return [];
    if (hits.length === 1) return [hits[0]];
    const fromDir = dirname(from);
    let best = hits[0];
    let bestScore = -1;
    for (const h of hits) {
      const score =
        commonPrefixSegments(dirname(this.paths[h]), fromDir) * 10000 - this.paths[h].length;
      if (score > bestScore) {
        bestScore = score;
        best = h;
      }
    }
    return [best];
  }

  /** Files of directories named by `rel` (suffix match), with the given extensions. */
  private dirBySuffix(rel: string, from: string, extensions: readonly string[]): number[] {
    let bestDir: string | null = null;
    let bestScore = -1;
    const fromDir = dirname(from);
    for (const dir of this.dirFiles.keys()) {
      if (dir !== rel && !dir.endsWith('/' + rel)) continue;
      const score = commonPrefixSegments(dir, fromDir) * 10000 - dir.length;
      if (score > bestScore) {
        bestScore = score;
        bestDir = dir;
      }
    }
    if (bestDir === null) return [];
    return this.filesIn(bestDir).filter((f) => extensions.some((e) => this.paths[f].endsWith(e)));
  }

  /** The files (and inner path) a module of an import names, or none when it is external. */
  resolve(language: CodeLanguage, from: string, module: string, system = false): ModuleTarget {
    const key = `${language}\0${dirname(from)}\0${system ? '<' : ''}${module}`;
    let hit = this.cache.get(key);
    if (!hit) {
      hit = this.resolveUncached(language, from, module, system);
      this.cache.set(key, hit);
    }
    return hit;
  }

  /** Convenience for an ImportSite. */
  resolveImport(language: CodeLanguage, from: string, site: ImportSite): ModuleTarget {
    return this.resolve(language, from, site.module, site.system);
  }

  private resolveUncached(
    language: CodeLanguage,
    from: string,
    module: string,
    system: boolean,
  ): ModuleTarget {
    switch (language) {
      case 'python':
        return this.python(from, module);
      case 'javascript':
      case 'typescript':
      case 'tsx':
        return this.javascript(from, module);
      case 'java':
        return this.java(from, module);
      case 'go':
        return this.go(module);
      case 'rust':
        return this.rust(from, module);
      case 'c':
      case 'cpp':
        return this.cInclude(from, module, system);
    }
  }

  private files(list: number[]): ModuleTarget {
    return list.length > 0 ? { files: list, inner: [] } : NONE;
  }

  private firstExisting(candidates: (string | null)[]): number[] {
    for (const c of candidates) {
      if (c === null) continue;
      const f = this.byPath.get(c);
      if (f !== undefined) return [f];
    }
    return [];
  }

  private python(from: string, module: string): ModuleTarget {
    const m = /^(\.*)(.*)$/.exec(module)!;
    const dots = m[1].length;
    const rel = m[2] ? m[2].split('.').join('/') : '';
    if (dots > 0) {
      let base: string | null = dirname(from);
      for (let k = 1; k < dots && base !== null; k++) base = base === '' ? null : dirname(base);
      if (base === null) return NONE;
      const target = rel ? joinPath(base, rel) : base;
      if (target === null) return NONE;
      const prefix = target ? target + '/' : '';
      return this.files(
        this.firstExisting([
          rel ? `${target}.py` : null,
          rel ? `${target}.pyi` : null,
          `${prefix}__init__.py`,
          `${prefix}__init__.pyi`,
        ]),
      );
    }
    if (!rel) return NONE;
    for (const candidate of [
      `${rel}.py`,
      `${rel}.pyi`,
      `${rel}/__init__.py`,
      `${rel}/__init__.pyi`,
    ]) {
      const hits = this.bySuffixClosest(candidate, from);
      if (hits.length > 0) return this.files(hits);
    }
    return NONE;
  }

  private javascript(from: string, module: string): ModuleTarget {
    if (!module.startsWith('.') && !module.startsWith('/')) return NONE;
    const base = module.startsWith('/') ? joinPath('', module) : joinPath(dirname(from), module);
    if (base === null) return NONE;
    const candidates: string[] = [base];
    for (const ext of JS_EXTENSIONS) candidates.push(base + ext);
    const js = /\.(m|c)?jsx?$/.exec(base);
    if (js) {
      const stem = base.slice(0, base.length - js[0].length);
      for (const ext of ['.ts', '.tsx', '.mts', '.cts', '.d.ts']) candidates.push(stem + ext);
    }
    for (const ext of JS_EXTENSIONS) candidates.push(`${base}/index${ext}`);
    return this.files(this.firstExisting(candidates));
  }

  private java(from: string, module: string): ModuleTarget {
    const rel = module.split('.').join('/');
    const file = this.bySuffixClosest(`${rel}.java`, from);
    if (file.length > 0) return this.files(file);
    return this.files(this.dirBySuffix(rel, from, ['.java']));
  }

  private go(module: string): ModuleTarget {
    const parts = module.split('/');
    for (let k = 0; k < parts.length; k++) {
      const dir = parts.slice(k).join('/');
      if (this.dirFiles.has(dir)) {
        const files = this.filesIn(dir).filter((f) => this.paths[f].endsWith('.go'));
        if (files.length > 0) return this.files(files);
      }
    }
    return NONE;
  }

  /** Crate root of a Rust file: the nearest directory upwards holding lib.rs or main.rs. */
  private rustCrateRoot(from: string): string {
    let dir: string | null = dirname(from);
    while (dir !== null) {
      const prefix = dir ? dir + '/' : '';
      if (this.byPath.has(`${prefix}lib.rs`) || this.byPath.has(`${prefix}main.rs`)) return dir;
      dir = dir === '' ? null : dirname(dir);
    }
    return dirname(from);
  }

  /** Module path of a Rust file as segments below its crate root (`src/a/b.rs` -> a, b). */
  private rustModuleOf(from: string, root: string): string[] {
    const rel = root ? from.slice(root.length + 1) : from;
    const parts = rel.replace(/\.rs$/, '').split('/');
    const last = parts[parts.length - 1];
    if (last === 'mod' || ((last === 'lib' || last === 'main') && parts.length === 1)) parts.pop();
    return parts;
  }

  private rustFileOf(root: string, segments: string[]): number | undefined {
    if (segments.length === 0) {
      const prefix = root ? root + '/' : '';
      return this.byPath.get(`${prefix}lib.rs`) ?? this.byPath.get(`${prefix}main.rs`);
    }
    const path = joinPath(root, segments.join('/'));
    if (path === null) return undefined;
    return this.byPath.get(`${path}.rs`) ?? this.byPath.get(`${path}/mod.rs`);
  }

  private rustFrom(root: string, segments: string[]): ModuleTarget {
    // The longest prefix of the path that is a module file; the rest lies inside it.
    for (let k = segments.length; k >= 0; k--) {
      const file = this.rustFileOf(root, segments.slice(0, k));
      if (file !== undefined) return { files: [file], inner: segments.slice(k) };
    }
    return NONE;
  }

  private rust(from: string, module: string): ModuleTarget {
    const segments = module.split('::').filter((s) => s.length > 0);
    const root = this.rustCrateRoot(from);
    const here = this.rustModuleOf(from, root);
    const first = segments[0];
    if (first === 'crate') return this.rustFrom(root, segments.slice(1));
    if (first === 'self') return this.rustFrom(root, [...here, ...segments.slice(1)]);
    if (first === 'super') {
      const base = [...here];
      let k = 0;
      while (segments[k] === 'super') {
        if (base.length === 0) return NONE;
        base.pop();
        k++;
      }
      return this.rustFrom(root, [...base, ...segments.slice(k)]);
    }
    if (segments.length === 0) return this.rustFrom(root, here);
    // 2018 paths: a module declared here, or (2015 style) from the crate root; else a crate.
    const local = this.rustFileOf(root, [...here, first]);
    if (local !== undefined) return this.rustFrom(root, [...here, ...segments]);
    const top = this.rustFileOf(root, [first]);
    if (top !== undefined) return this.rustFrom(root, segments);
    return NONE;
  }

  private cInclude(from: string, module: string, system: boolean): ModuleTarget {
    let header: number[] = [];
    if (!system) {
      const beside = joinPath(dirname(from), module);
      if (beside !== null) header = this.firstExisting([beside]);
    }
    if (header.length === 0) {
      const rel = joinPath('', module);
      if (rel) header = this.bySuffixClosest(rel, from);
    }
    if (header.length === 0) return NONE;
    const files = [header[0]];
    const path = this.paths[header[0]];
    const stem = path.replace(/\.[^./]+$/, '');
    if (stem !== path) {
      for (const ext of C_IMPLEMENTATIONS) {
        const impl = this.byPath.get(stem + ext);
        if (impl !== undefined && impl !== header[0]) files.push(impl);
      }
      // Headers under include/ with sources under src/: the same base name elsewhere, closest.
      if (files.length === 1) {
        const base = basename(stem);
        for (const ext of C_IMPLEMENTATIONS) {
          const impl = this.bySuffixClosest(base + ext, path);
          if (impl.length > 0 && impl[0] !== header[0]) files.push(impl[0]);
        }
      }
    }
    return { files, inner: [] };
  }
}

function commonPrefixSegments(a: string, b: string): number {
  if (!a || !b) return 0;
  const pa = a.split('/');
  const pb = b.split('/');
  let k = 0;
  while (k < pa.length && k < pb.length && pa[k] === pb[k]) k++;
  return k;
}
