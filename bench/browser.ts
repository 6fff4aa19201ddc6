/**
 * @file The real app in Debian's Chromium (headless), as a person uses it: drop War and Peace,
 * wait until it is in the library (read, split, embed with the static embedder, relate, store),
 * then ask and move alpha, reading the re-rank time the page reports. Needs a build in dist/
 * (`npm run bench` builds first) and /usr/bin/chromium.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from '@playwright/test';
import { chromiumArgs } from '../playwright.config';
import { openAdvanced } from '../e2e/support/advanced';
import { dropFiles } from '../e2e/support/drop';
import { sharedDatasetPath } from '../test/glove';
import type { BenchSection } from './run';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
/** BENCH_PORT and BENCH_DIST serve another build (a worktree's own) on another port. */
const PORT = Number(process.env.BENCH_PORT ?? 4174);
const DIST = process.env.BENCH_DIST ?? 'dist';
const BOOK = sharedDatasetPath('gutenberg/pg2600_war_and_peace.txt');
const QUESTION = 'What did Pierre think about during his captivity by the French?';
const MOVES = 15;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/** Serve the built app (dist/) with `vite preview` on `port`; resolves with a stop function. */
/**
 * Serve a built app (`outDir`, default dist/) with `vite preview` on 127.0.0.1:`port`; resolves
 * once it answers, with a function that stops it.
 */
export async function startPreview(port: number = PORT, outDir = 'dist'): Promise<() => void> {
  const server = spawn(
    process.execPath,
    [
      'node_modules/vite/bin/vite.js',
      'preview',
      '--outDir',
      outDir,
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--strictPort',
    ],
    { cwd: root, stdio: 'ignore' },
  );
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/`)).ok) return () => server.kill();
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  server.kill();
  throw new Error(`vite preview did not start; build ${outDir}/ first (\`npm run build\`).`);
}

export const browserSection: BenchSection = {
  name: 'browser',
  description:
    'The built app in headless Chromium: index War and Peace, then re-rank by moving alpha.',
  async run(log) {
    const stop = await startPreview(PORT, DIST);
    const browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: chromiumArgs,
    });
    try {
      const rows: {
        embedder: string;
        wordsPerFragment: number;
        fragments: number;
        indexMs: number;
        rerankMedianMs: number;
        rerankMaxMs: number;
      }[] = [];
      for (const wordsPerFragment of [100, 500]) {
        const page = await (await browser.newContext()).newPage();
        await page.goto(`http://127.0.0.1:${PORT}/`);
        await page.getByTestId('worker-status').waitFor();
        // The fragment size sits in the closed "Advanced" settings; the default is the
        // measured book preset's, so set each size explicitly.
        await openAdvanced(page);
        await page.getByLabel('Fragment size').selectOption(String(wordsPerFragment));
        const t0 = Date.now();
        await dropFiles(page, [{ name: 'war-and-peace.txt', path: BOOK }]);
        await page.getByTestId('library-item').first().waitFor({ timeout: 300_000 });
        const indexMs = Date.now() - t0;
        const meta = (await page.getByTestId('library-item').first().textContent()) ?? '';
        const fragments = Number(/([\d,]+) fragments/.exec(meta)?.[1].replace(/,/g, '') ?? 0);
        log(`${wordsPerFragment} words: ${fragments} fragments indexed in ${indexMs} ms`);
        await page.getByLabel('Question').fill(QUESTION);
        await page.getByRole('button', { name: 'Ask' }).click();
        await page.getByTestId('ranked-list').waitFor();
        const times: number[] = [];
        for (let m = 0; m < MOVES; m++) {
          const alpha = (0.3 + (m % 10) * 0.15).toFixed(2);
          await page.getByLabel('alpha').fill(alpha);
          await page
            .locator('.score-bar__eq')
            .first()
            .filter({ hasText: `${Number(alpha).toFixed(3)}×` })
            .waitFor();
          times.push(Number(await page.getByTestId('rerank-ms').textContent()));
        }
        rows.push({
          embedder: await page.getByLabel('Embedder').inputValue(),
          wordsPerFragment,
          fragments,
          indexMs,
          rerankMedianMs: median(times),
          rerankMaxMs: Math.max(...times),
        });
        await page.context().close();
      }
      const markdown = [
        'Built app (`vite preview`) in headless Debian Chromium, the default offline embedder (GloVe, or the vectors distilled from MiniLM when the build has them: the table names it), the default relations. Indexing: from the drop until the book is listed (read, split, embed, kNN relation, one IndexedDB transaction). Re-rank: the worker time the page reports per alpha move (median of ' +
          MOVES +
          ').',
        '',
        '| embedder | fragment size | fragments | index (drop to listed) | re-rank median | re-rank max |',
        '|---|---:|---:|---:|---:|---:|',
        ...rows.map(
          (r) =>
            `| ${r.embedder} | ${r.wordsPerFragment} words | ${r.fragments.toLocaleString('en')} | ${(r.indexMs / 1000).toFixed(1)} s | ${r.rerankMedianMs.toFixed(1)} ms | ${r.rerankMaxMs.toFixed(1)} ms |`,
        ),
      ].join('\n');
      return { results: { book: 'pg2600_war_and_peace.txt', rows }, markdown };
    } finally {
      await browser.close();
      stop();
    }
  },
};
