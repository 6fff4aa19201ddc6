import { AutoModelForSequenceClassification, AutoTokenizer, env } from '@huggingface/transformers';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sharedDatasetPath } from '../../test/glove';
import { crossEncoderScores, type PairTokenizer, type SequenceClassifier } from './cross-encoder';

// The tiny random-weight cross-encoder proves the plumbing (pairs, batches, one logit each), not ranking.
describe('crossEncoderScores on the tiny cross-encoder (plumbing only)', () => {
  it('scores every pair once, in order, the same in any batch size', async () => {
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    // ../shared/models, next to ../shared/datasets.
    env.localModelPath = join(sharedDatasetPath(), '..', 'models');
    const id = 'opensearch-tiny-xlm-roberta-cross-encoder';
    const tokenizer = (await AutoTokenizer.from_pretrained(id)) as unknown as PairTokenizer;
    const model = (await AutoModelForSequenceClassification.from_pretrained(id, {
      dtype: 'fp32',
    })) as unknown as SequenceClassifier;
    const texts = [
      'hello world',
      'digital registration completed',
      'summer',
      'asking the user a question',
      'world',
    ];
    const question = 'registration question';
    const batched = await crossEncoderScores(tokenizer, model, question, texts, {
      batchSize: 2,
      maxLength: 62,
    });
    const single = await crossEncoderScores(tokenizer, model, question, texts, {
      batchSize: 1,
      maxLength: 62,
    });
    expect(batched).toHaveLength(texts.length);
    for (let i = 0; i < texts.length; i++) expect(batched[i]).toBeCloseTo(single[i], 5);
    expect(new Set(Array.from(batched)).size).toBeGreaterThan(1);
    await expect(
      crossEncoderScores(tokenizer, model, question, texts, { signal: { aborted: true } }),
    ).rejects.toThrow(/Stopped/);
  });
});
