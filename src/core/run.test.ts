import { describe, expect, it } from 'vitest';
import { csrRelation } from './relations/csr';
import {
  buildRun,
  parseWindowLabel,
  rankRun,
  runIndependentScores,
  windowsOverlapping,
  type RunDocumentIndex,
} from './run';
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

describe('the code relation in a run', () => {
  // A repository of two files: a.js (windows 0, 1) and b.js (window 2), and a book.
  const repoSource = ['function helper() {}', 'helper();', 'export const run = () => helper();'];
  const repo: RunDocumentIndex = {
    ...doc('repo', repoSource),
    labels: ['a.js:1-20', 'a.js:11-30', 'b.js:1-20'],
    // Eq. 8 as stored: window 2 relates to 0 strongly and to 1 weakly; 0 and 1 to each other.
    code: {
      size: 3,
      rowPtr: Uint32Array.of(0, 1, 2, 4),
      col: Uint32Array.of(1, 0, 0, 1),
      weight: Float32Array.of(0.5, 0.5, 0.4, 0.1),
    },
  };
  const book = doc('book', ['a helper of the ship', 'the crew ran']);

  it('lays the code relation out over the run, with empty rows for documents without one', () => {
    const run = buildRun([book, repo]);
    expect(run.semantic).toBeNull();
    expect(run.code).not.toBeNull();
    expect([...run.code!.rowPtr]).toEqual([0, 0, 0, 1, 2, 4]);
    expect([...run.code!.col]).toEqual([3, 2, 2, 3]);
    expect(buildRun([book]).code).toBeNull();
  });

  it('Eq. 9 over the code relation, and alpha 0 equal to plain BM25', () => {
    const run = buildRun([book, repo]);
    const s = Float64Array.of(0, 0, 1, 0, 0);
    const r = rankRun(run, s, { alpha: 0.5, relations: ['code'], budget: 1000, listed: 5 });
    // s_env[4] = (0.4 * 1 + 0.1 * 0) / 0.5 = 0.8; the book's fragments have none.
    expect(r.scores.environmentByKind.code[4]).toBeCloseTo(0.8, 6);
    expect(r.scores.environmentByKind.code[0]).toBe(0);
    expect(r.scores.final[4]).toBeCloseTo(0.4, 6);
    const contributions = r.explanations.get(4)!.byKind.code.contributions;
    expect(contributions.map((c) => c.index)).toEqual([2]);
    const plain = rankRun(run, s, { alpha: 0, relations: ['code'], budget: 1000, listed: 5 });
    expect([...plain.scores.final]).toEqual([...s]);
  });

  it('selects by count, and keeps excluded windows out of the ranking but not out of Eq. 9', () => {
    const run = buildRun([book, repo]);
    const s = Float64Array.of(0.1, 0.2, 1, 0.3, 0.6);
    const all = rankRun(run, s, { relations: ['code'], budget: Infinity, maxSelected: 2 });
    expect(all.selection.ranked.length).toBe(2);
    expect(all.selection.ranked[0]).toBe(2);

    const cursor = windowsOverlapping(run, 'repo', 'a.js', 1, 5);
    expect(cursor).toEqual([2]);
    const r = rankRun(run, s, {
      relations: ['code'],
      budget: Infinity,
      maxSelected: 2,
      listed: 5,
      exclude: cursor,
    });
    expect([...r.top]).not.toContain(2);
    expect(r.top.length).toBe(4);
    expect([...r.selection.indices]).not.toContain(2);
    expect(r.selection.indices.length).toBe(2);
    // Document order, and the excluded window still lends its score: s_env[4] = 0.4*1+0.1*0.3 / 0.5.
    expect([...r.selection.indices]).toEqual([...r.selection.indices].sort((x, y) => x - y));
    expect(r.scores.environmentByKind.code[4]).toBeCloseTo((0.4 + 0.03) / 0.5, 6);
    expect(r.explanations.get(r.selection.ranked[0])!.rank).toBe(0);
  });

  it('merges overlapping selected windows into spans, with the book left out', () => {
    const run = buildRun([book, repo]);
    // Windows 2 (a.js:1-20) and 3 (a.js:11-30) rank first, then 4 (b.js:1-20).
    const s = Float64Array.of(0.1, 0.2, 1, 0.9, 0.6);
    const r = rankRun(run, s, {
      relations: ['code'],
      budget: Infinity,
      maxSelected: 2,
      mergeWindows: true,
    });
    // 40 lines: a.js 1-30 (20 + 10 new lines), then b.js's 20 would pass 40; nothing else fits.
    expect([...r.selection.indices]).toEqual([2, 3]);
    expect(r.selection.used).toBe(30);
    expect(r.spans).toEqual([
      { file: 'repo\u0000a.js', first: 1, last: 30, windows: [2, 3], rank: 0, best: 2 },
    ]);
    // The book's fragments are no windows and are never taken.
    const wide = rankRun(run, s, { relations: ['code'], maxSelected: 10, mergeWindows: true });
    expect([...wide.selection.indices]).toEqual([2, 3, 4]);
  });

  it('reads window labels and finds the windows around a line', () => {
    expect(parseWindowLabel('src/a:b.js:11-30')).toEqual({
      path: 'src/a:b.js',
      first: 11,
      last: 30,
    });
    expect(parseWindowLabel('CHAPTER IX')).toBeNull();
    const run = buildRun([book, repo]);
    expect(windowsOverlapping(run, 'repo', 'a.js', 15, 15)).toEqual([2, 3]);
    expect(windowsOverlapping(run, 'repo', 'a.js', 25, 40)).toEqual([3]);
    expect(windowsOverlapping(run, 'repo', 'b.js', 21, 40)).toEqual([]);
    expect(windowsOverlapping(run, 'book', 'a.js', 1, 40)).toEqual([]);
  });
});

describe("the 'section' relation kind", () => {
  it('relates fragments with the same label within a document, never across documents', () => {
    const chapters = (docId: string, labels: string[]) => ({
      ...doc(
        docId,
        labels.map((l, i) => `${l} word${i}`),
      ),
      labels,
    });
    const run = buildRun([
      chapters('a', ['Chapter 1', 'Chapter 1', 'Chapter 2']),
      chapters('b', ['Chapter 2', '']),
    ]);
    const independent = Float64Array.of(0.2, 0.8, 0.5, 1, 0.4);
    const ranked = rankRun(run, independent, { relations: ['section'], alpha: 0.5, budget: 100 });
    // Fragment 0 takes fragment 1's score; fragment 2 is alone in doc a's "Chapter 2" (doc b's
    // "Chapter 2" is another document); the unlabelled fragment relates to nothing.
    [0.8, 0.2, 0, 0, 0].forEach((want, i) =>
      expect(ranked.scores.environment[i]).toBeCloseTo(want, 12),
    );
    expect(ranked.scores.final[0]).toBeCloseTo(0.2 + 0.5 * 0.8, 12);
  });
});

describe("the 'ppr' relation kind", () => {
  it('walks the context edges in a book and only the code edges in a repository', () => {
    const book = doc('book', ['one', 'two', 'three']);
    // Repository windows 0 and 2 joined by the code relation; window 1 joined to nothing.
    const repo = {
      ...doc('repo', ['def f', 'x = 1', 'f()']),
      code: {
        size: 3,
        rowPtr: Uint32Array.of(0, 1, 1, 2),
        col: Uint32Array.of(2, 0),
        weight: Float32Array.of(0.8, 0.8),
      },
    };
    const run = buildRun([book, repo]);
    const independent = Float64Array.of(1, 0, 0, 1, 0, 0);
    const env = rankRun(run, independent, { relations: ['ppr'], alpha: 0.5, budget: 100 }).scores
      .environment;
    expect(env[1]).toBeGreaterThan(0); // the book's neighbour of its seed
    expect(env[5]).toBeGreaterThan(0); // the window the seed's code edge reaches
    expect(env[4]).toBe(0); // the repository window next to the seed, with no code edge
  });
});
