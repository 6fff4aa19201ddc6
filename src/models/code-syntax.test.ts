/**
 * Parsing with the real grammars (from node_modules) and the code graph built on it: one small
 * hand-written repository per supported language. Each defines `helper` (or `Helper`) in two
 * files, and the caller must reach the one it imports, not the other (so neither uniqueness nor
 * chance resolves it); strengths along the call are the paper's weights.
 */
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCodeGraph, type CodeGraph } from '../core/code/graph';
import { pathStrength } from '../core/code/dijkstra';
import { layoutRepository, fileText } from '../core/code/layout';
import type { FileSyntax } from '../core/code/syntax';
import { CodeParser, parseRepository } from './code-syntax';
import { nodeGrammarSource } from './tree-sitter-node';

const parser = new CodeParser(nodeGrammarSource(path.resolve('node_modules')));

interface Repo {
  graph: CodeGraph;
  syntax: Map<string, FileSyntax | null>;
}

async function repository(files: Record<string, string>): Promise<Repo> {
  const list = Object.entries(files).map(([p, text]) => ({ path: p, text }));
  const layout = layoutRepository(list);
  const texts = list.map((f, k) => ({ path: f.path, text: fileText(layout, k) }));
  const parsed = await parseRepository(texts, parser);
  expect(parsed.problems).toEqual([]);
  const code = texts.map((f, k) => ({ ...f, syntax: parsed.syntax[k] }));
  return { graph: buildCodeGraph(code), syntax: new Map(code.map((c) => [c.path, c.syntax])) };
}

/** Where the calls named `name` (as the graph names them) in file `from` lead. */
function callsTo(repo: Repo, from: string, name: string) {
  const { graph } = repo;
  return graph.nodes.flatMap((node, id) => {
    if (node.kind !== 'call' || node.name !== name || graph.files[node.file].path !== from)
      return [];
    const { target, rule } = graph.callTarget.get(id)!;
    const t = graph.nodes[target];
    return [{ id, target, path: graph.files[t.file].path, name: t.name, kind: t.kind, rule }];
  });
}

/** The single resolution of a call, with the weights along it checked. */
function expectCall(
  repo: Repo,
  from: string,
  name: string,
  to: { path: string; name: string; rule?: string },
) {
  const hits = callsTo(repo, from, name);
  expect(hits.length, `a resolved call ${name} in ${from}`).toBeGreaterThan(0);
  const hit = hits[0];
  expect({ path: hit.path, name: hit.name }).toEqual({ path: to.path, name: to.name });
  if (to.rule) expect(hit.rule).toBe(to.rule);
  const { graph } = repo;
  const adj = { ptr: graph.adjPtr, node: graph.adjNode, weight: graph.adjWeight };
  // Call site to callee: one call edge (0.8); enclosing node to callee: 0.5 x 0.8 = 0.4.
  expect(pathStrength(adj, hit.id, hit.target, 1e-3)).toBeCloseTo(0.8, 6);
  const caller = graph.nodes[hit.id].parent;
  if (caller !== hit.target)
    expect(pathStrength(adj, caller, hit.target, 1e-3)).toBeCloseTo(0.4, 6);
  return hit;
}

function expectUnresolved(repo: Repo, from: string, name: string) {
  expect(callsTo(repo, from, name)).toEqual([]);
}

function definitions(repo: Repo, file: string) {
  return (repo.syntax.get(file)?.definitions ?? []).map((d) => `${d.kind} ${d.name}`);
}

beforeAll(async () => {
  await parser.prepare([
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
});

describe('Python', () => {
  let repo: Repo;
  beforeAll(async () => {
    repo = await repository({
      'pkg/__init__.py': 'from .util import helper as exported_helper\n',
      'pkg/util.py': [
        'def helper(x):',
        '    return x + 1',
        '',
        '@decorated',
        'class Runner:',
        '    def run(self):',
        '        return self.step()',
        '',
        '    def step(self):',
        '        return helper(2)',
      ].join('\n'),
      'pkg/other.py': 'def helper(x):\n    return x * 2\n',
      'lib.py': 'def only_here():\n    pass\n',
      'main.py': [
        'import pkg.other as other',
        'from pkg.util import helper, Runner',
        'from pkg import exported_helper',
        'import numpy as np',
        'from math import floor',
        '',
        'def main():',
        '    helper(1)',
        '    other.helper(3)',
        '    Runner().run()',
        '    exported_helper(4)',
        '    np.sum([1])',
        '    floor(2.5)',
        '    only_here()',
      ].join('\n'),
      'docs/notes.md': '# Notes\n',
    });
  });

  it('extracts definitions (decorators included), calls and imports', () => {
    expect(definitions(repo, 'pkg/util.py')).toEqual([
      'function helper',
      'class Runner',
      'method run',
      'method step',
    ]);
    const runner = repo.syntax.get('pkg/util.py')!.definitions[1];
    expect(runner.startLine).toBe(3); // the decorator line
    const imports = repo.syntax.get('main.py')!.imports;
    expect(imports[0]).toMatchObject({ module: 'pkg.other', namespace: 'other' });
    expect(imports[1]).toMatchObject({
      module: 'pkg.util',
      names: [
        { name: 'helper', alias: 'helper' },
        { name: 'Runner', alias: 'Runner' },
      ],
    });
    expect(repo.syntax.get('docs/notes.md')).toBeNull();
  });

  it('resolves imported names to the imported module, not a same-named definition elsewhere', () => {
    expectCall(repo, 'main.py', 'helper', { path: 'pkg/util.py', name: 'helper', rule: 'import' });
    expectCall(repo, 'main.py', 'other.helper', {
      path: 'pkg/other.py',
      name: 'helper',
      rule: 'import',
    });
    expectCall(repo, 'main.py', 'Runner', { path: 'pkg/util.py', name: 'Runner', rule: 'import' });
  });

  it('follows re-exports, resolves self calls in the class and unique names last', () => {
    expectCall(repo, 'main.py', 'exported_helper', {
      path: 'pkg/util.py',
      name: 'helper',
      rule: 'import',
    });
    expectCall(repo, 'pkg/util.py', 'self.step', {
      path: 'pkg/util.py',
      name: 'step',
      rule: 'same-file',
    });
    expectCall(repo, 'pkg/util.py', 'helper', {
      path: 'pkg/util.py',
      name: 'helper',
      rule: 'same-file',
    });
    expectCall(repo, 'main.py', 'only_here', {
      path: 'lib.py',
      name: 'only_here',
      rule: 'unique-name',
    });
    // `Runner().run()`: the object is an expression; `run` is unique in the repository.
    expectCall(repo, 'main.py', 'run', { path: 'pkg/util.py', name: 'run', rule: 'unique-name' });
  });

  it('leaves external calls unresolved', () => {
    expectUnresolved(repo, 'main.py', 'np.sum');
    expectUnresolved(repo, 'main.py', 'floor');
  });
});

describe('JavaScript', () => {
  let repo: Repo;
  beforeAll(async () => {
    repo = await repository({
      'lib/util.js': 'function helper(x) { return x + 1; }\nmodule.exports = { helper };\n',
      'lib/other.js': [
        'export function helper(x) { return x * 2; }',
        'export default class Widget {',
        '  render() { return this.paint(); }',
        '  paint() { return helper(1); }',
        '}',
      ].join('\n'),
      'main.js': [
        "const { helper } = require('./lib/util');",
        "import Widget from './lib/other.js';",
        "import * as other from './lib/other';",
        "import lodash from 'lodash';",
        'const main = () => {',
        '  helper(1);',
        '  other.helper(2);',
        '  new Widget();',
        '  lodash.map([]);',
        '};',
      ].join('\n'),
    });
  });

  it('extracts functions, arrow functions, classes and methods', () => {
    expect(definitions(repo, 'main.js')).toEqual(['function main']);
    expect(definitions(repo, 'lib/other.js')).toEqual([
      'function helper',
      'class Widget',
      'method render',
      'method paint',
    ]);
    expect(repo.syntax.get('lib/other.js')!.defaultExport).toBe('Widget');
  });

  it('resolves require, named, namespace and default imports', () => {
    expectCall(repo, 'main.js', 'helper', { path: 'lib/util.js', name: 'helper', rule: 'import' });
    expectCall(repo, 'main.js', 'other.helper', {
      path: 'lib/other.js',
      name: 'helper',
      rule: 'import',
    });
    expectCall(repo, 'main.js', 'Widget', { path: 'lib/other.js', name: 'Widget', rule: 'import' });
    expectCall(repo, 'lib/other.js', 'this.paint', {
      path: 'lib/other.js',
      name: 'paint',
      rule: 'same-file',
    });
    expectUnresolved(repo, 'main.js', 'lodash.map');
  });
});

describe('TypeScript', () => {
  let repo: Repo;
  beforeAll(async () => {
    repo = await repository({
      'src/util.ts': 'export function helper(x: number): number {\n  return x + 1;\n}\n',
      'src/other.ts': 'export function helper(x: number): number {\n  return x * 2;\n}\n',
      'src/index.ts': "export * from './util';\n",
      'src/main.ts': [
        "import { helper } from './index.js';",
        "import { helper as otherHelper } from './other';",
        'export interface Startable { start(): void }',
        'export class App implements Startable {',
        '  start(): void {',
        '    helper(1);',
        '    otherHelper(2);',
        '    this.stop();',
        '  }',
        '  stop(): void {}',
        '}',
      ].join('\n'),
    });
  });

  it('extracts classes, methods and interfaces', () => {
    expect(definitions(repo, 'src/main.ts')).toEqual([
      'interface Startable',
      'class App',
      'method start',
      'method stop',
    ]);
  });

  it('resolves through a barrel re-export and through aliases', () => {
    expectCall(repo, 'src/main.ts', 'helper', {
      path: 'src/util.ts',
      name: 'helper',
      rule: 'import',
    });
    expectCall(repo, 'src/main.ts', 'otherHelper', {
      path: 'src/other.ts',
      name: 'helper',
      rule: 'import',
    });
    expectCall(repo, 'src/main.ts', 'this.stop', {
      path: 'src/main.ts',
      name: 'stop',
      rule: 'same-file',
    });
  });
});

describe('TSX', () => {
  let repo: Repo;
  beforeAll(async () => {
    repo = await repository({
      'src/Button.tsx': [
        'export function format(s: string) { return s.trim(); }',
        'export function Button(props: { label: string }) {',
        '  return <button>{format(props.label)}</button>;',
        '}',
      ].join('\n'),
      'src/other.tsx': 'export function format(s: string) { return s; }\n',
      'src/App.tsx': [
        "import { Button } from './Button';",
        "import * as Other from './other';",
        'export default function App() {',
        '  return <div><Button label={Other.format("x")} /></div>;',
        '}',
      ].join('\n'),
    });
  });

  it('resolves JSX components and namespace imports', () => {
    expect(repo.syntax.get('src/App.tsx')!.defaultExport).toBe('App');
    expectCall(repo, 'src/App.tsx', 'Button', {
      path: 'src/Button.tsx',
      name: 'Button',
      rule: 'import',
    });
    expectCall(repo, 'src/App.tsx', 'Other.format', {
      path: 'src/other.tsx',
      name: 'format',
      rule: 'import',
    });
    expectCall(repo, 'src/Button.tsx', 'format', {
      path: 'src/Button.tsx',
      name: 'format',
      rule: 'same-file',
    });
  });
});

describe('Java', () => {
  let repo: Repo;
  const base = 'src/main/java/com/ex';
  beforeAll(async () => {
    repo = await repository({
      [`${base}/util/Util.java`]:
        'package com.ex.util;\npublic class Util {\n  public static int helper(int x) { return x + 1; }\n}\n',
      [`${base}/other/Other.java`]:
        'package com.ex.other;\npublic class Other {\n  public static int helper(int x) { return x * 2; }\n}\n',
      [`${base}/app/Peer.java`]:
        'package com.ex.app;\nclass Peer {\n  static void assist() {}\n}\n',
      [`${base}/app/Main.java`]: [
        'package com.ex.app;',
        'import com.ex.util.Util;',
        'import static com.ex.other.Other.helper;',
        'import java.util.List;',
        'public class Main {',
        '  public void run() {',
        '    Util.helper(1);',
        '    helper(2);',
        '    Peer.assist();',
        '    new Util();',
        '    List.of();',
        '  }',
        '}',
      ].join('\n'),
    });
  });

  it('extracts classes and methods', () => {
    expect(definitions(repo, `${base}/app/Main.java`)).toEqual(['class Main', 'method run']);
  });

  it('resolves class imports, static imports and the same package', () => {
    const main = `${base}/app/Main.java`;
    expectCall(repo, main, 'Util.helper', {
      path: `${base}/util/Util.java`,
      name: 'helper',
      rule: 'import',
    });
    expectCall(repo, main, 'helper', {
      path: `${base}/other/Other.java`,
      name: 'helper',
      rule: 'import',
    });
    expectCall(repo, main, 'Peer.assist', {
      path: `${base}/app/Peer.java`,
      name: 'assist',
      rule: 'package',
    });
    expectCall(repo, main, 'Util', {
      path: `${base}/util/Util.java`,
      name: 'Util',
      rule: 'import',
    });
    expectUnresolved(repo, main, 'List.of');
  });
});

describe('Go', () => {
  let repo: Repo;
  beforeAll(async () => {
    repo = await repository({
      'go.mod': 'module example.com/proj\n',
      'util/util.go': 'package util\n\nfunc Helper(x int) int { return x + 1 }\n',
      'other/other.go': 'package other\n\nfunc Helper(x int) int { return x * 2 }\n',
      'local.go':
        'package main\n\ntype Server struct{}\n\nfunc (s *Server) Serve() {}\n\nfunc local() {}\n',
      'main.go': [
        'package main',
        '',
        'import (',
        '\t"fmt"',
        '\t"example.com/proj/util"',
        '\to "example.com/proj/other"',
        ')',
        '',
        'func main() {',
        '\tutil.Helper(1)',
        '\to.Helper(2)',
        '\tfmt.Println()',
        '\tlocal()',
        '}',
      ].join('\n'),
    });
  });

  it('extracts functions, methods with their receiver type, and types', () => {
    const defs = repo.syntax.get('local.go')!.definitions.map((d) => [d.kind, d.name, d.owner]);
    expect(defs).toEqual([
      ['struct', 'Server', ''],
      ['method', 'Serve', 'Server'],
      ['function', 'local', ''],
    ]);
  });

  it('resolves package imports (aliased too) and the package itself', () => {
    expectCall(repo, 'main.go', 'util.Helper', {
      path: 'util/util.go',
      name: 'Helper',
      rule: 'import',
    });
    expectCall(repo, 'main.go', 'o.Helper', {
      path: 'other/other.go',
      name: 'Helper',
      rule: 'import',
    });
    expectCall(repo, 'main.go', 'local', { path: 'local.go', name: 'local', rule: 'package' });
    expectUnresolved(repo, 'main.go', 'fmt.Println');
  });
});

describe('Rust', () => {
  let repo: Repo;
  beforeAll(async () => {
    repo = await repository({
      'src/lib.rs': 'pub mod util;\npub mod other;\npub mod app;\n',
      'src/util.rs': [
        'pub fn helper(x: i32) -> i32 { x + 1 }',
        'pub struct Counter { n: i32 }',
        'impl Counter {',
        '    pub fn new() -> Self { Counter { n: 0 } }',
        '    pub fn bump(&mut self) { self.n = helper(self.n); }',
        '}',
      ].join('\n'),
      'src/other.rs': 'pub fn helper(x: i32) -> i32 { x * 2 }\n',
      'src/app.rs': [
        'use crate::util::{helper, Counter};',
        'use crate::other;',
        'use std::collections::HashMap;',
        'pub fn run() {',
        '    helper(1);',
        '    other::helper(2);',
        '    let mut c = Counter::new();',
        '    c.bump();',
        '    HashMap::new();',
        '}',
      ].join('\n'),
    });
  });

  it('extracts functions, structs, impl blocks and their methods', () => {
    expect(definitions(repo, 'src/util.rs')).toEqual([
      'function helper',
      'struct Counter',
      'impl Counter',
      'method new',
      'method bump',
    ]);
  });

  it('resolves use declarations, module paths and associated functions', () => {
    expectCall(repo, 'src/app.rs', 'helper', {
      path: 'src/util.rs',
      name: 'helper',
      rule: 'import',
    });
    expectCall(repo, 'src/app.rs', 'other::helper', {
      path: 'src/other.rs',
      name: 'helper',
      rule: 'import',
    });
    expectCall(repo, 'src/app.rs', 'Counter::new', {
      path: 'src/util.rs',
      name: 'new',
      rule: 'import',
    });
    expectCall(repo, 'src/util.rs', 'helper', {
      path: 'src/util.rs',
      name: 'helper',
      rule: 'same-file',
    });
    expectUnresolved(repo, 'src/app.rs', 'HashMap::new');
  });
});

describe('C', () => {
  let repo: Repo;
  beforeAll(async () => {
    repo = await repository({
      'include/util.h': 'int helper(int x);\n',
      'src/util.c': '#include "util.h"\nint helper(int x) { return x + 1; }\n',
      'src/other.c':
        'static int helper(int x) { return x * 2; }\nint other_entry(void) { return helper(3); }\n',
      'src/main.c': [
        '#include <stdio.h>',
        '#include "../include/util.h"',
        'int main(void) {',
        '  printf("%d", helper(1) + other_entry());',
        '  return 0;',
        '}',
      ].join('\n'),
    });
  });

  it('keeps function definitions, not prototypes', () => {
    expect(definitions(repo, 'include/util.h')).toEqual([]);
    expect(definitions(repo, 'src/util.c')).toEqual(['function helper']);
  });

  it('resolves through the included header to its implementation file', () => {
    expectCall(repo, 'src/main.c', 'helper', {
      path: 'src/util.c',
      name: 'helper',
      rule: 'import',
    });
    expectCall(repo, 'src/main.c', 'other_entry', {
      path: 'src/other.c',
      name: 'other_entry',
      rule: 'unique-name',
    });
    expectCall(repo, 'src/other.c', 'helper', {
      path: 'src/other.c',
      name: 'helper',
      rule: 'same-file',
    });
    expectUnresolved(repo, 'src/main.c', 'printf');
  });
});

describe('C++', () => {
  let repo: Repo;
  beforeAll(async () => {
    repo = await repository({
      'geom/shape.hpp': [
        'namespace geom {',
        'class Shape {',
        ' public:',
        '  double area() const;',
        '  static Shape unit();',
        '};',
        'double scale(double x);',
        '}',
      ].join('\n'),
      'geom/shape.cpp': [
        '#include "shape.hpp"',
        'namespace geom {',
        'double Shape::area() const { return scale(2.0); }',
        'Shape Shape::unit() { return Shape(); }',
        'double scale(double x) { return x * 2; }',
        '}',
      ].join('\n'),
      'other/scale.cpp': 'double scale(double x) { return x / 2; }\n',
      'app/main.cpp': [
        '#include "../geom/shape.hpp"',
        'int main() {',
        '  geom::Shape s = geom::Shape::unit();',
        '  double a = s.area();',
        '  return (int) geom::scale(a);',
        '}',
      ].join('\n'),
    });
  });

  it('extracts namespaces, classes and out-of-class methods with their owner', () => {
    const defs = repo.syntax
      .get('geom/shape.cpp')!
      .definitions.map((d) => [d.kind, d.name, d.owner]);
    expect(defs).toEqual([
      ['namespace', 'geom', ''],
      ['function', 'area', 'Shape'],
      ['function', 'unit', 'Shape'],
      ['function', 'scale', ''],
    ]);
  });

  it('resolves qualified calls through namespaces and classes', () => {
    expectCall(repo, 'app/main.cpp', 'geom::Shape::unit', {
      path: 'geom/shape.cpp',
      name: 'unit',
      rule: 'import',
    });
    expectCall(repo, 'app/main.cpp', 'geom::scale', {
      path: 'geom/shape.cpp',
      name: 'scale',
      rule: 'import',
    });
    expectCall(repo, 'geom/shape.cpp', 'scale', {
      path: 'geom/shape.cpp',
      name: 'scale',
      rule: 'same-file',
    });
  });
});

describe('parsing problems', () => {
  it('keeps going past files with syntax errors, marking them', async () => {
    const out = await parseRepository(
      [
        { path: 'bad.py', text: 'def broken(:\n    pass\ndef fine():\n    return 1\n' },
        { path: 'notes.txt', text: 'plain\n' },
      ],
      parser,
    );
    expect(out.problems).toEqual([]);
    expect(out.syntax[0]!.hasErrors).toBe(true);
    expect(out.syntax[0]!.definitions.map((d) => d.name)).toContain('fine');
    expect(out.syntax[1]).toBeNull();
  });

  it('reports a grammar that cannot be loaded as a problem, not a crash', async () => {
    const broken = new CodeParser({ grammar: () => '/nonexistent/tree-sitter-python.wasm' });
    const out = await parseRepository([{ path: 'a.py', text: 'x = 1\n' }], broken);
    expect(out.syntax).toEqual([null]);
    expect(out.problems[0].message).toMatch(/Python grammar could not be loaded.*line windows/);
  });

  it('lists identifier uses when asked (for the benchmark), marking the ones that bind', async () => {
    const text = [
      'import numpy as np',
      'def f(x, *rest, scale=2):',
      '    y, z = helper(x), 1',
      '    for k in rest:',
      '        total = np.sum(k, axis=y)',
      '    return Model(train=z)',
    ].join('\n');
    const s = await parser.parse('a.py', text, { references: true });
    const show = (binding: boolean) =>
      s!
        .references!.filter((r) => r.binding === binding && r.startLine > 0)
        .map((r) => (r.qualifier ? `${r.qualifier}.${r.name}` : r.name));
    expect(show(true)).toEqual([
      'f',
      'x',
      'rest',
      'scale',
      'y',
      'z',
      'k',
      'total',
      'axis',
      'train',
    ]);
    expect(show(false)).toEqual(['helper', 'x', 'rest', 'np', 'np.sum', 'k', 'y', 'Model', 'z']);
  });
});
