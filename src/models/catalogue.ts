/**
 * @file Known small embedding models, and what any other hub id is assumed to be.
 *
 * Each entry says how to use the model: its pooling, the prefixes it was trained with for queries
 * and passages, and the dtypes the hub repository holds. Sizes are approximate downloads of
 * the ONNX weights (tokenizer and config add well under 1 MB), for the user's choice only.
 */

/** How token vectors become one sentence vector. */
export type Pooling = 'mean' | 'cls';

/** The weight files we offer. q8 is `onnx/model_quantized.onnx`, fp32 `onnx/model.onnx`. */
export type EmbedDtype = 'fp32' | 'fp16' | 'q8';

export const EMBED_DTYPES: readonly EmbedDtype[] = ['fp32', 'fp16', 'q8'];

/** What a text is: a question (query) or a piece of the document (passage). */
export type EmbedKind = 'query' | 'passage';

export interface EmbeddingModelInfo {
  /** Key in the catalogue; for a catalogue model also a short name shown to people. */
  key: string;
  /** Hub id, `org/name` or `name`: the path under the hub host. */
  hubId: string;
  label: string;
  /** Output dimension; null for a hub id we do not know (discovered at load). */
  dim: number | null;
  pooling: Pooling;
  /** Prepended to each text of that kind before embedding. */
  prefix: Record<EmbedKind, string>;
  /** Dtypes the repository holds, the default first. */
  dtypes: readonly EmbedDtype[];
  /** Approximate download in MB per dtype. */
  approxMB: Partial<Record<EmbedDtype, number>>;
  /** Longest input in tokens; longer texts are truncated. */
  maxTokens: number | null;
  note: string;
  /** Random weights: proves loading and shapes, never meaning. Hidden from normal choices. */
  testOnly: boolean;
}

const NO_PREFIX: Record<EmbedKind, string> = { query: '', passage: '' };

/**
 * A real model of the hub's Xenova conversions: a 384-d English sentence encoder whose repository
 * holds int8 (the default) and fp32 weights.
 */
function xenovaModel(
  key: string,
  info: Pick<EmbeddingModelInfo, 'label' | 'pooling' | 'prefix' | 'maxTokens' | 'note'> & {
    approxMB: { q8: number; fp32: number };
  },
): EmbeddingModelInfo {
  return {
    key,
    hubId: `Xenova/${key}`,
    label: info.label,
    dim: 384,
    pooling: info.pooling,
    prefix: info.prefix,
    dtypes: ['q8', 'fp32'],
    approxMB: info.approxMB,
    maxTokens: info.maxTokens,
    note: info.note,
    testOnly: false,
  };
}

export const EMBEDDING_MODELS: readonly EmbeddingModelInfo[] = Object.freeze([
  xenovaModel('all-MiniLM-L6-v2', {
    label: 'all-MiniLM-L6-v2 (384-d, English, fastest)',
    pooling: 'mean',
    prefix: NO_PREFIX,
    approxMB: { q8: 23, fp32: 90 },
    maxTokens: 256,
    note: 'Sentence-transformers MiniLM, 6 layers. No prefixes.',
  }),
  xenovaModel('bge-small-en-v1.5', {
    label: 'bge-small-en-v1.5 (384-d, English)',
    pooling: 'cls',
    prefix: {
      query: 'Represent this sentence for searching relevant passages: ',
      passage: '',
    },
    approxMB: { q8: 34, fp32: 133 },
    maxTokens: 512,
    note: 'BAAI bge-small, CLS pooling; queries get an instruction, passages none.',
  }),
  xenovaModel('gte-small', {
    label: 'gte-small (384-d, English)',
    pooling: 'mean',
    prefix: NO_PREFIX,
    approxMB: { q8: 34, fp32: 133 },
    maxTokens: 512,
    note: 'Alibaba GTE small, mean pooling. No prefixes.',
  }),
  xenovaModel('e5-small-v2', {
    label: 'e5-small-v2 (384-d, English)',
    pooling: 'mean',
    prefix: { query: 'query: ', passage: 'passage: ' },
    approxMB: { q8: 34, fp32: 133 },
    maxTokens: 512,
    note: 'intfloat E5 small v2, mean pooling; "query: " and "passage: " prefixes.',
  }),
  {
    key: 'tribuo-tinybert',
    hubId: 'tribuo-tinybert',
    label: 'tribuo-tinybert (TEST ONLY: random weights, 50-d)',
    dim: 50,
    pooling: 'mean',
    prefix: NO_PREFIX,
    dtypes: ['fp32'],
    approxMB: { fp32: 0.5 },
    maxTokens: 100,
    note:
      'Untrained BERT from oracle/tribuo test resources (../shared/models/tribuo-tinybert). ' +
      'Its vectors have no meaning: it proves loading, batching, pooling and normalisation only.',
    testOnly: true,
  },
] satisfies EmbeddingModelInfo[]);

/** The catalogue entry with this key or hub id, if any. */
export function findCatalogueModel(keyOrHubId: string): EmbeddingModelInfo | undefined {
  return EMBEDDING_MODELS.find((m) => m.key === keyOrHubId || m.hubId === keyOrHubId);
}

/** Same check as the hub client: `name` or `org/name`, letters, digits, `-`, `_`, `.`. */
const HUB_ID = /^(?:[\w.-]+\/)?[\w.-]{1,96}$/;

export interface CustomModelOptions {
  pooling?: Pooling;
  prefix?: Partial<Record<EmbedKind, string>>;
  /** Expected dimension; checked against the model's at load when given. */
  dim?: number | null;
}

/**
 * A catalogue model by key or hub id, or an entry for any other hub id (dim unknown until load,
 * mean pooling and no prefixes unless told). Throws a readable error for a malformed id.
 */
export function resolveModel(
  keyOrHubId: string,
  custom: CustomModelOptions = {},
): EmbeddingModelInfo {
  const id = keyOrHubId.trim();
  const known = findCatalogueModel(id);
  if (known) return known;
  if (!HUB_ID.test(id) || id.includes('..')) {
    throw new Error(
      `"${keyOrHubId}" is not a model id. Use a hub id like "Xenova/all-MiniLM-L6-v2" ` +
        `(letters, digits, "-", "_", "." and at most one "/"), or pick a catalogue model.`,
    );
  }
  return {
    key: id,
    hubId: id,
    label: id,
    dim: custom.dim ?? null,
    pooling: custom.pooling ?? 'mean',
    prefix: { ...NO_PREFIX, ...custom.prefix },
    dtypes: ['q8', 'fp32', 'fp16'],
    approxMB: {},
    maxTokens: null,
    note: 'A hub id outside the catalogue: mean pooling and no prefixes unless set.',
    testOnly: false,
  };
}

/** The dtype to use when none is asked for: the model's first listed. */
export function defaultDtype(model: EmbeddingModelInfo): EmbedDtype {
  return model.dtypes[0] ?? 'fp32';
}

export function parseDtype(value: string | null | undefined): EmbedDtype | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  if ((EMBED_DTYPES as readonly string[]).includes(value)) return value as EmbedDtype;
  throw new Error(`Unknown dtype "${value}". Use one of: ${EMBED_DTYPES.join(', ')}.`);
}
