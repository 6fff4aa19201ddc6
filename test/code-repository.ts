/**
 * @file A real repository for tests: TypeScript files of this project read from disk, laid out and
 * parsed with tree-sitter exactly as the index worker does (layout first, so each file's text is
 * the laid-out one), with its code graph, 20-line windows and their cover.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { coverWindows, type WindowCover } from '../src/core/code/cover';
import { buildCodeGraph, type CodeFile, type CodeGraph } from '../src/core/code/graph';
import { fileText, layoutRepository, repositoryWindows } from '../src/core/code/layout';
import { windowReferenceCounts } from '../src/core/code/references';
import { windowScopeNames } from '../src/core/code/scopes';
import { summaryCodeRelationMatrix } from '../src/core/code/summary';
import { embedTexts, type StaticModel } from '../src/core/embed/static';
import { buildRun, type Run, type RunDocumentIndex } from '../src/core/run';
import { ingestRepositoryFolder } from '../src/ingest/repo';
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

/**
 * Lay `raw` out, parse each file's laid-out text, and build the graph, windows and cover.
 * `reshape` may change the parsed files first (a bench trying another reading of them).
 */
export async function laidOutRepository(
  raw: readonly { path: string; text: string }[],
  parser = new CodeParser(nodeGrammarSource(path.resolve('node_modules'))),
  docId = 'repo',
  reshape: (files: CodeFile[]) => CodeFile[] = (files) => files,
): Promise<ParsedRepository> {
  const layout = layoutRepository(raw.map((f) => ({ ...f, syntax: null })));
  const parsed: CodeFile[] = [];
  for (let k = 0; k < raw.length; k++) {
    const text = fileText(layout, k);
    parsed.push({ path: raw[k].path, text, syntax: await parser.parse(raw[k].path, text) });
  }
  const files = reshape(parsed);
  const graph = buildCodeGraph(files);
  const { fragments, windows } = repositoryWindows(docId, layoutRepository(files));
  const cover = coverWindows(
    graph,
    files.map((f) => f.text),
    windows,
  );
  return { layout, files, graph, windows, fragments, cover };
}

/**
 * A folder on disk as a folder drop hands it to the app: every file under `dir` in name order, as
 * `name/relative path`. `exclude` leaves out relative paths ending in an entry, or under an entry
 * that ends in "/".
 */
export function folderEntries(
  dir: string,
  name: string,
  exclude: readonly string[] = [],
): { path: string; file: Blob }[] {
  const entries: { path: string; file: Blob }[] = [];
  const walk = (d: string) => {
    for (const child of readdirSync(d).sort()) {
      const full = path.join(d, child);
      const rel = path.relative(dir, full);
      if (exclude.some((x) => (x.endsWith('/') ? `${rel}/`.startsWith(x) : rel.endsWith(x))))
        continue;
      if (statSync(full).isDirectory()) walk(full);
      else entries.push({ path: `${name}/${rel}`, file: new Blob([readFileSync(full)]) });
    }
  };
  walk(dir);
  return entries;
}

/**
 * A folder on disk read as a dropped folder is (ingestRepositoryFolder), laid out and parsed
 * (`reshape` as in laidOutRepository).
 */
export async function droppedRepository(
  dir: string,
  name: string,
  exclude: readonly string[] = [],
  reshape?: (files: CodeFile[]) => CodeFile[],
): Promise<ParsedRepository> {
  const ingested = await ingestRepositoryFolder(name, folderEntries(dir, name, exclude));
  if (!ingested.ok) throw new Error(ingested.error.message);
  const doc = ingested.document;
  return laidOutRepository(
    doc.files.map((f) => ({ path: f.path, text: doc.text.slice(f.start, f.end) })),
    undefined,
    name,
    reshape,
  );
}

/**
 * One parsed repository as the index worker stores it for retrieval: its windows, Eq. 8's
 * summarised code relation, the windows' reference counts and scope names and, given a `model`,
 * the static vectors of its windows.
 */
export function repositoryDocument(
  docId: string,
  repo: ParsedRepository,
  model?: StaticModel,
  name = docId,
): RunDocumentIndex {
  return {
    docId,
    name,
    source: repo.layout.text,
    starts: Uint32Array.from(repo.fragments, (f) => f.start),
    ends: Uint32Array.from(repo.fragments, (f) => f.end),
    words: Uint32Array.from(repo.fragments, (f) => f.words ?? 0),
    labels: repo.fragments.map((f) => f.label ?? ''),
    code: summaryCodeRelationMatrix(repo.graph, repo.cover),
    codeReferences: windowReferenceCounts(repo.files, repo.windows, repo.graph),
    codeScopes: windowScopeNames(repo.graph, repo.cover),
    ...(model
      ? {
          vectors: embedTexts(
            model,
            repo.fragments.map((f) => repo.layout.text.slice(f.start, f.end)),
          ),
        }
      : {}),
  };
}

/** The retrieval run of one parsed repository with the static vectors of `model`. */
export function repositoryRun(docId: string, repo: ParsedRepository, model: StaticModel): Run {
  return buildRun([repositoryDocument(docId, repo, model)]);
}
