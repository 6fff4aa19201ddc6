/**
 * @file The page's part of each answer pipeline: its colour (Compare's columns, overlay and
 * agreement) and its settings fields (PipelineSettingsForm.tsx draws them). Its ids, names,
 * defaults, runner, helper models and usage rule are the core's table,
 * src/core/pipelines/registry.ts; this one is typed by those ids, so a pipeline registered there
 * without its entry here does not compile.
 *
 * Colours are from the Okabe-Ito palette (told apart with the common colour-vision deficiencies).
 */
import type { ComparePipelineId } from '../../core/compare';
import { LONGRAG_MODES, type LongRagMode } from '../../core/pipelines/longrag';
import type { PipelineId, PipelineSettings } from '../../core/pipelines/registry';

type KeysOf<S, V> = { [K in keyof S]-?: S[K] extends V ? K : never }[keyof S];

/** One settings field of a pipeline, drawn as a row of the form. */
export type SettingField<S> =
  | {
      kind: 'number';
      key: KeysOf<S, number>;
      label: string;
      min: number;
      max: number;
      hint?: string;
    }
  | { kind: 'check'; key: KeysOf<S, boolean>; label: string }
  | {
      kind: 'select';
      key: KeysOf<S, string>;
      label: string;
      options: ReadonlyArray<{ value: string; label: string }>;
      testId?: string;
    }
  /** The cross-encoder to rerank with (a helper model, not a setting: kept by the page). */
  | { kind: 'reranker' };

export interface PipelineView<S> {
  colour: string;
  fields: ReadonlyArray<SettingField<S>>;
  /** Said under its settings on the evaluation page. */
  evalNote?: string;
}

const answerTokens = (min: number, max: number, hint?: string) =>
  ({
    kind: 'number',
    key: 'answerTokens',
    label: 'Answer tokens',
    min,
    max,
    ...(hint ? { hint } : {}),
  }) as const;

export const PIPELINE_VIEWS: { readonly [K in PipelineId]: PipelineView<PipelineSettings[K]> } = {
  fragrel: { colour: '#0072B2', fields: [answerTokens(16, 4096)] },
  longrag: {
    colour: '#009E73',
    fields: [
      {
        kind: 'select',
        key: 'mode',
        label: 'Mode',
        testId: 'longrag-mode',
        options: (Object.keys(LONGRAG_MODES) as LongRagMode[]).map((m) => ({
          value: m,
          label: `${m}: ${LONGRAG_MODES[m]}`,
        })),
      },
      { kind: 'reranker' },
      { kind: 'number', key: 'topK1', label: 'Candidates (top k1)', min: 1, max: 1000 },
      { kind: 'number', key: 'topK2', label: 'Chunks kept (top k2)', min: 1, max: 30 },
      answerTokens(8, 1024, 'LongBench: 32'),
      {
        kind: 'number',
        key: 'paragraphFragments',
        label: 'Fragments per paragraph',
        min: 1,
        max: 20,
      },
      {
        kind: 'number',
        key: 'cotTokens',
        label: 'CoT output (tokens)',
        min: 0,
        max: 4096,
        hint: '0 = fit to the window (1,000 at 4K, 512 at 2K)',
      },
      {
        kind: 'number',
        key: 'extractorTokens',
        label: 'Extractor output (tokens)',
        min: 0,
        max: 4096,
        hint: '0 = fit to the window (512 at 4K, 256 at 2K)',
      },
    ],
  },
  segment: {
    colour: '#CC79A7',
    fields: [
      { kind: 'check', key: 'llmJudge', label: 'LLM judge' },
      {
        kind: 'select',
        key: 'evidenceMerge',
        label: 'Merged evidence',
        options: [
          { value: 'B', label: 'B: the model merges it (published prompt)' },
          { value: 'A', label: 'A: quotes concatenated, the model writes the reasoning' },
        ],
      },
      {
        kind: 'number',
        key: 'segmentTokens',
        label: 'Segment tokens',
        min: 0,
        max: 32000,
        hint: '0 = fit to the window',
      },
      {
        kind: 'number',
        key: 'noteTokens',
        label: 'Note output (tokens)',
        min: 0,
        max: 4096,
        hint: 'notes and merges; 0 = 768 at 4K, 384 below',
      },
      { kind: 'number', key: 'maxRounds', label: 'Merge rounds at most', min: 1, max: 10 },
      answerTokens(8, 1024),
    ],
  },
  qrmem: {
    colour: '#D55E00',
    evalNote:
      'QRMeM measures edge similarity with the offline GloVe vectors here, and builds each document’s memory again for every question (nothing is kept between questions).',
    fields: [
      {
        kind: 'select',
        key: 'variant',
        label: 'Navigation',
        options: [
          { value: 'kn', label: 'QRMeM: reflection rounds (KN)' },
          { value: 'ges', label: 'Graph expansion search (GES)' },
          { value: 'te', label: 'Entity trial (TE)' },
        ],
      },
      {
        kind: 'number',
        key: 'maxTrials',
        label: 'Trials at most',
        min: 1,
        max: 5,
        hint: 'KN and TE; default 3',
      },
      { kind: 'number', key: 'gesHops', label: 'GES hops', min: 1, max: 10, hint: 'default 3' },
      {
        kind: 'number',
        key: 'gesTopEdges',
        label: 'GES edges per hop',
        min: 1,
        max: 10,
        hint: 'default 3',
      },
      {
        kind: 'number',
        key: 'questions',
        label: 'Generated questions',
        min: 0,
        max: 10,
        hint: '0 = no graph update; default 5',
      },
      { kind: 'check', key: 'llmEntities', label: 'LLM entities (besides NER)' },
      { kind: 'check', key: 'reflection', label: 'Reflection (reason in the edge query)' },
      {
        kind: 'number',
        key: 'segmentTokens',
        label: 'Segment tokens',
        min: 0,
        max: 4000,
        hint: '0 = 600 at 4K, 300 below',
      },
      answerTokens(8, 1024),
      {
        kind: 'number',
        key: 'extractTokens',
        label: 'Extraction output (tokens)',
        min: 16,
        max: 4096,
        hint: 'entities and relations; default 512',
      },
      {
        kind: 'number',
        key: 'maxRetries',
        label: 'Parse retries',
        min: 0,
        max: 4,
        hint: 'after a reply that cannot be read, at temperature 0.7; default 4',
      },
      {
        kind: 'number',
        key: 'judgeTokens',
        label: 'Judge output (tokens)',
        min: 16,
        max: 4096,
        hint: 'default 256',
      },
    ],
  },
};

/** The plain-retrieval baseline's colour (Compare's column beside FragRel). */
export const PLAIN_COLOUR = '#E69F00';

/** One colour per compared pipeline, the same in the columns, the overlay and the agreement. */
export const PIPELINE_COLOURS = Object.fromEntries([
  ...Object.entries(PIPELINE_VIEWS).map(([id, view]) => [id, view.colour]),
  ['plain', PLAIN_COLOUR],
]) as Readonly<Record<ComparePipelineId, string>>;
