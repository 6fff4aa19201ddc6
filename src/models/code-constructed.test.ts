/**
 * A method called on a local variable whose type is not written (`range.test(v)` after
 * `range = new Range(r)`) resolves to the member of the class the same function constructs
 * (core/code/resolve.ts), with the real grammars: in a small repository per language where the
 * method's name is defined twice (so the repository-wide unique-name rule cannot resolve it), and
 * in semver 7 as npm ships it, where `satisfies()` calls `range.test(version)`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCodeGraph, type CodeGraph } from '../core/code/graph';
import { fileText, layoutRepository } from '../core/code/layout';
import { CodeParser, parseRepository } from './code-syntax';
import { nodeGrammarSource } from './tree-sitter-node';

const parser = new CodeParser(nodeGrammarSource(path.resolve('node_modules')));

beforeAll(async () => {
  await parser.prepare(['python', 'javascript']);
});

async function graphOf(files: Record<string, string>): Promise<CodeGraph> {
  const list = Object.entries(files).map(([p, text]) => ({ path: p, text }));
  const layout = layoutRepository(list);
  const texts = list.map((f, k) => ({ path: f.path, text: fileText(layout, k) }));
  const parsed = await parseRepository(texts, parser);
  expect(parsed.problems).toEqual([]);
  return buildCodeGraph(texts.map((f, k) => ({ ...f, syntax: parsed.syntax[k] })));
}

/** Where each call named `name` (as the graph names it) in file `from` leads: `path#Owner.name`. */
function targets(graph: CodeGraph, from: string, name: string): string[] {
  return graph.nodes.flatMap((node, id) => {
    if (node.kind !== 'call' || node.name !== name || graph.files[node.file].path !== from)
      return [];
    const hit = graph.callTarget.get(id);
    if (!hit) return ['unresolved'];
    const t = graph.nodes[hit.target];
    const owner = t.parent >= 0 ? graph.nodes[t.parent].name : '';
    return [`${graph.files[t.file].path}#${owner}.${t.name}`];
  });
}

describe('a method on an object the same function constructs', () => {
  it('JavaScript: resolves to the constructed class, and only when one class fits', async () => {
    const graph = await graphOf({
      'range.js': 'class Range {\n  test(v) { return v > 0; }\n}\nmodule.exports = Range;\n',
      'comparator.js':
        'class Comparator {\n  test(v) { return v < 0; }\n}\nmodule.exports = Comparator;\n',
      'main.js': [
        "const Range = require('./range');",
        "const Comparator = require('./comparator');",
        'function satisfies(version, range) {',
        '  range = new Range(range);',
        '  return range.test(version);',
        '}',
        'function both(a, b) {',
        '  const r = new Range(a);',
        '  const c = new Comparator(b);',
        '  return x.test(a);',
        '}',
        'function none(x) {',
        '  return x.test(1);',
        '}',
      ].join('\n'),
    });
    // `range.test` in satisfies: Range is the only class constructed there with a `test`.
    // In both(): two constructed classes define `test`, so no guess; in none(): nothing to go by.
    expect(targets(graph, 'main.js', 'range.test')).toEqual(['range.js#Range.test']);
    expect(targets(graph, 'main.js', 'x.test')).toEqual([]);
  });

  it('Python: `p = Parser(); p.parse()` reaches Parser.parse, not Lexer.parse', async () => {
    const graph = await graphOf({
      'pkg/parser.py': 'class Parser:\n    def parse(self, text):\n        return text\n',
      'pkg/lexer.py': 'class Lexer:\n    def parse(self, text):\n        return []\n',
      'pkg/main.py': [
        'from pkg.parser import Parser',
        'from pkg.lexer import Lexer',
        '',
        'def run(text):',
        '    p = Parser()',
        '    return p.parse(text)',
        '',
        'def other(text, q):',
        '    return q.parse(text)',
      ].join('\n'),
    });
    expect(targets(graph, 'pkg/main.py', 'p.parse')).toEqual(['pkg/parser.py#Parser.parse']);
    expect(targets(graph, 'pkg/main.py', 'q.parse')).toEqual([]);
  });

  it('semver 7: satisfies() calls Range.test, which classes/range.js defines', async () => {
    const root = path.resolve(
      'node_modules/@typescript-eslint/typescript-estree/node_modules/semver',
    );
    const files: Record<string, string> = {};
    const walk = (dir: string) => {
      for (const name of readdirSync(dir).sort()) {
        const full = path.join(dir, name);
        if (statSync(full).isDirectory()) walk(full);
        else if (name.endsWith('.js'))
          files[path.relative(root, full)] = readFileSync(full, 'utf8');
      }
    };
    walk(root);
    expect(Object.keys(files)).toContain('classes/range.js');
    const graph = await graphOf(files);
    expect(targets(graph, 'functions/satisfies.js', 'range.test')).toEqual([
      'classes/range.js#Range.test',
    ]);
  });
});
