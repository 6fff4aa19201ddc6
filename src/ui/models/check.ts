/**
 * @file The numbers the model check shows: settings from the URL, and what the vectors say.
 */
import { parseDeviceRequest, type DeviceRequest } from '../../models/capabilities';
import { findCatalogueModel, parseDtype, type EmbedDtype } from '../../models/catalogue';
import { DEFAULT_BATCH_TOKENS } from '../../models/batches';
import { DEFAULT_BATCH_SIZE, DEFAULT_HUB_HOST } from '../../models/settings';

/** Value of the model choice that means "the hub id typed in the text box". */
export const CUSTOM_MODEL = '__custom__';

export interface CheckSettings {
  /** A catalogue key, or CUSTOM_MODEL. */
  choice: string;
  customId: string;
  host: string;
  device: DeviceRequest;
  /** Empty: the model's default. */
  dtype: EmbedDtype | '';
  batchSize: number;
  /** Padded tokens per model call at most (`?batchTokens=`, 0 = no cap); default the app's. */
  batchTokens: number;
  /** wasm threads (`?threads=`), for benchmarks; 0 = the default. */
  threads: number;
}

/** Settings from `?model=&host=&device=&dtype=&batch=`; bad values become defaults plus a note. */
export function settingsFromUrl(search: string): { settings: CheckSettings; problems: string[] } {
  const q = new URLSearchParams(search);
  const problems: string[] = [];
  const model = q.get('model')?.trim() ?? '';
  const known = model ? findCatalogueModel(model) : undefined;
  let device: DeviceRequest = 'auto';
  try {
    device = parseDeviceRequest(q.get('device'));
  } catch (e) {
    problems.push((e as Error).message);
  }
  let dtype: EmbedDtype | '' = '';
  try {
    dtype = parseDtype(q.get('dtype')) ?? '';
  } catch (e) {
    problems.push((e as Error).message);
  }
  let batchSize = DEFAULT_BATCH_SIZE;
  const batch = q.get('batch');
  if (batch !== null) {
    const n = Number(batch);
    if (Number.isInteger(n) && n >= 1 && n <= 1024) batchSize = n;
    else
      problems.push(`Batch size "${batch}" is not an integer from 1 to 1024; using ${batchSize}.`);
  }
  let batchTokens = DEFAULT_BATCH_TOKENS;
  const tokens = q.get('batchTokens');
  if (tokens !== null) {
    const n = Number(tokens);
    if (Number.isInteger(n) && n >= 0 && n <= 1_000_000) batchTokens = n;
    else
      problems.push(
        `Batch tokens "${tokens}" is not an integer from 0 to 1000000; using ${batchTokens}.`,
      );
  }
  return {
    settings: {
      choice: known ? known.key : model ? CUSTOM_MODEL : 'all-MiniLM-L6-v2',
      customId: known ? '' : model,
      host: q.get('host')?.trim() || DEFAULT_HUB_HOST,
      device,
      dtype,
      batchSize,
      batchTokens,
      threads: Math.max(0, Math.min(16, Math.round(Number(q.get('threads') ?? 0) || 0))),
    },
    problems,
  };
}

/** Sample passages: varied lengths (so batches pad), one repeated (equal text, equal vector). */
export const SAMPLE_PASSAGES: readonly string[] = [
  'It is a truth universally acknowledged, that a single man in possession of a good fortune, must be in want of a wife.',
  'Mr. Bennet was among the earliest of those who waited on Mr. Bingley.',
  'She is tolerable.',
  'It is a truth universally acknowledged, that a single man in possession of a good fortune, must be in want of a wife.',
  'Elizabeth, having rather expected to affront him, was amazed at his gallantry.',
];
export const SAMPLE_QUERY = 'Who is in want of a wife?';

export interface CheckNumbers {
  norms: number[];
  /** Per row, max |batch - one-by-one| over its components. */
  batchVsSingle: number[];
  /** Max |row a - row b| over pairs of equal texts (0 when none). */
  equalTextDiff: number;
  /** Cosine of the query to each passage (rows are unit vectors: a dot product). */
  queryCosines: number[];
}

export function rowsOf(data: Float32Array, dim: number): Float32Array[] {
  const rows: Float32Array[] = [];
  for (let off = 0; off < data.length; off += dim) rows.push(data.subarray(off, off + dim));
  return rows;
}

export function analyse(
  texts: readonly string[],
  batch: Float32Array[],
  single: Float32Array[],
  query: Float32Array,
): CheckNumbers {
  const norms = batch.map((r) => Math.sqrt(dot(r, r)));
  const batchVsSingle = batch.map((r, i) => maxAbsDiff(r, single[i]));
  let equalTextDiff = 0;
  for (let i = 0; i < texts.length; i++) {
    for (let j = i + 1; j < texts.length; j++) {
      if (texts[i] === texts[j])
        equalTextDiff = Math.max(equalTextDiff, maxAbsDiff(batch[i], batch[j]));
    }
  }
  return { norms, batchVsSingle, equalTextDiff, queryCosines: batch.map((r) => dot(r, query)) };
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

function maxAbsDiff(a: Float32Array, b: Float32Array): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

/** 1234567 → "1.2 MB". */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} kB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

/** One query with the passages to rank against it. */
export interface RankingSet {
  query: string;
  passages: string[];
}

/** A set with each passage's cosine to the query (input order) and the order best first. */
export interface RankedSet extends RankingSet {
  scores: number[];
  order: number[];
}

/**
 * Sets from text: the first line of each block is the query, the other lines its passages;
 * blocks are separated by blank lines. Blocks without a passage are left out.
 */
export function parseRankingSets(text: string): RankingSet[] {
  return text
    .split(/\r?\n\s*\r?\n/)
    .map((block) =>
      block
        .split(/\r?\n/)
        .map((l) => l.trim())
        .filter(Boolean),
    )
    .filter((lines) => lines.length >= 2)
    .map(([query, ...passages]) => ({ query, passages }));
}

/** Cosines of each set's passages to its query (rows are unit vectors, so a dot product). */
export function rankSets(
  sets: readonly RankingSet[],
  queries: Float32Array,
  passages: Float32Array,
  dim: number,
): RankedSet[] {
  let at = 0;
  return sets.map((set, q) => {
    const scores = set.passages.map((_, p) => {
      let s = 0;
      for (let d = 0; d < dim; d++) s += queries[q * dim + d] * passages[(at + p) * dim + d];
      return s;
    });
    at += set.passages.length;
    const order = scores.map((_, i) => i).sort((a, b) => scores[b] - scores[a] || a - b);
    return { ...set, scores, order };
  });
}
