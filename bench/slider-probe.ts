/**
 * @file A probe for the slider on the million-line repository (issue 16; docs/scale.md section
 * 10), not a bench section: the repository is indexed once into a persistent Chromium profile
 * (PROBE_PROFILE, default /tmp/slider-profile), so each later run only loads the page, asks, and
 * moves alpha PROBE_MOVES times, timed in the page as bench/scale-repo.ts times them. Options:
 * PROBE_DIST (the build), PROBE_DELAY_S (wait before the question), PROBE_AFTER_S (wait between
 * the question and the moves: the window's graph neighbourhood is parsed meanwhile), PROBE_CSS
 * (a style sheet added to the page, to try a rendering change without a build), PROBE_TRACE (a
 * Chromium trace of the moves, for bench/trace-summary.ts), and it prints the page's element
 * counts by region. Port 4185. Settings persist in the profile (the first move may be a no-op).
 * `PROBE_DIST=dist npx tsx bench/slider-probe.ts`
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { chromium } from '@playwright/test';
import { chromiumArgs } from '../playwright.config';
import { startPreview } from './browser';
import { CODE_VIEW_PROBE, millionLines, zip } from './scale-repo';

const DIST = process.env.PROBE_DIST ?? 'dist';
const PORT = Number(process.env.PROBE_PORT ?? 4185);
const PROFILE = process.env.PROBE_PROFILE ?? '/tmp/slider-profile';
const MOVES = Number(process.env.PROBE_MOVES ?? 15);
const CSS = process.env.PROBE_CSS ?? '';
const DELAY = Number(process.env.PROBE_DELAY_S ?? 10);
const TRACE = process.env.PROBE_TRACE;
const AFTER = Number(process.env.PROBE_AFTER_S ?? 0);

async function main() {
  const stop = await startPreview(PORT, DIST);
  const context = await chromium.launchPersistentContext(PROFILE, {
    executablePath: '/usr/bin/chromium',
    args: chromiumArgs,
    headless: true,
  });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`http://127.0.0.1:${PORT}/`);
    await page.getByTestId('worker-status').filter({ hasText: 'Workers ready' }).waitFor();
    await new Promise((r) => setTimeout(r, 1000));
    if ((await page.locator('[data-testid="library-item"]').count()) === 0) {
      const bytes = zip('million', millionLines().sources);
      await context.route('**/__bench/million.zip', (route) =>
        route.fulfill({ body: Buffer.from(bytes), contentType: 'application/zip' }),
      );
      await page.evaluate(async () => {
        const b = await (await fetch('/__bench/million.zip')).arrayBuffer();
        const dt = new DataTransfer();
        dt.items.add(new File([b], 'million.zip', { type: 'application/zip' }));
        for (const type of ['dragenter', 'dragover', 'drop'])
          document.body.dispatchEvent(
            new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }),
          );
      });
      await page.locator('[data-testid="library-item"]').waitFor({ timeout: 300_000 });
      console.log('indexed');
    }
    await page.locator('[data-testid="code-view"] #code-question').waitFor({ timeout: 60_000 });
    if (CSS) await page.addStyleTag({ content: CSS });
    await page.evaluate(CODE_VIEW_PROBE);
    await new Promise((r) => setTimeout(r, DELAY * 1000));
    const q = (await page.evaluate(
      `window.__ask("How are command line arguments parsed into options?")`,
    )) as { ms: number };
    console.log(`question ${q.ms.toFixed(0)} ms`);
    console.log(
      'DOM',
      await page.evaluate(() => ({
        all: document.querySelectorAll('*').length,
        lines: document.querySelectorAll('.code-line').length,
        files: document.querySelectorAll('.file-tree__file').length,
        open: document.querySelector('[data-testid="open-file"]')?.textContent,
        height: document.documentElement.scrollHeight,
        bigText: [...document.querySelectorAll('body *')]
          .filter((e) => e.children.length === 0)
          .map((e) => [e.tagName + '.' + e.className, (e.textContent ?? '').length] as const)
          .sort((a, b) => b[1] - a[1])
          .slice(0, 5),
        byClass: Object.entries(
          [...document.querySelectorAll('body *')].reduce<Record<string, number>>((acc, e) => {
            const top = e.closest('section, nav, aside, header, main, fieldset');
            const k = top ? top.tagName + '.' + top.className.toString().split(' ')[0] : 'none';
            acc[k] = (acc[k] ?? 0) + 1;
            return acc;
          }, {}),
        )
          .sort((a, b) => b[1] - a[1])
          .slice(0, 10),
        styles: (() => {
          const out: Record<string, number> = {};
          for (const e of document.querySelectorAll('body *')) {
            const cs = getComputedStyle(e);
            if (cs.boxShadow !== 'none') out.boxShadow = (out.boxShadow ?? 0) + 1;
            if (cs.filter !== 'none') out.filter = (out.filter ?? 0) + 1;
            if (cs.backdropFilter !== 'none') out.backdrop = (out.backdrop ?? 0) + 1;
            if (cs.backgroundImage !== 'none') out.bgImage = (out.bgImage ?? 0) + 1;
            if (cs.borderRadius !== '0px') out.radius = (out.radius ?? 0) + 1;
          }
          return out;
        })(),
      })),
    );
    await new Promise((r) => setTimeout(r, AFTER * 1000));
    const cdp = await context.newCDPSession(page);
    if (TRACE)
      await cdp.send('Tracing.start', {
        categories:
          'devtools.timeline,disabled-by-default-devtools.timeline,disabled-by-default-v8.cpu_profiler,toplevel',
        transferMode: 'ReturnAsStream',
      });
    const walls: number[] = [];
    for (let m = 0; m < MOVES; m++) {
      const a = (0.3 + (m % 10) * 0.15).toFixed(2);
      const r = (await page.evaluate(`window.__slide(${JSON.stringify(a)})`)) as { ms: number };
      walls.push(Math.round(r.ms));
    }
    if (TRACE) {
      const done = new Promise<{ stream?: string }>((r) => cdp.once('Tracing.tracingComplete', r));
      await cdp.send('Tracing.end');
      const { stream } = await done;
      const parts: string[] = [];
      for (;;) {
        const chunk = await cdp.send('IO.read', { handle: stream!, size: 1 << 20 });
        parts.push(chunk.base64Encoded ? Buffer.from(chunk.data, 'base64').toString() : chunk.data);
        if (chunk.eof) break;
      }
      writeFileSync(TRACE, parts.join(''));
    }
    const sorted = [...walls].sort((a, b) => a - b);
    console.log(
      `moves ${walls.join(' ')} | median ${sorted[sorted.length >> 1]} | load ${os.loadavg()[0].toFixed(2)}`,
    );
  } finally {
    await context.close();
    stop();
  }
}
void main();
