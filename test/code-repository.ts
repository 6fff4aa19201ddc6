/**
 * @file A real repository for tests: TypeScript files of this project read from disk, laid out and
 * parsed with tree-sitter exactly as the index worker does (layout first, so each file's text is
 * the laid-out one), with its code graph, 20-line windows and their cover.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { coverWindows, type WindowCover } from '../src/core/code/cover';
import { buildCodeGraph, type CodeFile, type CodeGraph } from '../src/core/code/graph';
import { fileText, layoutRepository, repositoryWindows } from '../src/core/code/layout';
import { CodeParser } from '../src/models/code-syntax';
import { nodeGrammarSource } from '../src/models/tree-sitter-node';

/**
 * The `.ts` files of `folders` (relative to the repository root) in name order, as
 * `prefix(folder)/name`; test files left out unless `includeTests`.
 */
export function sourceFiles(
  folders: readonly string[],
  { prefix = (f: string) => f, includeTests = false } = {},
): CodeFile[] {
  const files: CodeFile[] = [];
  for (const folder of folders) {
    const dir = path.resolve(folder);
    for (const name of readdirSync(dir).sort()) {
      if (!name.endsWith('.ts') || (!includeTests && name.endsWith('.test.ts'))) continue;
      files.push({
        path: `${prefix(folder)}/${name}`,
        text: readFileSync(path.join(dir, name), 'utf8'),
        syntax: null,
      });
    }
  }
  return files;
}

export interface ParsedRepository {
  layout: ReturnType<typeof layoutRepository>;
  files: CodeFile[];
  graph: CodeGraph;
  windows: ReturnType<typeof repositoryWindows>['windows'];
  fragments: ReturnType<typeof repositoryWindows>['fragments'];
  cover: WindowCover;
}

/** Lay `raw` out, parse each file's laid-out text, and build the graph, windows and cover. */
export async function laidOutRepository(
  raw: readonly { path: string; text: string }[],
  parser = new CodeParser(nodeGrammarSource(path.resolve('node_modules'))),
  docId = 'repo',
): Promise<ParsedRepository> {
  const layout = layoutRepository(raw.map((f) => ({ ...f, syntax: null })));
  const files: CodeFile[] = [];
  for (let k = 0; k < raw.length; k++) {
    const text = fileText(layout, k);
    files.push({ path: raw[k].path, text, syntax: await parser.parse(raw[k].path, text) });
  }
  const graph = buildCodeGraph(files);
  const { fragments, windows } = repositoryWindows(docId, layoutRepository(files));
  const cover = coverWindows(
    graph,
    files.map((f) => f.text),
    windows,
  );
  return { layout, files, graph, windows, fragments, cover };
}
