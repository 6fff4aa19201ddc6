/**
 * @file A cross-encoder reranker on transformers.js (LongRAG's rerank step, PIPELINES.md 2.2
 * step 4): each (question, text) pair is tokenized together, padded and truncated to 512 tokens,
 * and the model's single logit is the pair's score. `cross-encoder/ms-marco-MiniLM-L-12-v2` in the
 * official code; any hub model with a one-logit sequence-classification head works (for example
 * an ONNX export such as `Xenova/ms-marco-MiniLM-L-6-v2`).
 *
 * The scoring is separate from the loading, so Node tests run it on a tiny local model.
 */
import type { PipelineReranker } from '../core/pipelines/types';

/** The parts of a transformers.js tokenizer and model the scoring uses. */
export interface PairTokenizer {
  (
    text: string[],
    options: { text_pair: string[]; padding: boolean; truncation: boolean; max_length?: number },
  ): Record<string, unknown>;
}
export interface SequenceClassifier {
  (
    inputs: Record<string, unknown>,
  ): Promise<{ logits: { data: ArrayLike<number>; dims: number[] } }>;
}

export interface CrossEncoderOptions {
  batchSize?: number;
  maxLength?: number;
  signal?: { readonly aborted: boolean };
}

/** One logit per text, in the caller's order, computed in batches. */
export async function crossEncoderScores(
  tokenizer: PairTokenizer,
  model: SequenceClassifier,
  question: string,
  texts: readonly string[],
  options: CrossEncoderOptions = {},
): Promise<Float64Array> {
  const batchSize = Math.max(1, options.batchSize ?? 16);
  const out = new Float64Array(texts.length);
  for (let at = 0; at < texts.length; at += batchSize) {
    if (options.signal?.aborted) throw new DOMException('Stopped.', 'AbortError');
    const batch = texts.slice(at, at + batchSize);
    const inputs = tokenizer(
      batch.map(() => question),
      {
        text_pair: [...batch],
        padding: true,
        truncation: true,
        max_length: options.maxLength ?? 512,
      },
    );
    const { logits } = await model(inputs);
    const perRow = logits.dims[1] ?? 1;
    if (perRow !== 1)
      throw new Error(`A cross-encoder has one logit per pair; this model has ${perRow} labels.`);
    for (let i = 0; i < batch.length; i++) out[at + i] = Number(logits.data[i]);
  }
  return out;
}

/**
 * Load a cross-encoder from the hub (or a mirror at `host`) as the pipelines' reranker. Runs on
 * the thread that calls it (wasm, or WebGPU when the page has it). The 8-bit export is tried
 * first (a quarter of the download), then the full-precision one.
 */
export async function loadCrossEncoder(
  modelId: string,
  host: string | undefined,
  signal?: AbortSignal,
): Promise<PipelineReranker> {
  const [transformers, setup] = await Promise.all([
    import('@huggingface/transformers'),
    import('./transformers-env'),
  ]);
  await setup.configureTransformers();
  if (host) setup.setHubHost(host);
  const release = setup.abortFetchesWith(signal);
  try {
    const tokenizer = await transformers.AutoTokenizer.from_pretrained(modelId);
    const load = (dtype: 'q8' | 'fp32') =>
      transformers.AutoModelForSequenceClassification.from_pretrained(modelId, { dtype });
    const model = await load('q8').catch((e: unknown) => {
      if (signal?.aborted) throw e;
      return load('fp32');
    });
    return {
      name: modelId,
      score: (question, texts, runSignal) =>
        crossEncoderScores(
          tokenizer as unknown as PairTokenizer,
          model as unknown as SequenceClassifier,
          question,
          texts,
          { signal: runSignal },
        ),
    };
  } finally {
    release();
  }
}
