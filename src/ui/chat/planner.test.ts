import { describe, expect, it, vi } from 'vitest';
import { loadGloveFromDisk } from '../../../test/glove';
import { staticEmbedder } from '../../models/embedder';
import type { TextEmbedder } from '../../models/embedder';
import { prepareMemory, type MemoryRequest, type PlannerDeps } from './planner';
import { BISCUIT_CHAT, BISCUIT_QUESTION, fakeRetrieval } from './testing';
import { VectorCache } from './vectors';

const glove = loadGloveFromDisk();

function countingEmbedder() {
  const inner = staticEmbedder(glove);
  const embedded: string[] = [];
  const embedder: TextEmbedder = {
    id: inner.id,
    dim: inner.dim,
    embed: (texts, options) => {
      embedded.push(...texts);
      return inner.embed(texts, options);
    },
  };
  return { embedder, embedded };
}

const request = (over: Partial<MemoryRequest> = {}): MemoryRequest => ({
  rounds: BISCUIT_CHAT,
  message: BISCUIT_QUESTION,
  settings: {},
  docIds: [],
  contextLimit: 8192,
  answerTokens: 512,
  style: 'chat',
  ...over,
});

function deps(over: Partial<PlannerDeps> = {}): PlannerDeps {
  return {
    vectors: new VectorCache(async () => staticEmbedder(glove)),
    queryLibrary: () => Promise.reject(new Error('no library in this test')),
    sourceOf: async () => undefined,
    ...over,
  };
}

describe('round vectors', () => {
  it('embeds each round once, and the query every time', async () => {
    const { embedder, embedded } = countingEmbedder();
    const cache = new VectorCache(async () => embedder);
    const texts = ['a cat on the stairs', 'boiling spaghetti'];
    const first = await cache.vectors(texts, 'the cat');
    expect(first.rounds.count).toBe(2);
    expect(first.rounds.data.length).toBe(2 * embedder.dim);
    expect(first.query.length).toBe(embedder.dim);
    const second = await cache.vectors([...texts, 'a third round'], 'spaghetti');
    expect(embedded).toEqual([...texts, 'the cat', 'a third round', 'spaghetti']);
    expect(second.rounds.data.subarray(0, 2 * embedder.dim)).toEqual(first.rounds.data);
    expect(cache.size).toBe(3);
  });

  it('forgets the least recently used texts beyond its capacity, and loads again after a failure', async () => {
    const { embedder, embedded } = countingEmbedder();
    let fail = true;
    const cache = new VectorCache(async () => {
      if (fail) throw new Error('offline');
      return embedder;
    }, 2);
    await expect(cache.vectors(['x'], 'q')).rejects.toThrow('offline');
    fail = false;
    await cache.vectors(['a', 'b'], 'q');
    await cache.vectors(['a', 'c'], 'q');
    expect(cache.size).toBe(2);
    await cache.vectors(['a', 'b'], 'q');
    expect(embedded.filter((t) => t === 'b')).toHaveLength(2);
    expect(embedded.filter((t) => t === 'a')).toHaveLength(1);
  });
});

describe('preparing the memory of a message', () => {
  it('scores the rounds densely and recalls the round the message refers to', async () => {
    const view = await prepareMemory(deps(), request());
    expect(view.notes).toEqual([]);
    expect(view.plan.scoring).toBe('dense');
    expect(view.plan.mode).toBe('memory');
    expect(view.plan.retrieved).toContain(1);
    expect(view.plan.tokens.budget).toBe(view.budget.recall);
    expect(view.documents).toBeNull();
    expect(view.parts.input.evidence.some((e) => e.location === 'round 2')).toBe(true);
  });

  it('falls back to BM25 when the word vectors cannot be had, and says so', async () => {
    const view = await prepareMemory(
      deps({ vectors: new VectorCache(() => Promise.reject(new Error('404 at glove'))) }),
      request({ settings: { scoring: 'dense' } }),
    );
    expect(view.plan.scoring).toBe('bm25');
    expect(view.notes[0]).toMatch(/word vectors could not be loaded \(404 at glove\)/);
    expect(view.plan.retrieved).toContain(1);
  });

  it('a first message needs no vectors', async () => {
    const load = vi.fn(async () => staticEmbedder(glove));
    const view = await prepareMemory(
      deps({ vectors: new VectorCache(load) }),
      request({ rounds: [], settings: { scoring: 'dense' } }),
    );
    expect(load).not.toHaveBeenCalled();
    expect(view.plan.rounds).toEqual([]);
    expect(view.parts.input.history).toEqual([]);
  });

  it('with linked documents, asks the library with the same query and shares the budget', async () => {
    const { result, source } = fakeRetrieval(
      ['Biscuit the ginger cat slept on the lamp room stairs.', 'Fog rolled in.'],
      [0.9, 0.2],
      2,
    );
    const queryLibrary = vi.fn(async () => result);
    const sourceOf = vi.fn(async (id: string) => (id === 'doc' ? source : undefined));
    const view = await prepareMemory(
      deps({ queryLibrary, sourceOf }),
      request({ docIds: ['doc'] }),
    );
    expect(queryLibrary).toHaveBeenCalledTimes(1);
    const [query, docIds] = queryLibrary.mock.calls[0] as unknown as [string, string[]];
    expect(query).toBe(
      `${BISCUIT_CHAT[11].user}\n${BISCUIT_CHAT[11].assistant}\n${BISCUIT_QUESTION}`,
    );
    expect(docIds).toEqual(['doc']);
    expect(view.documents?.sources.get('doc')).toBe(source);
    expect(view.plan.split?.documents).toBeGreaterThan(0);
    expect(view.parts.refs.filter((r) => r.kind === 'document')).toHaveLength(2);
  });

  it('goes on with chat memory alone when the library cannot be searched', async () => {
    const view = await prepareMemory(deps(), request({ docIds: ['doc'] }));
    expect(view.documents).toBeNull();
    expect(view.plan.split).toBeUndefined();
    expect(view.notes[0]).toMatch(/library could not be searched \(no library in this test\)/);
  });

  it('stops when aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const cache = new VectorCache(async () => ({
      id: 'x',
      dim: 2,
      embed: async () => {
        throw new DOMException('Aborted', 'AbortError');
      },
    }));
    await expect(
      prepareMemory(deps({ vectors: cache }), request(), controller.signal),
    ).rejects.toThrow('Aborted');
  });
});
