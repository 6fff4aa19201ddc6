import { describe, expect, it } from 'vitest';
import type { CodeFile, CodeGraph, CodeNode } from '../../src/core/code/graph';
import { windowIdentifierInputs } from './code-weights';

const node = (kind: CodeNode['kind'], name: string, file: number, startLine: number): CodeNode => ({
  kind,
  name,
  file,
  start: 0,
  end: 0,
  startLine,
  endLine: startLine + 1,
  parent: -1,
});

describe('RepoEval identifier inputs', () => {
  it('reads identifiers per window and the definitions starting in each window', () => {
    const files: CodeFile[] = [
      {
        path: 'a.py',
        text: 'def parse_config(path):\n    return load(path)\nclass Loader:\n    pass',
        syntax: null,
      },
    ];
    const windowLines = [
      { file: 0, first: 0, last: 1 },
      { file: 0, first: 2, last: 3 },
    ];
    // Only definition nodes count; a method's qualified name counts by its last part.
    const graph = {
      nodes: [
        node('file', 'a.py', 0, 0),
        node('function', 'parse_config', 0, 0),
        node('class', 'Loader', 0, 2),
        node('method', 'Loader.pass_through', 0, 3),
        node('call', 'load', 0, 1),
      ],
    } as unknown as CodeGraph;
    const { identifiers, defined } = windowIdentifierInputs(files, windowLines, graph);
    expect([...identifiers[0]].sort()).toEqual(['def', 'load', 'parse_config', 'path', 'return']);
    expect([...identifiers[1]].sort()).toEqual(['Loader', 'class', 'pass']);
    expect([...defined[0]]).toEqual(['parse_config']);
    expect([...defined[1]].sort()).toEqual(['Loader', 'pass_through']);
  });
});
