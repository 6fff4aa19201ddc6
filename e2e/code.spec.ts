/**
 * @file Repositories in the built app: a real package's source (picomatch's lib/, seven
 * CommonJS files that require and call each other, from node_modules) zipped at test time with
 * fflate, plus a vendored directory, a .gitignore'd file, a binary and a build output, is
 * dropped; the skip report groups what was left out by reason; a cursor line is picked in the
 * code viewer and a completion is asked of the scripted OpenAI-compatible server on 127.0.0.1.
 * The windows are ranked with the code relation, the cursor's windows are kept out, the graph
 * neighbourhood of a window shows edge types and path strengths, and the request the server
 * received is the RepoCoder layout. Then a question about the repository cites file:line, a
 * broken zip stores nothing, and a folder is added through the folder picker.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { strToU8, zipSync } from 'fflate';
import { dropFiles } from './support/drop';
import { startOpenAiServer, type OpenAiServer } from './support/openai-server';
import { isLocal, openLocalPage } from './support/local-page';
import { STATIC_EMBEDDER_ID } from '../src/core/embed/static';
import { ingestFiles } from '../src/ingest/ingest';
import { staticEmbedder } from '../src/models/embedder';
import { nodeGrammarSource } from '../src/models/tree-sitter-node';
import { InProcessClient } from '../src/workers/in-process';
import {
  createIndexHandlers,
  POOL_MIN_FILES,
  POOL_MIN_WINDOWS,
  type IndexApi,
  type IndexRepositoryResult,
} from '../src/indexing';
import { loadGloveFromDisk } from '../test/glove';

const HERE = dirname(fileURLToPath(import.meta.url));
const PICOMATCH = resolve(HERE, '../node_modules/picomatch');
const FILE = 'lib/picomatch.js';
const FILE_LINES = readFileSync(resolve(PICOMATCH, FILE), 'utf8').split('\n');
/** `    parsed = parse(input, options);` in picomatch.makeRe: the completion starts here. */
const CURSOR = FILE_LINES.findIndex((l) => l.includes('parsed = parse(input, options);')) + 1;
const KEY = 'sk-test-code';

test.describe.configure({ mode: 'serial' });

let server: OpenAiServer;
let page: Page;
const urls: string[] = [];
const problems: string[] = [];

/** The repository as a person would zip it: one top folder, and things indexing must skip. */
function repositoryZip(): Uint8Array {
  const entries: Record<string, Uint8Array> = {};
  for (const name of readdirSync(resolve(PICOMATCH, 'lib'))) {
    entries[`picomatch/lib/${name}`] = readFileSync(resolve(PICOMATCH, 'lib', name));
  }
  entries['picomatch/index.js'] = readFileSync(resolve(PICOMATCH, 'index.js'));
  entries['picomatch/posix.js'] = readFileSync(resolve(PICOMATCH, 'posix.js'));
  entries['picomatch/.gitignore'] = strToU8('notes/\n');
  entries['picomatch/notes/todo.js'] = strToU8('// private notes\n');
  entries['picomatch/node_modules/dep/index.js'] = strToU8('module.exports = 1;\n');
  entries['picomatch/dist/picomatch.min.js'] = strToU8('module.exports=1;\n');
  entries['picomatch/logo.png'] = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 13, 10, 26, 10, 0, 0);
  return zipSync(entries);
}

/** Windows are 20 lines sliding by 10: those overlapping lines [from, to] of the file. */
function windowsOverlapping(from: number, to: number, lines: number): string[] {
  const out: string[] = [];
  for (let first = 1; ; first += 10) {
    const last = Math.min(first + 19, lines);
    if (first <= to && last >= from) out.push(`${FILE}:${first}-${last}`);
    if (last >= lines) break;
  }
  return out;
}

test.beforeAll(async ({ browser }) => {
  server = await startOpenAiServer();
  page = await openLocalPage(browser, urls, problems);
});

test.afterAll(async () => {
  await page?.context().close();
  await server?.close();
});

const code = () => page.getByTestId('code-view');

test('a dropped zip becomes a repository, with what was left out grouped by reason', async () => {
  await page.goto('/');
  await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
  const started = Date.now();
  await dropFiles(page, [{ name: 'picomatch.zip', bytes: repositoryZip() }]);
  const item = page.getByTestId('library-item');
  await expect(item).toHaveCount(1);
  await expect(item).toContainText('picomatch.zip');
  await expect(item).toContainText(/\d+ fragments · zip/);
  console.log(
    `picomatch.zip indexed (read, parse, embed, graph, relate, save) in ${Date.now() - started} ms`,
  );

  const report = page.getByTestId('skip-report');
  await expect(report).toContainText(/picomatch\.zip: 8 files indexed as \d+ windows, 4 left out/);
  for (const [reason, path] of [
    ['vendored', 'node_modules/'],
    ['gitignored', 'notes/'],
    ['generated', 'dist/'],
    ['binary', 'logo.png'],
  ]) {
    const group = report.locator(`li[data-reason="${reason}"]`);
    await expect(group).toHaveCount(1);
    await group.locator('summary').click();
    await expect(group).toContainText(path);
  }
  await expect(report.getByTestId('graph-stats')).toContainText(/\d+ of \d+ calls resolved/);

  // The repository opens in the code view: its files in a tree.
  await expect(code()).toBeVisible();
  await expect(code().locator(`button[data-path="${FILE}"]`)).toBeVisible();
  await expect(code().locator('button[data-path="lib/parse.js"]')).toBeVisible();
});

test('a completion at a cursor line: windows ranked with the code relation, the RepoCoder prompt, the completion in place', async () => {
  const panel = page.getByTestId('answer-panel');
  await panel.getByLabel('Engine').selectOption('openai');
  await panel.getByLabel('Base URL').fill(`${server.url}/v1`);
  await panel.getByLabel('Model', { exact: true }).fill('test-model');
  await panel.getByLabel('API key').fill(KEY);

  await code().locator(`button[data-path="${FILE}"]`).click();
  await expect(code().getByTestId('open-file')).toHaveText(FILE);
  // A click on a line number puts the cursor there; the field sets it from the keyboard.
  await code().locator('[data-line="3"] .code-line__no').click();
  await expect(code().getByLabel('Cursor line')).toHaveValue('3');
  await code().getByLabel('Cursor line').fill(String(CURSOR));

  server.replies.push({
    kind: 'answer',
    pieces: ['    parsed = ', 'parse(input, ', 'options);\n'],
  });
  await code()
    .getByRole('button', { name: `Complete at line ${CURSOR}` })
    .click();
  const completion = page.getByTestId('completion-panel');
  await expect(completion).toHaveAttribute('data-state', 'done');
  await expect(code().getByTestId('completion-inline')).toHaveText(
    '    parsed = parse(input, options);\n',
  );
  await expect(code().getByTestId('code-cursor')).toHaveAttribute(
    'data-line-cursor',
    String(CURSOR),
  );

  // Ranked with the default multi-hop relation over the code graph (ppr); the top 10 windows' worth of lines selected, overlapping
  // windows merged (so at least 10 windows); the cursor's windows kept out.
  await expect(code().getByTestId('code-summary')).toContainText('bm25 with ppr');
  await expect(code().getByTestId('code-summary')).toContainText('none repeated');
  // The panel names the configuration on and why: the measured default, whose walk weights the
  // code edges by the reference counts stored when the zip was indexed.
  const presets = code().getByTestId('code-presets');
  await expect(presets.getByRole('button', { name: 'Measured best (code)' })).toHaveAttribute(
    'aria-pressed',
    'true',
  );
  await expect(presets.getByTestId('code-preset-why')).toContainText('weighted by how often');
  await expect(presets.getByTestId('code-preset-why')).toContainText('+7.7 [+0.8, +15.2]');
  await expect(presets.getByTestId('code-preset-weighted')).toContainText(
    '“picomatch.zip”: the walk weights each edge by the reference counts',
  );
  await expect(presets.getByTestId('code-preset-fallback')).toHaveCount(0);
  const list = code().getByTestId('window-list');
  expect(await list.locator('li[data-selected="true"]').count()).toBeGreaterThanOrEqual(
    Math.min(10, await list.locator('li').count()),
  );
  await expect(list.getByTestId('window-kinds').first()).toContainText('ppr environment');
  const cursorWindows = windowsOverlapping(CURSOR - 20, CURSOR, FILE_LINES.length - 1);
  expect(cursorWindows.length).toBeGreaterThanOrEqual(2);
  const listed = await list
    .locator('li')
    .evaluateAll((li) => li.map((x) => x.getAttribute('data-label')));
  for (const w of cursorWindows) expect(listed).not.toContain(w);
  await expect(code().getByTestId('excluded-windows')).toContainText(cursorWindows[0]);
  // Some selected window got an environment score along the code graph's edges.
  const envs = await list
    .getByTestId('window-kinds')
    .allTextContents()
    .then((t) => t.map((s) => Number(/ppr environment (\d\.\d+)/.exec(s)?.[1] ?? 0)));
  expect(Math.max(...envs)).toBeGreaterThan(0);

  // The request: RepoCoder's layout.
  const posts = server.requests.filter((r) => r.method === 'POST');
  expect(posts).toHaveLength(1);
  expect(posts[0].headers.authorization).toBe(`Bearer ${KEY}`);
  const user = posts[0].body!.messages!.find((m) => m.role === 'user')!.content;
  const before = FILE_LINES.slice(0, CURSOR - 1).join('\n') + '\n';
  expect(user.startsWith('// Code from other parts of the repository that may help:\n')).toBe(true);
  expect(user.endsWith(`// File: ${FILE}\n${before}`)).toBe(true);
  const blocks = [...user.matchAll(/^\/\/ \[(\d+)\] from (\S+):\n/gm)].map((m) => m[2]);
  expect(blocks.length).toBeGreaterThan(0);
  expect(blocks.length).toBeLessThanOrEqual(10);
  for (const w of cursorWindows) expect(blocks).not.toContain(w);
  // Merged spans: no line of a file is quoted twice, and at most 10 windows' worth (200 lines).
  const spans = blocks.map((b) => /^(.*):(\d+)-(\d+)$/.exec(b)!);
  let quoted = 0;
  for (const [k, a] of spans.entries()) {
    quoted += Number(a[3]) - Number(a[2]) + 1;
    for (const b of spans.slice(k + 1)) {
      if (a[1] === b[1]) {
        expect(Number(a[3]) < Number(b[2]) || Number(b[3]) < Number(a[2])).toBe(true);
      }
    }
  }
  expect(quoted).toBeLessThanOrEqual(200);
  // Each block's lines are comments, labelled with the window's file and lines.
  const first = user.indexOf(`// [1] from ${blocks[0]}:\n`);
  const body = user.slice(first).split('\n').slice(1, 4);
  expect(body.every((l) => l.startsWith('//'))).toBe(true);
  // The prompt shown is the prompt sent.
  await completion.getByText('Show the prompt').click();
  expect(await completion.getByTestId('prompt-text').textContent()).toBe(
    posts[0].body!.messages!.map((m) => `[${m.role}]\n${m.content}`).join('\n\n'),
  );

  // The file tree's heat: files with windows scored, parse.js among them.
  await expect(code().locator('button[data-path="lib/parse.js"]')).not.toHaveAttribute(
    'data-heat',
    '',
  );

  // A window's graph neighbourhood: the code graph the multi-hop relation walks, with paths and edges.
  await list.locator('li[data-selected="true"] .ranked__open').first().click();
  const details = code().getByTestId('window-details');
  await expect(details).toContainText('ppr relation: environment');
  const table = details.getByTestId('neighbourhood-table');
  await expect(table.locator('tbody tr').first()).toBeVisible();
  const steps = await table.getByTestId('path-steps').allTextContents();
  expect(steps.some((s) => /—(call|syntax|directory|file) \d\.\d→/.test(s))).toBe(true);
  expect(await table.locator('tbody tr').count()).toBeGreaterThan(2);
  // The viewer moved to the window's file and marks it with its three scores.
  await expect(code().locator('.code-mark__button[aria-pressed="true"]')).toContainText(
    /\d\.\d{3} \+ 1\.000×\d\.\d{3} = \d\.\d{3}/,
  );

  const axe = await new AxeBuilder({ page }).include('[data-testid="code-view"]').analyze();
  const serious = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious.map((v) => `${v.id}: ${v.help} (${v.nodes.length})`)).toEqual([]);
});

test('a question about the repository is answered from windows cited by file and line', async () => {
  await code()
    .getByLabel('Question about the repository')
    .fill('How is a glob pattern scanned for braces?');
  await code().getByRole('button', { name: 'Ask', exact: true }).click();
  await expect(code().getByTestId('code-summary')).toContainText('for “How is a glob');
  server.replies.push({ kind: 'answer', pieces: ['The scanner tracks ', 'braces [1].'] });
  const panel = page.getByTestId('answer-panel');
  await panel.getByRole('button', { name: 'Answer', exact: true }).click();
  await expect(panel).toHaveAttribute('data-state', 'done');
  const posts = server.requests.filter((r) => r.method === 'POST');
  const user = posts[posts.length - 1].body!.messages!.find((m) => m.role === 'user')!.content;
  expect(user).toMatch(/\[1\] \(picomatch\.zip · fragment \d+ · [\w/.]+\.js:\d+-\d+\)/);
  // The citation opens its window in the code viewer.
  await panel.getByTestId('answer-text').getByRole('link', { name: '[1]' }).click();
  await expect(code().locator('.code-mark__button[aria-pressed="true"]')).toBeVisible();
});

test('a broken zip gets a clear message and nothing is stored', async () => {
  const bytes = repositoryZip();
  await dropFiles(page, [{ name: 'broken.zip', bytes: bytes.slice(0, bytes.length - 40) }]);
  const failed = page.locator('[data-testid="skip-report"].skip-report--failed');
  await expect(failed).toContainText('broken.zip: not added');
  await expect(failed.getByRole('alert')).toContainText('could not be read as a ZIP archive');
  await expect(page.getByTestId('library-item')).toHaveCount(1);
});

test('a folder is added through the folder picker', async () => {
  await page.getByTestId('folder-input').setInputFiles(resolve(PICOMATCH, 'lib'));
  await expect(page.getByTestId('library-item')).toHaveCount(2);
  await expect(page.getByTestId('library-item').nth(1)).toContainText('· folder');
  await expect(code().locator('button[data-path="picomatch.js"]')).toBeVisible();
  expect(problems).toEqual([]);
  expect(urls.filter((u) => !isLocal(u))).toEqual([]);
});

/** eslint's lib/ without its rules: 80-odd files that require each other, about 2,000 windows. */
function eslintLibZip(): { zip: Uint8Array; files: Record<string, Uint8Array> } {
  const root = resolve(HERE, '../node_modules/eslint/lib');
  const files: Record<string, Uint8Array> = {};
  const walk = (rel: string) => {
    for (const entry of readdirSync(resolve(root, rel), { withFileTypes: true })) {
      const p = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (p !== 'rules') walk(p);
      } else if (entry.name.endsWith('.js'))
        files[`eslint-lib/${p}`] = readFileSync(resolve(root, p));
    }
  };
  walk('');
  return { zip: zipSync(files), files };
}

// Before this test: a repository above the pool's thresholds is parsed and related on the worker pool
// (pool.worker.ts, started by the index worker); its graph and stored weights are those of the
// single-worker path, computed here in Node with the same handlers.
test('a larger repository is parsed and related on the worker pool, as one worker would', async () => {
  const { zip } = eslintLibZip();
  const model = loadGloveFromDisk();
  const expected = (await new InProcessClient<IndexApi>(
    createIndexHandlers({
      ingest: (files, options) => ingestFiles(files, options),
      loadEmbedder: async () => staticEmbedder(model),
      grammars: nodeGrammarSource(resolve(HERE, '../node_modules')),
    }),
  ).call('indexRepository', {
    docId: 'x',
    source: { zip: new File([new Uint8Array(zip)], 'eslint-lib.zip') },
    semanticK: 16,
    embedder: { id: STATIC_EMBEDDER_ID, url: 'unused' },
  })) as IndexRepositoryResult;
  if (!expected.ok) throw new Error(expected.error.message);
  expect(expected.report.files).toBeGreaterThanOrEqual(POOL_MIN_FILES);
  expect(expected.report.windows).toBeGreaterThanOrEqual(POOL_MIN_WINDOWS);
  const workers: string[] = [];
  page.on('worker', (w) => workers.push(w.url()));
  await dropFiles(page, [{ name: 'eslint-lib.zip', bytes: zip }]);
  const report = page.locator('[data-testid="skip-report"]', { hasText: 'eslint-lib.zip' });
  await expect(report.getByTestId('index-timings')).toBeVisible({ timeout: 60_000 });
  const n = (x: number) => x.toLocaleString('en');
  await expect(report).toContainText(
    `${n(expected.report.files)} files indexed as ${n(expected.report.windows)} windows`,
  );
  const g = expected.report.graph!;
  await expect(report.getByTestId('graph-stats')).toContainText(
    `${n(g.definitions)} definitions, ${n(g.resolvedCalls)} of ${n(g.calls)} calls resolved`,
  );
  await expect(report.getByTestId('graph-stats')).toContainText(
    `${n(expected.report.relationWeights)} window weights stored`,
  );
  expect(workers.filter((u) => /pool\.worker/.test(u)).length).toBeGreaterThanOrEqual(1);
  expect(problems).toEqual([]);
});
