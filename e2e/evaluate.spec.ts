import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { requireRealModel } from '../test/real-models';
import { dropFiles } from './support/drop';
import { startHubMirror } from './support/hub-mirror';
import { isLocal, openLocalPage } from './support/local-page';
import { configureLoopbackEngine } from './support/loopback-engine';
import { startOpenAiServer, type Reply } from './support/openai-server';
import { datasetPath } from '../test/datasets';

const HERE = dirname(fileURLToPath(import.meta.url));
const QUALITY = datasetPath('leval', 'quality.jsonl');

/** The first `docs` documents of the real L-Eval QuALITY file, written at test time (not committed). */
function qualitySubset(docs: number): Uint8Array {
  const lines = readFileSync(QUALITY, 'utf8').split('\n').filter(Boolean).slice(0, docs);
  return new TextEncoder().encode(`${lines.join('\n')}\n`);
}

async function expectNoSeriousAxeViolations(page: Page) {
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations.filter(
    (v) => v.impact === 'serious' || v.impact === 'critical',
  );
  expect(
    serious.map((v) => `${v.id}: ${v.help} (${v.nodes.length}) ${v.nodes[0]?.target}`),
  ).toEqual([]);
}

const CSV_HEADER =
  'config,scorer,relations,alpha,w_rel,fragment_words,baseline,budget,unit,gold_n,gold_recall,gold_delta,gold_ci95_low,gold_ci95_high,answer_n,answer_in_context,answer_delta,answer_ci95_low,answer_ci95_high';

test('an L-Eval file: detected, a grid run, reloaded mid-run and resumed, table, plot and CSV; a malformed file gets the message', async ({
  browser,
}) => {
  test.setTimeout(180_000);
  const urls: string[] = [];
  const problems: string[] = [];
  const page = await openLocalPage(browser, urls, problems);
  await page.goto('/evaluate.html');
  await expect(
    page.getByRole('heading', { name: 'Evaluate retrieval on a benchmark' }),
  ).toBeVisible();

  // A file in no known format: a message naming what was expected; nothing else appears.
  await dropFiles(page, [
    { name: 'notes.jsonl', bytes: new TextEncoder().encode('{"title": "x"}\n') },
  ]);
  await expect(page.getByTestId('eval-file-error')).toContainText('no known benchmark format');
  await expect(page.getByTestId('eval-file-error')).toContainText('Expected one of: L-Eval JSONL');
  await expect(page.getByTestId('eval-detected')).toHaveCount(0);

  // Six real QuALITY documents with their questions.
  await dropFiles(page, [{ name: 'quality.jsonl', bytes: qualitySubset(6) }]);
  await expect(page.getByTestId('eval-format')).toHaveText('L-Eval JSONL');
  await expect(page.getByTestId('eval-file-error')).toHaveCount(0);
  const questions = Number(
    (await page.getByTestId('eval-count-questions').textContent())!.match(/\d+/)![0],
  );
  expect(questions).toBeGreaterThan(50);

  // The grid: BM25 and dense, plain / context / semantic, alpha 0.5 and 1, 100- and 200-word
  // fragments, budgets 500, 1000 and 2000 words: 2 x (1 + 2 x 2) x 2 = 20 configurations.
  await page.getByLabel('dense (GloVe word vectors, offline)').check();
  await page.getByLabel('semantic kNN (Eq. 6)').check();
  await page.getByLabel('alpha').fill('0.5, 1');
  await page.getByLabel('fragment sizes (words)').fill('100, 200');
  await page.getByLabel('budgets').fill('500, 1000, 2000');
  await expect(page.getByTestId('eval-grid-size')).toContainText(
    `20 configurations × ${questions} questions = ${20 * questions} results`,
  );
  await page.getByRole('button', { name: 'Run the grid' }).click();

  // Reload as soon as some questions are stored, before the run ends.
  const progress = page.getByTestId('eval-progress');
  await expect
    .poll(async () => Number((await progress.getAttribute('data-done')) ?? 0), { timeout: 60_000 })
    .toBeGreaterThan(0);
  const doneBeforeReload = Number(await progress.getAttribute('data-done'));
  const total = Number(await progress.getAttribute('data-total'));
  expect(total).toBe(20 * questions);
  expect(doneBeforeReload).toBeLessThan(total);
  await page.reload();

  // The run resumes by itself; what was stored is not computed again.
  const resumed = page.getByTestId('eval-resumed');
  await expect(resumed).toBeVisible({ timeout: 30_000 });
  const stored = Number((await resumed.textContent())!.match(/(\d+) results/)![1]);
  const resumedAt = Number(await resumed.getAttribute('data-started-at'));
  expect(stored).toBeGreaterThanOrEqual(doneBeforeReload);
  await expect(page.getByTestId('eval-status')).toHaveText('done', { timeout: 120_000 });

  // The table: one row per configuration, every question done, intervals against the baseline.
  const table = page.getByTestId('eval-table-gold');
  await expect(table.locator('tbody tr')).toHaveCount(20);
  await expect(table.locator('tbody tr').first()).toContainText('(baseline)');
  await expect(table.locator('tbody tr').nth(1)).toContainText(`${questions} / ${questions}`);
  await expect(table.locator('tbody tr').nth(1)).toContainText(
    /\d+\.\d \([+−]\d+\.\d \[[+−]\d+\.\d, [+−]\d+\.\d\]\)/,
  );
  // The plot is drawn (chart.js paints the canvas).
  const canvas = page.getByTestId('eval-plot').locator('canvas');
  await expect(canvas).toBeVisible();
  expect(
    await canvas.evaluate((c: HTMLCanvasElement) => {
      const data = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
      let painted = 0;
      for (let i = 3; i < data.length; i += 4) if (data[i] > 0) painted++;
      return painted;
    }),
  ).toBeGreaterThan(1000);

  await expectNoSeriousAxeViolations(page);
  // The picture of docs/evaluation.md.
  if (process.env.UPDATE_SCREENSHOTS) {
    await page.screenshot({
      path: resolve(HERE, '../docs/screenshot-evaluate.png'),
      fullPage: true,
    });
  }

  // The results stored before the resume kept their time (they were not computed again); every
  // other one was computed after it.
  const jsonDownload = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export JSON' }).click();
  const json = JSON.parse(readFileSync((await (await jsonDownload).path())!, 'utf8')) as {
    results: { computedAt: number }[];
    spec: { configs: unknown[] };
  };
  expect(json.results).toHaveLength(20 * questions);
  expect(json.results.filter((r) => r.computedAt < resumedAt).length).toBe(stored);

  // CSV: the header and one row per configuration and budget, with its settings.
  const csvDownload = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export CSV' }).click();
  const csv = readFileSync((await (await csvDownload).path())!, 'utf8')
    .trim()
    .split('\n');
  expect(csv[0]).toBe(CSV_HEADER);
  expect(csv).toHaveLength(1 + 20 * 3);
  expect(csv[1]).toMatch(/^bm25\|plain\|f100,bm25,none,0,0,100,bm25\|plain\|f100,500,words,\d+,/);
  expect(
    csv.some((l) => l.startsWith('dense|semantic|a1|w0.3|f200,dense,semantic,1,0.3,200,')),
  ).toBe(true);

  expect(problems).toEqual([]);
  expect(urls.filter((u) => !isLocal(u))).toEqual([]);
  await page.context().close();
});

const say = (text: string): Reply => ({ kind: 'answer', pieces: [text] });

test('answer evaluation: the cost is estimated before starting, then FragRel answers two QuALITY questions through a scripted server and is scored', async ({
  browser,
}) => {
  const server = await startOpenAiServer();
  const urls: string[] = [];
  const problems: string[] = [];
  try {
    // The first document's first two questions: the right option for the first, a wrong one
    // for the second (so letter accuracy is 50%).
    const doc = JSON.parse(readFileSync(QUALITY, 'utf8').split('\n')[0]) as {
      instructions: string[];
      outputs: string[];
    };
    const stem = (k: number) => doc.instructions[k].split('\n')[0].trim();
    const letter = (k: number) => /^\(([A-D])\)/.exec(doc.outputs[k])![1];
    const wrong = 'ABCD'.replace(letter(1), '')[0];
    server.routes = [
      { when: stem(0), reply: say(doc.outputs[0]) },
      { when: stem(1), reply: say(`(${wrong}) Something else.`) },
    ];
    const page = await openLocalPage(browser, urls, problems);
    await page.goto('/evaluate.html');
    await dropFiles(page, [{ name: 'quality.jsonl', bytes: qualitySubset(1) }]);
    await expect(page.getByTestId('eval-format')).toHaveText('L-Eval JSONL');
    const section = page.getByTestId('answer-eval');
    await configureLoopbackEngine(section, server, { contextWindow: 8192 });
    await section.getByTestId('answer-sample').fill('2');

    // Nothing can start before the cost is estimated; the estimate sends nothing.
    const start = section.getByRole('button', { name: 'Start answering' });
    await expect(start).toBeDisabled();
    await section.getByRole('button', { name: 'Estimate the cost' }).click();
    const estimate = section.getByTestId('answer-estimate');
    await expect(estimate.locator('tbody tr')).toHaveCount(1);
    await expect(estimate.locator('tbody tr td').first()).toHaveText('2');
    expect(server.requests.filter((r) => r.method === 'POST')).toHaveLength(0);

    await start.click();
    await expect(section.getByTestId('answer-progress')).toHaveText('2 / 2 answers', {
      timeout: 60_000,
    });
    const row = section.getByTestId('answer-table').locator('tr[data-pipeline="fragrel"]');
    const cells = row.locator('td');
    await expect(cells.nth(0)).toHaveText('2');
    await expect(cells.nth(1)).toHaveText('0');
    // Letter accuracy: one of two; contain-match: the first answer holds the gold option text.
    await expect(cells.nth(5)).toHaveText('50.0');
    await expect(cells.nth(4)).toHaveText('50.0');
    await expect(cells.nth(6)).toHaveText('2');
    const posts = server.requests.filter((r) => r.method === 'POST');
    expect(posts).toHaveLength(2);
    await expectNoSeriousAxeViolations(page);
    expect(JSON.stringify(posts[0].body)).toContain(stem(0));
    expect(problems).toEqual([]);
    expect(urls.filter((u) => !isLocal(u))).toEqual([]);
    await page.context().close();
  } finally {
    await server.close();
  }
});

test('answer evaluation is stored as it goes: reloaded mid-run, resumed, the answered questions are not asked again; CSV and JSON with the settings', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const server = await startOpenAiServer();
  const urls: string[] = [];
  const problems: string[] = [];
  try {
    const doc = JSON.parse(readFileSync(QUALITY, 'utf8').split('\n')[0]) as {
      instructions: string[];
      outputs: string[];
    };
    const stem = (k: number) => doc.instructions[k].split('\n')[0].trim();
    // The second question's answer takes long: the page is reloaded while it is in flight.
    server.routes = [
      { when: stem(0), reply: say(doc.outputs[0]) },
      {
        when: stem(1),
        reply: { kind: 'answer', pieces: ['(A) slow', ' answer'], delayMs: 20_000 },
      },
      { when: stem(2), reply: say(doc.outputs[2]) },
    ];
    const asked = (k: number) =>
      server.requests.filter(
        (r) =>
          r.method === 'POST' && (r.body?.messages ?? []).some((m) => m.content.includes(stem(k))),
      ).length;
    const page = await openLocalPage(browser, urls, problems);
    await page.goto('/evaluate.html');
    await dropFiles(page, [{ name: 'quality.jsonl', bytes: qualitySubset(1) }]);
    const section = page.getByTestId('answer-eval');
    await configureLoopbackEngine(section, server, { contextWindow: 8192 });
    await section.getByTestId('answer-sample').fill('3');
    await section.getByRole('button', { name: 'Estimate the cost' }).click();
    await section.getByRole('button', { name: 'Start answering' }).click();

    // The first answer is stored; the second question is being asked: reload now.
    await expect(section.getByTestId('answer-progress')).toHaveText('1 / 3 answers', {
      timeout: 30_000,
    });
    await expect.poll(() => asked(1), { timeout: 30_000 }).toBe(1);
    expect(asked(0)).toBe(1);
    await page.reload();

    // The interrupted run is shown with what it stored, and waits for the user (a paid API
    // engine is never resumed by itself).
    const again = page.getByTestId('answer-eval');
    await expect(again.getByTestId('answer-interrupted')).toBeVisible({ timeout: 30_000 });
    await expect(again.getByTestId('answer-progress')).toHaveText('1 / 3 answers');
    await expect(page.getByTestId('eval-format')).toHaveText('L-Eval JSONL');
    await page.waitForTimeout(500);
    expect(asked(2)).toBe(0);
    // The engine settings were kept; the key was not remembered, so it is typed again.
    await again.getByLabel('API key').fill('sk-test-0123456789');
    server.routes[1] = { when: stem(1), reply: say(`(B) ${doc.outputs[1]}`) };
    const resumedAt = Date.now();
    await again.getByRole('button', { name: 'Resume answering' }).click();
    await expect(again.getByTestId('answer-status')).toHaveText('done', { timeout: 60_000 });
    await expect(again.getByTestId('answer-progress')).toHaveText('3 / 3 answers');
    await expect(
      again.getByTestId('answer-table').locator('tr[data-pipeline="fragrel"] td').first(),
    ).toHaveText('3');

    // The stored question was not asked again; the one in flight at the reload was (its answer
    // never arrived), and the third once.
    expect([asked(0), asked(1), asked(2)]).toEqual([1, 2, 1]);
    expect(server.requests.filter((r) => r.method === 'POST')).toHaveLength(4);

    // CSV: one row per answer, with the settings that produced it.
    const csvDownload = page.waitForEvent('download');
    await again.getByRole('button', { name: 'Export answers CSV' }).click();
    const csv = readFileSync((await (await csvDownload).path())!, 'utf8')
      .trim()
      .split('\n');
    expect(csv[0]).toBe(
      'pipeline,question,status,f1,em,contain,letter,calls,tokens_in,tokens_out,answer,error,engine,model,fragment_words,budget_words,alpha,w_rel,computed_at',
    );
    expect(csv).toHaveLength(4);
    expect(
      csv.slice(1).every((l) => /^fragrel,.*,openai,test-model,500,2000,0.5,0.3,/.test(l)),
    ).toBe(true);
    // JSON: the first answer kept its time (not asked again), the engine without its key.
    const jsonDownload = page.waitForEvent('download');
    await again.getByRole('button', { name: 'Export answers JSON' }).click();
    const text = readFileSync((await (await jsonDownload).path())!, 'utf8');
    expect(text).not.toContain('sk-test');
    const json = JSON.parse(text) as {
      settings: { engine: { kind: string; model: string; baseUrl: string } };
      answers: { question: string; computedAt: number }[];
    };
    expect(json.settings.engine).toMatchObject({ kind: 'openai', model: 'test-model' });
    expect(json.answers).toHaveLength(3);
    expect(json.answers.filter((a) => a.computedAt < resumedAt)).toHaveLength(1);

    // The picture of docs/evaluation.md (the answer section after the resumed run).
    if (process.env.UPDATE_SCREENSHOTS) {
      await again.locator('details').last().locator('summary').click();
      await again.screenshot({ path: resolve(HERE, '../docs/screenshot-evaluate-answers.png') });
    }
    // Listed among the stored runs as an answer run.
    await expect(page.getByTestId('eval-runs')).toContainText('answers · quality.jsonl');
    expect(problems).toEqual([]);
    expect(urls.filter((u) => !isLocal(u))).toEqual([]);
    await page.context().close();
  } finally {
    await server.close();
  }
});

test('answer evaluation offers QRMeM with its settings: estimated first, then it answers through the scripted server beside FragRel', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const server = await startOpenAiServer();
  const urls: string[] = [];
  const problems: string[] = [];
  try {
    const doc = JSON.parse(readFileSync(QUALITY, 'utf8').split('\n')[0]) as {
      outputs: string[];
    };
    // Each QRMeM step answered by a phrase of its prompt (as in e2e/qrmem.spec.ts).
    server.routes = [
      { when: 'List the key entities', reply: say('["Earth"]') },
      { when: 'For each pair', reply: say('[]') },
      { when: 'Summarise the following text', reply: say('A story.') },
      { when: 'new questions about the document', reply: say('[]') },
      { when: 'this question is about', reply: say('["Earth"]') },
      {
        when: 'Can the question be answered from these passages?',
        reply: say(
          JSON.stringify({ answerable: true, answer: doc.outputs[0], reason: 'It says so.' }),
        ),
      },
      { when: 'Answer the question from the passages', reply: say(doc.outputs[0]) },
    ];
    server.fallback = say(doc.outputs[0]);
    const page = await openLocalPage(browser, urls, problems);
    await page.goto('/evaluate.html');
    await dropFiles(page, [{ name: 'quality.jsonl', bytes: qualitySubset(1) }]);
    const section = page.getByTestId('answer-eval');
    await configureLoopbackEngine(section, server, { contextWindow: 8192 });
    await section.getByTestId('answer-sample').fill('1');
    await section.getByLabel('QRMeM', { exact: true }).check();
    // Its settings: no generated questions (no graph update), one trial at most.
    await section.getByText('Settings of QRMeM').click();
    await section.getByLabel('Generated questions').fill('0');
    await section.getByLabel('Trials at most').fill('1');

    const start = section.getByRole('button', { name: 'Start answering' });
    await expect(start).toBeDisabled();
    await section.getByRole('button', { name: 'Estimate the cost' }).click();
    const estimate = section.getByTestId('answer-estimate');
    await expect(estimate.locator('tbody tr')).toHaveCount(2);
    const estimated = async (id: string) =>
      Number(await estimate.locator(`tr[data-pipeline="${id}"] td`).first().textContent());
    expect(await estimated('fragrel')).toBe(1);
    // QRMeM extracts entities from every segment before it navigates: many calls.
    expect(await estimated('qrmem')).toBeGreaterThan(3);
    expect(server.requests.filter((r) => r.method === 'POST')).toHaveLength(0);

    await start.click();
    await expect(section.getByTestId('answer-status')).toHaveText('done', { timeout: 90_000 });
    const row = section.getByTestId('answer-table').locator('tr[data-pipeline="qrmem"] td');
    await expect(row.nth(0)).toHaveText('1');
    await expect(row.nth(1)).toHaveText('0');
    // Scored: the gold option, so letter accuracy 100%.
    await expect(row.nth(5)).toHaveText('100.0');
    const posts = server.requests.filter((r) => r.method === 'POST');
    const qrmemCalls = Number(await row.nth(6).textContent());
    expect(qrmemCalls).toBeGreaterThan(3);
    expect(posts).toHaveLength(qrmemCalls + 1);
    // Its settings were used: no question generation was asked for.
    const prompts = posts.map((r) => (r.body?.messages ?? []).map((m) => m.content).join('\n'));
    expect(prompts.some((p) => p.includes('new questions about the document'))).toBe(false);
    expect(problems).toEqual([]);
    expect(urls.filter((u) => !isLocal(u))).toEqual([]);
    await page.context().close();
  } finally {
    await server.close();
  }
});

test('the grid with the real MiniLM embedder: loaded from the hub mirror, its dense row shown', async ({
  browser,
}) => {
  test.setTimeout(180_000);
  requireRealModel('all-MiniLM-L6-v2');
  const mirror = await startHubMirror();
  const urls: string[] = [];
  const problems: string[] = [];
  try {
    const page = await openLocalPage(browser, urls, problems);
    await page.goto('/evaluate.html');
    await dropFiles(page, [{ name: 'quality.jsonl', bytes: qualitySubset(1) }]);
    await expect(page.getByTestId('eval-format')).toHaveText('L-Eval JSONL');
    // A tiny grid: BM25 and MiniLM dense, plain, 500-word fragments, one budget, 3 questions.
    await page.getByLabel('all-MiniLM-L6-v2 (transformer, ~23 MB download)').check();
    await page.getByTestId('eval-hub-host').fill(mirror.url);
    await page.getByLabel('dense (all-MiniLM-L6-v2)').check();
    await page.getByLabel('context structure (Eq. 7)').uncheck();
    await page.getByLabel('fragment sizes (words)').fill('500');
    await page.getByLabel('budgets').fill('1000');
    await page.getByTestId('eval-sample').fill('3');
    await expect(page.getByTestId('eval-grid-size')).toContainText(
      '2 configurations × 3 questions = 6 results',
    );
    await page.getByRole('button', { name: 'Run the grid' }).click();
    await expect(page.getByTestId('eval-status')).toHaveText('done', { timeout: 150_000 });
    await expect(page.getByTestId('eval-embedder')).toHaveText('all-MiniLM-L6-v2');
    const rows = page.getByTestId('eval-table-gold').locator('tbody tr');
    await expect(rows).toHaveCount(2);
    await expect(rows.nth(1)).toContainText('dense');
    await expect(rows.nth(1)).toContainText('3 / 3');
    // The weights came from the mirror; nothing left 127.0.0.1.
    expect(urls).toContain(
      `${mirror.url}Xenova/all-MiniLM-L6-v2/resolve/main/onnx/model_quantized.onnx`,
    );
    expect(problems).toEqual([]);
    expect(urls.filter((u) => !isLocal(u))).toEqual([]);
    await page.context().close();
  } finally {
    await mirror.close();
  }
});
