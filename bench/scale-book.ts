/**
 * @file Scale, a 100 MB text file in the built app: the Gutenberg books repeated to
 * about 107 MiB (as bench `scale-read` builds it), dropped on the app in headless Debian Chromium
 * and indexed to the end (read, split, embed with the static embedder, relate, store).
 *
 * Measured: drop to listed; when each progress stage was first seen; the peak resident memory of
 * the renderer processes (/proc; the page and its workers live there) before the drop, while the
 * book is read and split (until the job shows another stage), and over the whole job. The file
 * is fetched by the page (served from the build folder) into a Blob before the drop, outside the
 * timing.
 *
 * Run against a build: `npx vite build --outDir dist-book`, then `SCALE_BOOK_DIST=dist-book
 * SCALE_BOOK_PORT=4187 npx tsx bench/run.ts scale-book`. SCALE_BOOK_TIMEOUT_S: the time limit
 * (600 s); SCALE_BOOK_READ_ONLY=1 stops once the job moves on from reading and splitting.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from '@playwright/test';
import { chromiumArgs } from '../playwright.config';
import { sharedDatasetPath } from '../test/glove';
import { startPreview } from './browser';
import type { BenchSection } from './run';
import { jobState, rendererRss } from './scale-repo';

const DIST = process.env.SCALE_BOOK_DIST ?? 'dist';
const PORT = Number(process.env.SCALE_BOOK_PORT ?? 4187);
const TIMEOUT_MS = Number(process.env.SCALE_BOOK_TIMEOUT_S ?? 600) * 1000;
/** SCALE_BOOK_READ_ONLY=1: stop once the book is read and split (the job moves on to embed). */
const READ_ONLY = process.env.SCALE_BOOK_READ_ONLY === '1';

/** The Gutenberg books repeated past 100 MiB (the file of bench `scale-read`). */
export function hundredMegabyteBook(): Buffer {
  const dir = sharedDatasetPath('gutenberg');
  const books = readdirSync(dir)
    .filter((f) => f.endsWith('.txt'))
    .sort()
    .map((f) => readFileSync(`${dir}/${f}`));
  const parts: Buffer[] = [];
  let size = 0;
  while (size < 100 * 2 ** 20) {
    for (const b of books) parts.push(b);
    size += books.reduce((n, b) => n + b.length, 0);
  }
  return Buffer.concat(parts);
}

interface BookRun {
  mib: number;
  /** 'read': stopped once read and split (SCALE_BOOK_READ_ONLY). */
  outcome: 'listed' | 'read' | 'error' | 'timeout';
  ms: number;
  stagesSeenAtMs: Record<string, number>;
  fragments: number | null;
  rssBeforeDropMB: number;
  peakRssReadMB: number;
  peakRssMB: number;
  timings: string | null;
  error?: string;
  loadAverage: number[];
}

const mb = (bytes: number) => Math.round(bytes / 2 ** 20);

export const scaleBookSection: BenchSection = {
  name: 'scale-book',
  description: 'Scale: a ~100 MB text file dropped on the built app in Chromium',
  async run(log) {
    const bytes = hundredMegabyteBook();
    // Served by the preview server from the build folder (a route's body of 100 MB crashes the
    // page: Playwright hands it over the DevTools protocol).
    const served = path.join(DIST, '__bench-big.txt');
    writeFileSync(served, bytes);
    const stop = await startPreview(PORT, DIST);
    const browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: chromiumArgs,
    });
    const result: BookRun = {
      mib: mb(bytes.length),
      outcome: 'timeout',
      ms: 0,
      stagesSeenAtMs: {},
      fragments: null,
      rssBeforeDropMB: 0,
      peakRssReadMB: 0,
      peakRssMB: 0,
      timings: null,
      loadAverage: os.loadavg().map((l) => Number(l.toFixed(2))),
    };
    try {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`http://127.0.0.1:${PORT}/`);
      await page.getByTestId('worker-status').filter({ hasText: 'Workers ready' }).waitFor();
      await page.evaluate(async () => {
        const blob = await (await fetch('/__bench-big.txt')).blob();
        (window as unknown as { __book: File }).__book = new File([blob], 'big.txt', {
          type: 'text/plain',
        });
      });
      await new Promise((r) => setTimeout(r, 2000));
      // Playwright's Browser does not expose its process: Chromium is a child of this one.
      const rss = () => mb(rendererRss(process.pid));
      result.rssBeforeDropMB = rss();
      const t0 = Date.now();
      await page.evaluate(() => {
        const w = window as unknown as { __book: File };
        const dt = new DataTransfer();
        dt.items.add(w.__book);
        for (const type of ['dragenter', 'dragover', 'drop']) {
          document.body.dispatchEvent(
            new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }),
          );
        }
      });
      let reading = true;
      let lastLog = 0;
      for (;;) {
        const now = Date.now() - t0;
        const state = await jobState(page);
        const current = rss();
        result.peakRssMB = Math.max(result.peakRssMB, current);
        if (state.job) {
          const stage = state.job.replace(/[\s\d,.%/()MBKiG]+$/, '').trim();
          if (!(stage in result.stagesSeenAtMs)) {
            result.stagesSeenAtMs[stage] = now;
            log(`${stage} at ${(now / 1000).toFixed(1)} s, rss ${current} MB`);
          }
          // 'Starting', 'Reading', 'Splitting into fragments': the read and the split.
          if (reading && /embed|relat|stor|sav/i.test(stage)) reading = false;
        }
        if (!reading && READ_ONLY) {
          result.outcome = 'read';
          result.ms = now;
          break;
        }
        if (reading) result.peakRssReadMB = Math.max(result.peakRssReadMB, current);
        if (now - lastLog > 15_000) {
          lastLog = now;
          log(`${(now / 1000).toFixed(0)} s, ${state.job ?? '-'}, rss ${current} MB`);
        }
        if (state.listed !== null) {
          result.outcome = 'listed';
          result.ms = now;
          result.fragments = Number(
            /([\d,]+) fragments/.exec(state.listed)?.[1].replace(/,/g, '') ?? NaN,
          );
          break;
        }
        if (state.jobs === 0 && now > 2000) {
          result.outcome = 'error';
          result.ms = now;
          result.error = await page.evaluate(() =>
            [...document.querySelectorAll('[data-testid="notice"]')]
              .map((e) => e.textContent ?? '')
              .join(' | ')
              .slice(0, 500),
          );
          break;
        }
        if (now > TIMEOUT_MS) {
          result.ms = now;
          break;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      const timings = page.getByTestId('index-timings');
      if ((await timings.count()) > 0) result.timings = await timings.first().textContent();
    } finally {
      await browser.close();
      stop();
      rmSync(served, { force: true });
    }
    const markdown = [
      '| file | outcome | drop → listed | fragments | renderer RSS before drop | peak while reading and splitting | peak over the job | load |',
      '| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |',
      `| ${result.mib} MiB | ${result.outcome} | ${(result.ms / 1000).toFixed(1)} s | ${result.fragments} | ${result.rssBeforeDropMB} MB | ${result.peakRssReadMB} MB | ${result.peakRssMB} MB | ${result.loadAverage.join(', ')} |`,
      '',
      `Stages first seen (ms after the drop): ${JSON.stringify(result.stagesSeenAtMs)}`,
      result.timings ? `Timings shown: ${result.timings}` : '',
    ].join('\n');
    return { results: result, markdown };
  },
};
