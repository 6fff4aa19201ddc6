import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { coverWindows } from './cover';
import { buildCodeGraph, type CodeFile } from './graph';
import { fileText, layoutRepository, repositoryWindows } from './layout';
import { codeRelationMatrix } from './relation';
import { summaryCodeRelationMatrix } from './summary';
import { randomRepository } from './testing';
import type { CsrMatrix } from '../types';

function dense(m: CsrMatrix): Float64Array[] {
  const out = Array.from({ length: m.size }, () => new Float64Array(m.size));
  for (let i = 0; i < m.size; i++) {
    for (let p = m.rowPtr[i]; p < m.rowPtr[i + 1]; p++) out[i][m.col[p]] = m.weight[p];
  }
  return out;
}

function build(files: CodeFile[], windowLines = 4) {
  const graph = buildCodeGraph(files);
  const layout = layoutRepository(files);
  const texts = files.map((_, k) => fileText(layout, k));
  const { windows } = repositoryWindows('r', layout, {
    windowLines,
    windowStride: Math.max(1, windowLines >> 1),
  });
  return { graph, cover: coverWindows(graph, texts, windows) };
}

// Deep enough that some file pairs are beyond the threshold through the directory tree.
const DIRS = ['', 'a', 'a/b', 'a/b/c', 'a/b/c/d', 'e', 'e/f', 'a/g'];

describe('the summarised Eq. 8 (8b) against the exact relation', () => {
  it('equals Eq. 8 within the threshold when there are no calls (the graph is a tree)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        fc.constantFrom(1e-3, 1e-2, 0.05),
        (seed, threshold) => {
          const { graph, cover } = build(
            randomRepository(seed, { calls: false, dirs: DIRS, maxFiles: 8 }),
          );
          const exact = dense(codeRelationMatrix(graph, cover, { threshold, maxPerRow: Infinity }));
          const approx = dense(
            summaryCodeRelationMatrix(graph, cover, {
              threshold,
              maxPerRow: Infinity,
              searchLimit: Infinity,
            }),
          );
          for (let i = 0; i < exact.length; i++) {
            for (let j = 0; j < exact.length; j++) {
              // (8b) keeps U D U pairs below the threshold that Eq. 8 drops: at most + threshold
              // on the weight, and a weight Eq. 8 cut (< threshold) may then be kept.
              const d = approx[i][j] - exact[i][j];
              expect(d).toBeGreaterThanOrEqual(-1e-6);
              expect(d).toBeLessThanOrEqual((exact[i][j] === 0 ? 2 : 1) * threshold + 1e-6);
            }
          }
        },
      ),
      { numRuns: 20 },
    );
  });

  it('never exceeds Eq. 8 by more than the threshold with calls, and loses little', () => {
    let exactSum = 0;
    let approxSum = 0;
    for (let seed = 1; seed <= 20; seed++) {
      const threshold = 1e-3;
      const { graph, cover } = build(randomRepository(seed * 7919, { dirs: DIRS, maxFiles: 8 }));
      const exact = dense(codeRelationMatrix(graph, cover, { threshold, maxPerRow: Infinity }));
      const approx = dense(
        summaryCodeRelationMatrix(graph, cover, {
          threshold,
          maxPerRow: Infinity,
          searchLimit: Infinity,
        }),
      );
      for (let i = 0; i < exact.length; i++) {
        for (let j = 0; j < exact.length; j++) {
          const slack = (exact[i][j] === 0 ? 2 : 1) * threshold + 1e-6;
          expect(approx[i][j]).toBeLessThanOrEqual(exact[i][j] + slack);
          exactSum += exact[i][j];
          approxSum += approx[i][j];
        }
      }
    }
    // What (8a) leaves out (paths that walk a third file's directory) is a small share here.
    expect(approxSum / exactSum).toBeGreaterThan(0.9);
  });

  it('a cut search loses at most the strength where it stopped (a lower bound, still)', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const { graph, cover } = build(randomRepository(seed * 104729, { dirs: DIRS, maxFiles: 8 }));
      const full = dense(
        summaryCodeRelationMatrix(graph, cover, { maxPerRow: Infinity, searchLimit: Infinity }),
      );
      const cut = dense(
        summaryCodeRelationMatrix(graph, cover, { maxPerRow: Infinity, searchLimit: 4 }),
      );
      for (let i = 0; i < full.length; i++) {
        for (let j = 0; j < full.length; j++) {
          expect(cut[i][j]).toBeLessThanOrEqual(full[i][j] + 1e-6);
        }
      }
    }
  });

  it('keeps exactly the strongest maxPerRow of each summarised row', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const { graph, cover } = build(randomRepository(seed * 31, { dirs: DIRS, maxFiles: 8 }), 2);
      const all = summaryCodeRelationMatrix(graph, cover, { maxPerRow: Infinity });
      const top = summaryCodeRelationMatrix(graph, cover, { maxPerRow: 3 });
      for (let i = 0; i < all.size; i++) {
        const want = Array.from(all.weight.subarray(all.rowPtr[i], all.rowPtr[i + 1]))
          .sort((a, b) => b - a)
          .slice(0, 3);
        const got = Array.from(top.weight.subarray(top.rowPtr[i], top.rowPtr[i + 1])).sort(
          (a, b) => b - a,
        );
        expect(got).toEqual(want);
        const cols = Array.from(top.col.subarray(top.rowPtr[i], top.rowPtr[i + 1]));
        expect(cols).toEqual([...cols].sort((a, b) => a - b));
      }
    }
  });

  it('stops when progress throws (cancel)', () => {
    const { graph, cover } = build(randomRepository(99, { dirs: DIRS, maxFiles: 8 }), 2);
    expect(() =>
      summaryCodeRelationMatrix(graph, cover, {
        onProgress: () => {
          throw new Error('aborted');
        },
      }),
    ).toThrow('aborted');
  });
});
