/**
 * @file `npm run bench:pipelines -- --real`: the answer pipelines (FragRel, LongRAG, SEGMENT+,
 * QRMeM) on the REAL small instruct model, SmolLM2-135M-Instruct (GGUF Q4_1, fetched by `npm run
 * models`), in wllama in the built app in headless Chromium, as a person runs them: drop the
 * document, ask, load the model from the catalogue (hub pointed at the local mirror), pick the
 * pipeline, Run, then "Save the trace (JSON)", from which every figure is read.
 *
 * Per question and pipeline: LLM calls, tokens in and out (llama.cpp's own counts), wall time of
 * the run, the critical path (calls in sequence and its time), and the answer's score:
 * - L-Eval QuALITY (multiple choice): letter accuracy. The letter is parsed by `choiceLetter`
 *   (src/core/eval/metrics.ts): a parenthesised "(B)" first, else the first standalone capital
 *   A-D; no letter = wrong. The question is asked with its four options, as L-Eval gives it.
 *   Beside it, the mapped accuracy: with no letter, the one option whose text the answer quotes
 *   (`mappedChoiceLetter`), since the small model often answers with an option's text alone.
 * - Qasper (L-Eval scientific_qa) and MuSiQue: LongBench's token F1 and contain-EM (normalised
 *   answers), best over the gold answers.
 *
 * The model reads about 19 tokens/s and writes about 8 on this 2-core machine when it is idle
 * (BENCHMARKS.md), and wllama counts tokens by reading the text, so the documents are SHORT: each
 * cut to BENCH_MAX_WORDS words (default 400). MuSiQue keeps its supporting paragraphs first and
 * fills up with distractors, so the answer is in the text; QuALITY and Qasper keep the opening of
 * the article or paper, so the answer may have been cut away (the table says so). The settings
 * are the small ones of e2e/pipelines-real.spec.ts (2,048-token context, short output caps, k = 2
 * chunks, 1 QRMeM trial, NER entities only, no generated questions).
 *
 * Results are written after every run (bench/results/pipelines-real.json), so a run stopped
 * early keeps what it measured. BENCH_QUESTIONS (default 1) questions per dataset;
 * BENCH_DATASETS (default all) a comma list of QuALITY,Qasper,MuSiQue; BENCH_PIPELINES (default
 * all) a comma list of fragrel,longrag,segment,qrmem; REALPIPES_THREADS wllama's threads (2);
 * BENCH_APPEND=1 adds this run's rows to the file's.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { chromium, type Page } from '@playwright/test';
import { chromiumArgs } from '../playwright.config';
import { openAdvanced } from '../e2e/support/advanced';
import { dropFiles } from '../e2e/support/drop';
import { startHubMirror, type HubMirror } from '../e2e/support/hub-mirror';
import {
  choiceLetter,
  choiceOptions,
  containEM,
  mappedChoiceLetter,
  qaF1,
} from '../src/core/eval/metrics';
import type { Trace } from '../src/core/pipelines/types';
import { sharedDatasetPath } from '../test/glove';
import { requireRealModel } from '../test/real-models';
import { startPreview } from './browser';
import { resultsDir, writeResults } from './results-file';

const PORT = Number(process.env.BENCH_PORT ?? 4192);
const PER_DATASET = Number(process.env.BENCH_QUESTIONS ?? 1);
const MAX_WORDS = Number(process.env.BENCH_MAX_WORDS ?? 400);
const THREADS = process.env.REALPIPES_THREADS ?? '2';
const PIPELINES = (process.env.BENCH_PIPELINES ?? 'fragrel,longrag,segment,qrmem').split(',');
const NAMES: Record<string, string> = {
  fragrel: 'FragRel',
  longrag: 'LongRAG',
  segment: 'SEGMENT+',
  qrmem: 'QRMeM',
};

interface Question {
  dataset: 'QuALITY' | 'Qasper' | 'MuSiQue';
  id: string;
  document: string;
  /** Words of the original document, before the cut. */
  fullWords: number;
  question: string;
  answers: string[];
  /** QuALITY: the gold letter. */
  letter?: string;
}

const cutWords = (text: string, n: number) => text.split(/\s+/).slice(0, n).join(' ');

/** The shortest documents first: the first question of each. */
function leval(file: string, dataset: 'QuALITY' | 'Qasper'): Question[] {
  const docs = readFileSync(sharedDatasetPath('leval', file), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { input: string; instructions: string[]; outputs: string[] })
    .map((d, i) => ({ ...d, i, words: d.input.split(/\s+/).length }))
    .sort((a, b) => a.words - b.words);
  const out: Question[] = [];
  for (const d of docs) {
    // Qasper's yes/no and unanswerable questions say little about reading: a content question.
    const q = d.instructions.findIndex((_, j) => !/^(yes|no|unanswerable)$/i.test(d.outputs[j]));
    if (q < 0) continue;
    const answers = [d.outputs[q]];
    out.push({
      dataset,
      id: `${file}#${d.i}.${q}`,
      document: cutWords(d.input, MAX_WORDS),
      fullWords: d.words,
      question:
        dataset === 'QuALITY'
          ? `${d.instructions[q]}\n\nAnswer with the letter of the right option.`
          : d.instructions[q],
      answers,
      ...(dataset === 'QuALITY' ? { letter: /\(([A-D])\)/.exec(answers[0])?.[1] ?? '?' } : {}),
    });
    if (out.length >= PER_DATASET) break;
  }
  return out;
}

function musique(): Question[] {
  const items = JSON.parse(
    readFileSync(sharedDatasetPath('hipporag_multihop_train100', 'musique_train.json'), 'utf8'),
  ) as Array<{
    id: string;
    question: string;
    answer: string;
    answer_aliases: string[];
    paragraphs: Array<{ title: string; paragraph_text: string; is_supporting?: boolean }>;
  }>;
  // Some records keep their paragraphs as a Python literal string: the list ones are used.
  return items
    .filter((item) => Array.isArray(item.paragraphs))
    .slice(0, PER_DATASET)
    .map((item) => {
      const paragraphs = [
        ...item.paragraphs.filter((p) => p.is_supporting),
        ...item.paragraphs.filter((p) => !p.is_supporting),
      ];
      const kept: string[] = [];
      let words = 0;
      for (const p of paragraphs) {
        const text = `${p.title}\n${p.paragraph_text}`;
        const n = text.split(/\s+/).length;
        if (words + n > MAX_WORDS && kept.length) break;
        kept.push(text);
        words += n;
      }
      return {
        dataset: 'MuSiQue',
        id: item.id,
        document: kept.join('\n\n'),
        fullWords: paragraphs
          .map((p) => `${p.title}\n${p.paragraph_text}`)
          .join(' ')
          .split(/\s+/).length,
        question: item.question,
        answers: [item.answer, ...(item.answer_aliases ?? [])],
      };
    });
}

interface SavedRun {
  status: string;
  answer: string;
  trace: Trace;
}

export interface RealRow {
  dataset: string;
  id: string;
  pipeline: string;
  status: string;
  documentWords: number;
  fullWords: number;
  calls: number;
  tokensIn: number;
  tokensOut: number;
  wallMs: number;
  criticalPathCalls: number;
  criticalPathMs: number;
  answer: string;
  gold: string[];
  letter?: string | null;
  accuracy?: number;
  /** QuALITY: the letter, else the one option whose text the answer quotes (`quotedOption`). */
  mappedLetter?: string | null;
  mappedAccuracy?: number;
  f1?: number;
  containEM?: number;
  error?: string;
  /** The machine's 1, 5 and 15-minute load averages when the run ended (2 cores). */
  loadAverage?: number[];
}

async function setPipeline(page: Page, id: string) {
  const panel = page.getByTestId('pipelines-panel');
  await panel.getByRole('radio', { name: NAMES[id], exact: true }).check();
  const fill = (label: string, v: string) => panel.getByLabel(label).fill(v);
  if (id === 'fragrel') await fill('Answer tokens', '32');
  if (id === 'longrag') {
    await fill('Candidates (top k1)', '10');
    await fill('Chunks kept (top k2)', '2');
    await fill('CoT output (tokens)', '96');
    await fill('Extractor output (tokens)', '64');
    await fill('Fragments per paragraph', '1');
  }
  if (id === 'segment') {
    await fill('Segment tokens', '400');
    await fill('Note output (tokens)', '96');
    await fill('Answer tokens', '32');
  }
  if (id === 'qrmem') {
    await fill('Generated questions', '0');
    await panel.getByLabel('LLM entities (besides NER)').uncheck();
    await fill('Segment tokens', '400');
    await fill('Trials at most', '1');
    await fill('Parse retries', '1');
    await fill('Extraction output (tokens)', '64');
    await fill('Judge output (tokens)', '64');
    await fill('Answer tokens', '32');
  }
}

/** One question: a fresh page (fresh library), the model loaded, every pipeline run. */
async function runQuestion(
  browser: import('@playwright/test').Browser,
  mirror: HubMirror,
  q: Question,
  onRow: (row: RealRow) => void,
  log: (s: string) => void,
) {
  const context = await browser.newContext({ acceptDownloads: true });
  const page = await context.newPage();
  try {
    await page.goto(`http://127.0.0.1:${PORT}/`);
    await page.getByTestId('worker-status').filter({ hasText: 'Workers ready' }).waitFor();
    await openAdvanced(page);
    await page.getByLabel('Fragment size').selectOption('100');
    await dropFiles(page, [{ name: `${q.dataset}.txt`, bytes: Buffer.from(q.document) }]);
    await page.getByTestId('library-item').first().waitFor({ timeout: 300_000 });
    await page
      .getByTestId('library-item')
      .first()
      .filter({ hasText: /\d+ fragments/ })
      .waitFor({ timeout: 300_000 });
    await page.getByLabel('Independent score').selectOption('bm25');
    // FragRel's selection: 200 words (two 100-word fragments), like LongRAG's k = 2.
    await page.locator('input[type=range][aria-label=budget]').fill('200');
    await page.getByLabel('Question').fill(q.question);
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    await page.getByTestId('retrieval-summary').waitFor();
    const answerPanel = page.getByTestId('answer-panel');
    await page.getByLabel('CPU threads (0 = automatic)').fill(THREADS);
    await page.getByLabel('Context size (tokens)').fill('2048');
    const catalogue = answerPanel.getByTestId('gguf-catalogue');
    await catalogue.getByText('Download from another hub or mirror').click();
    await catalogue.getByLabel('Model hub').fill(mirror.url);
    await catalogue
      .locator('[data-key="smollm2-135m-instruct"]')
      .getByRole('button', { name: /Download and load SmolLM2|^Load SmolLM2/ })
      .click();
    await answerPanel.getByTestId('local-model-ready').waitFor({ timeout: 300_000 });

    for (const id of PIPELINES) {
      await setPipeline(page, id);
      const panel = page.getByTestId('pipelines-panel');
      const started = Date.now();
      await panel.getByRole('button', { name: `Run ${NAMES[id]}` }).click();
      // This run's header first: until then the panel still says "done" from the previous one.
      await panel.getByText(`${NAMES[id]} · Question:`).waitFor();
      await page
        .locator('[data-testid="pipelines-panel"]:is([data-state="done"],[data-state="error"])')
        .waitFor({ timeout: 3_600_000 });
      const wallMs = Date.now() - started;
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        panel.getByTestId('pipeline-save-trace').click(),
      ]);
      const saved = JSON.parse(readFileSync(await download.path(), 'utf8')) as SavedRun;
      const t = saved.trace;
      const answer = saved.answer.trim();
      const row: RealRow = {
        dataset: q.dataset,
        id: q.id,
        pipeline: NAMES[id],
        status: saved.status,
        documentWords: q.document.split(/\s+/).length,
        fullWords: q.fullWords,
        calls: t.calls.length,
        tokensIn: t.calls.reduce((s, c) => s + c.tokensIn, 0),
        tokensOut: t.calls.reduce((s, c) => s + c.tokensOut, 0),
        wallMs,
        criticalPathCalls: t.criticalPath.calls.length,
        criticalPathMs: Math.round(t.criticalPath.ms),
        answer,
        gold: q.answers,
        loadAverage: os.loadavg().map((l) => Math.round(l * 10) / 10),
      };
      if (q.letter) {
        row.letter = choiceLetter(answer);
        row.accuracy = row.letter === q.letter ? 1 : 0;
        row.mappedLetter = mappedChoiceLetter(answer, choiceOptions(q.question));
        row.mappedAccuracy = row.mappedLetter === q.letter ? 1 : 0;
      } else {
        row.f1 = Math.max(...q.answers.map((g) => qaF1(answer, g)));
        row.containEM = Math.max(...q.answers.map((g) => containEM(answer, g)));
      }
      if (saved.status !== 'done')
        row.error = (await panel.getByTestId('pipeline-error').textContent()) ?? '';
      log(
        `${q.dataset} ${NAMES[id]}: ${saved.status}, ${row.calls} calls, ${row.tokensIn} in / ${row.tokensOut} out, ${(wallMs / 1000).toFixed(0)} s, answer ${JSON.stringify(answer.slice(0, 100))}`,
      );
      onRow(row);
    }
  } finally {
    await context.close();
  }
}

export async function runRealPipelines(log: (s: string) => void = console.log) {
  requireRealModel('SmolLM2-135M-Instruct');
  const datasets = (process.env.BENCH_DATASETS ?? 'QuALITY,Qasper,MuSiQue').split(',');
  const questions = [
    ...leval('quality.jsonl', 'QuALITY'),
    ...leval('scientific_qa.jsonl', 'Qasper'),
    ...musique(),
  ].filter((q) => datasets.includes(q.dataset));
  const mirror = await startHubMirror();
  const stop = await startPreview(PORT);
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: chromiumArgs,
  });
  // BENCH_APPEND=1 keeps the rows of the last run and adds this run's (one run per subset).
  const previous = path.join(resultsDir, 'pipelines-real.json');
  const rows: RealRow[] =
    process.env.BENCH_APPEND && existsSync(previous)
      ? (JSON.parse(readFileSync(previous, 'utf8')) as { results: { rows: RealRow[] } }).results
          .rows
      : [];
  const save = () =>
    writeResults('pipelines-real', {
      engine: `SmolLM2-135M-Instruct Q4_1 in wllama 3.8.1, built app in headless Chromium, ${THREADS} thread(s), 2,048-token context, temperature 0`,
      // The machine is shared: its load when each row was written is in the row.
      load: 'the shared 2-core VM, with other engineers running their tests (see loadAverage per row)',
      maxWords: MAX_WORDS,
      perDataset: PER_DATASET,
      rows,
    });
  try {
    for (const q of questions)
      await runQuestion(
        browser,
        mirror,
        q,
        (row) => {
          rows.push(row);
          save();
        },
        log,
      );
  } finally {
    await browser.close();
    stop();
    await mirror.close();
  }
  const file = save();
  log(table(rows));
  log(`written to ${file}`);
}

export function table(rows: RealRow[]): string {
  const score = (r: RealRow) =>
    r.accuracy !== undefined
      ? `letter ${r.letter ?? '–'}: ${r.accuracy ? 'right' : 'wrong'}` +
        (r.mappedLetter !== undefined && r.mappedLetter !== r.letter
          ? `; quoted option ${r.mappedLetter ?? '–'}: ${r.mappedAccuracy ? 'right' : 'wrong'}`
          : '')
      : `F1 ${(100 * (r.f1 ?? 0)).toFixed(1)}, cEM ${r.containEM ?? 0}`;
  return [
    '| dataset | pipeline | words (of) | status | calls | tokens in | tokens out | wall time | critical path | score | answer |',
    '|---|---|---|---|---:|---:|---:|---:|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.dataset} | ${r.pipeline} | ${r.documentWords} (${r.fullWords.toLocaleString('en')}) | ${r.status} | ${r.calls} | ${r.tokensIn.toLocaleString('en')} | ${r.tokensOut.toLocaleString('en')} | ${(r.wallMs / 1000).toFixed(0)} s | ${r.criticalPathCalls} calls, ${(r.criticalPathMs / 1000).toFixed(0)} s | ${score(r)} | ${JSON.stringify(r.answer.slice(0, 80)).replace(/\|/g, '\\|')} |`,
    ),
  ].join('\n');
}
