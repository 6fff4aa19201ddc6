/**
 * @file Meaning in the real browser: all-MiniLM-L6-v2 with its real int8 weights (fetched by
 * `npm run models`), loaded by the product's own code (models.html, the embed worker,
 * transformers.js) from the local hub mirror exactly as from the hub, on wasm and on WebGPU
 * (SwiftShader). Paraphrases must score far above unrelated sentences, and HotpotQA gold
 * paragraphs must rank first far more often than with the offline GloVe embedder, which this
 * test scores in Node with the same core code the app uses.
 */
import { expect, test, type Page } from '@playwright/test';
import { chromiumArgs } from '../playwright.config';
import { loadGloveFromDisk } from '../test/glove';
import { goldRanking, loadHotpot, PARAPHRASE_TRIPLES } from '../test/meaning-fixtures';
import { requireRealModel } from '../test/real-models';
import { embedTexts } from '../src/core/embed/static';
import { startHubMirror, type HubMirror } from './support/hub-mirror';
import { isLocal } from './support/local-page';

/** HotpotQA questions ranked in Chromium: enough for a clear signal within a CI minute. */
const HOTPOT_QUESTIONS = 30;

let mirror: HubMirror;

test.beforeAll(async () => {
  requireRealModel('all-MiniLM-L6-v2');
  mirror = await startHubMirror();
});

test.afterAll(async () => {
  await mirror?.close();
});

async function loadModel(page: Page, device: 'wasm' | 'webgpu'): Promise<void> {
  const params = new URLSearchParams({ host: mirror.url, model: 'all-MiniLM-L6-v2', device });
  await page.goto(`models.html?${params}`);
  await page.getByRole('button', { name: 'Load and check' }).click();
  const main = page.locator('main');
  await expect(main).toHaveAttribute('data-state', /^(done|error)$/, { timeout: 180_000 });
  if ((await main.getAttribute('data-state')) === 'error') {
    throw new Error(`Model check failed: ${await page.getByTestId('error').textContent()}`);
  }
  await expect(page.getByTestId('dim')).toHaveText('384');
  await expect(page.getByTestId('device-used')).toHaveText(device);
}

/** Rank sets of `query` + passages on the page; each set's cosines in input order. */
async function rank(
  page: Page,
  sets: { query: string; passages: readonly string[] }[],
): Promise<{ ms: number; sets: number[][] }> {
  // One line per text: newlines inside a paragraph would start a new passage or set.
  const line = (t: string) => t.replace(/\s+/g, ' ').trim();
  const text = sets.map((s) => [s.query, ...s.passages].map(line).join('\n')).join('\n\n');
  await page.getByLabel(/A query on the first line/).fill(text);
  await page.getByRole('button', { name: 'Rank', exact: true }).click();
  const out = page.getByTestId('ranking-result');
  await expect(out).toBeVisible({ timeout: 300_000 });
  const ranked = JSON.parse((await out.textContent()) ?? '') as { ms: number; sets: number[][] };
  expect(ranked.sets.map((s) => s.length)).toEqual(sets.map((s) => s.passages.length));
  return ranked;
}

function paraphraseSets() {
  // Flattened lines must not merge: no passage may be blank.
  return PARAPHRASE_TRIPLES.map(([anchor, para, unrelated]) => ({
    query: anchor,
    passages: [para, unrelated],
  }));
}

function expectParaphraseMargins(scores: number[][]) {
  const margins = scores.map(([para, unrelated]) => para - unrelated);
  console.log(
    `[MiniLM in Chromium] paraphrase - unrelated cosine: min ${Math.min(...margins).toFixed(3)}, ` +
      `mean ${(margins.reduce((a, b) => a + b, 0) / margins.length).toFixed(3)}`,
  );
  for (const m of margins) expect(m).toBeGreaterThan(0.3);
}

test.describe('wasm', () => {
  test('paraphrases far above unrelated sentences; HotpotQA gold first far more often than GloVe', async ({
    page,
  }) => {
    test.setTimeout(600_000);
    const urls: string[] = [];
    page.context().on('request', (r) => urls.push(r.url()));
    await page.context().route(
      (url) => !isLocal(url.href),
      (route) => route.abort('blockedbyclient'),
    );
    await loadModel(page, 'wasm');
    expectParaphraseMargins((await rank(page, paraphraseSets())).sets);

    const items = loadHotpot().slice(0, HOTPOT_QUESTIONS);
    const real = await rank(
      page,
      items.map((i) => ({ query: i.question, passages: i.paragraphs })),
    );
    const glove = loadGloveFromDisk();
    const gloveScores = items.map((item) => {
      const q = embedTexts(glove, [item.question]);
      const p = embedTexts(glove, item.paragraphs);
      return item.paragraphs.map((_, i) => {
        let s = 0;
        for (let d = 0; d < q.dim; d++) s += q.data[d] * p.data[i * q.dim + d];
        return s;
      });
    });
    const minilm = goldRanking(items, (q) => real.sets[q]);
    const static_ = goldRanking(items, (q) => gloveScores[q]);
    const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
    console.log(
      `[MiniLM in Chromium, wasm] HotpotQA first ${HOTPOT_QUESTIONS} questions: gold first ` +
        `${pct(minilm.first)} (GloVe ${pct(static_.first)}), recall@2 ${pct(minilm.recall2)} ` +
        `(GloVe ${pct(static_.recall2)}), chance ${pct(minilm.chance)}; ranked in ${Math.round(real.ms)} ms`,
    );
    expect(minilm.first).toBeGreaterThan(static_.first + 0.15);
    expect(minilm.recall2).toBeGreaterThan(static_.recall2 + 0.1);

    // The weights and tokenizer came from the mirror; nothing left 127.0.0.1.
    expect(urls.filter((u) => !isLocal(u))).toEqual([]);
    expect(urls).toContain(
      `${mirror.url}Xenova/all-MiniLM-L6-v2/resolve/main/onnx/model_quantized.onnx`,
    );
  });
});

test.describe('webgpu', () => {
  // SwiftShader's adapter appears only with --enable-unsafe-webgpu and is slow: paraphrases only.
  test('the same model on the WebGPU device keeps paraphrases far above unrelated sentences', async ({
    playwright,
    baseURL,
  }) => {
    test.setTimeout(600_000);
    const browser = await playwright.chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      headless: true,
      args: [...chromiumArgs, '--enable-unsafe-webgpu'],
    });
    try {
      const page = await (await browser.newContext({ baseURL })).newPage();
      await loadModel(page, 'webgpu');
      expectParaphraseMargins((await rank(page, paraphraseSets())).sets);
    } finally {
      await browser.close();
    }
  });
});
