/**
 * @file `npm run bench:pipelines`: what each answer pipeline costs per question (LLM calls,
 * tokens in and out, the critical path in sequential calls, the pipeline's own CPU time) on real
 * long documents from ../shared/datasets: L-Eval QuALITY and Qasper (scientific_qa), and MuSiQue
 * (its 20 paragraphs per question as one document).
 *
 * The engine is the scripted fake of src/core/pipelines/testing.ts in process (no HTTP), with
 * replies of realistic length for each step (a CoT of about 150 words, an extraction of about 100,
 * JSON notes quoting their segment) and the API engines' token estimate (src/llm/tokens.ts) as
 * its counter, so the counts are what an API engine of that window would be sent. Answers are
 * scripted, so no answer quality is measured here: F1 needs a real model (not on this machine).
 *
 * Library: fragments of 250 words (PIPELINES.md section 8's recommendation for a 4K window) and
 * BM25 independent scores; FragRel's selection is the top fragments by s_ind within 2,700 words.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import {
  buildBm25Index,
  bm25IndependentScores,
  selectByBudget,
  splitProse,
  tokenize,
} from '../src/core';
import { fragrelPipeline } from '../src/core/pipelines/fragrel';
import { longragPipeline, defaultLongRagSettings } from '../src/core/pipelines/longrag';
import { segmentPipeline, defaultSegmentSettings } from '../src/core/pipelines/segment';
import { qrmemPipeline, defaultQrmemSettings } from '../src/core/pipelines/qrmem';
import { embedTexts } from '../src/core/embed/static';
import { fakeLlm, testSignal, type FakeCall } from '../src/core/pipelines/testing';
import type {
  PipelineLibrary,
  PipelineLlm,
  PipelineOutput,
  TraceClock,
} from '../src/core/pipelines/types';
import { estimateTokens } from '../src/llm/tokens';
import { loadGloveFromDisk, sharedDatasetPath } from '../test/glove';
import { writeResults } from './results-file';
import { runRealPipelines } from './pipelines-real';

interface Question {
  dataset: string;
  document: string;
  question: string;
}

const PER_DATASET = Number(process.env.BENCH_QUESTIONS ?? 6);
const CONTEXTS = [4096, 16384];

function leval(file: string, name: string): Question[] {
  const lines = readFileSync(sharedDatasetPath('leval', file), 'utf8').trim().split('\n');
  const out: Question[] = [];
  // Two questions from each of the first documents, so several documents are covered.
  for (const line of lines) {
    const doc = JSON.parse(line) as { input: string; instructions: string[] };
    for (const q of doc.instructions.slice(0, 2))
      out.push({ dataset: name, document: doc.input, question: q });
    if (out.length >= PER_DATASET) break;
  }
  return out.slice(0, PER_DATASET);
}

function musique(): Question[] {
  const items = JSON.parse(
    readFileSync(sharedDatasetPath('hipporag_multihop_train100', 'musique_train.json'), 'utf8'),
  ) as Array<{
    question: string;
    paragraphs: string | Array<{ title: string; paragraph_text: string }>;
  }>;
  return items.slice(0, PER_DATASET).map((item) => {
    // The file stores the paragraphs as a Python literal string in some records.
    const paragraphs =
      typeof item.paragraphs === 'string'
        ? [
            ...item.paragraphs.matchAll(
              /'title': '((?:[^'\\]|\\.)*)', 'paragraph_text': (['"])((?:(?!\2, ').)*)\2/g,
            ),
          ].map((m) => ({ title: m[1], paragraph_text: m[3] }))
        : item.paragraphs;
    return {
      dataset: 'MuSiQue',
      document: paragraphs.map((p) => `${p.title}\n${p.paragraph_text}`).join('\n\n'),
      question: item.question,
    };
  });
}

function libraryFor(q: Question): PipelineLibrary {
  const fragments = splitProse('doc', q.document, { wordsPerFragment: 250 });
  const index = buildBm25Index(fragments.map((f) => tokenize(q.document.slice(f.start, f.end))));
  const independent = bm25IndependentScores(index, tokenize(q.question));
  const costs = fragments.map((f) => f.words ?? 0);
  const selection = selectByBudget(independent, costs, 2700);
  return {
    documents: [{ docId: 'doc', name: q.dataset, kind: 'prose', text: q.document }],
    fragments: fragments.map((f, index) => ({
      index,
      docId: 'doc',
      ordinal: f.ordinal,
      start: f.start,
      end: f.end,
    })),
    independent,
    scorer: 'BM25',
    selection: { indices: [...selection.indices], ranked: [...selection.ranked] },
  };
}

const words = (n: number, seed: string) =>
  Array.from({ length: n }, (_, i) => `${seed}${i % 7}`).join(' ');
const between = (text: string, a: string, b: string) => {
  const i = text.indexOf(a);
  const j = text.indexOf(b, i + a.length);
  return i < 0 ? '' : text.slice(i + a.length, j < 0 ? undefined : j);
};

const capitalised = (text: string, n: number) =>
  [...new Set(text.match(/\b[A-Z][a-z]{3,}\b/g) ?? [])].slice(0, n);

/** The offline GloVe vectors: QRMeM's edge similarity, as the app's default embedder. */
const glove = (() => {
  let model: ReturnType<typeof loadGloveFromDisk> | undefined;
  return {
    name: 'static GloVe 100d',
    embed: async (texts: readonly string[]) => {
      model ??= loadGloveFromDisk();
      const v = embedTexts(model, texts);
      return Array.from({ length: v.count }, (_, i) => v.data.subarray(i * v.dim, (i + 1) * v.dim));
    },
  };
})();

/** The scripted engine with realistic reply lengths and the API token estimate. */
function benchEngine(
  contextLimit: number,
  concurrency: number,
): PipelineLlm & { clock: TraceClock } {
  const fake = fakeLlm({
    contextLimit,
    concurrency,
    script: {
      'fragrel.answer': 'A short answer [1].',
      'longrag.cot': words(150, 'step'),
      'longrag.extractor': words(100, 'fact'),
      'longrag.filter': (c: FakeCall) =>
        c.tagIndex % 2 ? '{"status": "False"}' : '{"status": "True"}',
      'longrag.generator': 'A short answer [1].',
      'segment.note': (c: FakeCall) => {
        const quote = between(c.prompt, 'Document part:\n', '\n\nQuestion:')
          .split(/\s+/)
          .slice(0, 40)
          .join(' ');
        return JSON.stringify({ Evidence: quote, Reasoning: words(30, 'why') });
      },
      'segment.judge': (c: FakeCall) => (c.tagIndex % 3 === 2 ? 'Remove' : 'Keep'),
      'segment.merge': (c: FakeCall) =>
        JSON.stringify({
          Evidence: between(c.prompt, 'Evidence: ', '\n').slice(0, 400),
          Reasoning: words(25, 'merged'),
        }),
      'segment.answer': 'A short answer [1].',
      // QRMeM: entities are the segment's first capitalised words, related pairwise; the judge
      // answers at its third call (so a question takes the default 3 trials).
      'qrmem.entities': (c: FakeCall) => JSON.stringify(capitalised(c.prompt, 4)),
      'qrmem.relations': (c: FakeCall) => {
        const names = between(c.prompt, 'Entities: ', '\n').split('; ').slice(0, 4);
        return JSON.stringify(
          names.slice(1).map((tail, i) => ({ head: names[i], relation: words(8, 'rel'), tail })),
        );
      },
      'qrmem.merge': words(15, 'fused'),
      'qrmem.summary': words(250, 'summary'),
      'qrmem.questions': JSON.stringify([
        'Who is the main character?',
        'Where does the story take place?',
        'Who is the main character of it?',
        'What happens at the end?',
        'Why does the conflict start?',
      ]),
      'qrmem.qentities': (c: FakeCall) => JSON.stringify(capitalised(c.prompt, 2)),
      'qrmem.judge': (c: FakeCall) =>
        JSON.stringify(
          c.tagIndex % 3 === 2
            ? { answerable: true, answer: 'A short answer [1].', reason: '' }
            : { answerable: false, answer: '', reason: words(12, 'missing') },
        ),
      'qrmem.elaborate': words(20, 'elaborated'),
      'qrmem.answer': 'A short answer [1].',
    },
  });
  const count = (t: string) => estimateTokens(t);
  return {
    ...fake,
    exactTokenCounts: false,
    countTokens: async (t) => count(t),
    fitPrompt: async (build, answerTokens) =>
      build({ contextLimit, answerTokens, style: 'chat', countTokens: count }),
    async chat(messages, options) {
      const r = await fake.chat(messages, options);
      // Counted by the recorder with the estimate, like an API that reports nothing.
      delete r.tokensIn;
      delete r.tokensOut;
      return r;
    },
  };
}

interface Row {
  dataset: string;
  pipeline: string;
  context: number;
  questions: number;
  calls: number;
  tokensIn: number;
  tokensOut: number;
  criticalPathCalls: number;
  cpuMs: number;
  failed: number;
}

async function main() {
  const questions = [
    ...leval('quality.jsonl', 'QuALITY'),
    ...leval('scientific_qa.jsonl', 'Qasper'),
    ...musique(),
  ];
  const runs: Array<
    [
      string,
      (
        llm: PipelineLlm & { clock: TraceClock },
        library: PipelineLibrary,
        question: string,
      ) => Promise<PipelineOutput>,
    ]
  > = [
    [
      'FragRel',
      (llm, library, question) =>
        fragrelPipeline({
          question,
          library,
          llm,
          settings: { answerTokens: 128 },
          signal: testSignal().signal,
          clock: llm.clock,
        }),
    ],
    [
      'LongRAG E&F',
      (llm, library, question) =>
        longragPipeline({
          question,
          library,
          llm,
          settings: defaultLongRagSettings,
          signal: testSignal().signal,
          clock: llm.clock,
        }),
    ],
    [
      'SEGMENT+',
      (llm, library, question) =>
        segmentPipeline({
          question,
          library,
          llm,
          settings: defaultSegmentSettings,
          signal: testSignal().signal,
          clock: llm.clock,
        }),
    ],
    [
      'QRMeM (KN)',
      (llm, library, question) =>
        qrmemPipeline({
          question,
          library,
          llm,
          embedder: glove,
          settings: defaultQrmemSettings,
          signal: testSignal().signal,
          clock: llm.clock,
        }),
    ],
  ];
  const rows: Row[] = [];
  for (const context of CONTEXTS) {
    for (const dataset of ['QuALITY', 'Qasper', 'MuSiQue']) {
      const qs = questions.filter((q) => q.dataset === dataset);
      for (const [name, run] of runs) {
        const row: Row = {
          dataset,
          pipeline: name,
          context,
          questions: qs.length,
          calls: 0,
          tokensIn: 0,
          tokensOut: 0,
          criticalPathCalls: 0,
          cpuMs: 0,
          failed: 0,
        };
        for (const q of qs) {
          const library = libraryFor(q);
          const llm = benchEngine(context, context >= 16384 ? 4 : 1);
          const t0 = performance.now();
          const out = await run(llm, library, q.question);
          row.cpuMs += performance.now() - t0;
          if (out.status !== 'done') row.failed++;
          row.calls += out.trace.calls.length;
          row.tokensIn += out.trace.calls.reduce((s, c) => s + c.tokensIn, 0);
          row.tokensOut += out.trace.calls.reduce((s, c) => s + c.tokensOut, 0);
          row.criticalPathCalls += out.trace.criticalPath.calls.length;
        }
        const n = Math.max(1, qs.length);
        rows.push({
          ...row,
          calls: round(row.calls / n),
          tokensIn: Math.round(row.tokensIn / n),
          tokensOut: Math.round(row.tokensOut / n),
          criticalPathCalls: round(row.criticalPathCalls / n),
          cpuMs: round(row.cpuMs / n),
        });
      }
    }
  }
  const docWords = Object.fromEntries(
    ['QuALITY', 'Qasper', 'MuSiQue'].map((d) => {
      const qs = questions.filter((q) => q.dataset === d);
      return [
        d,
        Math.round(
          qs.reduce((s, q) => s + q.document.split(/\s+/).length, 0) / Math.max(1, qs.length),
        ),
      ];
    }),
  );
  const file = writeResults('pipelines', {
    engine: 'scripted in-process fake (API token estimate)',
    perDataset: PER_DATASET,
    docWords,
    rows,
  });
  console.log(
    '| context | dataset | pipeline | calls | tokens in | tokens out | critical path (calls) | CPU ms |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of rows)
    console.log(
      `| ${r.context} | ${r.dataset} | ${r.pipeline} | ${r.calls} | ${r.tokensIn.toLocaleString('en')} | ${r.tokensOut.toLocaleString('en')} | ${r.criticalPathCalls} | ${r.cpuMs} |${r.failed ? ` ${r.failed} failed` : ''}`,
    );
  console.log(`document words (mean): ${JSON.stringify(docWords)}; written to ${file}`);
}

const round = (v: number) => Math.round(v * 10) / 10;

// `-- --real`: the same pipelines on the real small model in Chromium (bench/pipelines-real.ts).
if (process.argv.includes('--real')) await runRealPipelines();
else await main();
