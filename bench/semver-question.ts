/**
 * @file Where semver's `Range.test` ranks for "How does a range check whether a version satisfies
 * it?", on the app's path and under each candidate change (bench/quality/code-candidates.ts),
 * each one change against the walk before it was squared; the last rows are the scope names as the
 * index stores them (core/code/scopes.ts) with the squared walk at several alphas, one of them the
 * app's default now (checked against the app's path).
 *
 * Run: `npx tsx bench/semver-question.ts`; writes bench/results/semver-question.json and prints a
 * table. semver 7 as npm ships it (node_modules, a dependency of typescript-eslint), read through
 * the app's folder ingest as the e2e test drops it (e2e/code-question.spec.ts), parsed with the
 * Node grammars, the summarised Eq. 8 and reference counts as the index worker builds them, the
 * question's content words, `rankRun` with the code defaults (`ppr`, alpha 0.5, w_rel 0.3, the top
 * 10 windows merged per file). Hybrid rows embed the windows with the static vectors distilled
 * from MiniLM (the app's offline vectors when the build has them) and score as the code panel's
 * "hybrid" choice does. `Range.test` spans classes/range.js lines 196-214: windows 181-200 and
 * 191-210 hold it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bm25Scores, buildBm25Index } from '../src/core/bm25';
import {
  walkWeights,
  weightByReferences,
  windowLineRanges,
  windowReferenceCounts,
} from '../src/core/code/references';
import { selectWindowSpans } from '../src/core/code/spans';
import { embedTexts } from '../src/core/embed/static';
import { hybridScores } from '../src/core/hybrid';
import { queryTerms } from '../src/core/retrieval/query';
import { MEASURED_CODE_ALPHA, retrievalPreset } from '../src/core/retrieval/presets';
import { buildRun, rankRun, runIndependentScores, runWindows } from '../src/core/run';
import { tokenize } from '../src/core/tokenize';
import { droppedRepository, repositoryDocument, repositoryRun } from '../test/code-repository';
import { loadDistilledFromDisk } from '../test/distilled';
import {
  finalScores,
  powerWeights,
  scopeNameTokens,
  walkEnvironment,
  withMarkdownSections,
} from './quality/code-candidates';

const here = path.dirname(fileURLToPath(import.meta.url));
const SEMVER = path.resolve(
  here,
  '../node_modules/@typescript-eslint/typescript-estree/node_modules/semver',
);
const QUESTION = 'How does a range check whether a version satisfies it?';
const ALPHA = 0.5;
const TOP = 10;
const LINE = 196; // `test (version) {` in classes/range.js

async function repository(markdownSections: boolean) {
  const repo = await droppedRepository(
    SEMVER,
    'semver',
    [],
    markdownSections ? withMarkdownSections : undefined,
  );
  const { files, graph, cover, windows } = repo;
  // As stored before the index kept scope names (the candidates' rows start from its BM25), and
  // as the app stores it now (its default path, checked against the last rows).
  const { codeScopes: _, ...unscoped } = repositoryDocument(
    'semver',
    repo,
    loadDistilledFromDisk(),
  );
  const run = buildRun([unscoped]);
  const runNow = repositoryRun('semver', repo, loadDistilledFromDisk());
  // The bench's candidates reweight the stored relation and counts themselves (one doc: the run's
  // concatenated relation is the document's own).
  const code = run.code!;
  const codeReferences = windowReferenceCounts(files, windows, graph);
  const windowTexts = repo.fragments.map((f) => repo.layout.text.slice(f.start, f.end));
  const lines = windowLineRanges(
    files.map((f) => f.text),
    windows,
  );
  const label = (i: number) =>
    `${files[lines[i].file].path}:${lines[i].first + 1}-${lines[i].last + 1}`;
  return {
    files,
    graph,
    cover,
    windows,
    windowTexts,
    run,
    runNow,
    code,
    codeReferences,
    lines,
    label,
  };
}

type Repo = Awaited<ReturnType<typeof repository>>;

interface Row {
  candidate: string;
  windows: { label: string; rank: number; independent: number; environment: number }[];
  selected: boolean;
  tenthFinal: number;
  /** functions/satisfies.js:1-12, the question's best BM25 window: its final rank and s_env. */
  satisfies: { rank: number; environment: number };
  readmeSelected: number;
  selectedCount: number;
}

function rowOf(
  repo: Repo,
  candidate: string,
  independent: Float64Array,
  environment: Float64Array,
  alpha = ALPHA,
): Row {
  const final = finalScores(independent, environment, alpha);
  repo.run.windows ??= runWindows(repo.run);
  const { selection } = selectWindowSpans(final, repo.run.windows, {
    maxWindows: TOP,
    windowLines: 20,
    exclude: [],
  });
  const selected = new Set(selection.indices);
  const order = Array.from(final.keys()).sort((a, b) => final[b] - final[a] || a - b);
  const holds = order.filter((i) => {
    const l = repo.lines[i];
    return (
      repo.files[l.file].path.endsWith('classes/range.js') &&
      l.first + 1 <= LINE &&
      l.last + 1 >= LINE
    );
  });
  return {
    candidate,
    windows: holds
      .sort((a, b) => a - b)
      .map((i) => ({
        label: repo.label(i),
        rank: order.indexOf(i) + 1,
        independent: independent[i],
        environment: environment[i],
      })),
    selected: holds.some((i) => selected.has(i)),
    tenthFinal: final[order[TOP - 1]],
    satisfies: (() => {
      const i = order.find((k) => repo.label(k).startsWith('functions/satisfies.js:1-'))!;
      return { rank: order.indexOf(i) + 1, environment: environment[i] };
    })(),
    readmeSelected: [...selected].filter((i) => repo.label(i).includes('README')).length,
    selectedCount: selected.size,
  };
}

async function main() {
  const repo = await repository(false);
  const tokens = queryTerms(QUESTION);
  // The app's path, to check the candidates' reimplementation of it.
  const app = rankRun(repo.run, runIndependentScores(repo.run, { tokens }, 'bm25'), {
    alpha: ALPHA,
    wRel: 0.3,
    relations: ['ppr'],
    budget: Infinity,
    maxSelected: TOP,
    mergeWindows: true,
  });
  const bm25 = app.scores.independent;
  // The candidates change the walk as it was before the squared walk (the reference-weighted
  // edges), so each row is one change against that; the app now walks them squared.
  const walk = weightByReferences(repo.code, repo.codeReferences);
  const env = walkEnvironment(walkWeights(repo.code, repo.codeReferences), bm25);
  const same = env.every((x, i) => Math.abs(x - app.scores.environment[i]) < 1e-9);
  if (!same) throw new Error('the candidates do not reproduce the app path');

  const windowTokens = repo.windowTexts.map((t) => tokenize(t));
  const bm25Index = (tokensPerWindow: string[][]) => buildBm25Index(tokensPerWindow);
  const scoped = scopeNameTokens(windowTokens, repo.graph, repo.cover);
  const scopedRaw = bm25Scores(bm25Index(scoped), tokens);
  const bm25Scoped = Float64Array.from(scopedRaw);
  const maxScoped = Math.max(...bm25Scoped);
  for (let i = 0; i < bm25Scoped.length; i++) bm25Scoped[i] /= maxScoped || 1;
  const model = loadDistilledFromDisk();
  const queryVector = embedTexts(model, [tokens.join(' ')]).data;
  const hybrid = runIndependentScores(repo.run, { tokens, vector: queryVector }, 'hybrid');
  const { data, dim } = repo.run.vectors!;
  const cosine = Float64Array.from({ length: repo.run.size }, (_, i) => {
    let s = 0;
    for (let d = 0; d < dim; d++) s += data[i * dim + d] * queryVector[d];
    return s;
  });
  const hybridScoped = hybridScores(scopedRaw, cosine);
  const parsedOnly = (ind: Float64Array) =>
    Float64Array.from(ind, (x, i) => (repo.files[repo.lines[i].file].syntax ? x : 0));

  const rows: Row[] = [];
  const add = (name: string, ind: Float64Array, w = walk, seeds = ind) =>
    rows.push(rowOf(repo, name, ind, walkEnvironment(w, ind, seeds)));
  add('before: BM25, ppr refs (unsquared walk)', bm25);
  const md = await repository(true);
  rows.push(
    rowOf(
      md,
      'Markdown sections',
      bm25,
      walkEnvironment(weightByReferences(md.code, md.codeReferences), bm25),
    ),
  );
  add('walk w^2 (the default before scope names)', bm25, powerWeights(walk, 2));
  add('walk w^3', bm25, powerWeights(walk, 3));
  add('seeds from parsed files', bm25, walk, parsedOnly(bm25));
  add('scope names', bm25Scoped);
  add('scope names, walk w^2', bm25Scoped, powerWeights(walk, 2));
  add('hybrid (distilled)', hybrid);
  add('hybrid, walk w^2', hybrid, powerWeights(walk, 2));
  add('hybrid, walk w^3', hybrid, powerWeights(walk, 3));
  add('hybrid, seeds from parsed files', hybrid, walk, parsedOnly(hybrid));
  add('hybrid, scope names', hybridScoped);
  add('hybrid, scope names, walk w^2', hybridScoped, powerWeights(walk, 2));
  add('hybrid, scope names, seeds from parsed files', hybridScoped, walk, parsedOnly(hybridScoped));
  // Third round: the scope names as the index stores them, with alpha.
  const envScoped = walkEnvironment(powerWeights(walk, 2), bm25Scoped);
  rows.push(rowOf(repo, 'walk w^2, alpha 1', bm25, env, 1));
  for (const alpha of [0.75, 1, 1.5]) {
    const name = `scope names, walk w^2, alpha ${alpha}${alpha === MEASURED_CODE_ALPHA ? ' (the app default now)' : ''}`;
    rows.push(rowOf(repo, name, bm25Scoped, envScoped, alpha));
  }
  // The app's path now (stored scope names, the measured preset) must give that row's scores.
  const preset = retrievalPreset('code');
  const now = rankRun(repo.runNow, runIndependentScores(repo.runNow, { tokens }, 'bm25'), {
    alpha: preset.alpha,
    wRel: preset.wRel,
    relations: preset.relations,
    budget: Infinity,
    maxSelected: TOP,
    mergeWindows: true,
  });
  const benchNow = finalScores(bm25Scoped, envScoped, preset.alpha);
  const nowReproduced = benchNow.every((x, i) => Math.abs(x - now.scores.final[i]) < 1e-9);
  if (!nowReproduced) throw new Error('the scope-names rows do not reproduce the app path now');
  // The profile: the windows that rank above Range.test before and now.
  const top = (ind: Float64Array, env: Float64Array, alpha: number) => {
    const final = finalScores(ind, env, alpha);
    return Array.from(final.keys())
      .sort((a, b) => final[b] - final[a] || a - b)
      .slice(0, 16)
      .map((i) => ({
        label: repo.label(i),
        independent: ind[i],
        environment: env[i],
        final: final[i],
      }));
  };
  const profile = {
    before: top(bm25, env, ALPHA),
    now: top(bm25Scoped, envScoped, preset.alpha),
  };

  // Why the walk misses the call: the transition row of satisfies.js's window, as the walk was
  // before (reference-weighted) and squared, and how many windows outscore Range.test on words.
  const from = Array.from({ length: repo.run.size }, (_, i) => i).find((i) =>
    repo.label(i).startsWith('functions/satisfies.js:1-'),
  )!;
  const rowOf2 = (m: typeof walk) => {
    const entries: { label: string; weight: number }[] = [];
    for (let p = m.rowPtr[from]; p < m.rowPtr[from + 1]; p++)
      entries.push({ label: repo.label(m.col[p]), weight: m.weight[p] });
    const sum = entries.reduce((a, e) => a + e.weight, 0);
    entries.sort((a, b) => b.weight - a.weight);
    const body = entries.find((e) => e.label.startsWith('classes/range.js:191-'));
    return {
      entries: entries.length,
      sum,
      strongest: { ...entries[0], share: entries[0].weight / sum },
      rangeTestBodyShare: body ? body.weight / sum : 0,
    };
  };
  const satisfiesRow = { before: rowOf2(walk), squared: rowOf2(powerWeights(walk, 2)) };
  const bm25Above075 = bm25.filter((x) => x > 0.75).length;
  const cpus = os.cpus();
  const output = {
    section: 'semver-question',
    node: process.version,
    cpu: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    date: new Date().toISOString(),
    question: QUESTION,
    tokens,
    windows: repo.run.size,
    appPathReproduced: same,
    appPathNowReproduced: nowReproduced,
    profile,
    satisfiesRow,
    bm25Above075,
    rows,
  };
  const out = path.join(here, 'results');
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, 'semver-question.json'), JSON.stringify(output, null, 2) + '\n');
  const f = (x: number) => x.toFixed(3);
  const lines = [
    `semver, "${QUESTION}" (${repo.run.size} windows; query ${tokens.join(' ')})`,
    '',
    '| candidate | classes/range.js:181-200 rank (s_ind, s_env) | 191-210 rank (s_ind, s_env) | Range.test selected | README windows selected |',
    '| --- | ---: | ---: | :-: | ---: |',
    ...rows.map(
      (r) =>
        `| ${r.candidate} | ${r.windows
          .map((w) => `${w.rank} (${f(w.independent)}, ${f(w.environment)})`)
          .join(
            ' | ',
          )} | ${r.selected ? 'yes' : 'no'} | ${r.readmeSelected} of ${r.selectedCount} |`,
    ),
  ];
  lines.push(
    '',
    `satisfies.js:1-12's walk row: ${satisfiesRow.before.entries} weights summing to ${satisfiesRow.before.sum.toFixed(1)}; ` +
      `strongest ${satisfiesRow.before.strongest.label} (${(100 * satisfiesRow.before.strongest.share).toFixed(1)}%); ` +
      `Range.test's body ${(100 * satisfiesRow.before.rangeTestBodyShare).toFixed(1)}% before, ` +
      `${(100 * satisfiesRow.squared.rangeTestBodyShare).toFixed(1)}% squared. Windows with BM25 above 0.75: ${bm25Above075}.`,
    `satisfies.js:1-12 (rank, s_env) per row: ${rows.map((r) => `${r.candidate}: ${r.satisfies.rank}, ${f(r.satisfies.environment)}`).join('; ')}`,
  );
  console.log(lines.join('\n'));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
