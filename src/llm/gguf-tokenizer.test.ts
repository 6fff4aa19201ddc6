/**
 * The tokenizer rebuilt from a GGUF file counts exactly what llama.cpp counts: checked token for
 * token against llama.cpp's own tokenizer (node-llama-cpp's native build) on the real SmolLM2
 * file `npm run models` fetched, over prose from two books, numbers, accents, CJK, emoji and code.
 */
import { openAsBlob } from 'node:fs';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasetPath } from '../../test/datasets';
import { realModelPath, requireRealModel } from '../../test/real-models';
import { SHARED_MODELS } from '../../e2e/support/hub-mirror';
import { BLOB_URI, blobFetch, ggufTokenCounter, type GgufTokenCounter } from './gguf-tokenizer';

const { hubId } = requireRealModel('SmolLM2-135M-Instruct');
const SMOL = realModelPath(hubId, 'SmolLM2-135M-Instruct.Q4_1.gguf');

function samples(): string[] {
  const alice = readFileSync(datasetPath('gutenberg', 'pg11.txt'), 'utf8');
  const wp = readFileSync(datasetPath('gutenberg', 'pg2600_war_and_peace.txt'), 'utf8');
  const out: string[] = [];
  for (let i = 0; i < 40; i++) out.push(alice.slice(i * 3700, i * 3700 + 1500));
  for (let i = 0; i < 30; i++) out.push(wp.slice(i * 100_000, i * 100_000 + 1500));
  out.push(
    'In 1865, 42 cats ate 3.14159 pies; «Ça va?» — naïve café 東京 😀  tabs\tand\n\nnewlines.',
  );
  out.push('function f(x) { return x * 2 + 10; } // comment\n    snake_case = [1,2,3]');
  return out;
}

describe('ggufTokenCounter on the real SmolLM2 file', () => {
  let counter: GgufTokenCounter | null;
  let native: { tokenize(text: string): readonly unknown[]; dispose(): Promise<void> };
  let llama: { dispose(): Promise<void> };

  beforeAll(async () => {
    counter = await ggufTokenCounter(BLOB_URI, { fetch: blobFetch(await openAsBlob(SMOL)) });
    const { getLlama } = await import('node-llama-cpp');
    llama = await getLlama({ gpu: false, build: 'never' });
    native = await (llama as Awaited<ReturnType<typeof getLlama>>).loadModel({ modelPath: SMOL });
  }, 120_000);
  afterAll(async () => {
    await native?.dispose();
    await llama?.dispose();
  });

  it('is built (read through a Blob, as the page reads a dropped or kept file)', () => {
    expect(counter?.pre).toBe('smollm');
  });

  it('counts every sample exactly as llama.cpp tokenizes it', () => {
    const texts = samples();
    const mismatches = texts.filter((t) => counter!.count(t) !== native.tokenize(t).length);
    expect(mismatches).toEqual([]);
    // Not a constant: the counts follow the texts.
    const counts = new Set(texts.map((t) => counter!.count(t)));
    expect(counts.size).toBeGreaterThan(20);
  });
});

describe('ggufTokenCounter on a tokenizer it does not rebuild', () => {
  it('returns null for a SentencePiece llama (the page then counts with the model)', async () => {
    const file = resolve(SHARED_MODELS, 'stories260K/stories260K.gguf');
    expect(await ggufTokenCounter(file, { allowLocalFile: true })).toBeNull();
  });
});
