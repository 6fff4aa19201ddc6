import { describe, expect, it } from 'vitest';
import { coverWindows } from '../../src/core/code/cover';
import { buildCodeGraph } from '../../src/core/code/graph';
import { layoutRepository, repositoryWindows } from '../../src/core/code/layout';
import { tokenize } from '../../src/core/tokenize';
import {
  markdownSections,
  powerWeights,
  scopeNameTokens,
  withMarkdownSections,
} from './code-candidates';

describe('candidates for the semver question', () => {
  it('reads a Markdown heading tree, skipping fenced code', () => {
    const text = [
      '# Title', // 0
      'intro',
      '## Install', // 2
      '```sh',
      '# not a heading',
      '```',
      '## Usage', // 6
      '### Ranges', // 7
      'text',
    ].join('\n');
    const s = markdownSections(text);
    expect(s.map((d) => [d.name, d.startLine, d.endLine, d.parent])).toEqual([
      ['# # Title', 0, 8, -1],
      ['# ## Install', 2, 5, 0],
      ['# ## Usage', 6, 8, 0],
      ['# ### Ranges', 7, 8, 2],
    ]);
    expect(text.slice(s[1].start, s[1].end)).toBe('## Install\n```sh\n# not a heading\n```\n');
  });

  it('covers a README by its sections, so Eq. 8 no longer relates all its windows through the file', () => {
    const lines = (n: number, w: string) => Array.from({ length: n }, (_, k) => `${w} ${k}`);
    const readme = ['# A', ...lines(29, 'a'), '# B', ...lines(29, 'b')].join('\n');
    const files = withMarkdownSections([
      { path: 'README.md', text: readme, syntax: null },
      { path: 'notes.txt', text: 'x', syntax: null },
    ]);
    expect(files[0].syntax?.definitions.map((d) => d.name)).toEqual(['# # A', '# # B']);
    expect(files[1].syntax).toBeNull();
    const graph = buildCodeGraph(files);
    const { windows } = repositoryWindows('r', layoutRepository(files));
    const cover = coverWindows(
      graph,
      files.map((f) => f.text),
      windows,
    );
    const owners = (i: number) =>
      Array.from(
        cover.windowNode.subarray(cover.windowPtr[i], cover.windowPtr[i + 1]),
        (v) => graph.nodes[v].name,
      );
    expect(owners(0)).toEqual(['# # A']);
    expect(owners(4)).toEqual(['# # B']);
  });

  it('adds the names of the enclosing definitions to a window inside a method', () => {
    const text = ['class Range {', '  test(version) {', '    return version > 0;', '  }', '}'].join(
      '\n',
    );
    const graph = {
      nodes: [
        { kind: 'file', name: 'range.js', file: 0, parent: -1 },
        { kind: 'root', name: 'range.js', file: 0, parent: 0 },
        { kind: 'class', name: 'Range', file: 0, parent: 1 },
        { kind: 'method', name: 'test', file: 0, parent: 2 },
        { kind: 'call', name: 'check', file: 0, parent: 3 },
      ],
    } as unknown as Parameters<typeof scopeNameTokens>[1];
    const cover = {
      windowPtr: Uint32Array.from([0, 2]),
      windowNode: Uint32Array.from([3, 4]),
    } as unknown as Parameters<typeof scopeNameTokens>[2];
    const [tokens] = scopeNameTokens([tokenize(text)], graph, cover);
    // The method and its class, once each; a call's name is not a scope.
    expect(tokens.slice(tokenize(text).length)).toEqual(['test', 'range']);
  });

  it('raises the walk weights to a power, keeping the pattern', () => {
    const m = {
      size: 2,
      rowPtr: Uint32Array.from([0, 1, 2]),
      col: Uint32Array.from([1, 0]),
      weight: Float32Array.from([0.5, 0.25]),
    };
    expect(Array.from(powerWeights(m, 2).weight)).toEqual([0.25, 0.0625]);
    expect(powerWeights(m, 1)).toBe(m);
  });
});
