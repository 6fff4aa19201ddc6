/**
 * @file RepoEval function-level retrieval: does the code-structure relation (Eq. 8) pull
 * in the windows that define what the missing function body uses?
 *
 * Run: `npx tsx bench/repoeval.ts`. Reads ../shared/datasets/repoeval_function_level in place
 * (4 repositories, 213 tasks), writes bench/results/repoeval.json (REPOEVAL_OUT=<name>:
 * bench/results/<name>.json), prints a markdown table.
 *
 * Per repository: its files go through the app's folder ingest (ingestRepositoryFolder), are
 * parsed with tree-sitter (Node grammars) and laid out as one document; windows are 20 lines
 * sliding by 10 (splitCode).
 *
 * Per task (RepoCoder's setting, with our definitions):
 *   - Target: the function `function_name` whose definition holds line `lineno` (0-based, the
 *     first line of the ground truth) in its file. The prompt ends at `lineno`; the body from
 *     `lineno` to the function's last line is removed from the file before indexing ("exclude the
 *     target span from the index", as RepoCoder does), and the repository's graph, windows and
 *     relation are rebuilt with the shortened file. The cursor is then at line `lineno`.
 *   - Query: the last 20 lines of the prompt (RepoCoder's query is the last 20 lines before the
 *     cursor too), tokenised by the core tokenizer (identifiers split).
 *   - Excluded from the ranking: the windows of the target file that overlap the query lines or
 *     the cursor line, [lineno - 20, lineno] - they are the query itself ("the window holding the
 *     cursor"). They still count as neighbours in Eq. 9, like any text before the cursor.
 *   - Gold names: the identifiers of the removed body (tree-sitter identifiers, with `obj.attr`
 *     attributes qualified by their object) that resolve, by the code graph's call-resolution
 *     rules (src/core/code/resolve.ts), on the ORIGINAL repository, to a definition; minus the
 *     target function itself and definitions inside it. Identifiers that bind a name (parameters,
 *     assignment and loop targets, keyword-argument names) are not uses, and bare uses of a name
 *     bound anywhere in the target function are its locals, not repository names.
 *   - Gold windows: the windows (after the removal) overlapping a gold definition's lines,
 *     minus excluded windows. Tasks whose gold is empty are left out of the averages (counted).
 *   - Rankings: BM25 (k1 1.2, b 0.75, rescaled by the maximum: Eq. 4) and BM25 + code relation
 *     (Eq. 9-10 through the core's fragRelScores, alpha 0.5), both the default relation (the
 *     strongest 256 weights per window) and the exact one (all weights >= 1e-3).
 *   - Metrics at 10 windows: window recall (gold windows in the top 10 / gold windows), definition
 *     recall (gold definitions with at least one window in the top 10 / gold definitions), hit
 *     (some gold window in the top 10). Macro averages over tasks.
 * Build cost per repository (original files): parse, graph, cover and relation times, and the
 * memory retained by syntax + graph + cover + relation (JS heap plus ArrayBuffers, after a GC).
 *
 * Nothing here is tuned on these results: every setting is the paper's or DESIGN.md's default.
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import { bm25Scores, buildBm25Index, rescaleByMax } from '../src/core/bm25';
import { fragRelScores } from '../src/core/fragrel';
import { topK } from '../src/core/heap';
import { csrRelation } from '../src/core/relations/csr';
import { tokenize } from '../src/core/tokenize';
import type { CsrMatrix } from '../src/core/types';
import { coverWindows } from '../src/core/code/cover';
import { buildCodeGraph, type CodeFile } from '../src/core/code/graph';
import { layoutRepository, repositoryWindows, type CodeWindow } from '../src/core/code/layout';
import { defaultCodeRelationOptions } from '../src/core/code/options';
import { codeRelationMatrix } from '../src/core/code/relation';
import { summaryCodeRelationMatrix } from '../src/core/code/summary';
import {
  lineStarts,
  weightByReferences,
  windowLineRanges,
  windowReferenceCounts,
  walkWeights,
} from '../src/core/code/references';
import { windowScopeNames } from '../src/core/code/scopes';
import type { FileSyntax, SyntaxDefinition } from '../src/core/code/syntax';
import { pairedBootstrap, splitOf, type SplitPart } from '../src/core/eval';
import { loadRepoMiniLm, miniLmRepoTable } from './repoeval-minilm';
import { contextRelation } from '../src/core/relations/context';
import { pprGraph, pprRelation } from '../src/core/relations/ppr';
import { adaptiveAlpha } from '../src/core/retrieval/adaptive-alpha';
import { ingestRepositoryFolder } from '../src/ingest/repo';
import { CodeParser } from '../src/models/code-syntax';
import { nodeGrammarSource } from '../src/models/tree-sitter-node';
import { appDefaultScores, identifierIdeas, windowIdentifierInputs } from './quality/code-weights';
import {
  finalScores,
  powerWeights,
  scopeNameTokens,
  walkEnvironment,
  withMarkdownSections,
} from './quality/code-candidates';

const here = path.dirname(fileURLToPath(import.meta.url));
const DATA = path.resolve(here, '../../shared/datasets/repoeval_function_level');
const RESULTS = path.join(here, 'results');
const TOP = 10;
const QUERY_LINES = 20;
const ALPHA = 0.5;
const WINDOW = { windowLines: 20, windowStride: 10 };

interface Task {
  prompt: string;
  metadata: {
    task_id: string;
    ground_truth: string;
    fpath_tuple: string[];
    context_start_lineno: number;
    lineno: number;
    function_name: string;
  };
}

interface RepoFileRecord {
  repo: string;
  path: string;
  text: string;
}

function readJsonl<T>(file: string): T[] {
  return readFileSync(path.join(DATA, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);
}

const gc: () => void = (() => {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
})();

const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

/**
 * JS heap plus ArrayBuffers (typed arrays live outside the heap), after collecting garbage; V8
 * frees ArrayBuffer memory on a concurrent sweeper, hence the pauses.
 */
async function memoryUsed(): Promise<number> {
  for (let k = 0; k < 3; k++) {
    gc();
    await settle();
  }
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

interface Index {
  files: CodeFile[];
  windows: CodeWindow[];
  /** Per window: file and 0-based inclusive lines. */
  windowLines: { file: number; first: number; last: number }[];
  windowTokens: string[][];
}

function buildIndex(files: CodeFile[]): Index {
  const layout = layoutRepository(files);
  const { fragments, windows } = repositoryWindows('repo', layout, WINDOW);
  const windowLines = windowLineRanges(
    files.map((f) => f.text),
    windows,
  );
  const windowTokens = fragments.map((f) => tokenize(layout.text.slice(f.start, f.end)));
  return { files, windows, windowLines, windowTokens };
}

/** The innermost definition named `name` holding `line`. */
function targetDefinition(syntax: FileSyntax, name: string, line: number): number {
  let best = -1;
  syntax.definitions.forEach((d, k) => {
    if (d.name !== name || d.startLine > line || d.endLine < line) return;
    if (best < 0 || d.start >= syntax.definitions[best].start) best = k;
  });
  return best;
}

interface Ranked {
  windowRecall: number;
  definitionRecall: number;
  hit: number;
}

function rankAndScore(
  scores: Float64Array,
  excluded: Set<number>,
  goldWindows: Set<number>,
  goldByDefinition: Set<number>[],
): Ranked {
  const masked = Float64Array.from(scores);
  for (const i of excluded) masked[i] = -Infinity;
  const top = new Set(topK(masked, TOP));
  let found = 0;
  for (const w of goldWindows) if (top.has(w)) found++;
  const defsFound = goldByDefinition.filter((ws) => [...ws].some((w) => top.has(w))).length;
  return {
    windowRecall: found / goldWindows.size,
    definitionRecall: defsFound / goldByDefinition.length,
    hit: found > 0 ? 1 : 0,
  };
}

interface TaskResult {
  repo: string;
  task: string;
  file: string;
  functionName: string;
  removedLines: number;
  goldNames: string[];
  goldDefinitions: number;
  goldWindows: number;
  bm25: Ranked;
  code: Ranked;
  codeExact: Ranked;
  /** Issue 13's ideas on top of BM25 (the default code relation where one is used). */
  ideas: Record<string, Ranked>;
  split: SplitPart;
}

interface RepoResult {
  repo: string;
  files: number;
  parsedFiles: number;
  lines: number;
  windows: number;
  nodes: number;
  edges: number;
  definitions: number;
  calls: number;
  resolvedCalls: number;
  byRule: Record<string, number>;
  parseMs: number;
  graphMs: number;
  coverMs: number;
  relationMs: number;
  relationExactMs: number;
  relationNnz: number;
  relationExactNnz: number;
  /** Bytes of the stored relation (CSR: rowPtr, col, weight), default maxPerRow. */
  relationMB: number;
  retainedMB: number;
  /** Mean time to rebuild graph + windows + both relations for one task's shortened repository. */
  perTaskRebuildMs: number;
  tasks: number;
  tasksWithGold: number;
  skippedTasks: { task: string; why: string }[];
}

/**
 * Scale check outside RepoEval: the same build on a larger JavaScript repository that every
 * checkout has, eslint's own lib/ folder in node_modules (about 400 files, 100k lines).
 */
async function scaleCheck(parser: CodeParser) {
  const root = path.resolve(here, '../node_modules/eslint/lib');
  const entries: { path: string; file: Blob }[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else entries.push({ path: path.relative(root, full), file: new Blob([readFileSync(full)]) });
    }
  };
  walk(root);
  const ingested = await ingestRepositoryFolder('eslint-lib', entries);
  if (!ingested.ok) throw new Error(ingested.error.message);
  const doc = ingested.document;
  const texts = doc.files.map((f) => doc.text.slice(f.start, f.end));
  const before = await memoryUsed();
  let t = performance.now();
  const files: CodeFile[] = [];
  for (let k = 0; k < texts.length; k++) {
    files.push({
      path: doc.files[k].path,
      text: texts[k],
      syntax: await parser.parse(doc.files[k].path, texts[k]),
    });
  }
  const parseMs = performance.now() - t;
  t = performance.now();
  const graph = buildCodeGraph(files);
  const graphMs = performance.now() - t;
  const { windows } = repositoryWindows('eslint', layoutRepository(files), WINDOW);
  t = performance.now();
  const cover = coverWindows(graph, texts, windows);
  const coverMs = performance.now() - t;
  t = performance.now();
  const matrix = codeRelationMatrix(graph, cover);
  const relationMs = performance.now() - t;
  t = performance.now();
  const summary =
    process.env.REPOEVAL_SUMMARY === '1' ? summaryCodeRelationMatrix(graph, cover) : null;
  const relationSummaryMs = summary ? performance.now() - t : undefined;
  // Issue 13: what the index worker adds for the weighted default (core/code/references.ts).
  t = performance.now();
  windowReferenceCounts(files, windows, graph);
  const referencesMs = performance.now() - t;
  const after = await memoryUsed();
  return {
    repo: 'node_modules/eslint/lib (scale check, not RepoEval)',
    files: files.length,
    lines: texts.reduce((n, x) => n + lineStarts(x).length, 0),
    windows: windows.length,
    nodes: graph.nodes.length,
    resolvedCalls: graph.stats.resolvedCalls,
    calls: graph.stats.calls,
    parseMs,
    graphMs,
    coverMs,
    relationMs,
    relationSummaryMs,
    referencesMs,
    relationNnz: matrix.col.length,
    relationMB:
      (matrix.rowPtr.byteLength + matrix.col.byteLength + matrix.weight.byteLength) / 2 ** 20,
    retainedMB: (after - before) / 2 ** 20,
  };
}

/**
 * Memory retained by one repository's syntax + graph + cover + relation, measured on its own:
 * everything built here is still referenced when the second measurement is taken, and nothing
 * else is allocated in between.
 */
async function retainedMemory(
  parser: CodeParser,
  doc: { files: { path: string }[] },
  texts: string[],
) {
  const before = await memoryUsed();
  const files: CodeFile[] = [];
  for (let k = 0; k < texts.length; k++) {
    const syntax = await parser.parse(doc.files[k].path, texts[k]);
    files.push({ path: doc.files[k].path, text: texts[k], syntax });
  }
  const graph = buildCodeGraph(files);
  const { windows } = repositoryWindows('repo', layoutRepository(files), WINDOW);
  const cover = coverWindows(graph, texts, windows);
  const matrix = codeRelationMatrix(graph, cover);
  const after = await memoryUsed();
  // Uses the objects after the measurement, so none is collected before it.
  const alive = files.length + graph.nodes.length + cover.windows + matrix.size;
  return { mb: (after - before) / 2 ** 20, alive };
}

function mean(xs: number[]): number {
  return xs.length > 0 ? xs.reduce((a, b) => a + b, 0) / xs.length : 0;
}

async function main() {
  const tasks = readJsonl<Task>('function_level_completion_2k_context_codex.test.jsonl');
  const records = readJsonl<RepoFileRecord>('repo_files.jsonl');
  // REPOEVAL_REPOS=a,b restricts the run (its results go to repoeval-<repos>.json).
  const only = process.env.REPOEVAL_REPOS?.split(',').filter(Boolean);
  const repos = [...new Set(records.map((r) => r.repo))]
    .filter((r) => !only || only.includes(r))
    .sort();
  let appChecked = 0;
  let scopeMismatches = 0;
  const appMismatches: string[] = [];
  const parser = new CodeParser(nodeGrammarSource(path.resolve(here, '../node_modules')));
  await parser.prepare(['python']);
  // Issue 9: the real MiniLM as a further scorer (bench/repoeval-minilm.ts).
  const miniLm = process.env.QUALITY_EMBEDDER === 'minilm' ? await loadRepoMiniLm() : undefined;
  // Issue 16: the summarised Eq. 8 (src/core/code/summary.ts) beside the exact one, as ideas.
  const withSummary = process.env.REPOEVAL_SUMMARY === '1';
  // The semver question's candidates (BENCHMARKS.md, the semver section), against the app default.
  const withCandidates = process.env.REPOEVAL_CANDIDATES === '1';
  // Scope names stored per window, and alpha, against the squared walk (REPOEVAL_CANDIDATES=scope).
  const withScopeCandidates = process.env.REPOEVAL_CANDIDATES === 'scope';

  const repoResults: RepoResult[] = [];
  const taskResults: TaskResult[] = [];

  for (const repo of repos) {
    const repoTasks = tasks.filter((t) => t.metadata.fpath_tuple[0] === repo);
    if (repoTasks.length === 0) continue;
    process.stderr.write(`[repoeval] ${repo}: ${repoTasks.length} tasks\n`);

    // The app's ingest: normalised text, skip rules, layout.
    const ingested = await ingestRepositoryFolder(
      repo,
      records
        .filter((r) => r.repo === repo)
        .map((r) => ({ path: `${repo}/${r.path}`, file: new Blob([r.text]) })),
    );
    if (!ingested.ok) throw new Error(ingested.error.message);
    const doc = ingested.document;
    const texts = doc.files.map((f) => doc.text.slice(f.start, f.end));
    const pathIndex = new Map(doc.files.map((f, k) => [f.path, k]));

    // Build cost on the original repository: memory in isolation, then times.
    await parser.parse(doc.files[0].path, texts[0]); // tree-sitter's wasm memory grows once
    const retained = await retainedMemory(parser, doc, texts);
    let t = performance.now();
    const syntax: (FileSyntax | null)[] = [];
    for (let k = 0; k < texts.length; k++)
      syntax.push(await parser.parse(doc.files[k].path, texts[k]));
    const parseMs = performance.now() - t;
    const original: CodeFile[] = doc.files.map((f, k) => ({
      path: f.path,
      text: texts[k],
      syntax: syntax[k],
    }));
    t = performance.now();
    const graph = buildCodeGraph(original);
    const graphMs = performance.now() - t;
    const layout = layoutRepository(original);
    const { windows } = repositoryWindows('repo', layout, WINDOW);
    t = performance.now();
    const cover = coverWindows(graph, texts, windows);
    const coverMs = performance.now() - t;
    t = performance.now();
    const matrix = codeRelationMatrix(graph, cover);
    const relationMs = performance.now() - t;
    t = performance.now();
    const exact = codeRelationMatrix(graph, cover, { maxPerRow: Infinity });
    const relationExactMs = performance.now() - t;
    t = performance.now();
    if (withSummary) summaryCodeRelationMatrix(graph, cover);
    const relationSummaryMs = withSummary ? performance.now() - t : undefined;
    const result: RepoResult & { relationSummaryMs?: number } = {
      repo,
      files: doc.files.length,
      parsedFiles: graph.stats.parsedFiles,
      lines: texts.reduce((n, x) => n + lineStarts(x).length, 0),
      windows: windows.length,
      nodes: graph.nodes.length,
      edges: graph.stats.edges,
      definitions: graph.stats.definitions,
      calls: graph.stats.calls,
      resolvedCalls: graph.stats.resolvedCalls,
      byRule: graph.stats.byRule,
      parseMs,
      graphMs,
      coverMs,
      relationMs,
      relationExactMs,
      relationSummaryMs,
      relationNnz: matrix.col.length,
      relationExactNnz: exact.col.length,
      relationMB:
        (matrix.rowPtr.byteLength + matrix.col.byteLength + matrix.weight.byteLength) / 2 ** 20,
      retainedMB: retained.mb,
      perTaskRebuildMs: 0,
      tasks: repoTasks.length,
      tasksWithGold: 0,
      skippedTasks: [],
    };
    const rebuildTimes: number[] = [];
    // Identifier uses per file, on the original text (for gold names).
    const referenceCache = new Map<number, FileSyntax>();

    for (const task of repoTasks) {
      const m = task.metadata;
      const filePath = m.fpath_tuple.slice(1).join('/');
      const f = pathIndex.get(filePath);
      const fileSyntax = f === undefined ? null : syntax[f];
      if (f === undefined || !fileSyntax) {
        result.skippedTasks.push({
          task: m.task_id,
          why: `file ${filePath} not found or not parsed`,
        });
        continue;
      }
      const lines = texts[f].split('\n');
      const target = targetDefinition(fileSyntax, m.function_name, m.lineno);
      if (target < 0) {
        result.skippedTasks.push({
          task: m.task_id,
          why: `no definition ${m.function_name} at line ${m.lineno}`,
        });
        continue;
      }
      const def: SyntaxDefinition = fileSyntax.definitions[target];
      const bodyFirst = m.lineno;
      const bodyLast = def.endLine;
      const removed = bodyLast - bodyFirst + 1;

      // Gold: identifier uses of the removed body, resolved on the original repository.
      let refs = referenceCache.get(f);
      if (!refs) {
        refs = (await parser.parse(filePath, texts[f], { references: true }))!;
        referenceCache.set(f, refs);
      }
      // Names bound inside the target function (parameters, locals, keyword-argument names) are
      // not repository names, even where a definition elsewhere happens to share the name.
      const bound = new Set<string>();
      for (const r of refs.references ?? []) {
        if (r.binding && r.start >= def.start && r.end <= def.end) bound.add(r.name);
      }
      const goldDefs = new Map<string, { file: number; def: SyntaxDefinition; name: string }>();
      for (const r of refs.references ?? []) {
        if (r.startLine < bodyFirst || r.endLine > bodyLast) continue;
        if (r.binding || (r.qualifier === '' && bound.has(r.name))) continue;
        const hit = graph.resolver.resolve(f, r.name, r.qualifier, r.scope);
        if (!hit) continue;
        const d = original[hit.file].syntax!.definitions[hit.def];
        if (hit.file === f && d.start >= def.start && d.end <= def.end) continue; // the target or inside it
        goldDefs.set(`${hit.file}:${hit.def}`, { file: hit.file, def: d, name: r.name });
      }

      // The shortened repository: the body removed from the target file.
      t = performance.now();
      const shortened = [...lines.slice(0, bodyFirst), ...lines.slice(bodyLast + 1)].join('\n');
      const files = original.slice();
      files[f] = {
        path: filePath,
        text: shortened,
        syntax: await parser.parse(filePath, shortened),
      };
      const index = buildIndex(files);
      const g = buildCodeGraph(files);
      const c = coverWindows(
        g,
        files.map((x) => x.text),
        index.windows,
      );
      const rel = codeRelationMatrix(g, c);
      const relExact = codeRelationMatrix(g, c, { maxPerRow: Infinity });
      rebuildTimes.push(performance.now() - t);

      const mapLine = (line: number, isEnd: boolean) =>
        line < bodyFirst
          ? line
          : line > bodyLast
            ? line - removed
            : isEnd
              ? bodyFirst - 1
              : bodyFirst;
      const excluded = new Set<number>();
      index.windowLines.forEach((w, i) => {
        if (w.file === f && w.last >= bodyFirst - QUERY_LINES && w.first <= bodyFirst)
          excluded.add(i);
      });
      const goldWindows = new Set<number>();
      const goldByDefinition: Set<number>[] = [];
      for (const gd of goldDefs.values()) {
        const first = gd.file === f ? mapLine(gd.def.startLine, false) : gd.def.startLine;
        const last = gd.file === f ? mapLine(gd.def.endLine, true) : gd.def.endLine;
        const ws = new Set<number>();
        index.windowLines.forEach((w, i) => {
          if (w.file === gd.file && w.last >= first && w.first <= last && !excluded.has(i))
            ws.add(i);
        });
        if (ws.size === 0) continue;
        goldByDefinition.push(ws);
        for (const w of ws) goldWindows.add(w);
      }
      if (goldWindows.size === 0) {
        result.skippedTasks.push({
          task: m.task_id,
          why:
            goldDefs.size === 0
              ? 'the body uses no repository-defined name'
              : 'every gold window is among the excluded (query) windows',
        });
        continue;
      }
      result.tasksWithGold++;

      const promptLines = task.prompt.replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n');
      const query = tokenize(promptLines.slice(-QUERY_LINES).join('\n'));
      const bm25 = buildBm25Index(index.windowTokens);
      const independent = rescaleByMax(bm25Scores(bm25, query));
      const withCode = (m2: CsrMatrix) =>
        fragRelScores(independent, [csrRelation('code', m2)], { alpha: ALPHA }).final;
      // Issue 13's ideas, each against plain BM25 on the same task (the default code relation).
      const codeRel = csrRelation('code', rel);
      const segs = [0, independent.length];
      const ideaScores: Record<string, Float64Array> = {
        'code a0.25': fragRelScores(independent, [codeRel], { alpha: 0.25 }).final,
        'code a1': fragRelScores(independent, [codeRel], { alpha: 1 }).final,
        'code adaptive': fragRelScores(independent, [codeRel], {
          alpha: adaptiveAlpha(independent, 1).alpha,
        }).final,
        'code + context': fragRelScores(
          independent,
          [codeRel, contextRelation(Uint32Array.from(segs), 0.3)],
          { alpha: ALPHA },
        ).final,
        'ppr (code + context graph)': fragRelScores(
          independent,
          [pprRelation(pprGraph(segs, [rel], { radius: 2, wRel: 0.3 }))],
          { alpha: ALPHA },
        ).final,
        'ppr (code graph)': fragRelScores(
          independent,
          [pprRelation(pprGraph(segs, [rel], { radius: 0, wRel: 0 }))],
          { alpha: ALPHA },
        ).final,
        // Identifier weighting: bench/quality/code-weights.ts.
        ...identifierIdeas(
          independent,
          rel,
          windowIdentifierInputs(files, index.windowLines, g),
          ALPHA,
        ),
      };
      // Issue 13: the app's path to its code default must give the bench's scores, task by task.
      const app = appDefaultScores(independent, rel, files, index.windows, g, ALPHA);
      const bench = ideaScores['ppr (code graph) refs, walk w^2'];
      appChecked++;
      if (app.some((x, i) => x !== bench[i])) appMismatches.push(`${repo}:${m.task_id}`);
      // Candidates for the semver question (bench/quality/code-candidates.ts), each the app default
      // with one thing changed.
      if (withCandidates) {
        const refsW = windowReferenceCounts(files, index.windows, g);
        const walk = weightByReferences(rel, refsW);
        const envOf = (w: CsrMatrix, ind: Float64Array, seeds = ind) =>
          finalScores(ind, walkEnvironment(w, ind, seeds), ALPHA);
        const scoped = rescaleByMax(
          bm25Scores(buildBm25Index(scopeNameTokens(index.windowTokens, g, c)), query),
        );
        const parsedOnly = Float64Array.from(independent, (x, i) =>
          files[index.windows[i].file].syntax ? x : 0,
        );
        const mdFiles = withMarkdownSections(files);
        let sections = app;
        if (mdFiles.some((x, k) => x !== files[k])) {
          const gm = buildCodeGraph(mdFiles);
          const cm = coverWindows(
            gm,
            mdFiles.map((x) => x.text),
            index.windows,
          );
          const wm = weightByReferences(
            codeRelationMatrix(gm, cm),
            windowReferenceCounts(mdFiles, index.windows, gm),
          );
          sections = envOf(wm, independent);
        }
        Object.assign(ideaScores, {
          'candidate: Markdown sections': sections,
          'candidate: walk w^2': envOf(powerWeights(walk, 2), independent),
          'candidate: walk w^3': envOf(powerWeights(walk, 3), independent),
          'candidate: seeds from parsed files': envOf(walk, independent, parsedOnly),
          'candidate: scope names': envOf(walk, scoped),
          'candidate: scope names, walk w^2': envOf(powerWeights(walk, 2), scoped),
        });
      }
      if (withScopeCandidates) {
        // Each the squared walk (the default before scope names) with one thing changed; the
        // scope names as the index stores them (core/code/scopes.ts), read by BM25 with the text.
        const walk2 = walkWeights(rel, windowReferenceCounts(files, index.windows, g));
        const names = windowScopeNames(g, c);
        const scoped = rescaleByMax(
          bm25Scores(
            buildBm25Index(index.windowTokens.map((t, i) => [...t, ...tokenize(names[i])])),
            query,
          ),
        );
        const at = (ind: Float64Array, alpha: number) =>
          finalScores(ind, walkEnvironment(walk2, ind), alpha);
        // The candidates' path must give the default's scores with nothing changed.
        const same = at(independent, ALPHA);
        if (same.some((x, i) => Math.abs(x - bench[i]) > 1e-9)) scopeMismatches++;
        Object.assign(ideaScores, {
          'candidate: scope names': at(scoped, ALPHA),
          'candidate: scope names, alpha 0.75': at(scoped, 0.75),
          'candidate: scope names, alpha 1': at(scoped, 1),
          'candidate: scope names, alpha 1.5': at(scoped, 1.5),
          'candidate: scope names, alpha 2': at(scoped, 2),
          'candidate: alpha 0.75': at(independent, 0.75),
          'candidate: alpha 1': at(independent, 1),
        });
      }
      if (withSummary) {
        for (const [name, searchLimit] of [
          ['code summary (searchLimit 128, the default)', 128],
          ['code summary searchLimit 1024', 1024],
          ['code summary uncut', Infinity],
        ] as const) {
          const m2 = summaryCodeRelationMatrix(g, c, { searchLimit });
          ideaScores[name] = withCode(m2);
        }
      }
      if (miniLm) {
        Object.assign(
          ideaScores,
          await miniLm.ideas({
            windowTexts: index.windows.map((w) => files[w.file].text.slice(w.start, w.end)),
            queryText: promptLines.slice(-QUERY_LINES).join('\n'),
            bm25Raw: bm25Scores(bm25, query),
            code: codeRel,
            alpha: ALPHA,
          }),
        );
      }
      const ideas = Object.fromEntries(
        Object.entries(ideaScores).map(([k, v]) => [
          k,
          rankAndScore(v, excluded, goldWindows, goldByDefinition),
        ]),
      );
      taskResults.push({
        ideas,
        split: splitOf(`repoeval:${repo}:${m.task_id}:${taskResults.length}`),
        repo,
        task: `${m.task_id}#${taskResults.length}`,
        file: filePath,
        functionName: m.function_name,
        removedLines: removed,
        goldNames: [...goldDefs.values()].map((x) => x.name),
        goldDefinitions: goldByDefinition.length,
        goldWindows: goldWindows.size,
        bm25: rankAndScore(independent, excluded, goldWindows, goldByDefinition),
        code: rankAndScore(withCode(rel), excluded, goldWindows, goldByDefinition),
        codeExact: rankAndScore(withCode(relExact), excluded, goldWindows, goldByDefinition),
      });
    }
    result.perTaskRebuildMs = mean(rebuildTimes);
    repoResults.push(result);
  }

  // Summary rows: per repository and over all tasks.
  const summarise = (rows: TaskResult[]) => ({
    tasks: rows.length,
    bm25: {
      windowRecall: mean(rows.map((r) => r.bm25.windowRecall)),
      definitionRecall: mean(rows.map((r) => r.bm25.definitionRecall)),
      hit: mean(rows.map((r) => r.bm25.hit)),
    },
    code: {
      windowRecall: mean(rows.map((r) => r.code.windowRecall)),
      definitionRecall: mean(rows.map((r) => r.code.definitionRecall)),
      hit: mean(rows.map((r) => r.code.hit)),
    },
    codeExact: {
      windowRecall: mean(rows.map((r) => r.codeExact.windowRecall)),
      definitionRecall: mean(rows.map((r) => r.codeExact.definitionRecall)),
      hit: mean(rows.map((r) => r.codeExact.hit)),
    },
  });
  const byRepo = Object.fromEntries(
    repoResults.map((r) => [r.repo, summarise(taskResults.filter((t) => t.repo === r.repo))]),
  );
  const overall = summarise(taskResults);
  // Issue 13: every idea against BM25 on the tune and held-out halves, paired bootstrap 95%.
  const metrics = ['windowRecall', 'definitionRecall', 'hit'] as const;
  const ideaNames = ['code (paper)', ...Object.keys(taskResults[0]?.ideas ?? {})];
  const rankedOf = (t: TaskResult, idea: string) =>
    idea === 'code (paper)' ? t.code : t.ideas[idea];
  const ideasBySplit = Object.fromEntries(
    (['tune', 'heldout'] as SplitPart[]).map((split) => {
      const rows = taskResults.filter((t) => t.split === split);
      return [
        split,
        {
          tasks: rows.length,
          bm25: Object.fromEntries(metrics.map((m) => [m, mean(rows.map((t) => t.bm25[m]))])),
          ideas: Object.fromEntries(
            ideaNames.map((idea) => [
              idea,
              Object.fromEntries(
                metrics.map((m) => [
                  m,
                  {
                    mean: mean(rows.map((t) => rankedOf(t, idea)[m])),
                    delta: pairedBootstrap(
                      rows.map((t) => rankedOf(t, idea)[m]),
                      rows.map((t) => t.bm25[m]),
                    ),
                  },
                ]),
              ),
            ]),
          ),
        },
      ];
    }),
  );
  // The candidates against the app default (not BM25), paired on the same tasks.
  // The candidates were measured against the default before the squared walk.
  const APP = withScopeCandidates ? 'ppr (code graph) refs, walk w^2' : 'ppr (code graph) refs';
  const candidateNames = ideaNames.filter((n) => n.startsWith('candidate: '));
  const candidatesBySplit = Object.fromEntries(
    (['tune', 'heldout'] as SplitPart[]).map((split) => {
      const rows = taskResults.filter((t) => t.split === split);
      return [
        split,
        Object.fromEntries(
          candidateNames.map((idea) => [
            idea,
            Object.fromEntries(
              metrics.map((m) => [
                m,
                {
                  mean: mean(rows.map((t) => t.ideas[idea][m])),
                  appDefault: mean(rows.map((t) => t.ideas[APP][m])),
                  delta: pairedBootstrap(
                    rows.map((t) => t.ideas[idea][m]),
                    rows.map((t) => t.ideas[APP][m]),
                  ),
                },
              ]),
            ),
          ]),
        ),
      ];
    }),
  );
  process.stderr.write('[repoeval] scale check on node_modules/eslint/lib\n');
  const scale = await scaleCheck(parser);

  const cpus = os.cpus();
  const output = {
    section: 'repoeval',
    node: process.version,
    cpu: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    date: new Date().toISOString(),
    settings: {
      dataset: 'RepoEval function level (4 of 8 repositories, as in ../shared)',
      windows: '20 lines sliding by 10',
      query: `last ${QUERY_LINES} lines of the prompt`,
      excluded: `windows of the target file overlapping [lineno - ${QUERY_LINES}, lineno]`,
      top: TOP,
      alpha: ALPHA,
      threshold: defaultCodeRelationOptions.threshold,
      maxPerRow: defaultCodeRelationOptions.maxPerRow,
      bm25: { k1: 1.2, b: 0.75 },
    },
    overall,
    ideasBySplit,
    ...(withCandidates || withScopeCandidates ? { candidatesBySplit, candidatesAgainst: APP } : {}),
    appDefaultCheck: { tasks: appChecked, mismatches: appMismatches },
    byRepo,
    repositories: repoResults,
    scale,
    tasks: taskResults,
  };
  mkdirSync(RESULTS, { recursive: true });
  // REPOEVAL_OUT=<name> writes bench/results/<name>.json (a before/after pair of one change).
  const outFile = process.env.REPOEVAL_OUT
    ? `${process.env.REPOEVAL_OUT}.json`
    : only
      ? `repoeval-${only.join('+')}.json`
      : miniLm
        ? 'repoeval-minilm.json'
        : withSummary
          ? 'repoeval-summary.json'
          : withCandidates
            ? 'repoeval-candidates.json'
            : withScopeCandidates
              ? 'repoeval-scope.json'
              : 'repoeval.json';
  process.stderr.write(
    `[repoeval] app default vs "ppr (code graph) refs, walk w^2": ${appChecked} tasks, ${appMismatches.length} with different scores\n`,
  );
  writeFileSync(path.join(RESULTS, outFile), JSON.stringify(output, null, 2) + '\n');

  const pct = (x: number) => (100 * x).toFixed(1);
  const lines: string[] = [];
  lines.push(`## RepoEval function level: recall of the gold windows in the top ${TOP}`);
  lines.push('');
  lines.push(
    `${output.date}, Node ${output.node}, ${output.cpu} (${output.cores} cores). Query: last ${QUERY_LINES} prompt lines; alpha ${ALPHA}; threshold ${output.settings.threshold}; windows 20/10.`,
  );
  lines.push('');
  lines.push(
    '| repository | tasks (with gold) | window recall BM25 | + code (256/row) | + code (exact) | definition recall BM25 | + code (256/row) | + code (exact) | hit@10 BM25 | + code (256/row) | + code (exact) |',
  );
  lines.push('|---|---|---|---|---|---|---|---|---|---|---|');
  const row = (name: string, total: number, s: ReturnType<typeof summarise>) =>
    `| ${name} | ${total} (${s.tasks}) | ${pct(s.bm25.windowRecall)} | ${pct(s.code.windowRecall)} | ${pct(s.codeExact.windowRecall)} | ${pct(s.bm25.definitionRecall)} | ${pct(s.code.definitionRecall)} | ${pct(s.codeExact.definitionRecall)} | ${pct(s.bm25.hit)} | ${pct(s.code.hit)} | ${pct(s.codeExact.hit)} |`;
  for (const r of repoResults) lines.push(row(r.repo, r.tasks, byRepo[r.repo]));
  lines.push(
    row(
      '**all**',
      repoResults.reduce((n, r) => n + r.tasks, 0),
      overall,
    ),
  );
  lines.push('');
  lines.push('## Code graph build per repository (original files)');
  lines.push('');
  lines.push(
    '| repository | files | lines | windows | nodes | edges | calls resolved | parse ms | graph ms | cover ms | relation ms (256/row) | relation ms (exact) | stored weights (256/row / exact) | relation MB | memory retained MB | rebuild per task ms |',
  );
  lines.push('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of repoResults) {
    lines.push(
      `| ${r.repo} | ${r.files} | ${r.lines} | ${r.windows} | ${r.nodes} | ${r.edges} | ${r.resolvedCalls}/${r.calls} | ${r.parseMs.toFixed(0)} | ${r.graphMs.toFixed(0)} | ${r.coverMs.toFixed(0)} | ${r.relationMs.toFixed(0)} | ${r.relationExactMs.toFixed(0)} | ${r.relationNnz} / ${r.relationExactNnz} | ${r.relationMB.toFixed(1)} | ${r.retainedMB.toFixed(1)} | ${r.perTaskRebuildMs.toFixed(0)} |`,
    );
  }
  lines.push('');
  lines.push(
    `Scale check (same build, default 256 weights per row) on ${scale.repo}: ${scale.files} files, ${scale.lines} lines, ${scale.windows} windows, ${scale.nodes} nodes, ${scale.resolvedCalls}/${scale.calls} calls resolved; parse ${scale.parseMs.toFixed(0)} ms, graph ${scale.graphMs.toFixed(0)} ms, cover ${scale.coverMs.toFixed(0)} ms, relation ${scale.relationMs.toFixed(0)} ms; ${scale.relationNnz} weights stored (${scale.relationMB.toFixed(1)} MB); ${scale.retainedMB.toFixed(1)} MB retained.`,
  );
  const skipped = repoResults.flatMap((r) => r.skippedTasks);
  const why = new Map<string, number>();
  for (const x of skipped) why.set(x.why, (why.get(x.why) ?? 0) + 1);
  lines.push('');
  lines.push(
    `Tasks left out of the averages: ${skipped.length} (${[...why].map(([w, n]) => `${n}: ${w}`).join('; ') || 'none'}); details in bench/results/repoeval.json.`,
  );
  lines.push('');
  lines.push('## Issue 13 ideas against BM25 (top 10 windows), by split; paired bootstrap 95%');
  const sgn = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}`;
  for (const split of ['tune', 'heldout']) {
    const b = ideasBySplit[split];
    lines.push('');
    lines.push(`**${split} (${b.tasks} tasks with gold)**`);
    lines.push('');
    lines.push('| ranking | window recall | definition recall | hit@10 |');
    lines.push('|---|---:|---:|---:|');
    lines.push(`| BM25 | ${metrics.map((m) => pct(b.bm25[m])).join(' | ')} |`);
    for (const idea of ideaNames) {
      const c = b.ideas[idea];
      lines.push(
        `| ${idea} | ${metrics
          .map((m) => {
            const d = c[m].delta;
            return `${pct(c[m].mean)} (${sgn(d.mean)} [${sgn(d.ci95[0])}, ${sgn(d.ci95[1])}])`;
          })
          .join(' | ')} |`,
      );
    }
  }
  if (withScopeCandidates) {
    process.stderr.write(
      `[repoeval] the scope candidates' path against the squared walk: ${scopeMismatches} tasks with different scores\n`,
    );
  }
  if (withCandidates || withScopeCandidates) {
    lines.push('', `## Candidates against \`${APP}\`, paired bootstrap 95%`);
    for (const split of ['tune', 'heldout']) {
      lines.push(
        '',
        `**${split}**`,
        '',
        '| ranking | window recall | definition recall | hit@10 |',
      );
      lines.push('|---|---:|---:|---:|');
      for (const idea of candidateNames) {
        const c = candidatesBySplit[split][idea];
        lines.push(
          `| ${idea} | ${metrics
            .map((m) => {
              const d = c[m].delta;
              return `${pct(c[m].mean)} (${sgn(d.mean)} [${sgn(d.ci95[0])}, ${sgn(d.ci95[1])}])`;
            })
            .join(' | ')} |`,
        );
      }
    }
  }
  if (miniLm) {
    await miniLm.close();
    lines.push('', miniLmRepoTable(taskResults));
  }
  console.log(lines.join('\n'));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
