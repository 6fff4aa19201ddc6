/**
 * @file Scale, the repository targets in the built app: a zip of about a million lines
 * of real code and a zip of 30,000 small real files, assembled from the source files under
 * node_modules and zipped with fflate at benchmark time (in memory; never written to the
 * repository), dropped on the app in headless Debian Chromium as e2e/code.spec.ts does.
 *
 * Per zip it measures: drop to listed (the library item appears), the stages the job's progress
 * shows (its text sampled every 100 ms) and the stage timings the skip report prints, the peak
 * JS heap of the page's main thread (CDP Performance.getMetrics JSHeapUsedSize) and the peak
 * resident memory of the renderer processes (/proc, which also holds the workers' heaps), the
 * main thread's long tasks after the drop (a 'longtask' PerformanceObserver installed by
 * addInitScript: count, max), the first question's time until the ranked list shows and the
 * re-rank time the page reports for alpha moves (only once listed). Three more runs of the
 * million-line zip click Cancel at 10, 45 and 75 s (reading, parsing, relating here) and time
 * until the job disappears.
 *
 * The zip reaches the page through a route on the app's own origin (fetched, then dropped as a
 * File), so no base64 decoding on the main thread is counted as the app's long task.
 *
 * Run: `npm run bench -- scale-repo` (builds dist/ first), or against an existing build:
 * `SCALE_REPO_DIST=dist-scale2 nice -n 5 npx tsx bench/run.ts scale-repo`. Not part of
 * `npm test`. SCALE_REPO_ONLY picks runs (million, small, cancel, folder, folder-cancel, oneline:
 * SCALE_REPO_SMALL_FILES one-line files of one shape, whose vectors are all identical);
 * SCALE_REPO_SMALL_FILES sets the
 * small zip's file count (30,000); SCALE_REPO_TIMEOUT_S its time limit (300 s; a loaded machine
 * needs more); SCALE_REPO_CANCEL_AT the seconds after the drop (or the stage, e.g. Saving) at which the cancel runs click
 * Cancel (10,45,75). Each run also records the page's uncaught errors, console errors and crashes, and,
 * when a job ends without a document, every notice then on the page.
 *
 * The folder run writes SCALE_REPO_FOLDER_FILES (100,000) small files to a folder under the system's
 * temporary directory (once) and adds it through the app's folder picker (Playwright's
 * setInputFiles on the webkitdirectory input: Chromium lists the folder as for a person's pick; a
 * dropped folder's walk, webkitGetAsEntry, cannot be driven headless). Timed from the input's
 * change event. folder-cancel clicks Cancel at SCALE_REPO_FOLDER_CANCEL_AT seconds (10).
 * SCALE_REPO_MEMORY=1 adds memory by context per stage (a profile: it forces garbage collections);
 * SCALE_REPO_TRACE=<file> traces a run without the question (the small zip, a folder) from the drop.
 * SCALE_REPO_BEFORE_DIST=<dist> runs the same runs on an earlier build first, in the same
 * invocation, and writes both (`before`, `after`, the command and the builds: the shape of
 * bench/results/scale-repo-query.json, which was put together by hand from two invocations);
 * SCALE_REPO_RESULTS=<name> writes bench/results/scale-repo-<name>.json instead of scale-repo.json.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from '@playwright/test';
import { zipSync } from 'fflate';
import { chromiumArgs } from '../playwright.config';
import {
  GENERATED_DIRECTORIES,
  ingestRepositoryFolder,
  VENDORED_DIRECTORIES,
} from '../src/ingest/repo';
import { startPreview } from './browser';
import type { BenchSection } from './run';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const NODE_MODULES = path.join(root, 'node_modules');
const DIST = process.env.SCALE_REPO_DIST ?? 'dist';
const PORT = Number(process.env.SCALE_REPO_PORT ?? 4198);
const TARGET_LINES = 1_000_000;
/** Files in the small-files zip (SCALE_REPO_SMALL_FILES to try fewer or more). */
const SMALL_FILES = Number(process.env.SCALE_REPO_SMALL_FILES ?? 30_000);
/** Files in the folder run (SCALE_REPO_FOLDER_FILES; the app's limit is 100,000). */
const FOLDER_FILES = Number(process.env.SCALE_REPO_FOLDER_FILES ?? 100_000);
/** "Small": at most this many bytes. */
const SMALL_BYTES = 4096;
const QUESTION = 'How are command line arguments parsed into options?';
/** Asked after the slider moves: a new question once the repository is prepared. */
const QUESTION2 = 'Where is the configuration file read and validated?';
/** Seconds to wait after the code view opens before the first question (a person typing it). */
const ASK_DELAY_S = Number(process.env.SCALE_REPO_ASK_DELAY_S ?? 0);
const MOVES = Number(process.env.SCALE_REPO_MOVES ?? 10);
/** A Chromium trace (CPU profiles of every thread) of the first question and slider moves. */
const TRACE = process.env.SCALE_REPO_TRACE;
/** SCALE_REPO_TRACE_FROM=drop starts the trace at the drop (the end of the job traced too). */
const TRACE_FROM_DROP = process.env.SCALE_REPO_TRACE_FROM === 'drop';
/**
 * SCALE_REPO_MEMORY=1: sample performance.measureUserAgentSpecificMemory about every second (with
 * Blink's ForceEagerMeasureMemory, so each sample forces a garbage collection: a profile, not a
 * timing run).
 */
const MEASURE_MEMORY = process.env.SCALE_REPO_MEMORY === '1';
const TRACE_CATEGORIES = [
  'devtools.timeline',
  'disabled-by-default-devtools.timeline',
  'disabled-by-default-v8.cpu_profiler',
  'blink.user_timing',
  'toplevel',
];

/** Directories the app skips as vendored or generated (src/ingest/repo.ts): not assembled. */
const SKIPPED_DIRS = new Set([
  'node_modules',
  'dist',
  'build',
  'out',
  'vendor',
  'coverage',
  'test',
  'tests',
  '__tests__',
  'fixtures',
  '.git',
]);

export interface Source {
  /** Path inside the zip: <package>/<path in the package>. */
  zipPath: string;
  bytes: Uint8Array;
  lines: number;
}

/** Hand-written source (not minified, not bundled): what the app would index. */
function isSourceFile(name: string): boolean {
  if (!/\.(js|mjs|cjs|ts|mts|cts|jsx|tsx)$/.test(name)) return false;
  if (/\.d\.[mc]?ts$/.test(name) || /[.-]min\.js$/.test(name) || /\.bundle\.js$/.test(name)) {
    return false;
  }
  return true;
}

function looksMinified(text: string, lines: number): boolean {
  if (text.length > 2048 && text.length / lines > 120) return true;
  let longest = 0;
  for (const line of text.split('\n')) longest = Math.max(longest, line.length);
  return longest > 1000 || /@generated\b|\bDO NOT EDIT\b/.test(text.slice(0, 2000));
}

/** Top-level packages under node_modules (scoped ones included), sorted by name. */
function packages(): string[] {
  const out: string[] = [];
  for (const name of readdirSync(NODE_MODULES).sort()) {
    if (name.startsWith('.')) continue;
    if (name.startsWith('@')) {
      for (const sub of readdirSync(path.join(NODE_MODULES, name)).sort()) {
        out.push(`${name}/${sub}`);
      }
    } else out.push(name);
  }
  return out;
}

/** Source files of one package, depth first in sorted order, skipped directories left out. */
function* packageSources(pkg: string, maxBytes: number): Generator<Source> {
  const base = path.join(NODE_MODULES, pkg);
  const walk = function* (dir: string): Generator<Source> {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of names) {
      const full = path.join(dir, name);
      let st;
      try {
        st = statSync(full);
      } catch {
        continue;
      }
      if (st.isDirectory()) {
        const skipped =
          SKIPPED_DIRS.has(name) ||
          GENERATED_DIRECTORIES.has(name) ||
          VENDORED_DIRECTORIES.has(name);
        if (!skipped && !name.startsWith('.')) yield* walk(full);
      } else if (st.isFile() && isSourceFile(name) && st.size > 0 && st.size <= maxBytes) {
        const bytes = readFileSync(full);
        const text = bytes.toString('utf8');
        const lines = text.split('\n').length;
        if (looksMinified(text, lines)) continue;
        yield { zipPath: `${pkg}/${path.relative(base, full)}`, bytes, lines };
      }
    }
  };
  yield* walk(base);
}

/** About a million lines: whole packages in name order until the target is passed. */
export function millionLines(): {
  sources: Source[];
  packages: { name: string; files: number; lines: number }[];
} {
  const sources: Source[] = [];
  const used: { name: string; files: number; lines: number }[] = [];
  let total = 0;
  for (const pkg of packages()) {
    if (total >= TARGET_LINES) break;
    let files = 0;
    let lines = 0;
    for (const s of packageSources(pkg, 512 * 1024)) {
      if (total + lines >= TARGET_LINES) break;
      sources.push(s);
      files++;
      lines += s.lines;
    }
    if (files > 0) used.push({ name: pkg, files, lines });
    total += lines;
  }
  return { sources, packages: used };
}

/** The million lines ingested as the app ingests a dropped folder (the Node benches' input). */
export async function ingestMillionLines() {
  const { sources } = millionLines();
  const ingested = await ingestRepositoryFolder(
    'million',
    sources.map((s) => ({ path: s.zipPath, file: new Blob([new Uint8Array(s.bytes)]) })),
  );
  if (!ingested.ok) throw new Error(ingested.error.message);
  return ingested.document;
}

/**
 * The first SMALL_FILES small source files under node_modules, the whole tree walked in sorted order
 * (nested node_modules and test folders included, or there are not 30,000). In the zip a
 * `node_modules` segment is renamed `nm`, or the app would skip those files as vendored.
 */
export function smallFiles(count: number = SMALL_FILES): {
  sources: Source[];
  packages: number;
  distinct: number;
} {
  const sources: Source[] = [];
  const roots = new Set<string>();
  const walk = (dir: string) => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (sources.length >= count) return;
      if (name.startsWith('.')) continue;
      const full = path.join(dir, name);
      let st;
      try {
        st = statSync(full);
      } catch {
        continue;
      }
      if (st.isDirectory()) {
        // Folders the app skips whole (build output, vendored) are left out: every file counts.
        const skipped = GENERATED_DIRECTORIES.has(name) || VENDORED_DIRECTORIES.has(name);
        if (name === 'node_modules' || !skipped) walk(full);
      } else if (st.isFile() && isSourceFile(name) && st.size > 0 && st.size <= SMALL_BYTES) {
        const bytes = readFileSync(full);
        const text = bytes.toString('utf8');
        const lines = text.split('\n').length;
        if (looksMinified(text, lines)) continue;
        const rel = path.relative(NODE_MODULES, full).split(path.sep);
        roots.add(rel[0].startsWith('@') ? `${rel[0]}/${rel[1]}` : rel[0]);
        const zipPath = rel.map((seg) => (seg === 'node_modules' ? 'nm' : seg)).join('/');
        sources.push({ zipPath, bytes, lines });
      }
    }
  };
  walk(NODE_MODULES);
  // This node_modules holds fewer small source files than 30,000 (about 9,500): the set is
  // repeated under copy-2/, copy-3/, ... until there are 30,000 entries (real files, real sizes;
  // the same contents more than once).
  const distinct = sources.length;
  for (let copy = 2; sources.length < count; copy++) {
    for (let i = 0; i < distinct && sources.length < count; i++) {
      sources.push({ ...sources[i], zipPath: `copy-${copy}/${sources[i].zipPath}` });
    }
  }
  return { sources, packages: roots.size, distinct };
}

/**
 * `count` one-line files of one shape (`f<i>.js`: `export const value = <i>;`): their windows'
 * vectors are identical (numbers carry no GloVe vector), the case where the semantic relation's
 * inverted file used to meet all pairs (duplicates.ts in src/core/relations).
 */
export function oneLineFiles(count: number = SMALL_FILES): Source[] {
  return Array.from({ length: count }, (_, i) => ({
    zipPath: `f${i}.js`,
    bytes: new TextEncoder().encode(`export const value = ${i};\n`),
    lines: 1,
  }));
}

/**
 * The small files written as a folder on disk, `<tmp>/fragrel-scale-folder-<count>/folder-<count>`
 * (written once; a marker file says it is complete), for the folder picker.
 */
export function smallFolder(sources: readonly Source[]): string {
  const base = path.join(os.tmpdir(), `fragrel-scale-folder-${sources.length}`);
  const top = path.join(base, `folder-${sources.length}`);
  const marker = path.join(base, 'complete');
  if (existsSync(marker)) return top;
  rmSync(base, { recursive: true, force: true });
  const made = new Set<string>();
  for (const s of sources) {
    const file = path.join(top, s.zipPath);
    const dir = path.dirname(file);
    if (!made.has(dir)) {
      mkdirSync(dir, { recursive: true });
      made.add(dir);
    }
    writeFileSync(file, s.bytes);
  }
  writeFileSync(marker, '');
  return top;
}

export function zip(top: string, sources: Source[]): Uint8Array {
  const entries: Record<string, Uint8Array> = {};
  for (const s of sources) entries[`${top}/${s.zipPath}`] = s.bytes;
  return zipSync(entries, { level: 6 });
}

/** Resident memory (bytes) of the Chromium renderer processes below `browserPid`, summed. */
export function rendererRss(browserPid: number): number {
  const children = new Map<number, number[]>();
  const cmd = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const pid = Number(entry);
      children.set(ppid, [...(children.get(ppid) ?? []), pid]);
      cmd.set(pid, readFileSync(`/proc/${entry}/cmdline`, 'utf8'));
    } catch {
      // the process ended meanwhile
    }
  }
  let total = 0;
  const stack = [browserPid];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    for (const c of children.get(pid) ?? []) stack.push(c);
    if (!(cmd.get(pid) ?? '').includes('--type=renderer')) continue;
    try {
      const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      total += rss ? Number(rss[1]) * 1024 : 0;
    } catch {
      // ended
    }
  }
  return total;
}

/**
 * What the library panel shows, read in one step: the listed document's line, the running job's
 * status and how many jobs there are, and any error notice. Shared with bench/scale-book.ts.
 */
export function jobState(page: Page) {
  return page.evaluate(() => {
    const item = document.querySelector('[data-testid="library-item"]');
    const job = document.querySelector('[data-testid="job"] [role="status"]');
    const err = document.querySelector('[role="alert"], .notice--error, [data-kind="error"]');
    return {
      listed: item ? (item.textContent ?? '') : null,
      job: job ? (job.textContent ?? '') : null,
      jobs: document.querySelectorAll('[data-testid="job"]').length,
      error: err ? (err.textContent ?? '') : null,
    };
  });
}

/**
 * Helpers the bench installs in the page (page.evaluate): set an input as typing would, wait for
 * the code view's summary, ask a question and time it. Shared with bench/slider-probe.ts.
 */
export const CODE_VIEW_PROBE = `
  window.__setValue = (input, value) => {
    // React's own value setter, so its onChange sees the change (as typing would).
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(input, value);
    input.dispatchEvent(new Event('input', { bubbles: true }));
  };
  window.__summaryShows = (text, timeoutMs) => new Promise((resolve) => {
    const view = document.querySelector('[data-testid="code-view"]');
    const shows = () =>
      (view.querySelector('[data-testid="code-summary"]')?.textContent ?? '').includes(text);
    let observer = null;
    const timer = setTimeout(() => { observer.disconnect(); resolve(false); }, timeoutMs);
    observer = new MutationObserver(() => {
      if (shows()) { clearTimeout(timer); observer.disconnect(); resolve(true); }
    });
    observer.observe(view, { subtree: true, childList: true, characterData: true });
    if (shows()) { clearTimeout(timer); observer.disconnect(); resolve(true); }
  }).then((ok) => new Promise((r) => requestAnimationFrame(() => setTimeout(() => r(ok), 0))));
  window.__ask = async (q) => {
    const view = document.querySelector('[data-testid="code-view"]');
    window.__setValue(view.querySelector('#code-question'), q);
    await new Promise((r) => setTimeout(r, 50));
    const t0 = performance.now();
    view.querySelector('form.ask button[type="submit"]').click();
    const answered = await window.__summaryShows('for “' + q + '”', 120000);
    return {
      answered,
      ms: performance.now() - t0,
      summary: view.querySelector('[data-testid="code-summary"]')?.textContent ?? '',
    };
  };
  window.__slide = async (a) => {
    const view = document.querySelector('[data-testid="code-view"]');
    const t0 = performance.now();
    window.__setValue(view.querySelector('input[aria-label="alpha for code"]'), a);
    const answered = await window.__summaryShows('α ' + a + ' ·', 60000);
    return {
      answered,
      ms: performance.now() - t0,
      summary: view.querySelector('[data-testid="code-summary"]')?.textContent ?? '',
    };
  };
`;

const LONGTASK_INIT = `
  window.__longTasks = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, ms: e.duration });
  }).observe({ type: 'longtask', buffered: true });
`;

interface RunResult {
  zip: string;
  outcome: 'listed' | 'error' | 'timeout' | 'cancelled';
  /** Drop to listed, or to the error / timeout / cancel. */
  ms: number;
  /** The stage shown when it ended (for a timeout or a cancel). */
  lastStage: string | null;
  /** First time each progress stage was seen, ms after the drop. */
  stagesSeenAtMs: Record<string, number>;
  /** The skip report's line and stage timings, as the page prints them. */
  report: string | null;
  timings: string | null;
  fragments: number | null;
  peakMainHeapMB: number;
  peakRendererRssMB: number;
  /** Peak renderer RSS (MB) while each progress stage showed (the stage first seen, then on). */
  peakRssByStageMB: Record<string, number>;
  /**
   * SCALE_REPO_MEMORY=1: per stage, the largest bytes (MB) performance.measureUserAgentSpecificMemory
   * attributed to each context (the page, each worker by script) while it showed.
   */
  memoryByStageMB?: Record<string, Record<string, number>>;
  longTasks: { count: number; over200: number; maxMs: number; totalMs: number };
  cancelStopMs?: number;
  cancelledAtStage?: string | null;
  /** A folder run: the files the picker gave, and ms from setInputFiles to the change event. */
  pickedFiles?: number;
  setInputFilesMs?: number;
  /** Library items shown 5 s after a cancel ended the job (0: nothing was stored). */
  listedAfterCancel?: number;
  error?: string;
  /** Uncaught errors on the page and its workers, and console errors (what a silent end hides). */
  pageErrors: string[];
  pageAtEnd?: { sinceLoadMs: number; sidebar: string };
  firstQueryMs?: number;
  rerankMedianMs?: number;
  rerankMaxMs?: number;
  /** performance.now() on the page when the question was typed (long tasks after it are the query's). */
  askAt?: number;
  firstQuerySummary?: string;
  secondQueryMs?: number;
  secondQuerySummary?: string;
  /** From listed until the code view's question field could be filled (ms). */
  codeViewReadyMs?: number;
  /** Each slider move from the fill until the summary line shows the new alpha (wall, ms). */
  sliderWallMs?: number[];
  sliderWallMedianMs?: number;
  sliderWallMaxMs?: number;
  queryLongTasks?: number[];
}

async function dropZip(page: Page, name: string): Promise<number> {
  // Fetch on the page first (outside the timing), then drop: the drop is the start.
  await page.evaluate(async (n) => {
    const bytes = await (await fetch(`/__bench/${n}`)).arrayBuffer();
    (window as unknown as { __zip: File }).__zip = new File([bytes], n, {
      type: 'application/zip',
    });
  }, name);
  const t0 = Date.now();
  await page.evaluate(() => {
    const w = window as unknown as { __zip: File; __dropAt: number };
    w.__dropAt = performance.now();
    const dt = new DataTransfer();
    dt.items.add(w.__zip);
    for (const type of ['dragenter', 'dragover', 'drop']) {
      document.body.dispatchEvent(
        new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }),
      );
    }
  });
  return t0;
}

async function runOnce(
  browser: Browser,
  name: string,
  bytes: Uint8Array,
  timeoutMs: number,
  opts: { cancelAfterMs?: number; cancelAtStage?: string; query?: boolean; folder?: string },
  log: (line: string) => void,
): Promise<RunResult> {
  const context = await browser.newContext();
  await context.addInitScript(LONGTASK_INIT);
  await context.route(`**/__bench/${name}`, (route) =>
    route.fulfill({ body: Buffer.from(bytes), contentType: 'application/zip' }),
  );
  // A folder is chosen with the folder picker ("Add a folder…", webkitdirectory): Playwright hands
  // Chromium the directory (DOM.setFileInputFiles) and Chromium lists it, as for a person's pick.
  // The start is the input's change event (window.__dropAt), not the call.
  await context.addInitScript(`
    document.addEventListener('change', (e) => {
      if (e.target && e.target.dataset && e.target.dataset.testid === 'folder-input') {
        window.__dropAt = performance.now();
        window.__picked = e.target.files.length;
      }
    }, true);
  `);
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable');
  // Playwright's Browser does not expose its process: Chromium is a child of this Node process.
  const browserPid = process.pid;
  const result: RunResult = {
    zip: name,
    outcome: 'timeout',
    ms: 0,
    lastStage: null,
    stagesSeenAtMs: {},
    report: null,
    timings: null,
    fragments: null,
    peakMainHeapMB: 0,
    peakRendererRssMB: 0,
    peakRssByStageMB: {},
    longTasks: { count: 0, over200: 0, maxMs: 0, totalMs: 0 },
    pageErrors: [],
  };
  let currentStage = 'before the drop';
  let measuring: Promise<void> | null = null;
  let lastMeasure = 0;
  const pageError = (what: string) => {
    log(`${name}: ${what}`);
    if (result.pageErrors.length < 20) result.pageErrors.push(what.slice(0, 500));
  };
  page.on('pageerror', (e) => pageError(`page error: ${e.name}: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') pageError(`console error: ${m.text()}`);
  });
  page.on('crash', () => pageError('the page crashed'));
  page.on('framenavigated', (f) => {
    if (f === page.mainFrame()) pageError(`navigated: ${f.url()}`);
  });
  page.on('worker', (w) => w.on('close', () => pageError(`worker closed: ${w.url()}`)));
  try {
    await page.goto(`http://127.0.0.1:${PORT}/`);
    await page.getByTestId('worker-status').filter({ hasText: 'Workers ready' }).waitFor();
    // A run without the question (the small zip) is traced from the drop until it ends.
    const traceJob = TRACE !== undefined && (TRACE_FROM_DROP || !opts.query);
    if (traceJob) {
      await browser.startTracing(page, { path: TRACE, categories: TRACE_CATEGORIES });
    }
    let t0: number;
    if (opts.folder) {
      const before = Date.now();
      await page.getByTestId('folder-input').setInputFiles(opts.folder, { timeout: 600_000 });
      const picked = await page.evaluate(() => {
        const w = window as unknown as { __dropAt: number; __picked: number };
        return { sinceChange: performance.now() - w.__dropAt, files: w.__picked };
      });
      // Node's clock at the change event: the app's work starts there.
      t0 = Date.now() - picked.sinceChange;
      result.pickedFiles = picked.files;
      result.setInputFilesMs = Math.round(t0 - before);
      log(
        `${name}: the picker gave ${picked.files} files; setInputFiles took ${Date.now() - before} ms (change event after ${result.setInputFilesMs} ms)`,
      );
    } else t0 = await dropZip(page, name);
    let cancelClickedAt = 0;
    let lastLog = 0;
    for (;;) {
      const now = Date.now() - t0;
      const state = await jobState(page);
      if (state.job) {
        const stage = state.job.replace(/\s[\d,]+\s\/\s[\d,]+$/, '').trim();
        result.lastStage = state.job;
        // The one 'relate' stage counts the code relation's windows, then the semantic one's.
        const of = /([\d,]+)\s\/\s([\d,]+)$/.exec(state.job);
        const half = of
          ? Number(of[1].replace(/,/g, '')) < Number(of[2].replace(/,/g, '')) / 2
          : true;
        currentStage = stage.startsWith('Relating')
          ? `${stage} (${half ? 'code' : 'semantic'})`
          : stage;
        if (!(stage in result.stagesSeenAtMs)) {
          result.stagesSeenAtMs[stage] = now;
          log(`${name}: ${stage} at ${(now / 1000).toFixed(1)} s`);
        }
      }
      const metrics = (await cdp.send('Performance.getMetrics')).metrics;
      const heap = metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? 0;
      result.peakMainHeapMB = Math.max(result.peakMainHeapMB, heap / 2 ** 20);
      if (browserPid) {
        const rss = rendererRss(browserPid) / 2 ** 20;
        result.peakRendererRssMB = Math.max(result.peakRendererRssMB, rss);
        const stage = state.listed !== null ? 'listed' : currentStage;
        result.peakRssByStageMB[stage] = Math.round(
          Math.max(result.peakRssByStageMB[stage] ?? 0, rss),
        );
      }
      if (MEASURE_MEMORY && !measuring && now - lastMeasure > 1000) {
        lastMeasure = now;
        const stage = currentStage;
        measuring = page
          .evaluate(async () => {
            const p = performance as unknown as {
              measureUserAgentSpecificMemory?: () => Promise<{
                breakdown: { bytes: number; attribution: { url: string; scope: string }[] }[];
              }>;
            };
            if (!p.measureUserAgentSpecificMemory) return null;
            const m = await p.measureUserAgentSpecificMemory();
            const out: Record<string, number> = {};
            for (const b of m.breakdown) {
              const who =
                b.attribution.map((a) => `${a.scope}:${a.url.replace(/.*\//, '')}`).join(',') ||
                'shared';
              out[who] = (out[who] ?? 0) + b.bytes;
            }
            return out;
          })
          .then((m) => {
            if (!m) return;
            const byStage = (result.memoryByStageMB ??= {});
            const at = (byStage[stage] ??= {});
            for (const [who, bytes] of Object.entries(m)) {
              at[who] = Math.max(at[who] ?? 0, Math.round(bytes / 2 ** 20));
            }
          })
          .catch(() => {})
          .finally(() => {
            measuring = null;
          });
      }
      if (now - lastLog > 15_000) {
        lastLog = now;
        log(
          `${name}: ${(now / 1000).toFixed(0)} s, ${state.job ?? '-'}, rss ${result.peakRendererRssMB.toFixed(0)} MB (load ${os.loadavg()[0].toFixed(1)})`,
        );
      }
      if (state.listed !== null) {
        result.outcome = 'listed';
        result.ms = now;
        result.fragments = Number(
          /([\d,]+) fragments/.exec(state.listed)?.[1].replace(/,/g, '') ?? NaN,
        );
        break;
      }
      if (cancelClickedAt > 0 && state.jobs === 0) {
        result.outcome = 'cancelled';
        result.cancelStopMs = Date.now() - cancelClickedAt;
        result.ms = now;
        // Nothing may land later: the worker's write (if it had begun) is aborted, not finished.
        await new Promise((r) => setTimeout(r, 5000));
        result.listedAfterCancel = await page.getByTestId('library-item').count();
        break;
      }
      const cancelNow =
        (opts.cancelAfterMs !== undefined && now >= opts.cancelAfterMs) ||
        (opts.cancelAtStage !== undefined && (state.job ?? '').startsWith(opts.cancelAtStage));
      if (cancelClickedAt === 0 && cancelNow && state.jobs > 0) {
        result.cancelledAtStage = state.job;
        await page.getByTestId('job').getByRole('button', { name: 'Cancel' }).click();
        cancelClickedAt = Date.now();
        log(`${name}: Cancel clicked at ${(now / 1000).toFixed(1)} s in “${state.job}”`);
      }
      if (state.jobs === 0 && now > 2000 && cancelClickedAt === 0) {
        result.outcome = 'error';
        result.ms = now;
        // The reason: an error notice, or a failed skip report (rendered a moment later).
        await new Promise((r) => setTimeout(r, 1000));
        result.error = await page.evaluate(() =>
          [...document.querySelectorAll('[data-testid="notice"], .skip-report--failed')]
            .map((e) => e.textContent ?? '')
            .join(' | ')
            .slice(0, 1000),
        );
        // What the page shows then (a silent end: was it reloaded, is anything still coming?).
        result.pageAtEnd = await page.evaluate(() => ({
          sinceLoadMs: Math.round(performance.now()),
          sidebar: (document.querySelector('.sidebar')?.textContent ?? '').slice(0, 400),
        }));
        break;
      }
      if (now > timeoutMs) {
        result.ms = now;
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    if (traceJob && !opts.query) await browser.stopTracing();
    const report = page.getByTestId('skip-report');
    if ((await report.count()) > 0) {
      result.report = ((await report.first().textContent()) ?? '').slice(0, 300);
    }
    const timings = page.getByTestId('index-timings');
    if ((await timings.count()) > 0) result.timings = await timings.first().textContent();
    const tasks = await page.evaluate(() => {
      const w = window as unknown as {
        __longTasks: { start: number; ms: number }[];
        __dropAt: number;
      };
      return w.__longTasks.filter((t) => t.start >= w.__dropAt).map((t) => t.ms);
    });
    result.longTasks = {
      count: tasks.length,
      over200: tasks.filter((t) => t > 200).length,
      maxMs: Math.round(Math.max(0, ...tasks)),
      totalMs: Math.round(tasks.reduce((a, b) => a + b, 0)),
    };
    result.peakMainHeapMB = Math.round(result.peakMainHeapMB);
    result.peakRendererRssMB = Math.round(result.peakRendererRssMB);
    if (opts.query && result.outcome === 'listed') {
      // A repository opens in the code view: its own question field, Ask button and summary line
      // ("… ranked in X ms"), not the book page's ranked list.
      if (TRACE && !TRACE_FROM_DROP) {
        await browser.startTracing(page, { path: TRACE, categories: TRACE_CATEGORIES });
      }
      // Timed inside the page, from the click (or the slider's input event) until the code
      // view's summary line shows the answer, plus one frame. Playwright's getByLabel/getByRole
      // were the first measurement's clock: they compute the accessible name of every element
      // of the page (12,000 with the whole file tree drawn), which took most of the 27 s.
      const v0 = Date.now();
      await page.locator('[data-testid="code-view"] #code-question').waitFor({ timeout: 180_000 });
      result.codeViewReadyMs = Date.now() - v0;
      if (ASK_DELAY_S > 0) await new Promise((r) => setTimeout(r, ASK_DELAY_S * 1000));
      // Plain JavaScript in strings: tsx would wrap named inner functions in a helper the page
      // lacks (`__name`).
      await page.evaluate(CODE_VIEW_PROBE);
      type InPage = { answered: boolean; ms: number; summary: string };
      const ask = async (question: string): Promise<InPage> => {
        const r = (await page.evaluate(`window.__ask(${JSON.stringify(question)})`)) as InPage;
        if (!r.answered) throw new Error(`“${question}” was not answered in 120 s`);
        return r;
      };
      const moveSlider = (alpha: string) =>
        page.evaluate(`window.__slide(${JSON.stringify(alpha)})`) as Promise<InPage>;
      result.askAt = await page.evaluate(() => performance.now());
      const first = await ask(QUESTION);
      result.firstQueryMs = Math.round(first.ms);
      result.firstQuerySummary = first.summary;
      const times: number[] = [];
      const walls: number[] = [];
      try {
        for (let m = 0; m < MOVES; m++) {
          const alpha = (0.3 + (m % 10) * 0.15).toFixed(2);
          const moved = await moveSlider(alpha);
          if (!moved.answered) throw new Error(`the slider (α ${alpha}) did not answer in 60 s`);
          walls.push(Math.round(moved.ms));
          times.push(Number(/ranked in ([\d.]+) ms/.exec(moved.summary)?.[1] ?? NaN));
        }
        // A second question, on the prepared repository.
        const second = await ask(QUESTION2);
        result.secondQueryMs = Math.round(second.ms);
        result.secondQuerySummary = second.summary;
      } finally {
        if (TRACE) await browser.stopTracing();
      }
      result.sliderWallMs = [...walls];
      times.sort((a, b) => a - b);
      walls.sort((a, b) => a - b);
      result.rerankMedianMs = times[times.length >> 1];
      result.rerankMaxMs = times[times.length - 1];
      result.sliderWallMedianMs = walls[walls.length >> 1];
      result.sliderWallMaxMs = walls[walls.length - 1];
      // Main-thread long tasks from the click on Ask to the last slider move.
      result.queryLongTasks = await page.evaluate((since) => {
        const w = window as unknown as { __longTasks: { start: number; ms: number }[] };
        return w.__longTasks.filter((t) => t.start >= since).map((t) => Math.round(t.ms));
      }, result.askAt ?? 0);
    }
  } catch (e) {
    result.error = (e as Error).message.slice(0, 500);
  } finally {
    await context.close();
  }
  log(`${name}: ${JSON.stringify(result)}`);
  return result;
}

export const scaleRepoSection: BenchSection = {
  name: 'scale-repo',
  description:
    'Issue 16 repository targets in the built app (headless Chromium): a million lines of node_modules source and 30,000 small files, zipped at run time.',
  async run(log) {
    const big = millionLines();
    const bigLines = big.sources.reduce((a, s) => a + s.lines, 0);
    const bigZip = zip('million', big.sources);
    const bigBytes = big.sources.reduce((a, s) => a + s.bytes.length, 0);
    log(
      `million: ${bigLines} lines, ${big.sources.length} files from ${big.packages.length} packages, ${(bigBytes / 2 ** 20).toFixed(1)} MB source, zip ${(bigZip.length / 2 ** 20).toFixed(1)} MB`,
    );
    const small = smallFiles();
    const smallZip = zip('small', small.sources);
    const smallBytes = small.sources.reduce((a, s) => a + s.bytes.length, 0);
    log(
      `small: ${small.sources.length} files (${small.distinct} distinct) from ${small.packages} packages, ${(smallBytes / 2 ** 20).toFixed(1)} MB, zip ${(smallZip.length / 2 ** 20).toFixed(1)} MB`,
    );
    const only = (process.env.SCALE_REPO_ONLY ?? 'million,small,cancel').split(',');
    // One build's runs (SCALE_REPO_ONLY), with the uptime before and after.
    const measure = async (dist: string) => {
      const uptimeBefore = uptimeLine();
      const stop = await startPreview(PORT, dist);
      const browser = await chromium.launch({
        executablePath: '/usr/bin/chromium',
        args: MEASURE_MEMORY
          ? [...chromiumArgs, '--enable-blink-features=ForceEagerMeasureMemory']
          : chromiumArgs,
      });
      const runs: (RunResult & { loadBefore: number[]; loadAfter: number[] })[] = [];
      const timed = async (f: () => Promise<RunResult>) => {
        const loadBefore = os.loadavg().map((x) => Number(x.toFixed(2)));
        const r = await f();
        log(
          `load ${os
            .loadavg()
            .map((x) => x.toFixed(2))
            .join(' ')}`,
        );
        runs.push({ ...r, loadBefore, loadAfter: os.loadavg().map((x) => Number(x.toFixed(2))) });
      };
      try {
        if (only.includes('million')) {
          await timed(() => runOnce(browser, 'million.zip', bigZip, 480_000, { query: true }, log));
        }
        if (only.includes('small')) {
          await timed(() =>
            runOnce(
              browser,
              `small-${SMALL_FILES}.zip`,
              smallZip,
              Number(process.env.SCALE_REPO_TIMEOUT_S ?? 300) * 1000,
              { query: false },
              log,
            ),
          );
        }
        if (only.includes('oneline')) {
          await timed(() =>
            runOnce(
              browser,
              `oneline-${SMALL_FILES}.zip`,
              zip('oneline', oneLineFiles()),
              Number(process.env.SCALE_REPO_TIMEOUT_S ?? 300) * 1000,
              { query: false },
              log,
            ),
          );
        }
        if (only.includes('folder') || only.includes('folder-cancel')) {
          const folder = smallFiles(FOLDER_FILES);
          const t = Date.now();
          const dir = smallFolder(folder.sources);
          log(
            `folder: ${folder.sources.length} files (${folder.distinct} distinct) in ${dir} (ready in ${((Date.now() - t) / 1000).toFixed(1)} s)`,
          );
          const name = `folder-${FOLDER_FILES}`;
          if (only.includes('folder')) {
            await timed(() =>
              runOnce(
                browser,
                name,
                new Uint8Array(0),
                Number(process.env.SCALE_REPO_TIMEOUT_S ?? 300) * 1000,
                { query: false, folder: dir },
                log,
              ),
            );
          }
          if (only.includes('folder-cancel')) {
            const cancelAt = (process.env.SCALE_REPO_FOLDER_CANCEL_AT ?? '10')
              .split(',')
              .map(Number);
            for (const ms of cancelAt.map((x) => x * 1000)) {
              await timed(() =>
                runOnce(
                  browser,
                  name,
                  new Uint8Array(0),
                  120_000,
                  { cancelAfterMs: ms, folder: dir },
                  log,
                ),
              );
            }
          }
        }
        if (only.includes('cancel')) {
          // Seconds after the drop, or the start of a stage's label ("Saving").
          const cancelAt = (process.env.SCALE_REPO_CANCEL_AT ?? '10,45,75').split(',');
          for (const at of cancelAt) {
            const when = Number.isFinite(Number(at))
              ? { cancelAfterMs: Number(at) * 1000 }
              : { cancelAtStage: at };
            await timed(() => runOnce(browser, 'million.zip', bigZip, 240_000, when, log));
          }
        }
      } finally {
        await browser.close();
        stop();
      }
      return {
        uptime: [uptimeBefore, uptimeLine()],
        date: new Date().toISOString(),
        chromium: browser.version(),
        loadAtEnd: os.loadavg().map((x) => Number(x.toFixed(2))),
        runs,
      };
    };
    // SCALE_REPO_BEFORE_DIST: the same runs on an earlier build first, in the same invocation, so
    // before and after share the machine's state (the ratio is what to report).
    const beforeDist = process.env.SCALE_REPO_BEFORE_DIST;
    const before = beforeDist ? await measure(beforeDist) : null;
    const after = await measure(DIST);
    const runs = after.runs;
    const browser = { version: () => after.chromium };
    // Runs of an earlier invocation (their logged result lines, as a JSON array) are kept when a
    // later one re-runs only some zips (SCALE_REPO_ONLY): the shared machine rarely allows all at once.
    const previous = process.env.SCALE_REPO_PREVIOUS
      ? (JSON.parse(readFileSync(process.env.SCALE_REPO_PREVIOUS, 'utf8')) as typeof runs)
      : [];
    runs.unshift(...previous.map((r) => ({ ...r, earlierInvocation: true })));
    const results = {
      ...(before
        ? {
            command: `SCALE_REPO_BEFORE_DIST=${beforeDist} SCALE_REPO_DIST=${DIST} SCALE_REPO_ONLY=${only.join(',')} npx tsx bench/run.ts scale-repo`,
            builds: { before: beforeDist, after: DIST },
            before,
            after: { ...after, runs: undefined },
          }
        : {}),
      chromium: browser.version(),
      uptime: os.loadavg(),
      million: {
        lines: bigLines,
        files: big.sources.length,
        sourceBytes: bigBytes,
        zipBytes: bigZip.length,
        packages: big.packages,
      },
      small: {
        files: small.sources.length,
        packages: small.packages,
        distinctFiles: small.distinct,
        sourceBytes: smallBytes,
        zipBytes: smallZip.length,
        maxFileBytes: SMALL_BYTES,
      },
      question: QUESTION,
      secondQuestion: QUESTION2,
      askDelayS: ASK_DELAY_S,
      runs,
    };
    const s = (ms?: number) => (ms === undefined ? '—' : `${(ms / 1000).toFixed(1)} s`);
    const markdown = [
      `million.zip: ${bigLines.toLocaleString('en')} lines in ${big.sources.length.toLocaleString('en')} files of ${big.packages.length} packages; small-30k.zip: ${small.sources.length.toLocaleString('en')} files ≤ ${SMALL_BYTES} B.`,
      '',
      '| zip | outcome | drop → end | last stage | peak main heap | peak renderer RSS | long tasks (>200 ms) / max | cancel stop | first query | re-rank median |',
      '|---|---|---:|---|---:|---:|---:|---:|---:|---:|',
      ...runs.map(
        (r) =>
          `| ${r.zip} | ${r.outcome} | ${s(r.ms)} | ${r.lastStage ?? '—'} | ${r.peakMainHeapMB} MB | ${r.peakRendererRssMB} MB | ${r.longTasks.count} (${r.longTasks.over200}) / ${r.longTasks.maxMs} ms | ${r.cancelStopMs === undefined ? '—' : `${r.cancelStopMs} ms`} | ${r.firstQueryMs === undefined ? '—' : `${r.firstQueryMs} ms`} | ${r.rerankMedianMs === undefined ? '—' : `${r.rerankMedianMs} ms`} |`,
      ),
    ].join('\n');
    const markdownBefore = before
      ? `\n\nBefore (${beforeDist}): ${before.runs.map((r) => `${r.zip} ${r.outcome} ${s(r.ms)}`).join('; ')}.`
      : '';
    return {
      results,
      markdown: markdown + markdownBefore,
      // SCALE_REPO_RESULTS=<name> writes bench/results/scale-repo-<name>.json instead.
      ...(process.env.SCALE_REPO_RESULTS
        ? { file: `scale-repo-${process.env.SCALE_REPO_RESULTS}` }
        : {}),
    };
  },
};

function uptimeLine(): string {
  return execFileSync('uptime', { encoding: 'utf8' }).trimEnd();
}
