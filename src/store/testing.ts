/**
 * @file Fixtures for the store's tests: small, deterministic documents with every index part.
 * Plain data only (no IndexedDB, no Node APIs).
 */
import { defaultFragmentOptions } from '../core/options';
import type { CsrMatrix, Fragment, VectorSet } from '../core/types';
import { packFragments } from './codec';
import type { IndexedDocumentInput } from './library';

/** A source of `count` sentences and the fragments tiling it, one sentence each. */
export function sampleText(
  docId: string,
  count: number,
): { source: string; fragments: Fragment[] } {
  let source = '';
  const fragments: Fragment[] = [];
  for (let i = 0; i < count; i++) {
    const start = source.length;
    source += `Sentence ${i} of ${docId} says something. `;
    const f: Fragment = { docId, ordinal: i, start, end: source.length, words: 5 };
    if (i % 3 === 0) f.label = `Chapter ${i / 3 + 1}`;
    fragments.push(f);
  }
  return { source, fragments };
}

/** Deterministic pseudo-random vectors (not normalised; the store does not care). */
export function sampleVectors(count: number, dim: number, seed = 1): VectorSet {
  const data = new Float32Array(count * dim);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < data.length; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    data[i] = x / 2 ** 32 - 0.5;
  }
  return { dim, count, data };
}

/** Each fragment related to its neighbours, weight 1 / (1 + i). */
export function sampleCsr(size: number): CsrMatrix {
  const rowPtr = new Uint32Array(size + 1);
  const col: number[] = [];
  const weight: number[] = [];
  for (let i = 0; i < size; i++) {
    for (const j of [i - 1, i + 1]) {
      if (j >= 0 && j < size) {
        col.push(j);
        weight.push(1 / (1 + i));
      }
    }
    rowPtr[i + 1] = col.length;
  }
  return { size, rowPtr, col: Uint32Array.from(col), weight: Float32Array.from(weight) };
}

export interface SampleOptions {
  name?: string;
  count?: number;
  dim?: number;
  embedderId?: string;
  addedAt?: number;
  seed?: number;
}

/** A whole indexed document: source, fragments, one vector set, a semantic and a context relation. */
export function sampleDocument(id: string, options: SampleOptions = {}): IndexedDocumentInput {
  const { count = 12, dim = 8, embedderId = 'glove-100d', addedAt = 1_700_000_000_000 } = options;
  const { source, fragments } = sampleText(id, count);
  return {
    document: {
      id,
      name: options.name ?? `${id}.txt`,
      format: 'text',
      kind: 'prose',
      bytes: source.length,
      sha256: 'ab'.repeat(32),
      addedAt,
      status: 'indexed',
      fragmentOptions: { ...defaultFragmentOptions },
      embedderId,
      sections: [{ title: 'Chapter 1', kind: 'chapter', start: 0, end: source.length }],
    },
    source,
    fragments: packFragments(fragments),
    vectors: [{ embedderId, vectors: sampleVectors(count, dim, options.seed ?? 1) }],
    relations: [
      { kind: 'semantic', params: { k: 2, embedderId }, matrix: sampleCsr(count) },
      { kind: 'context', params: { wRel: 0.3 } },
    ],
  };
}
