/**
 * @file LongRAG (Zhao et al., EMNLP 2024) as an answer pipeline over the library, after
 * PIPELINES.md section 2 (the official code is authoritative where paper and code differ).
 *
 * retrieve (top k1 fragments by s_ind) -> rerank (cross-encoder, or s_ind when none is loaded;
 * keep k2) -> then by mode:
 * - R&B: the k chunks to the generator (1 call);
 * - R&L: the chunks mapped to their paragraphs, to the generator (1 call);
 * - Ext: extractor over the paragraphs, then the generator over the chunks and I_g (2 calls);
 * - Fil: CoT over the chunks, one filter call per chunk, the generator over the kept chunks I_d
 *   (k + 2 calls);
 * - E&F: {extractor} and {CoT -> k filters} concurrently, then the generator over I_d and I_g
 *   (k + 3 calls; the product default).
 *
 * Sizes follow the engine's window (PIPELINES.md section 8, `longragSizes`); every prompt is
 * packed with whole items in order within the call's input budget in the engine's tokens.
 */
import { countEach, cutToTokens, inputBudget, packInOrder } from '../budget';
import { fragmentLocation, fragmentText, preview, rankBy } from '../library';
import { userMessage } from '../messages';
import { runTraced, TraceRecorder, type StepHandle } from '../trace';
import type { Pipeline, PipelineCitation } from '../types';
import { filterVerdicts } from './filter';
import { mapToParagraphs, paragraphsOf, type MappedItem } from './mapping';
import { cotPrompt, extractorPrompt, filterPrompt, generatorPrompt, passage } from './prompts';

export type LongRagMode = 'R&B' | 'R&L' | 'Ext' | 'Fil' | 'E&F';

export const LONGRAG_MODES: Record<LongRagMode, string> = {
  'R&B': 'Retrieve and answer (vanilla RAG)',
  'R&L': 'Retrieve, map to paragraphs, answer',
  Ext: 'Chunks and extracted information',
  Fil: 'Chunks filtered by the chain of thought',
  'E&F': 'Extractor and filter (full LongRAG)',
};

export interface LongRagSettings {
  mode: LongRagMode;
  /** First-stage candidates by s_ind (`top_k1`). */
  topK1: number;
  /** Chunks kept after rerank (`top_k2`, k). */
  topK2: number;
  /** Generator output (LongBench's 32 for multi-hop QA). */
  answerTokens: number;
  temperature: number;
  /** Fragments per paragraph for books and chats (see mapping.ts). */
  paragraphFragments: number;
  /** Output caps and the long-paragraph threshold; 0 = adapted to the engine (longragSizes). */
  cotTokens: number;
  extractorTokens: number;
  longParagraphTokens: number;
}

export const defaultLongRagSettings: LongRagSettings = {
  mode: 'E&F',
  topK1: 100,
  topK2: 7,
  answerTokens: 32,
  temperature: 0,
  paragraphFragments: 3,
  cotTokens: 0,
  extractorTokens: 0,
  longParagraphTokens: 0,
};

/** The filter's output cap (`max_new_tokens = 32`). */
export const FILTER_TOKENS = 32;

export interface LongRagSizes {
  cotTokens: number;
  extractorTokens: number;
  longParagraphTokens: number;
  why: string;
}

/**
 * PIPELINES.md section 8: the paper's 1000-token CoT and extractor outputs from an 8K window up;
 * at 4K the extractor's output is halved so the paragraphs keep the room; under 4K (a 2K window)
 * CoT 512 and extractor 256. The long-paragraph threshold is a quarter of the window (1,000 at
 * 4K, 500 at 2K), so at least three paragraphs fit the extractor.
 */
export function longragSizes(contextLimit: number, settings: LongRagSettings): LongRagSizes {
  const big = contextLimit >= 8192;
  const mid = contextLimit >= 4096;
  const cot = settings.cotTokens || (mid ? 1000 : 512);
  const ext = settings.extractorTokens || (big ? 1000 : mid ? 512 : 256);
  const long = settings.longParagraphTokens || Math.floor(contextLimit / 4);
  return {
    cotTokens: Math.min(cot, Math.floor(contextLimit / 2)),
    extractorTokens: Math.min(ext, Math.floor(contextLimit / 2)),
    longParagraphTokens: long,
    why: big
      ? `${contextLimit}-token window: the paper's output caps`
      : mid
        ? `${contextLimit}-token window: extractor output halved so the paragraphs keep the room`
        : `${contextLimit}-token window: CoT 512, extractor 256 (PIPELINES.md section 8, 2K values)`,
  };
}

interface Passage {
  hit: number;
  text: string;
  tokens: number;
  location: string;
}

export const longragPipeline: Pipeline<LongRagSettings> = async (input) => {
  const settings = { ...defaultLongRagSettings, ...input.settings };
  const rec = new TraceRecorder('longrag', input, { ...settings });
  const { llm, library, question } = input;
  const k = Math.max(1, settings.topK2);
  const sizes = longragSizes(llm.contextLimit, settings);
  const count = (t: string) => llm.countTokens(t, rec.signal);

  return runTraced(rec, async () => {
    const mode = settings.mode;
    const uses = {
      extractor: mode === 'Ext' || mode === 'E&F',
      filter: mode === 'Fil' || mode === 'E&F',
      mapping: mode === 'R&L' || mode === 'Ext' || mode === 'E&F',
    };
    if (uses.filter)
      rec.size({ name: 'CoT output', value: sizes.cotTokens, unit: 'tokens', why: sizes.why });
    if (uses.extractor)
      rec.size({
        name: 'extractor output',
        value: sizes.extractorTokens,
        unit: 'tokens',
        why: sizes.why,
      });
    if (uses.mapping)
      rec.size({
        name: 'long-paragraph threshold',
        value: sizes.longParagraphTokens,
        unit: 'tokens',
        why: `a quarter of the ${llm.contextLimit}-token window: at least 3 paragraphs fit the extractor`,
      });

    // Step 3. Retrieval: the top k1 fragments by the library's s_ind.
    const retrieve = rec.step('longrag.retrieve', `Retrieve the top ${settings.topK1} fragments`, {
      fragments: library.fragments.length,
      scorer: library.scorer,
    });
    const candidates = rankBy(library.independent).slice(0, settings.topK1);
    if (candidates.length < settings.topK1)
      retrieve.note(`Only ${candidates.length} fragments exist: all of them are candidates.`);
    retrieve.done({ candidates: candidates.length });

    // Step 4. Rerank: one logit per (question, chunk) pair; keep k.
    const rerank = rec.step('longrag.rerank', `Rerank and keep the top ${k}`, {
      candidates: candidates.length,
    });
    const texts = candidates.map((i) => fragmentText(library, i));
    let rerankScores: ArrayLike<number>;
    let scoreName: string;
    if (input.reranker) {
      rerankScores = await input.reranker.score(question, texts, rec.signal);
      scoreName = 'rerank';
      rerank.note(`Cross-encoder: ${input.reranker.name}.`);
    } else {
      rerankScores = candidates.map((i) => library.independent[i]);
      scoreName = library.scorer;
      rerank.note(
        `No cross-encoder is loaded: the candidates keep the order of the best scorer available, ${library.scorer}.`,
      );
    }
    rec.throwIfStopped();
    const order = rankBy(rerankScores);
    const hits = order.slice(0, k).map((j) => candidates[j]);
    order.forEach((j, rank) => {
      const index = candidates[j];
      rec.item({
        id: `rerank:${index}`,
        kind: 'chunk',
        stepId: rerank.id,
        label: fragmentLocation(library, index),
        text: preview(texts[j]),
        fragments: [index],
        scores: {
          independent: library.independent[index],
          ...(input.reranker ? { rerank: rerankScores[j] } : {}),
        },
        rank,
        verdict: rank < k ? 'kept' : 'dropped',
        reason: rank < k ? `top ${k} by ${scoreName}` : `below the top ${k} by ${scoreName}`,
      });
    });
    rerank.done({ kept: hits.length });

    const chunks: Passage[] = [];
    const chunkTokens = await countEach(
      llm,
      hits.map((h) => fragmentText(library, h)),
      rec.signal,
    );
    hits.forEach((hit, i) =>
      chunks.push({
        hit,
        text: fragmentText(library, hit),
        tokens: chunkTokens[i],
        location: fragmentLocation(library, hit),
      }),
    );

    // Step 5. Map each hit to its paragraph (extractor and R&L).
    let mapped: MappedItem[] = [];
    if (uses.mapping) {
      const map = rec.step('longrag.map', 'Map each chunk to its paragraph');
      const mapping = await mapToParagraphs(
        library,
        hits,
        paragraphsOf(library, settings.paragraphFragments),
        sizes.longParagraphTokens,
        count,
      );
      mapped = mapping.items;
      mapped.forEach((m, rank) =>
        rec.item({
          id: `map:${m.hit}`,
          kind: 'paragraph',
          stepId: map.id,
          label: m.paragraph
            ? `${fragmentLocation(library, m.hit)} (paragraph of ${m.paragraph.fragments.length})`
            : fragmentLocation(library, m.hit),
          text: preview(m.text),
          fragments: m.paragraph ? m.paragraph.fragments : [m.hit],
          scores: { tokens: m.tokens },
          rank,
          verdict: 'kept',
          reason: m.paragraph
            ? 'paragraph of this chunk'
            : `paragraph of ${sizes.longParagraphTokens}+ tokens: the chunk stands for itself`,
        }),
      );
      for (const d of mapping.duplicates)
        rec.item({
          id: `map:${d.hit}`,
          kind: 'paragraph',
          stepId: map.id,
          label: fragmentLocation(library, d.hit),
          text: '',
          fragments: [d.hit],
          verdict: 'dropped',
          reason: `same paragraph as the better-ranked ${fragmentLocation(library, d.sameAs)}`,
        });
      map.done({ paragraphs: mapped.length, duplicates: mapping.duplicates.length });
    }

    // Steps 6 and 7: the extractor and the CoT-guided filter are independent branches.
    const extractorBranch = async (): Promise<{ text: string; call: number } | null> => {
      if (!uses.extractor) return null;
      const step = rec.step('longrag.extract', 'Extract the global information I_g');
      const budget =
        inputBudget(llm, sizes.extractorTokens) - (await count(extractorPrompt([], question)));
      const packed = packInOrder(
        mapped.map((m) => m.tokens),
        budget,
      );
      noteDropped(step, packed.dropped.length, 'paragraphs', budget);
      const { text, call } = await rec.call(step, {
        tag: 'longrag.extractor',
        messages: userMessage(
          extractorPrompt(
            packed.kept.map((i) => mapped[i].text),
            question,
          ),
        ),
        maxTokens: sizes.extractorTokens,
        temperature: settings.temperature,
      });
      step.done({ paragraphs: packed.kept.length, chars: text.length });
      return { text, call: call.id };
    };

    const filterBranch = async (): Promise<{ kept: Passage[]; calls: number[] } | null> => {
      if (!uses.filter) return null;
      const cotStep = rec.step('longrag.cot', 'Chain of thought over the chunks');
      const cotBudget = inputBudget(llm, sizes.cotTokens) - (await count(cotPrompt([], question)));
      const packed = packInOrder(
        chunks.map((c) => c.tokens),
        cotBudget,
        1,
      );
      noteDropped(cotStep, packed.dropped.length, 'chunks', cotBudget);
      const cot = await rec.call(cotStep, {
        tag: 'longrag.cot',
        messages: userMessage(
          cotPrompt(
            packed.kept.map((i) => chunks[i].text),
            question,
          ),
        ),
        maxTokens: sizes.cotTokens,
        temperature: settings.temperature,
      });
      cotStep.done({ chars: cot.text.length });

      const filterStep = rec.step('longrag.filter', 'Filter each chunk by the chain of thought', {
        chunks: chunks.length,
      });
      const frame = await count(filterPrompt('', question, ''));
      const room = inputBudget(llm, FILTER_TOKENS) - frame;
      const replies = await Promise.all(
        chunks.map(async (c) => {
          // The chunk first; the CoT gets what is left (cut at a word when it must be).
          const chunkPart = await cutToTokens(llm, c.text, Math.floor(room / 2), rec.signal);
          const cotPart = await cutToTokens(llm, cot.text, room - chunkPart.tokens, rec.signal);
          if (chunkPart.cut || cotPart.cut)
            filterStep.note(`Filter prompt for ${c.location} cut to fit the window.`);
          return rec.call(filterStep, {
            tag: 'longrag.filter',
            messages: userMessage(filterPrompt(chunkPart.text, question, cotPart.text)),
            maxTokens: FILTER_TOKENS,
            temperature: settings.temperature,
            after: [cot.call.id],
          });
        }),
      );
      const verdicts = filterVerdicts(replies.map((r) => r.text));
      if (verdicts.allKeptAsFallback)
        filterStep.note('No chunk was kept: all are kept (the official fallback).');
      chunks.forEach((c, i) => {
        const parse = verdicts.parses[i];
        replies[i].call.parse =
          parse.how === 'json'
            ? 'parsed JSON'
            : `not valid JSON: looked for "True|true" in the text (${parse.keep ? 'found' : 'not found'})`;
        rec.item({
          id: `filter:${c.hit}`,
          kind: 'chunk',
          stepId: filterStep.id,
          label: c.location,
          text: preview(c.text),
          fragments: [c.hit],
          rank: i,
          verdict: verdicts.kept[i] ? 'kept' : 'dropped',
          reason: verdicts.allKeptAsFallback
            ? 'none was kept: all kept (fallback)'
            : parse.keep
              ? parse.how === 'json'
                ? 'status True'
                : '"true" in a reply that is not valid JSON'
              : parse.how === 'json'
                ? 'status False'
                : 'no valid JSON and no "true"',
        });
      });
      filterStep.done({ kept: verdicts.kept.filter(Boolean).length });
      return {
        kept: chunks.filter((_, i) => verdicts.kept[i]),
        calls: replies.map((r) => r.call.id),
      };
    };

    const [extracted, filtered] = await Promise.all([extractorBranch(), filterBranch()]);

    // Step 8. The generator: context per mode, I_d before I_g.
    const generate = rec.step('longrag.generate', 'Answer from the passages');
    let passages: Passage[];
    if (mode === 'R&L')
      passages = mapped.map((m) => ({
        hit: m.hit,
        text: m.text,
        tokens: m.tokens,
        location: fragmentLocation(library, m.hit),
      }));
    else if (filtered) passages = filtered.kept;
    else passages = chunks;
    const background = extracted ? `\nBackground information:\n${extracted.text.trim()}\n` : '';
    const frame = await count(generatorPrompt(background, question));
    const budget = inputBudget(llm, settings.answerTokens) - frame;
    const labelled = await countEach(
      llm,
      passages.map((p, i) => passage(i + 1, p.location, p.text)),
      rec.signal,
    );
    const packed = packInOrder(labelled, budget);
    noteDropped(generate, packed.dropped.length, 'passages', budget);
    const given = packed.kept.map((i) => passages[i]);
    const context = given.map((p, i) => passage(i + 1, p.location, p.text)).join('') + background;
    const after = [...(filtered?.calls ?? []), ...(extracted ? [extracted.call] : [])];
    const { text } = await rec.call(generate, {
      tag: 'longrag.generator',
      messages: userMessage(generatorPrompt(context, question)),
      maxTokens: settings.answerTokens,
      temperature: settings.temperature,
      after,
      onToken: input.onAnswerToken,
    });
    generate.done({ passages: given.length, withBackground: Boolean(extracted) });
    const citations: PipelineCitation[] = given.map((p, i) => ({
      label: i + 1,
      index: p.hit,
      location: p.location,
    }));
    return { answer: text, citations };
  });
};

function noteDropped(step: StepHandle, dropped: number, what: string, budget: number): void {
  if (dropped) step.note(`${dropped} ${what} left out: over the ${budget}-token input budget.`);
}
