import { describe, expect, it } from 'vitest';
import { csrRelation } from './relations/csr';
import { buildRun, rankRun, runIndependentScores, type RunDocumentIndex } from './run';
import type { CsrMatrix } from './types';

/** A document whose fragments are its sentences, one word each costing 1 per word. */
function doc(docId: string, sentences: string[], semantic?: CsrMatrix): RunDocumentIndex {
  const source = sentences.join(' ');
  const starts: number[] = [];
  const ends: number[] = [];
  let at = 0;
  for (const s of sentences) {
    starts.push(at);
    ends.push(at + s.length);
    at += s.length + 1;
  }
  return {
    docId,
    name: docId,
    source,
    starts: Uint32Array.from(starts),
    ends: Uint32Array.from(ends),
    words: Uint32Array.from(sentences, (s) => s.split(' ').length),
    labels: sentences.map((_, i) => `s${i}`),
    semantic,
  };
}

describe('buildRun', () => {
  it('lays documents out one after another and offsets their relations', () => {
    // Doc a: 0 -> 1 (0.5); doc b: 1 -> 0 (0.25).
    const a = doc('a', ['alpha one', 'alpha two'], {
      size: 2,
      rowPtr: Uint32Array.of(0, 1, 1),
      col: Uint32Array.of(1),
      weight: Float32Array.of(0.5),
    });
    const b = doc('b', ['beta one', 'beta two', 'beta three'], {
      size: 3,
      rowPtr: Uint32Array.of(0, 0, 1, 1),
      col: Uint32Array.of(0),
      weight: Float32Array.of(0.25),
    });
    const run = buildRun([a, b]);
    expect([...run.segments]).toEqual([0, 2, 5]);
    expect(run.documents.map((d) => [d.docId, d.offset, d.count])).toEqual([
      ['a', 0, 2],
      ['b', 2, 3],
    ]);
    expect([...run.costs]).toEqual([2, 2, 2, 2, 2]);
    expect(run.labels).toEqual(['s0', 's1', 's0', 's1', 's2']);
    // Row 3 (b's second fragment) points at global 2 (b's first), never into doc a.
    expect([...run.semantic!.rowPtr]).toEqual([0, 1, 1, 1, 2, 2]);
    expect([...run.semantic!.col]).toEqual([1, 2]);
    expect([...run.semantic!.weight]).toEqual([0.5, 0.25]);
    // Eq. 9 over the joined relation: s_env[3] = s_ind[2].
    const env = csrRelation('semantic', run.semantic!).environmentScores(
      Float64Array.of(0, 0.8, 0.6, 0, 0),
    );
    expect(env[3]).toBeCloseTo(0.6, 12);
    expect(env[0]).toBeCloseTo(0.8, 12);
  });

  it('has no semantic relation when a document lacks one', () => {
    const run = buildRun([doc('a', ['x']), doc('b', ['y'])]);
    expect(run.semantic).toBeNull();
    expect(run.vectors).toBeNull();
  });
});

describe('runIndependentScores and rankRun', () => {
  const a = doc('a', [
    'the whale surfaced near the ship',
    'sailors lowered the boats',
    'the harpoon struck the whale',
    'dinner was served below deck',
  ]);
  const b = doc('b', ['a garden of roses', 'the whale of a time they had']);

  it('scores BM25 over every fragment of the run, rescaled so the best is 1', () => {
    const run = buildRun([a, b]);
    const s = runIndependentScores(run, { tokens: ['harpoon', 'whale'] }, 'bm25');
    expect(s.length).toBe(6);
    expect(Math.max(...s)).toBe(1);
    expect(s.indexOf(1)).toBe(2); // the only fragment with both terms
    expect(s[1]).toBe(0);
    expect(s[3]).toBe(0);
  });

  it('refuses dense scoring without vectors, with a message saying what to do', () => {
    const run = buildRun([a]);
    expect(() => runIndependentScores(run, { tokens: ['whale'] }, 'dense')).toThrow(/choose BM25/);
  });

  it('with alpha 0 ranks by the independent scores alone, and keeps the context relation inside a document', () => {
    const run = buildRun([a, b]);
    const s = runIndependentScores(run, { tokens: ['harpoon', 'whale'] }, 'bm25');
    const plain = rankRun(run, s, { alpha: 0, relations: ['context'], budget: 100, listed: 6 });
    const order = [...s.keys()].sort((i, j) => s[j] - s[i] || i - j);
    expect([...plain.top]).toEqual(order);
    const rel = rankRun(run, s, {
      alpha: 0.5,
      wRel: 0.5,
      relations: ['context'],
      budget: 100,
      listed: 6,
    });
    // Fragment 4 (doc b's first) borders doc a's last fragment in the run but is not its neighbour.
    const ex = rel.explanations.get(4)!;
    expect(ex.byKind.context.contributions.map((c) => c.index)).toEqual([5]);
    // Budget 10 words: the selection fills it in rank order and is returned in document order.
    const tight = rankRun(run, s, { alpha: 0.5, relations: ['context'], budget: 10, listed: 3 });
    expect(tight.selection.used).toBeLessThanOrEqual(10);
    expect([...tight.selection.indices]).toEqual(
      [...tight.selection.indices].sort((x, y) => x - y),
    );
    expect(tight.cutoff).toBe(
      tight.scores.final[tight.selection.ranked[tight.selection.ranked.length - 1]],
    );
  });
});
