/**
 * @file The answer pipelines, one entry each: the one table a new pipeline is added to (with its
 * folder beside this file). The pipelines panel, Compare, the evaluation page and the cost
 * estimates all read their ids, names, defaults, runners, helper models and usage rules here;
 * the page's parts (colour, settings fields) are in src/ui/pipelines/registry.ts, typed by these
 * ids so that a pipeline without them does not compile.
 *
 * Pure: the runners are the core's pipelines; QRMeM's is loaded on first use.
 */
import {
  defaultFragRelPipelineSettings,
  fragrelPipeline,
  type FragRelPipelineSettings,
} from './fragrel';
import { defaultLongRagSettings, longragPipeline, type LongRagSettings } from './longrag';
import { defaultQrmemSettings, type QrmemSettings } from './qrmem/settings';
import { defaultSegmentSettings, segmentPipeline, type SegmentSettings } from './segment';
import type { Pipeline, PipelineInput, PipelineOutput, Trace, TraceItem } from './types';

/** Every pipeline's settings, by id: the ids of the table. */
export interface PipelineSettings {
  fragrel: FragRelPipelineSettings;
  longrag: LongRagSettings;
  segment: SegmentSettings;
  qrmem: QrmemSettings;
}

export type PipelineId = keyof PipelineSettings;

/** What a usage rule reads of a run. */
export type UsageOutput = Pick<PipelineOutput, 'status' | 'citations' | 'trace'>;

/** The models besides the LLM a pipeline takes (loaded on the page, src/ui/pipelines/helpers.ts). */
export interface PipelineHelperNeeds {
  /** A cross-encoder, loaded when the person names one (else it reranks by retrieval score). */
  reranker: boolean;
  /** The library's embedder, always loaded: the pipeline cannot run without it. */
  embedder: boolean;
}

export interface PipelineEntry<S> {
  name: string;
  /** What it does, in the pipelines panel. */
  summary: string;
  /** What it does and how many calls, in Compare's list. */
  compareSummary: string;
  defaults: S;
  run: Pipeline<S>;
  helpers: PipelineHelperNeeds;
  /** Its dry-run estimate is a floor: its rounds depend on the answers. */
  estimateIsFloor: boolean;
  /**
   * The fragment indices a finished run's answer was built from, in any order (duplicates
   * allowed): each pipeline records this differently in its trace (src/core/compare/usage.ts).
   */
  used: (output: UsageOutput) => Iterable<number>;
}

const fragmentsOf = (item: TraceItem | undefined): readonly number[] => item?.fragments ?? [];
const cited = (output: UsageOutput): number[] => output.citations.map((c) => c.index);
const itemsById = (trace: Trace) => new Map<string, TraceItem>(trace.items.map((i) => [i.id, i]));

function extractorRan(trace: Trace): boolean {
  return trace.calls.some((c) => c.tag === 'longrag.extractor' && c.status === 'ok');
}

export const PIPELINES: { readonly [K in PipelineId]: PipelineEntry<PipelineSettings[K]> } = {
  fragrel: {
    name: 'FragRel',
    summary: 'The fragments FragRel selected, one call.',
    compareSummary: 'The fragments FragRel selected (relations on), one call.',
    defaults: defaultFragRelPipelineSettings,
    run: fragrelPipeline,
    helpers: { reranker: false, embedder: false },
    estimateIsFloor: false,
    // The selected fragments the prompt kept (those left out to fit the window are not used).
    used: (output) => [
      ...output.trace.items
        .filter((i) => i.kind === 'fragment' && i.verdict === 'kept')
        .flatMap(fragmentsOf),
      ...cited(output),
    ],
  },
  longrag: {
    name: 'LongRAG',
    summary:
      'Retrieve and rerank chunks, map them to their paragraphs, extract global information and filter the chunks with a chain of thought, then answer.',
    compareSummary: 'Retrieve, rerank, extract and filter, then answer (up to k + 3 calls).',
    defaults: defaultLongRagSettings,
    run: longragPipeline,
    helpers: { reranker: true, embedder: false },
    estimateIsFloor: false,
    // The passages given to the generator (in R&L mode each citation stands for its paragraph),
    // plus the paragraphs mapped for the extractor when it ran (its output is in the prompt).
    used: (output) => {
      const { trace } = output;
      const rl = trace.settings.mode === 'R&L';
      const items = itemsById(trace);
      return [
        ...(rl ? output.citations.flatMap((c) => fragmentsOf(items.get(`map:${c.index}`))) : []),
        ...(rl ? [] : cited(output)),
        ...(extractorRan(trace)
          ? trace.items
              .filter((i) => i.kind === 'paragraph' && i.verdict === 'kept')
              .flatMap(fragmentsOf)
          : []),
      ];
    },
  },
  segment: {
    name: 'SEGMENT+',
    summary:
      'A note from every segment, a keep/remove filter, merging in batches until the notes fit, then answer from the notes alone.',
    compareSummary:
      'A note per segment, filtered and merged, then answer (one call per segment and more).',
    defaults: defaultSegmentSettings,
    run: segmentPipeline,
    helpers: { reranker: false, embedder: false },
    estimateIsFloor: true,
    // The segments behind the notes given to the answer (the merge tree's edges into `answer`).
    used: (output) => {
      const items = itemsById(output.trace);
      return [
        ...(output.trace.graph?.edges ?? [])
          .filter((e) => e.to === 'answer')
          .flatMap((e) => fragmentsOf(items.get(e.from))),
        ...cited(output),
      ];
    },
  },
  qrmem: {
    name: 'QRMeM',
    summary:
      "An entity graph of the library built for the question (NER and LLM entities, relations, generated questions), navigated from the question's entities by reflection rounds until the model can answer.",
    compareSummary:
      'An entity graph built for the question and navigated (many calls: prefer an API).',
    defaults: defaultQrmemSettings,
    // Loaded on first use: it brings the NER library (compromise), which no other part needs.
    run: (input) => import('./qrmem').then(({ qrmemPipeline }) => qrmemPipeline(input)),
    helpers: { reranker: false, embedder: true },
    estimateIsFloor: true,
    // The segments of the answer's context.
    used: (output) => [
      ...output.trace.items.filter((i) => i.id.startsWith('answer-segment:')).flatMap(fragmentsOf),
      ...cited(output),
    ],
  },
};

/** The pipelines in the order the page offers them. */
export const PIPELINE_IDS = Object.keys(PIPELINES) as PipelineId[];

export const defaultPipelineSettings = Object.fromEntries(
  PIPELINE_IDS.map((id) => [id, PIPELINES[id].defaults]),
) as unknown as PipelineSettings;

export const isPipelineId = (id: string): id is PipelineId => Object.hasOwn(PIPELINES, id);

/** A pipeline's name, or the id itself when it is not one (a stored run of an older page). */
export const pipelineName = (id: string): string => (isPipelineId(id) ? PIPELINES[id].name : id);

/**
 * Run pipeline `id` with its settings from `settings`. The helper models in `input` reach only
 * the pipelines that take them (the table's `helpers`).
 */
export function runPipeline(
  id: PipelineId,
  input: Omit<PipelineInput<unknown>, 'settings'>,
  settings: PipelineSettings,
): Promise<PipelineOutput> {
  const entry = PIPELINES[id] as PipelineEntry<unknown>;
  const { reranker, embedder, ...rest } = input;
  return entry.run({
    ...rest,
    ...(entry.helpers.reranker && reranker ? { reranker } : {}),
    ...(entry.helpers.embedder && embedder ? { embedder } : {}),
    settings: settings[id],
  });
}
