/**
 * @file Which independent score, with and without the walk, finds the code that answers a
 * question typed in words about a repository (bench/code-questions.json: 44 questions over four
 * npm packages, each with the definitions that answer it). RepoEval chose the code default, but
 * its query is code (the last prompt lines); a question in words often names things otherwise
 * than the code does ("check" for `test`), the gap dense vectors are for.
 *
 * Run: `npx tsx bench/code-questions.ts`; writes bench/results/code-questions.json
 * (CODE_QUESTIONS_OUT=<name>: bench/results/<name>.json) and prints a table. Each package is read as the app reads a dropped folder (ingestRepositoryFolder), laid out
 * and parsed with the Node grammars (test/code-repository.ts, as the index worker does), with the
 * summarised Eq. 8 and the reference counts the index stores and the windows embedded with the
 * static vectors distilled from MiniLM (the app's offline vectors). A question is scored on its
 * content words (the code view's `queryWords: 'content'` for a question), the query vector being
 * those words embedded (workers/retrieval.worker.ts), and ranked by `rankRun` with the code
 * defaults (`ppr` over the reference-weighted edges squared, w_rel 0.3, the top 10 windows merged
 * into spans); alpha 0 is the same ranking without the walk. BM25 reads each window with its scope
 * names as the index stores them (core/code/scopes.ts); "no scope names" rows read a repository as
 * stored before them. Every row is paired against the default before scope names (alpha 0.5).
 *
 * A gold definition counts as found when a selected window overlaps its lines. Recall: the share
 * of a question's gold definitions found; hit@10: at least one. The split is fixed in the JSON's
 * order (alternating within each package), decided before anything was measured.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { windowLineRanges } from '../src/core/code/references';
import { embedTexts } from '../src/core/embed/static';
import { pairedBootstrap } from '../src/core/eval/bootstrap';
import { MEASURED_CODE_ALPHA } from '../src/core/retrieval/presets';
import { queryTerms } from '../src/core/retrieval/query';
import { buildRun, rankRun, runIndependentScores, type ScoringMode } from '../src/core/run';
import { droppedRepository, repositoryDocument, repositoryRun } from '../test/code-repository';
import { loadDistilledFromDisk } from '../test/distilled';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const TOP = 10;
const ALPHA = MEASURED_CODE_ALPHA; // the code default (core/retrieval/presets.ts)
const W_REL = 0.3;

interface Gold {
  file: string;
  name: string;
}
interface Spec {
  about: string;
  packages: {
    name: string;
    root: string;
    exclude: string[];
    questions: { q: string; gold: Gold[] }[];
  }[];
}

interface Config {
  id: string;
  scoring: ScoringMode;
  alpha: number;
  /** Whether BM25 reads each window's scope names (core/code/scopes.ts; the index stores them). */
  scopes: boolean;
}
const CONFIGS: Config[] = [
  // The default before BM25 read scope names and alpha was 1: every row is paired against it.
  { id: 'before: bm25 + walk, alpha 0.5', scoring: 'bm25', alpha: 0.5, scopes: false },
  { id: 'scope names, alpha 0.5', scoring: 'bm25', alpha: 0.5, scopes: true },
  { id: 'scope names, alpha 0.75', scoring: 'bm25', alpha: 0.75, scopes: true },
  { id: 'scope names, alpha 1 (default)', scoring: 'bm25', alpha: ALPHA, scopes: true },
  { id: 'scope names, alpha 1.5', scoring: 'bm25', alpha: 1.5, scopes: true },
  { id: 'scope names, alpha 2', scoring: 'bm25', alpha: 2, scopes: true },
  { id: 'alpha 0.75, no scope names', scoring: 'bm25', alpha: 0.75, scopes: false },
  { id: 'alpha 1, no scope names', scoring: 'bm25', alpha: 1, scopes: false },
  { id: 'bm25, no walk', scoring: 'bm25', alpha: 0, scopes: true },
  { id: 'hybrid + walk', scoring: 'hybrid', alpha: ALPHA, scopes: true },
  { id: 'hybrid, no walk', scoring: 'hybrid', alpha: 0, scopes: true },
  { id: 'dense + walk', scoring: 'dense', alpha: ALPHA, scopes: true },
  { id: 'dense, no walk', scoring: 'dense', alpha: 0, scopes: true },
];

interface QuestionResult {
  package: string;
  question: string;
  split: 'tune' | 'held-out';
  gold: number;
  /** Per config id: recall of the gold definitions in the selected windows, and hit. */
  recall: Record<string, number>;
  hit: Record<string, number>;
}

async function packageRun(pkg: Spec['packages'][number]) {
  const repo = await droppedRepository(path.resolve(root, pkg.root), pkg.name, pkg.exclude);
  const model = loadDistilledFromDisk();
  const run = repositoryRun(pkg.name, repo, model);
  // The same repository as stored before the index kept scope names.
  const { codeScopes: _, ...unscoped } = repositoryDocument(pkg.name, repo, model);
  const runWithout = buildRun([unscoped]);
  const lines = windowLineRanges(
    repo.files.map((f) => f.text),
    repo.windows,
  );
  const { graph } = repo;
  /** The gold definition's file index and 0-based line span, from the parsed definitions. */
  const resolve = (g: Gold) => {
    const [parent, name] = g.name.includes('.') ? g.name.split('.') : [null, g.name];
    const found = graph.nodes.filter((n) => {
      if (n.file < 0 || ['directory', 'file', 'root', 'call'].includes(n.kind)) return false;
      if (graph.files[n.file].path !== g.file || n.name !== name) return false;
      const p = graph.nodes[n.parent];
      return parent === null ? p.kind === 'root' : p.kind !== 'root' && p.name === parent;
    });
    if (found.length === 0)
      throw new Error(`${pkg.name}: no parsed definition ${g.file} ${g.name}`);
    return found.map((n) => ({ file: n.file, first: n.startLine, last: n.endLine }));
  };
  return { run, runWithout, lines, resolve, model, windows: run.size, files: repo.files.length };
}

function mean(xs: readonly number[]) {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0;
}

async function main() {
  const spec = JSON.parse(readFileSync(path.join(here, 'code-questions.json'), 'utf8')) as Spec;
  const results: QuestionResult[] = [];
  const packages: { name: string; files: number; windows: number; questions: number }[] = [];
  const started = performance.now();
  for (const pkg of spec.packages) {
    const { run, runWithout, lines, resolve, model, windows, files } = await packageRun(pkg);
    packages.push({ name: pkg.name, files, windows, questions: pkg.questions.length });
    pkg.questions.forEach(({ q, gold }, k) => {
      const spans = gold.map((g) => resolve(g));
      const tokens = queryTerms(q);
      const vector = embedTexts(model, [tokens.join(' ')]).data;
      const r: QuestionResult = {
        package: pkg.name,
        question: q,
        split: k % 2 === 0 ? 'tune' : 'held-out',
        gold: gold.length,
        recall: {},
        hit: {},
      };
      for (const c of CONFIGS) {
        const r0 = c.scopes ? run : runWithout;
        const ranked = rankRun(r0, runIndependentScores(r0, { tokens, vector }, c.scoring), {
          alpha: c.alpha,
          wRel: W_REL,
          relations: ['ppr'],
          budget: Infinity,
          maxSelected: TOP,
          mergeWindows: true,
        });
        const selected = Array.from(ranked.selection.indices, (i) => lines[i]);
        const found = spans.map((defs) =>
          defs.some((d) =>
            selected.some((w) => w.file === d.file && w.first <= d.last && w.last >= d.first),
          ),
        );
        r.recall[c.id] = found.filter(Boolean).length / found.length;
        r.hit[c.id] = found.some(Boolean) ? 1 : 0;
      }
      results.push(r);
    });
  }
  const seconds = (performance.now() - started) / 1000;
  const base = CONFIGS[0].id;
  // 'all' pools both halves for information only; the decision reads tune, then held-out.
  const summary = (['tune', 'held-out', 'all'] as const).map((split) => {
    const rs = split === 'all' ? results : results.filter((r) => r.split === split);
    return {
      split,
      questions: rs.length,
      configs: CONFIGS.map((c) => ({
        id: c.id,
        recall: mean(rs.map((r) => r.recall[c.id])),
        hit: mean(rs.map((r) => r.hit[c.id])),
        recallVsDefault: pairedBootstrap(
          rs.map((r) => r.recall[c.id]),
          rs.map((r) => r.recall[base]),
        ),
        hitVsDefault: pairedBootstrap(
          rs.map((r) => r.hit[c.id]),
          rs.map((r) => r.hit[base]),
        ),
      })),
    };
  });
  const cpus = os.cpus();
  const output = {
    section: 'code-questions',
    node: process.version,
    cpu: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    load: os.loadavg(),
    date: new Date().toISOString(),
    seconds,
    packages,
    configs: CONFIGS,
    summary,
    results,
  };
  const out = path.join(here, 'results');
  mkdirSync(out, { recursive: true });
  // CODE_QUESTIONS_OUT=<name>: bench/results/<name>.json.
  const outFile = `${process.env.CODE_QUESTIONS_OUT ?? 'code-questions'}.json`;
  writeFileSync(path.join(out, outFile), JSON.stringify(output, null, 2) + '\n');

  const pct = (x: number) => (100 * x).toFixed(1);
  const delta = (d: { mean: number; ci95: [number, number] }) =>
    `${d.mean >= 0 ? '+' : ''}${pct(d.mean)} [${pct(d.ci95[0])}, ${pct(d.ci95[1])}]`;
  const lines = [
    `Questions in words about code: ${packages.map((p) => `${p.name} (${p.questions} q, ${p.windows} windows)`).join(', ')}; ${seconds.toFixed(0)} s`,
  ];
  for (const s of summary) {
    lines.push(
      '',
      `${s.split} (${s.questions} questions)`,
      '',
      '| scorer | recall@10 | hit@10 | recall vs default | hit@10 vs default |',
      '| --- | ---: | ---: | ---: | ---: |',
      ...s.configs.map(
        (c) =>
          `| ${c.id} | ${pct(c.recall)} | ${pct(c.hit)} | ${c.id === base ? '' : delta(c.recallVsDefault)} | ${c.id === base ? '' : delta(c.hitVsDefault)} |`,
      ),
    );
  }
  const range = results.find((r) => r.question.startsWith('How does a range check'));
  if (range)
    lines.push(
      '',
      `semver range question (held-out), recall per scorer: ${CONFIGS.map((c) => `${c.id} ${range.recall[c.id]}`).join('; ')}`,
    );
  console.log(lines.join('\n'));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
