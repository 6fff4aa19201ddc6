import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sharedDatasetPath } from '../../test/glove';
import { STATIC_EMBEDDER_ID } from '../core/embed/static';
import { splitProse } from '../core/fragment';
import { ingestFiles } from '../ingest/ingest';
import type { TextEmbedder } from '../models/embedder';
import type { IndexContext } from './types';
import { createIndexHandlers } from './handlers';
import type { IndexRequest } from './types';
import { isAbortError } from '../core/abort';
import type { Progress } from '../core/types';

/**
 * The index worker's split: a dropped plain-text book is split as it streams in, a
 * stored text in slices with progress and cancel; both give splitProse's fragments.
 */

/** Every text the same unit vector: the split is what is under test here. */
const flat: TextEmbedder = {
  id: STATIC_EMBEDDER_ID,
  dim: 2,
  embed: (texts) => Promise.resolve(new Float32Array(texts.length * 2).map((_, i) => 1 - (i % 2))),
};

const handlers = createIndexHandlers({
  ingest: (files, options) => ingestFiles(files, options),
  loadEmbedder: () => Promise.resolve(flat),
});

const context = (onProgress: (p: Progress) => void = () => {}, signal?: AbortSignal) =>
  ({
    signal: signal ?? new AbortController().signal,
    progress: onProgress,
    transfer: () => {},
  }) satisfies IndexContext;

const request = (source: IndexRequest['source']): IndexRequest => ({
  docId: 'd',
  source,
  wordsPerFragment: 200,
  semanticK: 4,
  embedder: { id: STATIC_EMBEDDER_ID, url: '' },
});

const bookPath = sharedDatasetPath('gutenberg', 'pg2600_war_and_peace.txt');

describe('the index worker splits a book', () => {
  it('as it streams in, and a stored text in slices: the fragments of splitProse', async () => {
    const bytes = readFileSync(bookPath);
    const file = new File([bytes], 'war-and-peace.txt', { type: 'text/plain' });
    const fromFile = await handlers.index(request({ file }), context());
    const { text, sections } = fromFile.document!;
    expect(fromFile.document).not.toHaveProperty('fragments');

    const splitStages: Progress[] = [];
    const fromText = await handlers.index(
      request({ text, sections }),
      context((p) => p.stage === 'split' && splitStages.push(p)),
    );
    // A report per MiB of text: War and Peace is over three million characters.
    expect(splitStages.length).toBeGreaterThan(3);
    expect(splitStages.at(-1)).toMatchObject({ done: text.length, total: text.length });

    const expected = splitProse('d', text, { wordsPerFragment: 200 });
    for (const { fragments } of [fromFile, fromText]) {
      expect(Array.from(fragments.starts)).toEqual(expected.map((f) => f.start));
      expect(Array.from(fragments.ends)).toEqual(expected.map((f) => f.end));
      expect(Array.from(fragments.words)).toEqual(expected.map((f) => f.words));
    }
    expect(fromText.fragments.labels).toEqual(fromFile.fragments.labels);
  });

  it('stops in the middle of splitting a stored text when cancelled', async () => {
    const text = readFileSync(bookPath, 'utf8').replace(/\r\n?/g, '\n');
    const controller = new AbortController();
    const seen: number[] = [];
    const error = await handlers
      .index(
        request({ text, sections: [] }),
        context((p) => {
          if (p.stage !== 'split') return;
          seen.push(p.done);
          if (p.done > 0) controller.abort();
        }, controller.signal),
      )
      .catch((e: unknown) => e);
    expect(isAbortError(error)).toBe(true);
    // Cancelled after the first slice: the rest of the text was never split.
    expect(seen).toEqual([0, 2 ** 20]);
  });
});
