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

/** A number field: the setting's key, its label, its bounds and a hint. */
const num = <K extends string>(key: K, label: string, min: number, max: number, hint?: string) =>
  ({ kind: 'number', key, label, min, max, ...(hint ? { hint } : {}) }) as const;
const select = <K extends string>(
  key: K,
  label: string,
  options: ReadonlyArray<readonly [value: string, label: string]>,
) =>
  ({
    kind: 'select',
    key,
    label,
    options: options.map(([value, text]) => ({ value, label: text })),
  }) as const;
const check = <K extends string>(key: K, label: string) => ({ kind: 'check', key, label }) as const;
const answerTokens = (min: number, max: number, hint?: string) =>
  num('answerTokens', 'Answer tokens', min, max, hint);

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
      num('topK1', 'Candidates (top k1)', 1, 1000),
      num('topK2', 'Chunks kept (top k2)', 1, 30),
      answerTokens(8, 1024, 'LongBench: 32'),
      num('paragraphFragments', 'Fragments per paragraph', 1, 20),
      num(
        'cotTokens',
        'CoT output (tokens)',
        0,
        4096,
        '0 = fit to the window (1,000 at 4K, 512 at 2K)',
      ),
      num(
        'extractorTokens',
        'Extractor output (tokens)',
        0,
        4096,
        '0 = fit to the window (512 at 4K, 256 at 2K)',
      ),
    ],
  },
  segment: {
    colour: '#CC79A7',
    fields: [
      check('llmJudge', 'LLM judge'),
      select('evidenceMerge', 'Merged evidence', [
        ['B', 'B: the model merges it (published prompt)'],
        ['A', 'A: quotes concatenated, the model writes the reasoning'],
      ]),
      select('noteFormat', 'Note format', [
        ['json', 'JSON (published prompt)'],
        ['lines', 'Evidence and Reasoning lines (small models)'],
      ]),
      num('segmentTokens', 'Segment tokens', 0, 32000, '0 = fit to the window'),
      num(
        'noteTokens',
        'Note output (tokens)',
        0,
        4096,
        'notes and merges; 0 = 768 at 4K, 384 below',
      ),
      num('maxRounds', 'Merge rounds at most', 1, 10),
      answerTokens(8, 1024),
    ],
  },
  qrmem: {
    colour: '#D55E00',
    evalNote:
      'QRMeM measures edge similarity with the offline GloVe vectors here, and builds each document’s memory again for every question (nothing is kept between questions).',
    fields: [
      select('variant', 'Navigation', [
        ['kn', 'QRMeM: reflection rounds (KN)'],
        ['ges', 'Graph expansion search (GES)'],
        ['te', 'Entity trial (TE)'],
      ]),
      num('maxTrials', 'Trials at most', 1, 5, 'KN and TE; default 3'),
      num('gesHops', 'GES hops', 1, 10, 'default 3'),
      num('gesTopEdges', 'GES edges per hop', 1, 10, 'default 3'),
      num('questions', 'Generated questions', 0, 10, '0 = no graph update; default 5'),
      check('llmEntities', 'LLM entities (besides NER)'),
      check('reflection', 'Reflection (reason in the edge query)'),
      num('segmentTokens', 'Segment tokens', 0, 4000, '0 = 600 at 4K, 300 below'),
      answerTokens(8, 1024),
      num(
        'extractTokens',
        'Extraction output (tokens)',
        16,
        4096,
        'entities and relations; default 512',
      ),
      num(
        'maxRetries',
        'Parse retries',
        0,
        4,
        'after a reply that cannot be read, at temperature 0.7; default 4',
      ),
      num('judgeTokens', 'Judge output (tokens)', 16, 4096, 'default 256'),
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
