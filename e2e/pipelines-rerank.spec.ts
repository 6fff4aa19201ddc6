/**
 * @file LongRAG's cross-encoder rerank in the browser: src/models/cross-encoder.ts through
 * transformers.js, with the tiny XLM-RoBERTa cross-encoder of ../shared/models (RANDOM weights:
 * this proves the plumbing only, not the ranking) served by the local hub mirror. The LLM is the
 * scripted OpenAI-compatible server on 127.0.0.1, so the run is quick and deterministic.
 *
 * Asserted: the model's files are fetched from the mirror (tokenizer, config, an ONNX file); the
 * trace's rerank step says the cross-encoder reranked; every candidate carries a finite rerank
 * score beside its retrieval score, and the kept chunks are the k best by that score.
 */
import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { dropFiles } from './support/drop';
import { startHubMirror } from './support/hub-mirror';
import { isLocal, openLocalPage } from './support/local-page';
import { configureLoopbackEngine } from './support/loopback-engine';
import { startOpenAiServer } from './support/openai-server';
import { datasetPath } from '../test/datasets';

const ALICE = datasetPath('gutenberg', 'pg11.txt');
const MODEL = 'opensearch-tiny-xlm-roberta-cross-encoder';
const QUESTION = 'What was written on the label of the jar Alice took from the shelf?';
const say = (text: string) => ({ kind: 'answer' as const, pieces: [text] });

test('LongRAG reranks with a cross-encoder loaded by transformers.js from the hub mirror', async ({
  browser,
}) => {
  test.setTimeout(180_000);
  const urls: string[] = [];
  const problems: string[] = [];
  const mirror = await startHubMirror();
  const server = await startOpenAiServer();
  server.routes = [
    { when: 'Thinking process:', reply: say('The jar is named in one passage.') },
    { when: 'Reply with JSON only, in this form: {"status"', reply: say('{"status": "True"}') },
    { when: '\nInformation:', reply: say('The jar was labelled ORANGE MARMALADE.') },
    { when: 'The following are given passages.', reply: say('ORANGE MARMALADE [1].') },
  ];
  const page = await openLocalPage(browser, urls, problems);
  try {
    await page.goto('/');
    await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
    const text = readFileSync(ALICE, 'utf8').replace(/\r\n/g, '\n').split(/\s+/).slice(0, 1500);
    await dropFiles(page, [{ name: 'alice-opening.txt', bytes: Buffer.from(text.join(' ')) }]);
    await expect(page.getByTestId('library-item')).toContainText(/\d+ fragments/);
    await page.getByLabel('Question').fill(QUESTION);
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    await expect(page.getByTestId('retrieval-summary')).toContainText(QUESTION);
    await configureLoopbackEngine(page, server);

    const panel = page.getByTestId('pipelines-panel');
    await panel.getByRole('radio', { name: 'LongRAG' }).check();
    await panel.getByPlaceholder('none: rerank by the retrieval score').fill(MODEL);
    await panel.getByLabel('Cross-encoder hub').fill(mirror.url);
    await panel.getByLabel('Chunks kept (top k2)').fill('2');
    await panel.getByRole('button', { name: 'Run LongRAG' }).click();
    await expect(panel).toHaveAttribute('data-state', 'done', { timeout: 120_000 });
    await expect(panel.getByTestId('pipeline-answer')).toHaveText('ORANGE MARMALADE [1].');

    // The model came from the mirror: its tokenizer, its config and one of its ONNX files.
    const fetched = mirror.requests.filter((r) => r.status === 200).map((r) => r.path);
    const base = `/${MODEL}/resolve/main/`;
    expect(fetched).toContain(`${base}tokenizer.json`);
    expect(fetched).toContain(`${base}config.json`);
    expect(fetched.some((p) => p.startsWith(`${base}onnx/model`))).toBe(true);

    const trace = panel.getByTestId('pipeline-trace');
    const rerank = trace.locator('[data-step="longrag.rerank"]');
    await expect(rerank).toContainText(`Cross-encoder: ${MODEL}.`);
    await expect(rerank).not.toContainText('No cross-encoder is loaded');
    const items = rerank.getByTestId('trace-item');
    const n = await items.count();
    expect(n).toBeGreaterThan(2);
    const scored: Array<{ rerank: number; kept: boolean }> = [];
    for (let i = 0; i < n; i++) {
      const summary = (await items.nth(i).locator('summary').textContent()) ?? '';
      const m = /rerank (-?[\d.]+(?:e-?\d+)?)/.exec(summary);
      expect(m, summary).not.toBeNull();
      expect(summary).toMatch(/independent /);
      scored.push({
        rerank: Number(m![1]),
        kept: (await items.nth(i).getAttribute('data-verdict')) === 'kept',
      });
    }
    expect(scored.every((s) => Number.isFinite(s.rerank))).toBe(true);
    // The two kept are the two best by the cross-encoder's score.
    const kept = scored.filter((s) => s.kept).map((s) => s.rerank);
    const dropped = scored.filter((s) => !s.kept).map((s) => s.rerank);
    expect(kept).toHaveLength(2);
    expect(Math.min(...kept)).toBeGreaterThanOrEqual(Math.max(...dropped));
    expect(urls.filter((u) => !isLocal(u))).toEqual([]);
    expect(problems).toEqual([]);
  } finally {
    await page.context().close();
    await server.close();
    await mirror.close();
  }
});
