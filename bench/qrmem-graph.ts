/**
 * @file How long QRMeM's graph view takes to draw an entity graph in Chromium (Debian's, as the
 * e2e tests use): cytoscape creating the graph with its layout, then one pan and two frames.
 * Random graphs of n nodes and 2n edges, seeded. Chooses the size above which the view uses the
 * grid layout instead of cose (src/ui/qrmem/EntityGraphView.tsx). Run: `npx tsx bench/qrmem-graph.ts`.
 */
import { createRequire } from 'node:module';
import { chromium } from '@playwright/test';
import { writeResults } from './results-file';

/** Runs in the page: draw a seeded random graph, then time one pan and two frames. */
const DRAW = `function (n, layout) {
  let s = 1;
  function rnd() { s = (s * 16807) % 2147483647; return s / 2147483647; }
  const elements = [];
  for (let i = 0; i < n; i++) elements.push({ data: { id: 'n' + i, label: 'entity ' + i } });
  for (let i = 0; i < 2 * n; i++)
    elements.push({ data: { id: 'e' + i, source: 'n' + Math.floor(rnd() * n), target: 'n' + Math.floor(rnd() * n) } });
  const big = n > 150;
  const t0 = performance.now();
  const cy = cytoscape({
    container: document.getElementById('c'),
    elements,
    style: [{ selector: 'node', style: { label: 'data(label)' } }],
    layout: { name: layout, animate: false },
    hideEdgesOnViewport: big, hideLabelsOnViewport: big, textureOnViewport: big,
  });
  const t1 = performance.now();
  cy.panBy({ x: 10, y: 0 });
  return new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => {
    const t2 = performance.now();
    cy.destroy();
    resolve([Math.round(t1 - t0), Math.round(t2 - t1)]);
  })));
}`;

const CASES: Array<[number, 'cose' | 'grid']> = [
  [100, 'cose'],
  [150, 'cose'],
  [500, 'cose'],
  [3000, 'grid'],
];

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox'],
});
const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
await page.setContent('<div id="c" style="width:900px;height:360px"></div>');
await page.addScriptTag({
  path: createRequire(import.meta.url).resolve('cytoscape/dist/cytoscape.min.js'),
});
const rows = [];
for (const [n, layout] of CASES) {
  // A string, not a function: tsx's transform would add helpers the page does not have.
  const [createMs, panMs] = (await page.evaluate(`(${DRAW})(${n}, '${layout}')`)) as [
    number,
    number,
  ];
  rows.push({ nodes: n, edges: 2 * n, layout, createMs, panMs });
  console.log(
    `${n} nodes, ${2 * n} edges, ${layout}: create + layout ${createMs} ms, pan + 2 frames ${panMs} ms`,
  );
}
await browser.close();
console.log(
  `written to ${writeResults('qrmem-graph', { browser: 'Debian Chromium, headless', rows })}`,
);
