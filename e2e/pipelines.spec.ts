/**
 * @file The answer pipelines in the built app: FragRel, LongRAG (E&F) and SEGMENT+ answer a
 * question about a dropped book through the OpenAI-compatible engine, against the scripted
 * server on 127.0.0.1 (support/openai-server.ts), which answers each step by a phrase of its
 * prompt. The captured requests show each step's prompt; the trace shows every call.
 *
 * The engine is set up by `configureLoopbackEngine` (support/loopback-engine.ts); a run on a real GGUF model in wllama needs only
 * another set-up there (the model URL as its parameter) and the trace assertions that do not
 * depend on scripted replies.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { bookFile, dropFiles } from './support/drop';
import { isLocal, openLocalPage } from './support/local-page';
import { configureLoopbackEngine } from './support/loopback-engine';
import {
  startOpenAiServer,
  type OpenAiServer,
  type RecordedRequest,
} from './support/openai-server';
import { datasetPath } from '../test/datasets';

const HERE = dirname(fileURLToPath(import.meta.url));
const ALICE = datasetPath('gutenberg', 'pg11.txt');
const QUESTION = 'What did the Mock Turtle learn at school in the sea?';
const QUOTE = 'Reeling and Writhing, of course, to begin with';
const CONTEXT = 4096;

test.describe.configure({ mode: 'serial' });

let server: OpenAiServer;
let page: Page;
const urls: string[] = [];
const problems: string[] = [];

const say = (text: string) => ({
  kind: 'answer' as const,
  pieces: [text.slice(0, 7), text.slice(7)],
});

/** The prompt of each request to the chat endpoint, in arrival order. */
const prompts = (from = 0) =>
  server.requests
    .slice(from)
    .filter((r: RecordedRequest) => r.method === 'POST')
    .map((r) => ({
      text: r.body!.messages!.map((m) => m.content).join('\n'),
      max: r.body!.max_tokens,
    }));

const panel = () => page.getByTestId('pipelines-panel');

async function runPipeline(name: string) {
  await panel().getByRole('radio', { name }).check();
  await panel()
    .getByRole('button', { name: `Run ${name}` })
    .click();
  await expect(panel()).toHaveAttribute('data-state', 'done', { timeout: 60_000 });
}

test.beforeAll(async ({ browser }) => {
  server = await startOpenAiServer();
  server.routes = [
    // LongRAG
    {
      when: 'Thinking process:',
      reply: say('The Mock Turtle names his lessons; the passages list them.'),
    },
    { when: 'Reply with JSON only, in this form: {"status"', reply: say('{"status": "True"}') },
    { when: '\nInformation:', reply: say('He learned Reeling and Writhing, and Arithmetic.') },
    { when: 'The following are given passages.', reply: say('Reeling and Writhing [1].') },
    // SEGMENT+
    {
      when: 'Document part:',
      reply: say(JSON.stringify({ Evidence: QUOTE, Reasoning: 'The lessons are named.' })),
    },
    { when: 'Reply with one word: Keep or Remove.', reply: say('Keep') },
    {
      when: 'Notes, in document order',
      reply: say(JSON.stringify({ Evidence: QUOTE, Reasoning: 'Merged.' })),
    },
    { when: 'The following are the notes.', reply: say('Reeling and Writhing [1].') },
    // FragRel
    // Model output is data: markup in it must show as text and never run.
    {
      when: 'numbered excerpts',
      reply: say('Reeling and Writhing [1]. <img src=x onerror="window.__pwned=1">'),
    },
  ];
  page = await openLocalPage(browser, urls, problems);
  await page.goto('/');
  await expect(page.getByTestId('worker-status')).toContainText('Workers ready');
  await dropFiles(page, [bookFile(ALICE)]);
  await expect(page.getByTestId('library-item')).toContainText(/\d+ fragments/);
  await page.getByLabel('Question').fill(QUESTION);
  await page.getByRole('button', { name: 'Ask', exact: true }).click();
  await expect(page.getByTestId('retrieval-summary')).toContainText(QUESTION);
  // The OpenAI-compatible engine with a 4,096-token window (the small-model case).
  await configureLoopbackEngine(page, server, { contextWindow: CONTEXT });
});

test.afterAll(async () => {
  await page?.context().close();
  await server?.close();
});

test('LongRAG (E&F): k + 3 calls, each step prompt sent, the trace with chunks and verdicts', async () => {
  const before = server.requests.length;
  await runPipeline('LongRAG');
  await expect(panel().getByTestId('pipeline-answer')).toHaveText('Reeling and Writhing [1].');
  const sent = prompts(before);
  const count = (phrase: string) => sent.filter((p) => p.text.includes(phrase)).length;
  expect(sent).toHaveLength(7 + 3);
  expect(count('Thinking process:')).toBe(1);
  expect(count('{"status"')).toBe(7);
  expect(count('\nInformation:')).toBe(1);
  expect(count('The following are given passages.')).toBe(1);
  for (const p of sent) expect(p.text).toContain(QUESTION);
  // Sizes adapted to the 4,096-token window: CoT 1000, extractor 512, filter 32, answer 32.
  expect(sent.find((p) => p.text.includes('Thinking process:'))!.max).toBe(1000);
  expect(sent.find((p) => p.text.includes('\nInformation:'))!.max).toBe(512);
  expect(sent.filter((p) => p.text.includes('{"status"')).every((p) => p.max === 32)).toBe(true);
  // The generator's passages are the kept chunks, then the extracted information.
  const generator = sent.find((p) => p.text.includes('The following are given passages.'))!.text;
  expect(generator).toContain('[1] (pg11.txt · fragment ');
  expect(generator).toContain('He learned Reeling and Writhing, and Arithmetic.');

  const trace = panel().getByTestId('pipeline-trace');
  await expect(trace.getByTestId('trace-call')).toHaveCount(10);
  await expect(trace.locator('[data-step="longrag.rerank"]')).toContainText(
    'No cross-encoder is loaded',
  );
  await expect(
    trace.locator('[data-step="longrag.filter"] [data-testid="trace-item"][data-verdict="kept"]'),
  ).toHaveCount(7);
  await expect(trace.getByTestId('trace-critical')).toContainText(
    'longrag.cot → longrag.filter → longrag.generator',
  );
  // Open a call: its prompt is the one the server received.
  const cot = trace.locator('[data-tag="longrag.cot"]');
  await cot.locator('summary').click();
  await expect(cot.getByTestId('trace-prompt')).toContainText('Thinking process:');
  await expect(cot.getByTestId('trace-reply')).toHaveText(
    'The Mock Turtle names his lessons; the passages list them.',
  );
  if (process.env.UPDATE_SCREENSHOTS) {
    await cot.locator('summary').click(); // closed again: the screenshot shows the whole trace
    await panel().screenshot({ path: resolve(HERE, '../docs/screenshot-pipelines.png') });
    await cot.locator('summary').click();
  }
  // No serious accessibility problem in the panel with its trace open.
  const axe = await new AxeBuilder({ page }).include('[data-testid="pipelines-panel"]').analyze();
  const serious = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious.map((v) => `${v.id}: ${v.help} (${v.nodes.length})`)).toEqual([]);
  // The citation is a link to its fragment.
  await expect(
    panel().getByTestId('pipeline-answer').getByRole('link', { name: '[1]' }),
  ).toHaveAttribute('data-fragment', /\d+/);
});

test('SEGMENT+: a note per segment, judges, the answer from the notes, the merge tree', async () => {
  const before = server.requests.length;
  await runPipeline('SEGMENT+');
  await expect(panel().getByTestId('pipeline-answer')).toHaveText('Reeling and Writhing [1].');
  const sent = prompts(before);
  const notes = sent.filter((p) => p.text.includes('Document part:'));
  const judges = sent.filter((p) => p.text.includes('Keep or Remove'));
  const merges = sent.filter((p) => p.text.includes('Notes, in document order'));
  const answers = sent.filter((p) => p.text.includes('The following are the notes.'));
  expect(notes.length).toBeGreaterThan(5);
  expect(judges).toHaveLength(notes.length);
  expect(answers).toHaveLength(1);
  expect(sent).toHaveLength(notes.length + judges.length + merges.length + 1);
  // Segments are sized to the window: a note call's prompt and output fit 4,096 tokens.
  for (const n of notes) expect(n.max).toBe(768);
  // The answer sees the notes, not the book.
  expect(answers[0].text).toContain(`Evidence: ${QUOTE}`);
  expect(answers[0].text).not.toContain('Down the Rabbit-Hole');

  const trace = panel().getByTestId('pipeline-trace');
  await expect(trace.getByTestId('trace-call')).toHaveCount(sent.length);
  await expect(
    trace.locator('[data-step="segment.filter"] [data-testid="trace-item"]'),
  ).toHaveCount(notes.length);
  await expect(trace.getByTestId('merge-tree')).toContainText('answer ←');
  if (process.env.UPDATE_SCREENSHOTS)
    await panel().screenshot({ path: resolve(HERE, '../docs/screenshot-segment.png') });
  await expect(trace).toContainText('segment size S: 2,500 tokens');
});

test('FragRel on the pipeline interface: one call, the story prompt', async () => {
  const before = server.requests.length;
  await runPipeline('FragRel');
  await expect(panel().getByTestId('pipeline-answer')).toHaveText(
    'Reeling and Writhing [1]. <img src=x onerror="window.__pwned=1">',
  );
  await expect(panel().locator('img')).toHaveCount(0);
  expect(
    await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned),
  ).toBeUndefined();
  const sent = prompts(before);
  expect(sent).toHaveLength(1);
  expect(sent[0].text).toContain('[1] (pg11.txt · fragment ');
  expect(sent[0].text.endsWith(`Question: ${QUESTION}`)).toBe(true);
  await expect(panel().getByTestId('pipeline-trace').getByTestId('trace-call')).toHaveCount(1);
});

test('Stop ends every call in flight; nothing more is sent', async () => {
  // The CoT and the extractor start together and stream slowly; Stop comes while both run.
  const slow = { kind: 'answer' as const, pieces: Array(20).fill('slow '), delayMs: 300 };
  server.routes.unshift(
    { when: 'Thinking process:', reply: slow },
    { when: '\nInformation:', reply: slow },
  );
  await panel().getByRole('radio', { name: 'LongRAG' }).check();
  await panel().getByRole('button', { name: 'Run LongRAG' }).click();
  await expect(panel().getByTestId('pipeline-status')).toContainText('2 running');
  // The trace is drawn while the pipeline runs.
  await expect(panel().locator('[data-testid="trace-call"][data-status="running"]')).toHaveCount(2);
  const sentBefore = prompts().length;
  await panel().getByRole('button', { name: 'Stop' }).click();
  await expect(panel()).toHaveAttribute('data-state', 'stopped');
  await expect(panel().getByTestId('pipeline-error')).toHaveCount(0);
  const trace = panel().getByTestId('pipeline-trace');
  await expect(trace.locator('[data-tag="longrag.cot"]')).toHaveAttribute('data-status', 'stopped');
  await expect(trace.locator('[data-tag="longrag.extractor"]')).toHaveAttribute(
    'data-status',
    'stopped',
  );
  await page.waitForTimeout(500);
  expect(prompts().length).toBe(sentBefore);
  server.routes.splice(0, 2);
});

test('an API error mid-pipeline is shown and the trace keeps what was done', async () => {
  const before = server.requests.length;
  // The extractor and the CoT start together; the CoT's branch then fails.
  server.routes.unshift({
    when: 'Thinking process:',
    reply: { kind: 'error', status: 500, body: { error: { message: 'boom' } } },
  });
  await panel().getByRole('radio', { name: 'LongRAG' }).check();
  await panel().getByRole('button', { name: 'Run LongRAG' }).click();
  await expect(panel()).toHaveAttribute('data-state', 'error');
  await expect(panel().getByTestId('pipeline-error')).toHaveAttribute('data-code', 'server');
  const trace = panel().getByTestId('pipeline-trace');
  await expect(trace.locator('[data-step="longrag.rerank"]')).toHaveAttribute(
    'data-status',
    'done',
  );
  await expect(trace.locator('[data-tag="longrag.cot"]')).toHaveAttribute('data-status', 'error');
  // A server error is retried twice (after 1 s and 2 s), then shown.
  expect(prompts(before).filter((p) => p.text.includes('Thinking process:'))).toHaveLength(3);
  await expect(
    trace.locator('[data-tag="longrag.cot"]').getByTestId('trace-retries'),
  ).toContainText('retried 2× after server (waited 1 s), server (waited 2 s)');
  // No filter or generator call was made after the failure.
  expect(prompts(before).some((p) => p.text.includes('The following are given passages.'))).toBe(
    false,
  );
  server.routes.shift();
  expect(urls.filter((u) => !isLocal(u))).toEqual([]);
  expect(problems).toEqual([]);
});

test('a run that ends without an answer says so, its trace shown', async () => {
  // The answer call replies with nothing: the run ends with a message, not "done" and blank.
  server.routes.unshift({ when: 'The following are the notes.', reply: say('') });
  try {
    await panel().getByRole('radio', { name: 'SEGMENT+' }).check();
    await panel().getByRole('button', { name: 'Run SEGMENT+' }).click();
    await expect(panel()).toHaveAttribute('data-state', 'error', { timeout: 60_000 });
    await expect(panel().getByTestId('pipeline-error')).toContainText(
      'The pipeline gave no answer.',
    );
    await expect(panel().getByTestId('pipeline-error')).toContainText('segment.answer');
    await expect(panel().getByTestId('pipeline-answer')).toHaveCount(0);
    const trace = panel().getByTestId('pipeline-trace');
    await expect(trace.getByTestId('trace-call').last()).toHaveAttribute(
      'data-tag',
      'segment.answer',
    );
  } finally {
    server.routes.shift();
  }
  expect(problems).toEqual([]);
});
